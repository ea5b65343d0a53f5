"""SQLite writes a save inline, on the event loop's thread (data/sqlite.py's docstring), and
keeps what the backend guaranteed when it ran on aiosqlite's thread: the loop never waits
for another program's lock (the save goes to aiosqlite's thread and waits there), never two
users of the connection at once (a call left running on that thread by a cancelled caller),
and no checkpoint inside a commit on the loop's thread, with the write-ahead log kept bounded
by the checkpoints of data/wal.py.

Which thread ran a statement is seen by SQLite's trace callback (set on the connection,
which calls it from the thread running the statement). The lock is a real second connection
holding ``BEGIN IMMEDIATE`` on the same file, as an admin's sqlite3 shell would. A file
that cannot be in WAL mode is one opened through SQLite's own VFS for file systems without
shared memory (``unix-dotfile``), made the process's default for the test.
"""

from __future__ import annotations

import _sqlite3
import asyncio
import ctypes
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

import data.sqlite
import data.wal
from data import Database, DatabaseWriteError, LogEntry, SavedGame, queries
from data.sqlite import SqliteBackend
from support.data import connection_of, opened, query
from support.dblock import DbLock

GUILD = 1


def game(channel: int, state: str = "{}") -> SavedGame:
    return SavedGame(channel, GUILD, f"g{channel}", state, 1)


def entry(channel: int, seq: int) -> LogEntry:
    return LogEntry(f"g{channel}", GUILD, channel, seq, f'{{"seq": {seq}}}', 100 + seq)


def backend_of(db: Database) -> SqliteBackend:
    backend = db._backend
    assert isinstance(backend, SqliteBackend)
    return backend


async def trace_threads(db: Database) -> list[tuple[str, int]]:
    """Every statement SQLite runs on the bot's connection from now on, with the thread
    that ran it."""
    seen: list[tuple[str, int]] = []
    await connection_of(db).set_trace_callback(
        lambda sql: seen.append((sql, threading.get_ident())))
    return seen


def games_per_commit(seen: list[tuple[str, int]]) -> list[int]:
    """How many saved games each committed transaction wrote (its UPSERTs)."""
    upsert = queries.UPSERT_GAME.partition("VALUES")[0].strip()  # as traced: values written in
    counts, rows = [], 0
    for sql, _ in seen:
        if sql.strip().startswith(upsert):
            rows += 1
        elif sql in ("COMMIT", "ROLLBACK"):
            if sql == "COMMIT":
                counts.append(rows)
            rows = 0
    return counts


def saved(path: str) -> list[int]:
    return [row[0] for row in query(path, "SELECT channel_id FROM saved_games ORDER BY 1")]


