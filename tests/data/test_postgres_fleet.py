"""PostgreSQL for a fleet (issue 30), on the tests' real server: reads on a pool of their own
never wait behind a write (here one held up by another connection's row lock); a process
reads at start-up only its own shards' games, chosen in SQL; a connection cut while COMMIT
is on its way (a proxy that passes the COMMIT on and drops the client) neither loses nor
doubles the move, and the caller is told it is stored."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest

from data import Database, LogEntry, SavedGame
from data.postgres import PostgresBackend
from support.data import opened, query
from support.pgproxy import CommitCutter

GUILD = 1


def game(channel: int, state: str = "{}", guild: int = GUILD) -> SavedGame:
    return SavedGame(channel, guild, f"g{channel}", state, 1)


def entry(channel: int, seq: int, text: str = "{}") -> LogEntry:
    return LogEntry(f"g{channel}", GUILD, channel, seq, text, 1)


async def _blocked(url: str, pid: int) -> bool:
    """Whether the backend ``pid`` waits for a lock."""
    rows = query(url, "SELECT wait_event_type FROM pg_stat_activity WHERE pid = ?", pid)
    return bool(rows) and rows[0][0] == "Lock"


# --- reads on a pool of their own ---------------------------------------------------------


@pytest.mark.parametrize("pool", [2, 0])
async def test_a_read_completes_while_a_write_waits_for_a_lock(pg_url: str, pool: int) -> None:
    """Another connection holds channel 1's row; the bot's save of it waits for the lock.
    With the pool (the default) a read made meanwhile is answered at once; without it
    (DATABASE_READ_POOL=0) the read waits in line behind the stuck write."""
    db = await Database.open(pg_url, read_pool=pool)
    locker = await asyncpg.connect(pg_url)
    try:
        await db.save_game(game(1, '"before"'))
        await locker.execute("BEGIN")
        await locker.execute("SELECT * FROM saved_games WHERE channel_id = 1 FOR UPDATE")
        save = asyncio.create_task(db.save_game(game(1, '"after"')))
        backend = db._backend
        assert isinstance(backend, PostgresBackend)
        writer = backend.connection.get_server_pid()
        for _ in range(100):
            if await _blocked(pg_url, writer):
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the save never waited for the row lock")
        read = asyncio.create_task(db.load_game(1))
        done, _ = await asyncio.wait({read}, timeout=1.0)
        if pool:
            assert done, "the read waited behind the write"
            assert read.result() == game(1, '"before"'), "it sees what is committed"
            assert await asyncio.wait_for(db.get_guild_settings(5), 1.0) is not None
        else:
            assert not done, "without the pool the read waits in line"
        assert not save.done()
        await locker.execute("ROLLBACK")
        await asyncio.wait_for(save, 5)
        assert await asyncio.wait_for(read, 5) in (game(1, '"before"'), game(1, '"after"'))
        assert await db.load_game(1) == game(1, '"after"')
    finally:
        await locker.close()
        await db.close()


async def test_reads_survive_their_connection_being_cut(pg_url: str) -> None:
    async with opened(pg_url) as db:
        await db.save_game(game(1))
        assert await db.load_game(1) == game(1)
        query(pg_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        assert await db.load_game(1) == game(1)  # tried again on a new connection
        await db.save_game(game(2))
        assert [g.channel_id for g in await db.load_games()] == [1, 2]


# --- start-up: only this process's shards -------------------------------------------------


async def test_only_the_games_of_its_own_shards_are_fetched(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Six servers on 4 shards; the process of shards 1 and 3 fetches only their games:
    the rows that come back from the server (asyncpg's fetch, counted) are theirs."""
    guilds = {(shard + 4 * k) << 22 | 12345: shard for shard in range(4) for k in range(2)}
    games = [game(100 + i, guild=g) for i, g in enumerate(sorted(guilds))]
    async with opened(pg_url) as db:
        for g in games:
            await db.save_game(g)
        fetched: list[int] = []
        fetch = asyncpg.connection.Connection.fetch

        async def counted(self: asyncpg.Connection, sql: str, *args: object,
                          **kw: object) -> list[asyncpg.Record]:
            rows: list[asyncpg.Record] = await fetch(self, sql, *args, **kw)
            fetched.extend(row["guild_id"] for row in rows if "guild_id" in row)
            return rows

        monkeypatch.setattr(asyncpg.connection.Connection, "fetch", counted)
        mine = await db.load_games((4, (1, 3)))
        assert sorted(g.guild_id for g in mine) == sorted(
            g for g, shard in guilds.items() if shard in (1, 3))
        assert len(mine) == 4
        assert sorted(fetched) == sorted(g.guild_id for g in mine), \
            "no game of another shard came out of the database"
        fetched.clear()
        assert len(await db.load_games()) == 8  # unsharded: every game
        assert len(fetched) == 8


