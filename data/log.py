"""The move log: adding entries inside another family's transaction, checking they belong
to the game being written, reading a game's log back, and pruning old logs.

Entries are written with the snapshot (data/games.py) or the result (data/results.py) they
go with, in the same transaction: ``check_log`` before the turn, ``insert_log`` inside it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from data import queries
from data.backend import Backend, Params, Transaction
from data.models import LogEntry

logger = logging.getLogger(__name__)


def check_log(log: Sequence[LogEntry], game_id: str | None, guild_id: int,
              channel_id: int) -> None:
    """Every entry belongs to the game (``game_id`` None: to any game of the channel), else
    ``ValueError`` (raised before anything is written)."""
    for entry in log:
        if not isinstance(entry, LogEntry):
            raise ValueError(f"log must hold LogEntry items, got {entry!r}.")
        if ((game_id or entry.game_id, entry.guild_id, entry.channel_id)
                != (entry.game_id, guild_id, channel_id)):
            raise ValueError(
                f"Log entry {entry.seq} belongs to game {entry.game_id} (guild "
                f"{entry.guild_id}, channel {entry.channel_id}), not to game {game_id} (guild "
                f"{guild_id}, channel {channel_id})."
            )


async def insert_log(tx: Transaction, log: Sequence[LogEntry]) -> None:
    """Add the entries in order (one ``execute_many``); an entry whose ``(game_id, seq)``
    is already stored replaces it (``queries.INSERT_LOG_ENTRY``)."""
    if not log:
        return
    await tx.execute_many(queries.INSERT_LOG_ENTRY, log_rows(log))


def log_rows(log: Sequence[LogEntry]) -> list[Params]:
    """The values of ``queries.INSERT_LOG_ENTRY`` for each entry, in order."""
    return [(entry.game_id, entry.guild_id, entry.channel_id, entry.seq, entry.entry,
             entry.created_at) for entry in log]


class GameLog:
    """Reading the move log back (``/uno log``, the replay) and pruning old logs."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend

    async def game_log(
        self, guild_id: int, game_id: str, *, last: int | None = None
    ) -> list[LogEntry]:
        """The game's log in ``seq`` order; with ``last=N``, the header (seq 0) and the N
        newest entries. Only rows of ``guild_id``: another guild's game id gives ``[]``."""
        params: Params
        if last is None:
            sql, params = queries.GAME_LOG, (guild_id, game_id)
        else:
            if isinstance(last, bool) or not isinstance(last, int) or last < 0:
                raise ValueError(f"last must be a whole number of 0 or more, got {last!r}.")
            sql = queries.GAME_LOG_LAST
            params = (guild_id, game_id, guild_id, game_id, last)
        rows = await self._backend.fetch_all(sql, params)
        return [LogEntry.from_row(row) for row in rows]

    async def latest_game_id(self, guild_id: int, channel_id: int) -> str | None:
        """The game whose header (seq 0) is the newest logged in the channel, or None.

        Newest by the header's ``created_at``; games started in the same second are ordered
        by ``game_id`` (the greater wins), never by insertion order.
        """
        row = await self._backend.fetch_one(queries.LATEST_GAME_ID, (guild_id, channel_id))
        return str(row["game_id"]) if row is not None else None

    async def prune_logs(self, older_than: int) -> int:
        """Delete the logs of games whose header is older than ``older_than`` (unix seconds)
        and that are neither saved (still running) nor set aside; the number of rows deleted.

        Rows of a game without a header are never pruned by this. Done once across the
        fleet: processes pruning at the same moment take turns (a fleet lock held by the
        transaction), so the first deletes the rows and the others find none left, instead
        of deleting the same rows in different orders and deadlocking.
        """
        async with self._backend.write("prune old game logs") as tx:
            await tx.lock("prune-logs")
            deleted = await tx.execute(queries.PRUNE_LOGS, (older_than,))
        if deleted:
            logger.info("Pruned %d game log rows older than %d", deleted, older_than)
        return deleted
