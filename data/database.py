"""The bot's database: the one interface the rest of the bot uses (``data.Database``).

It composes the parts of ``data/``, each answering one question:

- data/sqlite.py: the SQLite backend, the default (opening, WAL, the line of calls,
  transactions, saves written inline on the event loop's thread, a corrupt, read-only,
  vanished or replaced file turned into one sentence by data/faults.py; the write-ahead
  log's checkpoints in a worker thread: data/wal.py).
- data/postgres.py: the PostgreSQL backend, for several bot processes on one database
  (``DATABASE_URL``; reconnecting, advisory locks; its faults in data/pgfaults.py).
  data/backend.py says what either backend gives the query families; ``open`` chooses.
- data/batching.py: group commit of saves (the line and the queue of saves).
- the query families: data/games.py (games in progress, group-committed saves, set-aside
  games), data/log.py (the move log), data/results.py (finished games, the leaderboard),
  data/settings.py (guild and personal settings), data/rematches.py (Play again). Their
  SQL is in data/queries.py.

Each method here hands the call to its family; the families' docstrings tell the details.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Literal

from data.backend import Backend
from data.games import Games
from data.log import GameLog
from data.models import (
    GameResult,
    GuildSettings,
    LogEntry,
    PlayerStats,
    SavedGame,
    SetAsideGame,
    UserSettings,
)
from data.rematches import Rematches
from data.results import Results
from data.settings import StoredSettings
from data.sqlite import SqliteBackend

SCHEMA_TABLES = ("guild_settings", "user_settings", "saved_games", "set_aside_games",
                 "game_results", "game_players", "player_stats", "game_log")
"""Every table of the bot's data, parents before children (the copy tool, data/copy.py)."""


def is_url(target: str) -> bool:
    """True if ``target`` names a PostgreSQL server (else it is a SQLite file path)."""
    scheme, sep, _ = target.partition("://")
    return bool(sep) and scheme.lower() in ("postgresql", "postgres")


