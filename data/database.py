"""The bot's database: one aiosqlite connection, opened at start-up, migrated on open."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

import aiosqlite

from data import queries
from data.errors import DatabaseError, DatabaseOpenError
from data.migrate import migrate
from data.models import GameResult, GuildSettings, PlayerStats, SavedGame

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
LEADERBOARD_MAX_LIMIT = 100

_CORRUPT = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_UNWRITABLE = ("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH", "SQLITE_IOERR")
_BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")
_FULL = ("SQLITE_FULL",)


def _corrupt_message(path: str) -> str:
    return (
        f"The database file {path} is not a valid SQLite database or is corrupted; "
        "restore it from a backup or move it away so the bot can create a new one."
    )


def _open_error(path: str, error: BaseException) -> DatabaseOpenError:
    """Turn a low-level error raised while opening into one clear sentence."""
    if isinstance(error, OSError):
        reason = error.strerror or type(error).__name__
        return DatabaseOpenError(
            f"Cannot create the folder for the database {path} ({reason}); "
            "check that the path points into a writable directory or choose another path."
        )
    name = getattr(error, "sqlite_errorname", "") or ""
    if name.startswith(_CORRUPT):
        return DatabaseOpenError(_corrupt_message(path))
    if name.startswith(_UNWRITABLE):
        return DatabaseOpenError(
            f"Cannot open the database {path} for writing ({error}); "
            "check that the file and its directory exist and are writable, or choose another path."
        )
    if name.startswith(_BUSY):
        return DatabaseOpenError(
            f"The database {path} is locked by another program; "
            "stop the other process using it and start the bot again."
        )
    if name.startswith(_FULL):
        return DatabaseOpenError(
            f"The disk holding the database {path} is full; free some space and start again."
        )
    return DatabaseOpenError(
        f"Cannot open the database {path} ({error}); check the file or restore it from a backup."
    )


class Database:
    """All storage the bot needs. Create with ``await Database.open(path)``.

    One connection in autocommit mode; every public method holds ``_lock`` so that the
    explicit transactions of one coroutine never interleave with statements of another.
    """

    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn = conn
        self._path = path
        self._lock = asyncio.Lock()

    @property
    def path(self) -> str:
        return self._path

    # --- life cycle -----------------------------------------------------------------------

    @classmethod
    async def open(cls, path: str) -> Database:
        """Open (creating the file and its directories if needed) and migrate the database.

        Raises ``DatabaseOpenError`` (or its subclass ``DatabaseVersionError``) whose message
        is one sentence for the operator; no chained traceback is attached.
        """
        conn: aiosqlite.Connection | None = None
        try:
            if path != ":memory:":
                await asyncio.to_thread(_make_parent_dirs, path)
            conn = await aiosqlite.connect(path, isolation_level=None)
            conn.row_factory = sqlite3.Row
            await cls._configure(conn, path)
            version = await migrate(conn, path)
        except DatabaseError:
            if conn is not None:
                await conn.close()
            raise
        except (OSError, sqlite3.Error) as error:
            if conn is not None:
                await _close_quietly(conn)
            log.debug("Opening database %s failed", path, exc_info=True)
            raise _open_error(path, error) from None
        log.info("Opened database %s (schema version %d)", path, version)
        return cls(conn, path)

    @staticmethod
    async def _configure(conn: aiosqlite.Connection, path: str) -> None:
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await conn.execute("PRAGMA foreign_keys = ON")
        async with conn.execute("PRAGMA quick_check") as cursor:
            rows = await cursor.fetchall()
        if [tuple(row) for row in rows] != [("ok",)]:
            log.debug("quick_check of %s: %s", path, [tuple(row) for row in rows])
            raise DatabaseOpenError(_corrupt_message(path))
        async with conn.execute("PRAGMA journal_mode = WAL") as cursor:
            row = await cursor.fetchone()
        mode = str(row[0]).lower() if row is not None else "?"
        if mode != "wal" and path != ":memory:":
            log.warning("Database %s could not switch to WAL journal mode (mode is %s)", path, mode)
        await conn.execute("PRAGMA synchronous = NORMAL")

    async def close(self) -> None:
        async with self._lock:
            await self._conn.close()
        log.info("Closed database %s", self._path)

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception. Caller holds the lock."""
        await self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            if self._conn.in_transaction:
                await self._conn.execute("ROLLBACK")
            raise
        await self._conn.execute("COMMIT")

    # --- guild settings -------------------------------------------------------------------

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, or the defaults when the guild never saved any."""
        async with self._lock, self._conn.execute(
            queries.GET_GUILD_SETTINGS, (guild_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return GuildSettings.from_row(row) if row is not None else GuildSettings(guild_id)

    async def set_guild_settings(self, settings: GuildSettings) -> None:
        params = (
            settings.guild_id,
            settings.target,
            settings.scoring,
            settings.grab2_points,
            settings.edition,
            settings.turn_timer,
            int(settings.mention_turn),
            int(settings.shuffle_seats),
        )
        async with self._lock:
            await self._conn.execute(queries.UPSERT_GUILD_SETTINGS, params)

    # --- games in progress ----------------------------------------------------------------

    async def save_game(self, game: SavedGame) -> None:
        """Insert or replace the game in progress of ``game.channel_id``."""
        params = (game.channel_id, game.guild_id, game.game_id, game.state, game.updated_at)
        async with self._lock:
            await self._conn.execute(queries.UPSERT_GAME, params)

    async def delete_game(self, channel_id: int) -> None:
        async with self._lock:
            await self._conn.execute(queries.DELETE_GAME, (channel_id,))

    async def load_games(self) -> list[SavedGame]:
        """Every saved game (all guilds), for resuming after a restart."""
        async with self._lock, self._conn.execute(queries.LOAD_GAMES) as cursor:
            rows = await cursor.fetchall()
        return [SavedGame.from_row(row) for row in rows]

    async def load_game(self, channel_id: int) -> SavedGame | None:
        async with self._lock, self._conn.execute(queries.LOAD_GAME, (channel_id,)) as cursor:
            row = await cursor.fetchone()
        return SavedGame.from_row(row) if row is not None else None

    # --- finished games and leaderboard ---------------------------------------------------

    async def record_game(self, result: GameResult) -> bool:
        """Record a finished game in one transaction; False if ``game_id`` was already recorded.

        Inserts the result and its players, adds each player's numbers to the leaderboard of
        ``result.guild_id`` and deletes the saved game of ``result.channel_id`` if it has the
        same ``game_id``. On any error nothing is changed and the error propagates.
        """
        async with self._lock, self._transaction() as conn:
            cursor = await conn.execute(
                queries.INSERT_RESULT,
                (
                    result.game_id,
                    result.guild_id,
                    result.channel_id,
                    result.edition,
                    result.finished_at,
                    result.rounds,
                ),
            )
            if cursor.rowcount == 0:
                log.info("Game %s was already recorded; nothing changed", result.game_id)
                return False
            for player in result.players:
                await conn.execute(
                    queries.INSERT_PLAYER_RESULT,
                    (
                        result.game_id,
                        result.guild_id,
                        player.user_id,
                        player.score,
                        int(player.won),
                        player.rounds_won,
                        player.towers_grabbed,
                        player.best_round,
                    ),
                )
                await conn.execute(
                    queries.ADD_TO_PLAYER_STATS,
                    (
                        result.guild_id,
                        player.user_id,
                        int(player.won),
                        player.rounds_won,
                        player.score,
                        player.towers_grabbed,
                        player.best_round,
                    ),
                )
            await conn.execute(
                queries.DELETE_FINISHED_GAME,
                (result.guild_id, result.channel_id, result.game_id),
            )
        log.info(
            "Recorded game %s in guild %d with %d players",
            result.game_id,
            result.guild_id,
            len(result.players),
        )
        return True

    async def leaderboard(
        self,
        guild_id: int,
        order: Literal["wins", "points"],
        limit: int = 10,
        offset: int = 0,
    ) -> list[PlayerStats]:
        """One page of the guild's leaderboard.

        "wins": games_won desc, points desc, user_id; "points": points desc, games_won desc,
        user_id. ``limit`` is 1..100, ``offset`` 0 or more.
        """
        sql = queries.LEADERBOARD.get(order)
        if sql is None:
            raise ValueError(f"order must be 'wins' or 'points', got {order!r}.")
        if not 1 <= limit <= LEADERBOARD_MAX_LIMIT:
            raise ValueError(f"limit must be from 1 to {LEADERBOARD_MAX_LIMIT}, got {limit!r}.")
        if offset < 0:
            raise ValueError(f"offset must be 0 or more, got {offset!r}.")
        async with self._lock, self._conn.execute(sql, (guild_id, limit, offset)) as cursor:
            rows = await cursor.fetchall()
        return [PlayerStats.from_row(row) for row in rows]

    async def leaderboard_size(self, guild_id: int) -> int:
        """How many players have a leaderboard row in the guild."""
        async with self._lock, self._conn.execute(
            queries.LEADERBOARD_SIZE, (guild_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row is not None else 0

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats | None:
        async with self._lock, self._conn.execute(
            queries.PLAYER_STATS, (guild_id, user_id)
        ) as cursor:
            row = await cursor.fetchone()
        return PlayerStats.from_row(row) if row is not None else None


def _make_parent_dirs(path: str) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)


async def _close_quietly(conn: aiosqlite.Connection) -> None:
    try:
        await conn.close()
    except Exception:
        log.debug("Closing the failed database connection raised", exc_info=True)
