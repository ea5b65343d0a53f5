"""Group commit of ``Database.save_game``: saves made while the connection is busy share one
transaction, each caller still gets its own answer, and every call keeps its place in line.

Every test runs on both backends (SQLite, PostgreSQL: ``support.data``). Transactions are
counted where each backend runs its statements (``Statements``), so a test fails if every
save still runs alone. Concurrent saves are started with ``asyncio.gather`` behind a read
that holds the connection (``load_games``, first in the gather): they queue behind it. (A save
made while the connection is idle is written at once; on SQLite inline, in the caller's
own step, so nothing could queue behind it.) PostgreSQL's reads run on a pool of their own
by default, beside the line (tests/data/test_postgres_fleet.py): here they take their turn
in it (``read_pool=0``), as SQLite's do, so that a read can hold the connection.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from data import (
    Database,
    DatabaseVanishedError,
    DatabaseWriteError,
    GameResult,
    LogEntry,
    PlayerResult,
    SavedGame,
)
from data.batching import SAVE_BATCH_MAX, Turns
from data.database import is_url
from support.data import FAILED, REJECTED, Statements, connection_of, opened, query, save_queue_of

GUILD = 1


def game(channel: int, state: str = "{}", at: int = 1) -> SavedGame:
    return SavedGame(channel, GUILD, f"g{channel}", state, at)


def entry(channel: int, seq: int, text: str | None = None) -> LogEntry:
    return LogEntry(f"g{channel}", GUILD, channel, seq, text or f'{{"seq": {seq}}}', 100 + seq)


def broken(channel: int, seq: int) -> LogEntry:
    """An entry Python accepts (validation bypassed) that only SQLite refuses."""
    bad = entry(channel, seq)
    object.__setattr__(bad, "seq", -1)  # violates CHECK (seq >= 0)
    return bad


def result(channel: int) -> GameResult:
    players = (PlayerResult(10, 100, True, 1, 0, 100), PlayerResult(11, 0, False, 0, 0, 0))
    return GameResult(f"g{channel}", GUILD, channel, "classic", 500, 1, players)


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


# --- sharing transactions ---------------------------------------------------------------


@pytest.mark.parametrize("group_commit", [True, False], ids=["grouped", "alone"])
async def test_concurrent_saves_of_many_channels_share_transactions(
    db_path: str, monkeypatch: pytest.MonkeyPatch, group_commit: bool
) -> None:
    n = 150
    async with opened(db_path, group_commit=group_commit, read_pool=0) as db:
        seen = await Statements.watch(db, monkeypatch)
        await asyncio.gather(
            db.load_games(),  # holds the connection: the saves queue behind it
            *(db.save_game(game(c, f'{{"c": {c}}}'), [entry(c, 0), entry(c, 1)])
              for c in range(n))
        )
        assert seen.begins == seen.commits
        assert sum(seen.upserts) == n
        if group_commit:
            # Full batches, then the rest.
            assert seen.commits == math.ceil(n / SAVE_BATCH_MAX)
            assert max(seen.upserts) == SAVE_BATCH_MAX
        else:
            assert seen.commits == n
    assert query(db_path, "SELECT channel_id, state FROM saved_games ORDER BY channel_id") == [
        (c, f'{{"c": {c}}}') for c in range(n)
    ]
    assert query(db_path, "SELECT game_id, seq FROM game_log ORDER BY channel_id, seq") == [
        (f"g{c}", seq) for c in range(n) for seq in (0, 1)
    ]


async def test_games_saving_move_after_move_end_with_every_move(
    db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    games, moves = 30, 8

    async def play(channel: int) -> None:
        for move in range(moves):
            await db.save_game(game(channel, f'{{"move": {move}}}', at=move),
                               [entry(channel, move)])

    async with opened(db_path, read_pool=0) as db:
        seen = await Statements.watch(db, monkeypatch)
        await asyncio.gather(*(play(c) for c in range(games)))
        if is_url(db_path):
            assert seen.commits <= games * moves // 4  # alone, it would be 240
        else:  # each written inline as it comes: the connection is never busy, none queue
            assert seen.commits == games * moves
        assert await db.load_games() == [
            game(c, f'{{"move": {moves - 1}}}', at=moves - 1) for c in range(games)
        ]
        for c in range(games):
            assert await db.game_log(GUILD, f"g{c}") == [entry(c, m) for m in range(moves)]


async def test_saves_of_one_channel_end_with_the_later_snapshot(
    db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with opened(db_path, read_pool=0) as db:
        seen = await Statements.watch(db, monkeypatch)
        await asyncio.gather(
            db.load_games(),  # holds the connection: the saves queue behind it
            *(db.save_game(game(5, f'{{"turn": {i}}}', at=i), [entry(5, i)]) for i in range(100))
        )
        assert seen.commits == math.ceil(100 / SAVE_BATCH_MAX)
        assert await db.load_game(5) == game(5, '{"turn": 99}', at=99)
        assert await db.game_log(GUILD, "g5") == [entry(5, i) for i in range(100)]


async def test_an_entry_saved_twice_in_one_batch_keeps_the_latest(
    db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with opened(db_path, read_pool=0) as db:
        seen = await Statements.watch(db, monkeypatch)
        await asyncio.gather(
            db.load_games(),  # holds the connection: the saves queue behind it
            db.save_game(game(5, '{"v": 1}'), [entry(5, 0), entry(5, 1, '"first"')]),
            db.save_game(game(5, '{"v": 2}'), [entry(5, 1, '"second"'), entry(5, 2)]),
        )
        assert seen.upserts == [2]  # the two saves of channel 5 shared a transaction
        assert await db.load_game(5) == game(5, '{"v": 2}')
        # the move's sequence number decides: the latest save's entry 1, as its snapshot
        assert await db.game_log(GUILD, "g5") == [entry(5, 0), entry(5, 1, '"second"'),
                                                  entry(5, 2)]


async def test_saves_one_after_another_are_each_written_at_once(
    db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with opened(db_path, read_pool=0) as db:
        seen = await Statements.watch(db, monkeypatch)
        for i in range(3):
            await db.save_game(game(5, f'{{"turn": {i}}}'), [entry(5, i)])
            assert seen.commits == i + 1  # committed before save_game returned
            assert await db.load_game(5) == game(5, f'{{"turn": {i}}}')
        assert seen.upserts == [1, 1, 1]
        # No hop through a queue or a task: the caller's own step takes the connection's
        # turn and writes (SQLite: the whole transaction, inline) or hands the transaction
        # to the database (PostgreSQL: BEGIN).
        save = asyncio.create_task(db.save_game(game(5, '{"turn": 3}')))
        await asyncio.sleep(0)  # the task's first step, and only that
        queue = save_queue_of(db)
        assert queue.open_group is None and not queue.runners, "nothing queued"
        if is_url(db_path):
            assert not db._backend.idle, "the save holds the connection's turn"
        else:
            assert save.done() and db._backend.idle, "written in the caller's first step"
        await save
        assert seen.begins == seen.commits == 4


# --- failures ---------------------------------------------------------------------------


async def test_a_failing_batch_fails_every_caller_and_writes_nothing(
    db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 20
    async with opened(db_path, read_pool=0) as db:
        await db.set_read_only_for_tests(True)
        seen = await Statements.watch(db, monkeypatch)
        _, *outcome = await asyncio.gather(
            db.load_games(),  # holds the connection: the saves queue behind it
            *(db.save_game(game(c), [entry(c, 0)]) for c in range(n)), return_exceptions=True
        )
        assert seen.commits == 0
        # All 20 together, then each alone again.
        assert seen.begins == 1 + n
        assert len({id(error) for error in outcome}) == n  # each caller its own error
        for c, error in enumerate(outcome):
            assert isinstance(error, DatabaseWriteError), error
            assert f"save the game of channel {c} " in str(error)
            assert "read-only" in str(error)
            assert isinstance(error.__cause__, FAILED)
        await db.set_read_only_for_tests(False)
        assert await db.load_games() == []
    assert query(db_path, "SELECT COUNT(*) FROM game_log") == [(0,)]


async def test_a_save_that_fails_in_sqlite_fails_alone(
    db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    channels = range(1, 12)
    bad = 6

    def log_of(c: int) -> list[LogEntry]:
        return [entry(c, 0), broken(c, 1) if c == bad else entry(c, 1)]

    async with opened(db_path, read_pool=0) as db:
        seen = await Statements.watch(db, monkeypatch)
        _, *outcome = await asyncio.gather(
            db.load_games(),  # holds the connection: the saves queue behind it
            *(db.save_game(game(c), log_of(c)) for c in channels), return_exceptions=True
        )
        failed = outcome[channels.index(bad)]
        assert isinstance(failed, DatabaseWriteError), failed
        assert f"channel {bad} " in str(failed)
        assert isinstance(failed.__cause__, REJECTED)
        assert [o for c, o in zip(channels, outcome, strict=True) if c != bad] == [None] * 10
        # The shared attempt and the bad save alone were the only ones rolled back.
        assert seen.begins - seen.commits == 2
        assert seen.upserts[:2] == [11, 1]
        assert [g.channel_id for g in await db.load_games()] == [c for c in channels if c != bad]
        for c in channels:
            assert await db.game_log(GUILD, f"g{c}") == ([] if c == bad else log_of(c))


async def test_a_vanished_file_fails_every_save_of_a_batch(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bot.db"
    async with opened(path, read_pool=0) as db:
        await db.save_game(game(1))
        _remove_database(path)
        seen = await Statements.watch(db, monkeypatch)
        with caplog.at_level(logging.ERROR, logger="data"):
            # The read holds the connection (a save alone would fail at once, before
            # anything could queue behind it), so the saves wait and form one batch.
            read, *outcome = await asyncio.gather(
                db.load_games(),
                *(db.save_game(game(c, '{"lost": true}')) for c in range(10)),
                return_exceptions=True,
            )
        assert read == [game(1)]
        assert seen.begins == 0
        assert all(isinstance(error, DatabaseVanishedError) for error in outcome), outcome
        assert len({id(error) for error in outcome}) == 10
        assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 1
        assert not path.exists()


# --- order among all calls --------------------------------------------------------------


@pytest.mark.parametrize("finish", ["record_game", "end_game"])
async def test_finishing_a_game_keeps_its_place_among_saves(db_path: str, finish: str) -> None:
    finishing: Callable[[list[LogEntry]], Any] = (
        (lambda log: db.record_game(result(5), log)) if finish == "record_game"
        else (lambda log: db.end_game(game(5), log))
    )
    async with opened(db_path, read_pool=0) as db:
        await db.save_game(game(5, '"start"'), [entry(5, 0)])
        await asyncio.gather(
            db.save_game(game(7)),  # written at once: the others queue behind it
            db.save_game(game(5, '"A"'), [entry(5, 1, '"A"')]),
            finishing([entry(5, 1, '"F"'), entry(5, 2, '"F"')]),
            db.save_game(game(5, '"B"'), [entry(5, 3, '"B"')]),
            db.save_game(game(8)),
        )
        # A (called before) was written first: the finisher's entry 1, written after it,
        # replaces it (a sequence number's latest entry is kept).
        assert [(e.seq, e.entry) for e in await db.game_log(GUILD, "g5")] == [
            (0, '{"seq": 0}'), (1, '"F"'), (2, '"F"'), (3, '"B"')
        ]
        # B (called after) was written after the finisher deleted the saved game.
        assert await db.load_game(5) == game(5, '"B"')
        assert [g.channel_id for g in await db.load_games()] == [5, 7, 8]


async def test_saves_called_after_another_write_are_not_batched_before_it(db_path: str) -> None:
    async with opened(db_path, read_pool=0) as db:
        outcome = await asyncio.gather(
            db.save_game(game(7)),
            db.save_game(game(1)),
            db.save_game(game(2)),
            db.set_read_only_for_tests(True),
            db.save_game(game(3)),
            db.save_game(game(4)),
            return_exceptions=True,
        )
        assert outcome[:4] == [None] * 4
        assert all(isinstance(error, DatabaseWriteError) for error in outcome[4:]), outcome
        await db.set_read_only_for_tests(False)
        assert [g.channel_id for g in await db.load_games()] == [1, 2, 7]


async def test_a_read_sees_the_saves_called_before_it_and_not_after(db_path: str) -> None:
    async with opened(db_path, read_pool=0) as db:
        outcome = await asyncio.gather(
            db.save_game(game(7)),
            db.save_game(game(5, '"A"')),
            db.load_game(5),
            db.save_game(game(5, '"B"')),
        )
        assert outcome[2] == game(5, '"A"')
        assert await db.load_game(5) == game(5, '"B"')


async def test_a_caller_cancelled_before_its_batch_writes_nothing(db_path: str) -> None:
    async with opened(db_path, read_pool=0) as db:
        await db.save_game(game(1))
        first = asyncio.create_task(db.load_games())
        await asyncio.sleep(0)  # first holds the connection
        gone = asyncio.create_task(db.save_game(game(2)))
        kept = asyncio.create_task(db.save_game(game(3)))
        await asyncio.sleep(0)
        group = save_queue_of(db).open_group
        assert group is not None and len(group.items) == 2  # both wait for one batch
        gone.cancel()
        await asyncio.wait_for(asyncio.gather(first, kept), 10)
        with pytest.raises(asyncio.CancelledError):
            await gone
        assert [g.channel_id for g in await db.load_games()] == [1, 3]


# --- closing ----------------------------------------------------------------------------


async def test_close_writes_the_saves_still_queued_and_answers_every_caller(
    db_path: str,
) -> None:
    n = 100
    db = await Database.open(db_path)
    try:
        read = asyncio.create_task(db.load_games())
        saves = [asyncio.create_task(db.save_game(game(c), [entry(c, 0)])) for c in range(n)]
        await asyncio.sleep(0)  # the read holds the connection, the saves are queued
        assert save_queue_of(db).runners
        closing = asyncio.create_task(db.close())
        await asyncio.sleep(0)
        late = [asyncio.create_task(db.save_game(game(n + i))) for i in range(3)]
        await closing
        assert read.done() and all(task.done() for task in saves)
        assert [task.result() for task in saves] == [None] * n
        # Saves called after close() fail as on any closed aiosqlite connection (ValueError
        # "no active connection"), each on its own, and never hang.
        outcome = await asyncio.wait_for(asyncio.gather(*late, return_exceptions=True), 10)
        assert all(isinstance(error, ValueError) for error in outcome), outcome
        assert len({id(error) for error in outcome}) == len(late)
        with pytest.raises(ValueError):
            await asyncio.wait_for(db.save_game(game(999)), 10)
        assert not save_queue_of(db).runners
    finally:
        await db.close()
    async with opened(db_path, read_pool=0) as db:
        assert [g.channel_id for g in await db.load_games()] == list(range(n))
    assert query(db_path, "SELECT COUNT(*) FROM game_log") == [(n,)]


# --- the line itself --------------------------------------------------------------------


async def test_turns_are_first_come_first_served_and_skip_who_gave_up() -> None:
    turns = Turns()
    order: list[str] = []

    async def user(name: str) -> None:
        turn = turns.reserve()
        await turns.wait(turn)
        order.append(name)
        await asyncio.sleep(0)
        turns.release()

    assert turns.reserve().done()  # an empty line: the turn is there at once
    tasks = {name: asyncio.create_task(user(name)) for name in "abcd"}
    await asyncio.sleep(0)
    tasks["b"].cancel()
    await asyncio.sleep(0)
    turns.release()
    await asyncio.wait_for(asyncio.gather(tasks["a"], tasks["c"], tasks["d"]), 10)
    assert order == ["a", "c", "d"]
    assert turns.free


async def test_a_turn_that_comes_as_its_waiter_is_cancelled_is_handed_on() -> None:
    turns = Turns()
    order: list[str] = []

    async def user(name: str) -> None:
        turn = turns.reserve()
        await turns.wait(turn)
        order.append(name)
        turns.release()

    turns.reserve()
    b = asyncio.create_task(user("b"))
    c = asyncio.create_task(user("c"))
    await asyncio.sleep(0)
    turns.release()  # b's turn comes ...
    b.cancel()  # ... but b is cancelled before it runs
    await asyncio.wait_for(c, 10)  # a turn lost here would hang the line
    with pytest.raises(asyncio.CancelledError):
        await b
    assert order == ["c"]
    assert turns.free


# --- a failed COMMIT ----------------------------------------------------------------------


async def test_a_failed_commit_is_rolled_back_and_the_next_save_works(sqlite_path: str) -> None:
    """A COMMIT that fails (disk full, say) must not leave the transaction open: the save
    fails, nothing of it is kept, and the next save starts a fresh transaction. (SQLite's
    COMMIT is refused by its authorizer here; PostgreSQL's really fails in
    tests/data/test_postgres.py.)"""
    db_path = sqlite_path
    async with opened(db_path, read_pool=0) as db:
        conn = connection_of(db)
        failures = [sqlite3.SQLITE_DENY]

        def authorize(action: int, arg1: str | None, *_: Any) -> int:
            # SQLite asks before it runs each statement: COMMIT is refused once
            if action == sqlite3.SQLITE_TRANSACTION and arg1 == "COMMIT" and failures:
                return failures.pop()
            return sqlite3.SQLITE_OK

        await conn.set_authorizer(authorize)
        with pytest.raises(DatabaseWriteError):
            await db.save_game(game(1, '{"v": 1}'), [entry(1, 0)])
        await db.save_game(game(2, '{"v": 2}'), [entry(2, 0)])
    assert query(db_path, "SELECT channel_id, state FROM saved_games") == [(2, '{"v": 2}')]
    assert query(db_path, "SELECT channel_id FROM game_log") == [(2,)]