class LoopGaps:
    """The longest time the event loop went without running a 10 ms ticker: how long
    something held the loop's thread."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task = asyncio.get_running_loop().create_task(self._tick())

    @classmethod
    async def start(cls) -> LoopGaps:
        gaps = cls()
        await asyncio.sleep(0)  # its first tick is under way
        return gaps

    async def _tick(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            self.longest = max(self.longest, time.perf_counter() - before - 0.01)

    async def stop(self) -> float:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        return self.longest


# --- inline -----------------------------------------------------------------------------


async def test_saves_run_on_the_loops_thread_and_none_on_aiosqlites(sqlite_path: str) -> None:
    """Issue 17: the trip to aiosqlite's thread cost a save tens of ms under load (the GIL),
    for 0.1-0.3 ms of work. Alone, in turn, or queued together: every statement of a save
    runs on the event loop's thread, and a save made while the connection is idle is
    finished in its caller's first step, without the event loop (or aiosqlite's thread)
    running at all."""
    async with opened(sqlite_path) as db:
        seen = await trace_threads(db)
        for c in range(10):
            await db.save_game(game(c), [entry(c, 0)])
        await asyncio.gather(db.load_games(),  # holds the connection: the saves queue
                             *(db.save_game(game(c, '"2"'), [entry(c, 1)]) for c in range(10)))
        seen.clear()  # (the read ran on aiosqlite's thread)
        await asyncio.gather(*(db.save_game(game(c, '"3"'), [entry(c, 2)]) for c in range(10)))
        assert len([sql for sql, _ in seen if sql == "COMMIT"]) == 10
        assert {thread for _, thread in seen} == {threading.get_ident()}
        steps = db.save_game(game(99), [entry(99, 0)])
        try:
            steps.send(None)  # one step: the save is committed when it returns
        except StopIteration:
            pass
        else:
            steps.close()  # (gives its turn back)
            pytest.fail("the save waited for something instead of being written at once")
        assert saved(sqlite_path) == [*range(10), 99]
    assert query(sqlite_path, "SELECT COUNT(*) FROM game_log") == [(31,)]


# --- a file that cannot be in WAL mode ---------------------------------------------


@contextmanager
def without_shared_memory() -> Iterator[None]:
    """SQLite connections opened meanwhile in this process go through ``unix-dotfile``,
    SQLite's VFS for file systems without POSIX locks, which has no shared memory either:
    SQLite then refuses WAL (``PRAGMA journal_mode = WAL`` answers the mode it keeps), as on
    a file system where WAL cannot work. Made the default with SQLite's own
    ``sqlite3_vfs_register``, through ctypes on the library the sqlite3 module uses; the
    default before is restored after. Skips the test where that library cannot be reached so."""
    try:
        lib = ctypes.CDLL(_sqlite3.__file__)  # (its symbols and its libsqlite3's)
        find, register = lib.sqlite3_vfs_find, lib.sqlite3_vfs_register
    except (OSError, AttributeError) as error:
        pytest.skip(f"SQLite's VFS functions are out of ctypes' reach here: {error}")
    find.restype, find.argtypes = ctypes.c_void_p, [ctypes.c_char_p]
    register.restype, register.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_int]
    default, dotfile = find(None), find(b"unix-dotfile")
    if not dotfile:
        pytest.skip("this SQLite has no unix-dotfile VFS")
    assert register(dotfile, 1) == 0
    try:
        yield
    finally:
        assert register(default, 1) == 0


async def journal_mode(db: Database) -> str:
    async with connection_of(db).execute("PRAGMA journal_mode") as cursor:
        row = await cursor.fetchone()
    assert row is not None
    return str(row[0])


async def test_a_save_runs_inline_only_in_wal_mode(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 28: inline, a save is cheap only in WAL mode with ``synchronous = NORMAL`` (an
    append to the -wal file, no fsync). In another journal mode (SQLite could not switch the
    file to WAL) its commit makes three fsyncs (issue 28: 2.5 ms p50, 46 ms at worst), which
    would stop the event loop as long: there the same save runs on aiosqlite's thread, the
    saves called meanwhile queue behind it and are written together, and the start-up log
    says so once. Both files hold what was saved."""
    caplog.set_level(logging.INFO, logger="data.sqlite")
    loop_thread = threading.get_ident()
    wal_path = str(tmp_path / "wal.db")
    async with opened(wal_path) as db:
        assert await journal_mode(db) == "wal"
        seen = await trace_threads(db)
        await db.save_game(game(1), [entry(1, 0)])
        assert games_per_commit(seen) == [1]
        assert {t for _, t in seen} == {loop_thread}, "inline"
        assert await db.load_games() == [game(1)]
    assert not [r for r in caplog.records if "WAL" in r.getMessage()]

    path = str(tmp_path / "no-wal.db")
    with without_shared_memory():
        with closing(sqlite3.connect(tmp_path / "probe.db")) as probe:
            assert probe.execute("PRAGMA journal_mode = WAL").fetchone() == ("delete",)
        async with opened(path) as db:
            assert await journal_mode(db) == "delete"
            seen = await trace_threads(db)
            async with connection_of(db).execute("SELECT 1"):
                pass  # a call on aiosqlite's thread: which thread that is
            (_, aiosqlite_thread), = seen
            assert aiosqlite_thread != loop_thread
            seen.clear()
            await db.save_game(game(1), [entry(1, 0)])
            await asyncio.gather(*(db.save_game(game(c), [entry(c, 0)]) for c in range(2, 12)))
            assert {t for _, t in seen} == {aiosqlite_thread}, "none inline"
            assert games_per_commit(seen) == [1, 1, 9], "alone, then alone and 9 together"
            assert await db.load_games() == [game(c) for c in range(1, 12)]
    assert saved(path) == list(range(1, 12))
    assert query(path, "SELECT COUNT(*) FROM game_log") == [(11,)]
    told = [r for r in caplog.records if "WAL" in r.getMessage()]
    assert len(told) == 1 and told[0].levelno == logging.WARNING
    assert path in told[0].getMessage() and "thread" in told[0].getMessage()


# --- another program's lock -------------------------------------------------------------


