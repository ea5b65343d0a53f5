"""Games in progress: saving their snapshots (with group commit), loading them after a
restart, ending them without a result, and setting aside a game that cannot be resumed.

Group commit: a ``save_game`` made while the connection is in use does not take a turn of
its own; it joins the saves queued right before it, and up to ``SAVE_BATCH_MAX`` of them are
written in one transaction when their shared turn comes. Saves only join when nothing else
(another write, a read, ``close``) queued after the group began: any other call closes the
group, and later saves start a new one behind it. So every call is carried out exactly in
the order it was made, as with a plain lock; in particular a ``record_game`` or ``end_game``
is never overtaken by a ``save_game`` called before it, nor preceded by one called after it.
A save made while the connection is idle is written at once, alone. ``group_commit=False``
gives every save its own turn and transaction (for the benchmark and tests). The line
(``Turns``) and the queue of saves (``SaveQueue``) are in data/batching.py; this module
gives the queue the SQL of writing saves together and alone.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence

from data import queries
from data.backend import Backend, Params, Statements
from data.batching import PendingSave
from data.log import check_log, insert_log, log_rows
from data.models import LogEntry, SavedGame, SetAsideGame

logger = logging.getLogger(__name__)


class Games:
    """The saved games (one a channel) and the set-aside ones."""

    def __init__(self, backend: Backend, *, group_commit: bool = True) -> None:
        self._backend = backend
        self._group_commit = group_commit
        self.saves = backend.queue_saves(self._write_together, self._write_alone)
        """The saves waiting for their batch (tests look at it)."""

    # --- games in progress ----------------------------------------------------------------

    async def save_game(self, game: SavedGame, log: Sequence[LogEntry] = ()) -> None:
        """Insert or replace the game in progress of ``game.channel_id`` and add ``log``.

        One transaction: the snapshot and the log entries are written together or not at all
        (``DatabaseWriteError``). A log entry whose ``(game_id, seq)`` is already stored
        replaces it (the move's sequence number decides, and the latest save is the game as
        it is): saving the same thing twice stores it once, and the move made in place of
        one the bot undid (its save failed for the bot but was stored) takes its place.
        Every entry must belong to ``game``'s guild and channel (a game of it: a match's
        finished hand is logged with the next hand's start), else ``ValueError`` before
        anything is written.

        Returns once the save is committed. Saves called while the connection is busy share
        a transaction (see the module); if that shared transaction fails, each of its saves
        is tried again alone, so only a save that fails by itself raises, with its own error.
        A caller cancelled before its batch starts writes nothing; once the batch started,
        the save is written (or fails) whether or not its caller still waits.
        """
        entries = tuple(log)
        # A match's finished hand is logged with the next hand's start: another game id.
        check_log(entries, None, game.guild_id, game.channel_id)
        if not self._group_commit or self._backend.idle:
            await self._backend.write_rows(_save_what(game), _save_rows([game], entries))
            return
        item = PendingSave(game, entries, asyncio.get_running_loop().create_future())
        self.saves.enqueue(item)
        await item.future

    async def _write_together(self, items: list[PendingSave]) -> None:
        """Several queued saves in one transaction (``SaveQueue``; the turn is held)."""
        await self._backend.write_rows(
            f"save {len(items)} games together",
            _save_rows([item.game for item in items], [e for item in items for e in item.log]),
            in_turn=True)

    async def _write_alone(self, item: PendingSave) -> None:
        """One queued save in its own transaction (``SaveQueue``; the turn is held)."""
        await self._backend.write_rows(_save_what(item.game),
                                       _save_rows([item.game], item.log), in_turn=True)

    async def save_games(self, games: Sequence[SavedGame], log: Sequence[LogEntry] = ()
                         ) -> None:
        """Several games in progress of one guild (a tournament: its standings and its
        tables) and ``log`` in one transaction: all written or none
        (``DatabaseWriteError``)."""
        if not games:
            return
        guild_id = games[0].guild_id
        if any(g.guild_id != guild_id for g in games):
            raise ValueError("save_games writes the games of one guild at a time.")
        entries = tuple(log)
        channels = {g.channel_id for g in games}
        for entry in entries:
            if not isinstance(entry, LogEntry) or entry.guild_id != guild_id \
                    or entry.channel_id not in channels:
                raise ValueError(f"Log entry {entry!r} belongs to no game being saved.")
        async with self._backend.write(f"save {len(games)} games of guild {guild_id}") as tx:
            await tx.execute_many(queries.UPSERT_GAME, [_game_params(g) for g in games])
            await insert_log(tx, entries)

    async def delete_game(self, channel_id: int) -> None:
        async with self._backend.write(f"delete the saved game of channel {channel_id}") as tx:
            await tx.execute(queries.DELETE_GAME, (channel_id,))

    async def end_game(self, game: SavedGame, log: Sequence[LogEntry] = ()) -> None:
        """A game that ends without a result (a walkover, no human left): its last log
        entries are added and its saved game (that ``game_id`` only) deleted, in one
        transaction."""
        check_log(log, game.game_id, game.guild_id, game.channel_id)
        async with self._backend.write(f"end the game of channel {game.channel_id}") as tx:
            await insert_log(tx, log)
            await tx.execute(queries.DELETE_FINISHED_GAME,
                             (game.guild_id, game.channel_id, game.game_id))

    async def load_games(self, shards: tuple[int, Sequence[int]] | None = None
                         ) -> list[SavedGame]:
        """Every saved game (all guilds), for resuming after a restart; ``shards``
        ``(shard_count, shard_ids)``: only the games of servers on those shards, chosen in
        SQL (a process of a fleet reads only its own)."""
        if shards is None:
            rows = await self._backend.fetch_all(queries.LOAD_GAMES)
        else:
            count, ids = shards
            if count < 1 or not ids:
                raise ValueError(f"No shards to load the games of: {shards!r}.")
            rows = await self._backend.fetch_all(queries.load_games_of_shards(len(ids)),
                                                 (count, *ids))
        return [SavedGame.from_row(row) for row in rows]

    async def load_game(self, channel_id: int) -> SavedGame | None:
        row = await self._backend.fetch_one(queries.LOAD_GAME, (channel_id,))
        return SavedGame.from_row(row) if row is not None else None

    # --- set-aside games ------------------------------------------------------------------

    async def set_aside_game(
        self, channel_id: int, reason: str, *, at: int | None = None
    ) -> bool:
        """Move the saved game of ``channel_id`` to the set-aside games (kept, never deleted),
        in one transaction; False if the channel had no saved game.

        ``at`` is the unix time to record (default: now). Setting the same game aside again
        replaces its kept state and reason with the newer ones. Its move log is kept too.
        """
        if not isinstance(reason, str):
            raise ValueError(f"reason must be text, got {reason!r}.")
        when = int(time.time()) if at is None else at
        async with self._backend.write(
            f"set aside the saved game of channel {channel_id}"
        ) as tx:
            row = await tx.fetch_one(queries.LOAD_GAME, (channel_id,))
            if row is None:
                return False
            game = SavedGame.from_row(row)
            await tx.execute(
                queries.INSERT_SET_ASIDE,
                (game.channel_id, game.guild_id, game.game_id, game.state, reason, when),
            )
            await tx.execute(queries.DELETE_SET_ASIDE_SOURCE, (channel_id, game.game_id))
        logger.warning(
            "Set aside game %s of channel %d (guild %d): %s",
            game.game_id,
            game.channel_id,
            game.guild_id,
            reason,
        )
        return True

    async def set_aside_games(self, guild_id: int | None = None) -> list[SetAsideGame]:
        """The set-aside games of ``guild_id`` (all guilds if None), oldest first."""
        params: Params
        if guild_id is None:
            sql, params = queries.SET_ASIDE_GAMES, ()
        else:
            sql, params = queries.SET_ASIDE_GAMES_OF_GUILD, (guild_id,)
        rows = await self._backend.fetch_all(sql, params)
        return [SetAsideGame.from_row(row) for row in rows]


def _save_what(game: SavedGame) -> str:
    return f"save the game of channel {game.channel_id}"


def _game_params(game: SavedGame) -> tuple[int, int, str, str, int]:
    return (game.channel_id, game.guild_id, game.game_id, game.state, game.updated_at)


def _save_rows(games: Sequence[SavedGame], log: Sequence[LogEntry]) -> Statements:
    """The statements of a save: the snapshots, then the log entries."""
    return [(queries.UPSERT_GAME, [_game_params(game) for game in games]),
            (queries.INSERT_LOG_ENTRY, log_rows(log))]