class Database:
    """All storage the bot needs. Create with ``await Database.open(target)``: a SQLite file
    path, or a ``postgresql://`` URL.

    Every call takes its turn on the one connection, first come, first served, and is
    carried out in the order it was made; ``save_game`` calls made while the connection is
    busy share one transaction (group commit, data/games.py). ``group_commit=False`` gives
    every save its own turn and transaction (for the benchmark and tests).
    """

    def __init__(self, backend: Backend, *, group_commit: bool = True) -> None:
        self._backend = backend
        self._games = Games(backend, group_commit=group_commit)
        self._log = GameLog(backend)
        self._results = Results(backend)
        self._settings = StoredSettings(backend)
        self._rematches = Rematches(backend)

    @classmethod
    async def open(cls, target: str, *, group_commit: bool = True) -> Database:
        """Open and migrate the database: a ``postgresql://user:password@host/db`` URL opens
        that server's database (data/postgres.py); anything else is a SQLite file, created
        with its directories if needed (data/sqlite.py).

        Raises ``DatabaseOpenError`` (or its subclass ``DatabaseVersionError``) whose message
        is one sentence for the operator; no chained traceback is attached.
        ``group_commit=False`` writes every ``save_game`` in its own transaction (only for
        the benchmark and tests).
        """
        backend: Backend
        if is_url(target):
            from data.postgres import PostgresBackend  # asyncpg only when asked for

            backend = await PostgresBackend.open(target)
        else:
            backend = await SqliteBackend.open(target)
        return cls(backend, group_commit=group_commit)

    @property
    def path(self) -> str:
        """Where the database is: the file, or the server's URL without its password."""
        return self._backend.path

    def fleet_lock(self, name: str) -> AbstractAsyncContextManager[None]:
        """``async with db.fleet_lock(name):`` holds the lock ``name`` for the block, across
        every bot process sharing this database, so work that must not run in two processes
        at once (one identify per bucket of ``max_concurrency``, a one-off upload) takes
        turns. On PostgreSQL an advisory lock (``pg_advisory_lock``) on a connection of its
        own: waiting for it never holds up this process's other calls, and the server
        releases it if the process dies. On SQLite (one process) an asyncio lock. Not
        reentrant: a block must not take the same name again."""
        return self._backend.fleet_lock(name)

    async def close(self) -> None:
        """Close once every call made before this one is done: saves waiting for their batch
        are written first and their callers answered. A call made after this one fails."""
        await self._backend.close()

    async def ping(self) -> None:
        """Raise (a ``DatabaseError`` saying what is wrong, or the driver's error) unless the
        database answers a trivial query in its turn: the health check's question
        (runtime/monitor.py)."""
        await self._backend.ping()

    async def set_read_only_for_tests(self, read_only: bool) -> None:
        """For tests of the layer above: make every later write fail (or work again), as on a
        read-only disk (``DatabaseWriteError``, nothing written). Not for production use."""
        await self._backend.set_read_only_for_tests(read_only)

    # --- guild and personal settings (data/settings.py) -----------------------------------

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        return await self._settings.get_guild_settings(guild_id)

    async def set_guild_settings(self, settings: GuildSettings) -> None:
        await self._settings.set_guild_settings(settings)

    async def get_user_settings(self, user_id: int) -> UserSettings:
        return await self._settings.get_user_settings(user_id)

    async def set_user_settings(self, settings: UserSettings) -> None:
        await self._settings.set_user_settings(settings)

    # --- games in progress and set-aside games (data/games.py) ----------------------------

    async def save_game(self, game: SavedGame, log: Sequence[LogEntry] = ()) -> None:
        await self._games.save_game(game, log)

    async def save_games(self, games: Sequence[SavedGame], log: Sequence[LogEntry] = ()
                         ) -> None:
        await self._games.save_games(games, log)

    async def delete_game(self, channel_id: int) -> None:
        await self._games.delete_game(channel_id)

    async def end_game(self, game: SavedGame, log: Sequence[LogEntry] = ()) -> None:
        await self._games.end_game(game, log)

    async def load_games(self) -> list[SavedGame]:
        return await self._games.load_games()

    async def load_game(self, channel_id: int) -> SavedGame | None:
        return await self._games.load_game(channel_id)

    async def set_aside_game(
        self, channel_id: int, reason: str, *, at: int | None = None
    ) -> bool:
        return await self._games.set_aside_game(channel_id, reason, at=at)

    async def set_aside_games(self, guild_id: int | None = None) -> list[SetAsideGame]:
        return await self._games.set_aside_games(guild_id)

    # --- finished games and the leaderboard (data/results.py) -----------------------------

    async def record_game(self, result: GameResult, log: Sequence[LogEntry] = (), *,
                          also_delete: Sequence[int] = ()) -> bool:
        return await self._results.record_game(result, log, also_delete=also_delete)

    async def leaderboard(
        self,
        guild_id: int,
        order: Literal["wins", "points"],
        limit: int = 10,
        offset: int = 0,
    ) -> list[PlayerStats]:
        return await self._results.leaderboard(guild_id, order, limit, offset)

    async def leaderboard_size(self, guild_id: int) -> int:
        return await self._results.leaderboard_size(guild_id)

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats | None:
        return await self._results.player_stats(guild_id, user_id)

    # --- the move log (data/log.py) -------------------------------------------------------

    async def game_log(
        self, guild_id: int, game_id: str, *, last: int | None = None
    ) -> list[LogEntry]:
        return await self._log.game_log(guild_id, game_id, last=last)

    async def latest_game_id(self, guild_id: int, channel_id: int) -> str | None:
        return await self._log.latest_game_id(guild_id, channel_id)

    async def prune_logs(self, older_than: int) -> int:
        """Old move logs (the number of rows deleted), and the Play again offers of the
        same age."""
        await self._rematches.prune(older_than)
        return await self._log.prune_logs(older_than)

    # --- Play again: a finished game's seats and settings (data/rematches.py) -------------

    async def save_rematch(self, game: SavedGame) -> None:
        await self._rematches.save_rematch(game)

    async def load_rematch(self, guild_id: int, game_id: str) -> tuple[SavedGame, bool] | None:
        return await self._rematches.load_rematch(guild_id, game_id)

    async def use_rematch(self, guild_id: int, game_id: str, used: bool = True) -> bool:
        return await self._rematches.use_rematch(guild_id, game_id, used)