async def test_a_save_finding_the_file_locked_waits_on_aiosqlites_thread(
    sqlite_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program holds the write lock for 0.5 s. The save tries inline without
    waiting, finds it taken and waits for it on aiosqlite's thread (busy timeout, here
    2 s): the event loop runs on meanwhile (inline, it would stand still until the busy
    timeout). Saves called meanwhile queue behind it and are written together; once the
    lock is gone, saves are inline again."""
    monkeypatch.setattr(data.sqlite, "BUSY_TIMEOUT_MS", 2000)
    async with opened(sqlite_path) as db:
        await db.save_game(game(1))
        seen = await trace_threads(db)
        loop = asyncio.get_running_loop()
        gaps = await LoopGaps.start()
        other = DbLock(sqlite_path, "IMMEDIATE")
        release = loop.call_later(0.5, other.release)
        try:
            started = time.perf_counter()
            locked = asyncio.create_task(db.save_game(game(2), [entry(2, 0)]))
            await asyncio.sleep(0.1)
            assert not locked.done(), "it waits for the lock"
            queued = [asyncio.create_task(db.save_game(game(c))) for c in (3, 4, 5)]
            await asyncio.wait_for(asyncio.gather(locked, *queued), 10)
            waited = time.perf_counter() - started
        finally:
            release.cancel()
            other.release()
        longest = await gaps.stop()
        assert waited >= 0.45, "the save waited for the other program's lock"
        assert longest < 0.3, f"the event loop stood still {longest:.2f} s"
        assert saved(sqlite_path) == [1, 2, 3, 4, 5]
        loop_thread = threading.get_ident()
        # The first try inline (BEGIN refused at once), then the transaction on the thread.
        assert [(sql, t == loop_thread) for sql, t in seen][:2] == [
            ("PRAGMA busy_timeout = 0", True), ("BEGIN IMMEDIATE", True)]
        assert {t for sql, t in seen if sql == "COMMIT"} != {loop_thread}
        assert games_per_commit(seen) == [1, 3], "the three queued behind it, together"
        seen.clear()
        await db.save_game(game(6))
        assert seen and {t for _, t in seen} == {loop_thread}, "inline again"


async def test_a_lock_held_past_the_busy_timeout_fails_the_save_as_before(
    sqlite_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lock outlasts the busy timeout (here 0.3 s): the save fails with the sentence it
    always had, after waiting the timeout on aiosqlite's thread, not on the loop's; nothing
    of it is written, and the next save, once the lock is gone, is written inline."""
    monkeypatch.setattr(data.sqlite, "BUSY_TIMEOUT_MS", 300)
    async with opened(sqlite_path) as db:
        gaps = await LoopGaps.start()
        other = DbLock(sqlite_path, "IMMEDIATE")
        try:
            started = time.perf_counter()
            with pytest.raises(DatabaseWriteError) as failed:
                await db.save_game(game(1), [entry(1, 0)])
            waited = time.perf_counter() - started
        finally:
            other.release()
        longest = await gaps.stop()
        assert "another program holds the database locked" in str(failed.value)
        assert "save the game of channel 1 " in str(failed.value)
        assert waited >= 0.25 and longest < 0.2, (waited, longest)
        seen = await trace_threads(db)
        await db.save_game(game(2), [entry(2, 0)])
        assert {t for _, t in seen} == {threading.get_ident()}
    assert saved(sqlite_path) == [2]
    assert query(sqlite_path, "SELECT channel_id FROM game_log") == [(2,)]