async def test_the_shard_filter_is_discords_formula_on_sqlite_too(tmp_path: object) -> None:
    guilds = [(shard + 3 * k) << 22 | 7 for shard in range(3) for k in range(3)]
    async with opened(f"{tmp_path}/bot.db") as db:
        for i, g in enumerate(guilds):
            await db.save_game(game(i + 1, guild=g))
        mine = await db.load_games((3, (2,)))
        assert [g.guild_id for g in mine] == sorted(g for g in guilds if (g >> 22) % 3 == 2)


# --- a connection cut during COMMIT -------------------------------------------------------


@pytest.fixture
async def cutter(pg_url: str) -> AsyncIterator[CommitCutter]:
    proxy = await CommitCutter(pg_url).start()
    try:
        yield proxy
    finally:
        await proxy.close()


async def test_a_save_cut_during_commit_is_stored_once_and_the_caller_told(
        pg_url: str, cutter: CommitCutter) -> None:
    """The COMMIT of a move reaches the server, which stores it, and the connection drops
    before the answer comes back. The save is written again on a new connection (it is
    idempotent), so save_game returns: the move stands, as in the database, and its log
    entry is there once."""
    async with opened(cutter.url) as db:
        await db.save_game(game(1, '"move 1"'), [entry(1, 0), entry(1, 1, '"one"')])
        cutter.armed = True
        await db.save_game(game(1, '"move 2"'), [entry(1, 2, '"two"')])
        assert cutter.cuts == 1, "the connection was cut at COMMIT"
        assert await db.load_game(1) == game(1, '"move 2"')
        assert [(e.seq, e.entry) for e in await db.game_log(GUILD, "g1")] == [
            (0, "{}"), (1, '"one"'), (2, '"two"')]
        await db.save_game(game(1, '"move 3"'), [entry(1, 3, '"three"')])
    assert query(pg_url, "SELECT seq FROM game_log ORDER BY seq") == [(0,), (1,), (2,), (3,)]
    assert query(pg_url, "SELECT state FROM saved_games") == [('"move 3"',)]


async def test_saves_batched_together_cut_during_commit_are_each_stored_once(
        pg_url: str, cutter: CommitCutter) -> None:
    async with opened(cutter.url) as db:
        await db.save_game(game(1, '"start"'), [entry(1, 0)])
        cutter.armed = True
        await asyncio.gather(
            db.load_game(7),
            db.save_game(game(9)),  # holds the line: the next saves share a transaction
            *(db.save_game(game(1, f'"move {i}"'), [entry(1, i)]) for i in range(1, 4)))
        assert cutter.cuts == 1
        assert await db.load_game(1) == game(1, '"move 3"')
        assert [e.seq for e in await db.game_log(GUILD, "g1")] == [0, 1, 2, 3]


async def test_a_move_made_in_place_of_an_undone_one_replaces_its_log_entry(
        db: Database) -> None:
    """Both backends. A save the bot took for failed was stored (a COMMIT whose answer was
    lost, and writing it again failed too): the bot undid the move, and the next move
    reuses its sequence number. Its entry replaces the undone one's, as its snapshot
    replaces the undone snapshot: the log is the game's."""
    await db.save_game(game(1, '"move 1"'), [entry(1, 0), entry(1, 1, '"one"')])
    await db.save_game(game(1, '"undone"'), [entry(1, 2, '"undone"')])
    await db.save_game(game(1, '"move 2"'), [entry(1, 2, '"two"')])
    assert await db.load_game(1) == game(1, '"move 2"')
    assert [(e.seq, e.entry) for e in await db.game_log(GUILD, "g1")] == [
        (0, "{}"), (1, '"one"'), (2, '"two"')]
