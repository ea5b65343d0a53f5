"""The bot's database: one aiosqlite connection, opened at start-up, migrated on open."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal

import aiosqlite

from data import queries
from data.batching import PendingSave, SaveQueue, Turns
from data.errors import (
    DatabaseError,
    DatabaseOpenError,
    DatabaseUnwritableError,
    DatabaseVanishedError,
    DatabaseWriteError,
)
from data.migrate import migrate
from data.models import (
    TEAM_KINDS,
    GameResult,
    GuildSettings,
    LogEntry,
    PlayerStats,
    SavedGame,
    SetAsideGame,
    UserSettings,
)

logger = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000
LEADERBOARD_MAX_LIMIT = 100

_CORRUPT = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_UNWRITABLE = ("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH", "SQLITE_IOERR")
_BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")
_FULL = ("SQLITE_FULL",)
_READONLY = ("SQLITE_READONLY",)
_CONSTRAINT = ("SQLITE_CONSTRAINT",)

FileId = tuple[int, int]  # (st_dev, st_ino) of the open database file


def _corrupt_message(path: str) -> str:
    return (
        f"The database file {path} is not a valid SQLite database or is corrupted; "
        "restore it from a backup or move it away so the bot can create a new one."
    )


def _unwritable_message(path: str, error: BaseException | None = None) -> str:
    if getattr(error, "sqlite_errorname", "") == "SQLITE_READONLY_DIRECTORY":
        return _unwritable_folder_message(path)
    return (
        f"The database file {path} is read-only for the user running the bot, so nothing "
        "could be saved; make the file (and its -wal and -shm files, if any) writable by that "
        "user, or choose another path."
    )


def _unwritable_folder_message(path: str) -> str:
    return (
        f"The folder of the database {path} is read-only for the user running the bot, and "
        "SQLite must create files beside the database; make the folder writable by that user, "
        "or choose another path."
    )


def _vanished_message(path: str) -> str:
    return (
        f"The database file {path} was deleted or replaced while the bot was running, so "
        "nothing more can be saved; stop the bot, put the file back (or restore a backup, or "
        "let the bot create a new one) and start it again."
    )


def _folder_unwritable(path: str) -> bool:
    """True if ``path`` does not exist and its folder exists but is not writable."""
    folder = os.path.dirname(os.path.abspath(path))
    return (
        not os.path.exists(path)
        and os.path.isdir(folder)
        and not os.access(folder, os.W_OK | os.X_OK)
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
    if name.startswith(_READONLY):
        return DatabaseUnwritableError(_unwritable_message(path, error))
    if name.startswith("SQLITE_CANTOPEN") and _folder_unwritable(path):
        return DatabaseUnwritableError(_unwritable_folder_message(path))
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


def _write_error(path: str, what: str, error: sqlite3.Error) -> DatabaseWriteError:
    """One sentence for a write that failed and was rolled back."""
    name = getattr(error, "sqlite_errorname", "") or ""
    if name.startswith(_READONLY):
        advice = "the database is read-only, so make the file and its folder writable again"
    elif name.startswith(_FULL):
        advice = "the disk is full, so free some space"
    elif name.startswith(_BUSY):
        advice = "another program holds the database locked, so stop it"
    elif name.startswith(_CONSTRAINT):
        advice = "the database rejected the data, which is a bug in the bot worth reporting"
    elif name.startswith(_CORRUPT):
        advice = "the file is damaged, so restore it from a backup"
    else:
        advice = "check the disk and the database file"
    return DatabaseWriteError(
        f"Could not {what} in the database {path} ({error}), so nothing of it was written; "
        f"{advice}."
    )


def _file_id(path: str) -> FileId | None:
    """(st_dev, st_ino) of the file at ``path``, None if there is none (or it is in memory)."""
    if path == ":memory:" or path.startswith("file:") or not path:
        return None
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino)


class Database:
    """All storage the bot needs. Create with ``await Database.open(path)``.

    One connection in autocommit mode. Every public method takes its turn on it in one
    first-come, first-served line (``_turns``, used like a lock), so the explicit
    transactions of one coroutine never interleave with statements of another and calls run
    in the order they were made.

    Group commit: a ``save_game`` made while the connection is in use does not take a turn
    of its own; it joins the saves queued right before it, and up to ``SAVE_BATCH_MAX`` of
    them are written in one transaction when their shared turn comes. Saves only join when
    nothing else (another write, a read, ``close``) queued after the group began: any other
    call closes the group, and later saves start a new one behind it. So every call is
    carried out exactly in the order it was made, as with a plain lock; in particular a
    ``record_game`` or ``end_game`` is never overtaken by a ``save_game`` called before it,
    nor preceded by one called after it. A save made while the connection is idle is
    written at once, alone. ``group_commit=False`` gives every save its own turn and
    transaction (for the benchmark and tests). The line (``Turns``) and the queue of saves
    (``SaveQueue``) are in data/batching.py.
    """

    def __init__(
        self,
        conn: aiosqlite.Connection,
        path: str,
        file_id: FileId | None = None,
        *,
        group_commit: bool = True,
    ) -> None:
        self._conn = conn
        self._path = path
        self._turns = Turns()
        self._group_commit = group_commit
        self._saves = SaveQueue(self._turns, self._write_together, self._write_alone, path)
        # The file opened, to notice it being deleted or replaced (None: nothing to watch).
        self._file_id = file_id
        self._stat_path = os.path.abspath(path) if file_id is not None else path
        self._vanish_logged = False

    @property
    def path(self) -> str:
        return self._path

    # --- life cycle -----------------------------------------------------------------------

    @classmethod
    async def open(cls, path: str, *, group_commit: bool = True) -> Database:
        """Open (creating the file and its directories if needed) and migrate the database.

        Raises ``DatabaseOpenError`` (or its subclass ``DatabaseVersionError``) whose message
        is one sentence for the operator; no chained traceback is attached.
        ``group_commit=False`` writes every ``save_game`` in its own transaction (only for
        the benchmark and tests).
        """
        conn: aiosqlite.Connection | None = None
        try:
            if path != ":memory:":
                await asyncio.to_thread(_make_parent_dirs, path)
            conn = await aiosqlite.connect(path, isolation_level=None)
            conn.row_factory = sqlite3.Row
            await cls._configure(conn, path)
            await cls._check_writable(conn, path)
            version = await migrate(conn, path)
            file_id = _file_id(path)
        except DatabaseError:
            if conn is not None:
                await conn.close()
            raise
        except (OSError, sqlite3.Error) as error:
            if conn is not None:
                await _close_quietly(conn)
            logger.debug("Opening database %s failed", path, exc_info=True)
            raise _open_error(path, error) from None
        logger.info("Opened database %s (schema version %d)", path, version)
        return cls(conn, path, file_id, group_commit=group_commit)

    @staticmethod
    async def _configure(conn: aiosqlite.Connection, path: str) -> None:
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await conn.execute("PRAGMA foreign_keys = ON")
        async with conn.execute("PRAGMA quick_check") as cursor:
            rows = await cursor.fetchall()
        if [tuple(row) for row in rows] != [("ok",)]:
            logger.debug("quick_check of %s: %s", path, [tuple(row) for row in rows])
            raise DatabaseOpenError(_corrupt_message(path))
        async with conn.execute("PRAGMA journal_mode = WAL") as cursor:
            row = await cursor.fetchone()
        mode = str(row[0]).lower() if row is not None else "?"
        if mode != "wal" and path != ":memory:":
            logger.warning(
                "Database %s could not switch to WAL journal mode (mode is %s)", path, mode
            )
        await conn.execute("PRAGMA synchronous = NORMAL")

    @staticmethod
    async def _check_writable(conn: aiosqlite.Connection, path: str) -> None:
        """Make one real write and roll it back: SQLite opens a file it may not write read-only
        without saying so, and the first save would fail long after start-up."""
        try:
            await conn.execute("BEGIN IMMEDIATE")
            try:
                await conn.execute(queries.WRITE_CHECK)
            finally:
                if conn.in_transaction:
                    await conn.execute("ROLLBACK")
        except sqlite3.Error as error:
            name = getattr(error, "sqlite_errorname", "") or ""
            if name.startswith(_READONLY):
                logger.debug("Write check of %s failed", path, exc_info=True)
                raise DatabaseUnwritableError(_unwritable_message(path, error)) from None
            raise

    async def close(self) -> None:
        """Close the connection once every call made before this one is done: saves waiting
        for their batch are written first and their callers answered. A call made after
        this one fails as on any closed connection (aiosqlite's ``ValueError``)."""
        async with self._exclusive():
            if self._file_moved():
                await self._empty_stale_wal()
            await self._conn.close()
        logger.info("Closed database %s", self._path)

    async def _empty_stale_wal(self) -> None:
        """The file was deleted or replaced: SQLite then leaves this connection's -wal file
        beside the path at close, and the next open replays it onto whatever file is there
        now (a restored backup gets the old file's last writes, or is corrupted). Emptying
        the WAL into the old file first leaves nothing to replay."""
        try:
            await self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error:
            logger.warning(
                "Could not empty the write-ahead log of the replaced database %s; if %s-wal "
                "exists, remove it before starting the bot again",
                self._path,
                self._path,
                exc_info=True,
            )

    @asynccontextmanager
    async def _exclusive(self) -> AsyncIterator[None]:
        """Take a turn on the connection (the lock of every method but a batched save).

        Waits for every call queued before this one, saves waiting for a batch included,
        and closes the open group of saves: saves called later are queued behind this.
        """
        self._saves.close_group()
        turn = self._turns.reserve()
        await self._turns.wait(turn)
        try:
            yield
        finally:
            self._turns.release()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any exception. Caller holds the turn."""
        await self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
            await self._conn.execute("COMMIT")
        except BaseException:
            # a failed COMMIT too: the transaction must not stay open for the next write
            if self._conn.in_transaction:
                await self._conn.execute("ROLLBACK")
            raise

    def _file_moved(self) -> bool:
        """True if the file opened is no longer at its path (deleted, renamed or replaced)."""
        if self._file_id is None:
            return False
        try:
            st = os.stat(self._stat_path)
        except OSError:
            return True
        return (st.st_dev, st.st_ino) != self._file_id

    def _check_file(self) -> None:
        """Raise DatabaseVanishedError if the opened file is no longer at its path.

        Writes to a deleted file would succeed and be lost (SQLite keeps writing the unlinked
        inode), and writes after a replacement would land in the -wal file found by name and
        later be replayed onto the other file. One ``stat`` per write; logged at ERROR once
        until the file is back.
        """
        if not self._file_moved():
            self._vanish_logged = False
            return
        message = _vanished_message(self._path)
        if not self._vanish_logged:
            self._vanish_logged = True
            logger.error("%s", message)
        raise DatabaseVanishedError(message)

    @asynccontextmanager
    async def _write(self, what: str) -> AsyncIterator[aiosqlite.Connection]:
        """Take a turn, check the file is still there, and run one transaction.

        Any SQLite error rolls everything back and becomes a ``DatabaseWriteError`` (one
        sentence; the SQLite error is kept as ``__cause__`` for the log). ``what`` completes
        "Could not ...".
        """
        async with self._exclusive(), self._write_in_turn(what) as conn:
            yield conn

    @asynccontextmanager
    async def _write_in_turn(self, what: str) -> AsyncIterator[aiosqlite.Connection]:
        """``_write`` for a caller that already holds the turn."""
        self._check_file()
        try:
            async with self._transaction() as conn:
                yield conn
        except sqlite3.Error as error:
            logger.debug("Write to %s failed: %s", self._path, what, exc_info=True)
            raise _write_error(self._path, what, error) from error

    async def set_read_only_for_tests(self, read_only: bool) -> None:
        """For tests of the code above: make every later write fail (or work again).

        Uses SQLite's ``PRAGMA query_only``, so writes really fail inside SQLite and surface
        as they would on a read-only disk: ``DatabaseWriteError``, nothing written. Not for
        production use.
        """
        async with self._exclusive():
            await self._conn.execute(f"PRAGMA query_only = {'ON' if read_only else 'OFF'}")

    # --- guild settings -------------------------------------------------------------------

    async def get_guild_settings(self, guild_id: int) -> GuildSettings:
        """The guild's settings, or the defaults when the guild never saved any."""
        async with self._exclusive(), self._conn.execute(
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
            int(settings.threads),
            settings.language,
        )
        async with self._write(f"save the settings of guild {settings.guild_id}") as conn:
            await conn.execute(queries.UPSERT_GUILD_SETTINGS, params)

    # --- a person's own settings ------------------------------------------------------------

    async def get_user_settings(self, user_id: int) -> UserSettings:
        """The person's settings, or the defaults when they never saved any."""
        async with self._exclusive(), self._conn.execute(
            queries.GET_USER_SETTINGS, (user_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return UserSettings.from_row(row) if row is not None else UserSettings(user_id)

    async def set_user_settings(self, settings: UserSettings) -> None:
        async with self._write(f"save the settings of user {settings.user_id}") as conn:
            await conn.execute(queries.UPSERT_USER_SETTINGS,
                               (settings.user_id, int(settings.high_contrast)))

    # --- games in progress ----------------------------------------------------------------

    async def save_game(self, game: SavedGame, log: Sequence[LogEntry] = ()) -> None:
        """Insert or replace the game in progress of ``game.channel_id`` and add ``log``.

        One transaction: the snapshot and the log entries are written together or not at all
        (``DatabaseWriteError``). A log entry whose ``(game_id, seq)`` is already stored is
        skipped, so saving the same thing twice is harmless. Every entry must belong to
        ``game``'s guild and channel (a game of it: a match's finished hand is logged with
        the next hand's start), else ``ValueError`` before anything is written.

        Returns once the save is committed. Saves called while the connection is busy share
        a transaction (see the class); if that shared transaction fails, each of its saves is
        tried again alone, so only a save that fails by itself raises, with its own error.
        A caller cancelled before its batch starts writes nothing; once the batch started,
        the save is written (or fails) whether or not its caller still waits.
        """
        entries = tuple(log)
        # A match's finished hand is logged with the next hand's start: another game id.
        _check_log(entries, None, game.guild_id, game.channel_id)
        if not self._group_commit or self._turns.free:
            async with self._write(_save_what(game)) as conn:
                await _save(conn, game, entries)
            return
        item = PendingSave(game, entries, asyncio.get_running_loop().create_future())
        self._saves.enqueue(item)
        await item.future

    async def _write_together(self, items: list[PendingSave]) -> None:
        """Several queued saves in one transaction (``SaveQueue``; the turn is held)."""
        self._check_file()
        async with self._transaction() as conn:
            await conn.executemany(queries.UPSERT_GAME,
                                   [_game_params(item.game) for item in items])
            await _insert_log(conn, [e for item in items for e in item.log])

    async def _write_alone(self, item: PendingSave) -> None:
        """One queued save in its own transaction (``SaveQueue``; the turn is held)."""
        async with self._write_in_turn(_save_what(item.game)) as conn:
            await _save(conn, item.game, item.log)

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
        async with self._write(f"save {len(games)} games of guild {guild_id}") as conn:
            await conn.executemany(queries.UPSERT_GAME, [_game_params(g) for g in games])
            await _insert_log(conn, entries)

    async def delete_game(self, channel_id: int) -> None:
        async with self._write(f"delete the saved game of channel {channel_id}") as conn:
            await conn.execute(queries.DELETE_GAME, (channel_id,))

    async def end_game(self, game: SavedGame, log: Sequence[LogEntry] = ()) -> None:
        """A game that ends without a result (a walkover, no human left): its last log
        entries are added and its saved game (that ``game_id`` only) deleted, in one
        transaction."""
        _check_log(log, game.game_id, game.guild_id, game.channel_id)
        async with self._write(f"end the game of channel {game.channel_id}") as conn:
            await _insert_log(conn, log)
            await conn.execute(queries.DELETE_FINISHED_GAME,
                               (game.guild_id, game.channel_id, game.game_id))

    async def load_games(self) -> list[SavedGame]:
        """Every saved game (all guilds), for resuming after a restart."""
        async with self._exclusive(), self._conn.execute(queries.LOAD_GAMES) as cursor:
            rows = await cursor.fetchall()
        return [SavedGame.from_row(row) for row in rows]

    async def load_game(self, channel_id: int) -> SavedGame | None:
        async with self._exclusive(), self._conn.execute(
            queries.LOAD_GAME, (channel_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return SavedGame.from_row(row) if row is not None else None

    # --- finished games and leaderboard ---------------------------------------------------

    async def record_game(self, result: GameResult, log: Sequence[LogEntry] = (), *,
                          also_delete: Sequence[int] = ()) -> bool:
        """Record a finished game in one transaction; False if ``game_id`` was already recorded.

        Inserts the result and its players, adds each player's numbers to the leaderboard of
        ``result.guild_id``, adds the ``log`` entries (already stored ones are skipped) and
        deletes the saved game of ``result.channel_id`` if it has the same ``game_id``, and
        the saved games of the guild's channels ``also_delete`` (a tournament's tables). When
        the game was already recorded nothing at all is written (log entries included). On
        any error nothing is changed and ``DatabaseWriteError`` propagates. Every log entry
        must belong to the game, else ``ValueError`` before anything is written.
        """
        # A tournament's last hand is logged in its table's channel, under that hand's id.
        tables = set(also_delete)
        for table in tables:
            _check_log([e for e in log if getattr(e, "channel_id", None) == table], None,
                       result.guild_id, table)
        _check_log([e for e in log if getattr(e, "channel_id", None) not in tables],
                   result.game_id, result.guild_id, result.channel_id)
        async with self._write(f"record the finished game {result.game_id}") as conn:
            cursor = await conn.execute(
                queries.INSERT_RESULT,
                (
                    result.game_id,
                    result.guild_id,
                    result.channel_id,
                    result.edition,
                    result.finished_at,
                    result.rounds,
                    result.kind,
                ),
            )
            team_game = int(result.kind in TEAM_KINDS)
            tournament = int(result.kind == "tournament")
            if cursor.rowcount == 0:
                logger.info("Game %s was already recorded; nothing changed", result.game_id)
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
                        player.team,
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
                        team_game,
                        team_game * int(player.won),
                        tournament,
                        tournament * int(player.won),
                    ),
                )
            await _insert_log(conn, log)
            await conn.execute(
                queries.DELETE_FINISHED_GAME,
                (result.guild_id, result.channel_id, result.game_id),
            )
            for channel_id in also_delete:
                await conn.execute(queries.DELETE_GUILD_GAME, (result.guild_id, channel_id))
        logger.info(
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
        async with self._exclusive(), self._conn.execute(sql, (guild_id, limit, offset)) as cursor:
            rows = await cursor.fetchall()
        return [PlayerStats.from_row(row) for row in rows]

    async def leaderboard_size(self, guild_id: int) -> int:
        """How many players have a leaderboard row in the guild."""
        async with self._exclusive(), self._conn.execute(
            queries.LEADERBOARD_SIZE, (guild_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row is not None else 0

    async def player_stats(self, guild_id: int, user_id: int) -> PlayerStats | None:
        async with self._exclusive(), self._conn.execute(
            queries.PLAYER_STATS, (guild_id, user_id)
        ) as cursor:
            row = await cursor.fetchone()
        return PlayerStats.from_row(row) if row is not None else None


    # --- move log -------------------------------------------------------------------------

    async def game_log(
        self, guild_id: int, game_id: str, *, last: int | None = None
    ) -> list[LogEntry]:
        """The game's log in ``seq`` order; with ``last=N``, the header (seq 0) and the N
        newest entries. Only rows of ``guild_id``: another guild's game id gives ``[]``."""
        params: tuple[object, ...]
        if last is None:
            sql, params = queries.GAME_LOG, (guild_id, game_id)
        else:
            if isinstance(last, bool) or not isinstance(last, int) or last < 0:
                raise ValueError(f"last must be a whole number of 0 or more, got {last!r}.")
            sql = queries.GAME_LOG_LAST
            params = (guild_id, game_id, guild_id, game_id, last)
        async with self._exclusive(), self._conn.execute(sql, params) as cursor:
            rows = await cursor.fetchall()
        return [LogEntry.from_row(row) for row in rows]

    async def latest_game_id(self, guild_id: int, channel_id: int) -> str | None:
        """The game whose header (seq 0) is the newest logged in the channel, or None.

        Newest by the header's ``created_at``; games started in the same second are ordered
        by ``game_id`` (the greater wins), never by insertion order.
        """
        async with self._exclusive(), self._conn.execute(
            queries.LATEST_GAME_ID, (guild_id, channel_id)
        ) as cursor:
            row = await cursor.fetchone()
        return str(row["game_id"]) if row is not None else None

    async def prune_logs(self, older_than: int) -> int:
        """Delete the logs of games whose header is older than ``older_than`` (unix seconds)
        and that are neither saved (still running) nor set aside; the number of rows deleted.

        Rows of a game without a header are never pruned by this.
        """
        async with self._write("prune old game logs") as conn:
            cursor = await conn.execute(queries.PRUNE_LOGS, (older_than,))
            deleted = max(cursor.rowcount, 0)
        if deleted:
            logger.info("Pruned %d game log rows older than %d", deleted, older_than)
        return deleted

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
        async with self._write(f"set aside the saved game of channel {channel_id}") as conn:
            async with conn.execute(queries.LOAD_GAME, (channel_id,)) as cursor:
                row = await cursor.fetchone()
            if row is None:
                return False
            game = SavedGame.from_row(row)
            await conn.execute(
                queries.INSERT_SET_ASIDE,
                (game.channel_id, game.guild_id, game.game_id, game.state, reason, when),
            )
            await conn.execute(queries.DELETE_SET_ASIDE_SOURCE, (channel_id, game.game_id))
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
        params: tuple[object, ...]
        if guild_id is None:
            sql, params = queries.SET_ASIDE_GAMES, ()
        else:
            sql, params = queries.SET_ASIDE_GAMES_OF_GUILD, (guild_id,)
        async with self._exclusive(), self._conn.execute(sql, params) as cursor:
            rows = await cursor.fetchall()
        return [SetAsideGame.from_row(row) for row in rows]


def _save_what(game: SavedGame) -> str:
    return f"save the game of channel {game.channel_id}"


def _game_params(game: SavedGame) -> tuple[int, int, str, str, int]:
    return (game.channel_id, game.guild_id, game.game_id, game.state, game.updated_at)


async def _save(conn: aiosqlite.Connection, game: SavedGame, log: Sequence[LogEntry]) -> None:
    await conn.execute(queries.UPSERT_GAME, _game_params(game))
    await _insert_log(conn, log)


def _check_log(log: Sequence[LogEntry], game_id: str | None, guild_id: int,
               channel_id: int) -> None:
    """Every entry belongs to the game (``game_id`` None: to any game of the channel)."""
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


async def _insert_log(conn: aiosqlite.Connection, log: Sequence[LogEntry]) -> None:
    """Add the entries in order (one ``executemany``); already stored ones are skipped."""
    if not log:
        return
    await conn.executemany(
        queries.INSERT_LOG_ENTRY,
        [
            (entry.game_id, entry.guild_id, entry.channel_id, entry.seq, entry.entry,
             entry.created_at)
            for entry in log
        ],
    )


def _make_parent_dirs(path: str) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)


async def _close_quietly(conn: aiosqlite.Connection) -> None:
    try:
        await conn.close()
    except Exception:
        logger.debug("Closing the failed database connection raised", exc_info=True)