async def test_a_save_cancelled_while_it_waits_for_the_lock_leaves_nothing_open(
    sqlite_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save waiting on aiosqlite's thread for another program's lock is cancelled (its
    caller gone). Its BEGIN still runs there once the lock is free, and must not leave a
    transaction open: the save is rolled back (not written), and the saves after it are
    written."""
    monkeypatch.setattr(data.sqlite, "BUSY_TIMEOUT_MS", 2000)
    async with opened(sqlite_path) as db:
        loop = asyncio.get_running_loop()
        other = DbLock(sqlite_path, "IMMEDIATE")
        try:
            waiting = asyncio.create_task(db.save_game(game(1), [entry(1, 0)]))
            await asyncio.sleep(0.1)
            assert not waiting.done(), "it waits for the lock"
            waiting.cancel()
            loop.call_later(0.2, other.release)  # its BEGIN gets the lock after that
            with pytest.raises(asyncio.CancelledError):
                await waiting
        finally:
            other.release()
        await db.save_game(game(2), [entry(2, 0)])
        await db.save_game(game(3), [entry(3, 0)])
        assert await db.load_games() == [game(2), game(3)]
    assert saved(sqlite_path) == [2, 3]
    assert query(sqlite_path, "SELECT channel_id FROM game_log ORDER BY 1") == [(2,), (3,)]


# --- one user of the connection -----------------------------------------------------------


async def test_a_call_left_running_on_aiosqlites_thread_keeps_saves_off_the_loop(
    sqlite_path: str,
) -> None:
    """A read whose caller is cancelled while it runs on aiosqlite's thread goes on running
    there, though the turn passes on. The next save must not use the connection at the
    same time from the loop's thread: it runs on aiosqlite's thread after the read; once a
    call there has come back, saves are inline again."""
    async with opened(sqlite_path) as db:
        slow: list[tuple[str, float]] = []
        running = threading.Event()

        def slow_value() -> int:
            slow.append(("start", time.perf_counter()))
            running.set()
            time.sleep(0.3)
            slow.append(("end", time.perf_counter()))
            return 1

        await connection_of(db).create_function("slow_value", 0, slow_value)
        seen = await trace_threads(db)
        read = asyncio.create_task(backend_of(db).fetch_one("SELECT slow_value()"))
        assert await asyncio.to_thread(running.wait, 10), "the read runs on aiosqlite's thread"
        read.cancel()
        with pytest.raises(asyncio.CancelledError):
            await read
        gaps = await LoopGaps.start()
        await db.save_game(game(1), [entry(1, 0)])
        saved_at = time.perf_counter()
        longest = await gaps.stop()
        loop_thread = threading.get_ident()
        assert slow[-1][0] == "end" and slow[-1][1] <= saved_at
        assert [t == loop_thread for sql, t in seen if sql == "COMMIT"] == [False]
        assert longest < 0.2, "the loop's thread did not wait for the connection"
        seen.clear()
        await db.save_game(game(2))
        assert seen and {t for _, t in seen} == {loop_thread}, "inline again"
    assert saved(sqlite_path) == [1, 2]


# --- checkpoints ----------------------------------------------------------------------------


def _wal_bytes(path: str) -> int:
    wal = Path(f"{path}-wal")
    return wal.stat().st_size if wal.exists() else 0


async def _save_steadily(db: Database, saves: int, state: str,
                         between: Callable[[], object] = lambda: None) -> None:
    """One save after another, the loop running between them (as the bot's clicks)."""
    for i in range(saves):
        channel = i % 50
        await db.save_game(game(channel, state), [entry(channel, i // 50)])
        between()
        await asyncio.sleep(0)


@pytest.mark.slow
async def test_checkpoints_run_off_the_loop_and_keep_the_log_bounded(
    sqlite_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot's connection never checkpoints (a COMMIT crossing wal_autocheckpoint would
    copy and fsync inside the save, 4-14 ms here): its ``wal_autocheckpoint`` is 0, and
    data/wal.py checkpoints on a connection of its own in a worker thread. Saves come one
    after another without a pause (10,000 a second), so a passive checkpoint never catches
    up with them and the log never starts over by itself: it would hold every save (6,000
    saves of 3 KB: over 70 MB, measured with the held checkpoint turned off). It stays
    bounded all the same: a few MB, how much depends on how long a checkpoint takes on the
    machine (1.5 MB idle, 6.5 MB with two test runs at once on two cores). Closing leaves
    no log behind."""
    monkeypatch.setattr(data.wal, "CHECKPOINT_WRITES", 20)
    monkeypatch.setattr(data.wal, "WAL_MAX_FRAMES", 200)
    state = '"' + "x" * 3000 + '"'
    async with opened(sqlite_path) as db:
        async with connection_of(db).execute("PRAGMA wal_autocheckpoint") as cursor:
            row = await cursor.fetchone()
        assert row is not None and row[0] == 0
        largest = 0

        def measure() -> None:
            nonlocal largest
            largest = max(largest, _wal_bytes(sqlite_path))

        await _save_steadily(db, 6000, state, measure)
        checkpoints = backend_of(db).checkpoints
        assert checkpoints is not None
        assert largest < 20_000_000, f"the log grew to {largest} bytes"
        assert checkpoints.runs >= 10
        assert checkpoints.held >= 1, "the passive ones never caught up"
        assert len(saved(sqlite_path)) == 50
    assert _wal_bytes(sqlite_path) == 0
    assert query(sqlite_path, "SELECT COUNT(*) FROM game_log") == [(6000,)]


async def test_a_passive_checkpoint_that_catches_up_holds_up_no_save(
    sqlite_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Saves with pauses between them (a checkpoint has time to copy the whole log): the
    log starts over after each checkpoint and the -wal file stops growing, and no
    checkpoint ever made the saves wait."""
    monkeypatch.setattr(data.wal, "CHECKPOINT_WRITES", 20)
    state = '"' + "x" * 3000 + '"'
    async with opened(sqlite_path) as db:
        checkpoints = backend_of(db).checkpoints
        assert checkpoints is not None

        async def round_of_saves() -> None:
            await _save_steadily(db, 20, state)
            assert checkpoints.running  # the 20th save started one
            for _ in range(500):
                if not checkpoints.running:
                    return
                await asyncio.sleep(0.01)
            raise AssertionError("the checkpoint did not end within 5 s")

        await round_of_saves()
        one_round = _wal_bytes(sqlite_path)
        for _ in range(14):
            await round_of_saves()
        # Without starting over the log would hold all 15 rounds.
        assert 0 < _wal_bytes(sqlite_path) <= 2 * one_round
        assert checkpoints.runs == 15 and checkpoints.held == 0
