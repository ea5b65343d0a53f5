"""What only the PostgreSQL backend has, on the real throwaway server of ``support.postgres``:
the schema version table and migrating once when processes start together, one clear
sentence for each way the server can refuse (unreachable, no such host or database, bad
credentials, a read-only database or user, a full disk, a malformed URL), a connection lost
in the middle of a write (the write fails whole, the next call connects again), and the
advisory locks. The calls every backend shares run on PostgreSQL in the other files of
tests/data (``db_path`` is each backend in turn).

Faults are real: the disk-full and connection-lost cases are a constraint trigger firing at
COMMIT (``RAISE ... USING ERRCODE = 'disk_full'``, ``pg_terminate_backend`` of the bot's own
session) in a database of the test's own.
"""

from __future__ import annotations

import asyncio
import logging

import asyncpg
import pytest

from data import (
    Database,
    DatabaseOpenError,
    DatabaseUnwritableError,
    DatabaseVersionError,
    DatabaseWriteError,
    GameResult,
    LogEntry,
    PlayerResult,
    SavedGame,
)
from data.migrate import load_migrations
from data.postgres import PostgresBackend, numbered
from settings import database_url_problem
from support import postgres
from support.data import count_rows, opened, query


def _one_line(message: str) -> None:
    assert "\n" not in message and message.endswith("."), message


def finished_game() -> GameResult:
    return GameResult("done", 1, 5, "classic", 1, 1, (PlayerResult(9, 1, True, 1, 0, 1),))


def game(channel: int, state: str = "{}") -> SavedGame:
    return SavedGame(channel, 1, f"g{channel}", state, 1)


async def _refused(url: str) -> DatabaseOpenError:
    with pytest.raises(DatabaseOpenError) as info:
        await Database.open(url)
    _one_line(str(info.value))
    assert info.value.__cause__ is None, "no chained traceback"
    return info.value


# --- migrations ---------------------------------------------------------------------------


async def test_two_processes_opening_a_new_database_at_once_migrate_it_once(
        pg_server: postgres.PgServer) -> None:
    url = postgres.new_database(pg_server, migrated=False)
    try:
        first, second = await asyncio.gather(Database.open(url), Database.open(url))
        await first.close()
        await second.close()
        assert query(url, "SELECT version FROM schema_version") == [(len(load_migrations()),)]
        tables = {row[0] for row in query(
            url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert {"guild_settings", "user_settings", "saved_games", "game_log",
                "set_aside_games", "game_results", "game_players", "player_stats"} <= tables
    finally:
        postgres.drop_database(pg_server, url)


async def test_a_database_of_a_newer_bot_is_refused(pg_private_url: str) -> None:
    query(pg_private_url, "UPDATE schema_version SET version = 99")
    error = await _refused(pg_private_url)
    assert isinstance(error, DatabaseVersionError)
    assert "schema version 99" in str(error)


def test_placeholders_are_numbered_outside_quotes() -> None:
    assert numbered("SELECT '?' , ? FROM t WHERE a = ? AND b = \"?\"") == \
        "SELECT '?' , $1 FROM t WHERE a = $2 AND b = \"?\""


# --- refused at open ----------------------------------------------------------------------


async def test_a_server_that_is_not_there_is_named(pg_server: postgres.PgServer) -> None:
    url = f"postgresql://uno:secret@127.0.0.1:{postgres.free_port()}/uno"
    error = await _refused(url)
    assert "Cannot reach the PostgreSQL server" in str(error)
    assert "secret" not in str(error)


async def test_an_unknown_host_is_named() -> None:
    error = await _refused("postgresql://uno:secret@no-such-host.invalid:5432/uno")
    assert "Cannot find the PostgreSQL server" in str(error)


async def test_a_wrong_password_is_named_and_never_shown(pg_server: postgres.PgServer) -> None:
    error = await _refused(pg_server.url(password="not-the-password"))
    assert "refused the user name or password" in str(error)
    assert "not-the-password" not in str(error)


async def test_a_missing_database_is_named(pg_server: postgres.PgServer) -> None:
    error = await _refused(pg_server.url("no_such_database"))
    assert "has no such database" in str(error)


async def test_a_read_only_database_is_refused_at_open(
        pg_server: postgres.PgServer, pg_private_url: str) -> None:
    name = pg_private_url.rsplit("/", 1)[1]
    await pg_server.admin(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    error = await _refused(pg_private_url)
    assert isinstance(error, DatabaseUnwritableError)
    assert "is read-only" in str(error)


async def test_a_user_who_may_only_read_is_refused_at_open(
        pg_server: postgres.PgServer, pg_private_url: str) -> None:
    name = pg_private_url.rsplit("/", 1)[1]
    await pg_server.admin("DROP ROLE IF EXISTS reader")
    await pg_server.admin("CREATE ROLE reader LOGIN PASSWORD 'reader'")
    await pg_server.admin("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader",
                          database=name)
    try:
        error = await _refused(pg_server.url(name, user="reader", password="reader"))
        assert isinstance(error, DatabaseUnwritableError)
        assert "may not write" in str(error)
    finally:
        await pg_server.admin("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM reader",
                              database=name)
        await pg_server.admin(f'DROP DATABASE "{name}" WITH (FORCE)')
        await pg_server.admin("DROP ROLE reader")


async def test_a_full_disk_at_open_is_named(pg_server: postgres.PgServer) -> None:
    """A new database whose first migration cannot be written (an event trigger raises
    PostgreSQL's disk_full at the first CREATE TABLE)."""
    url = postgres.new_database(pg_server, migrated=False)
    try:
        postgres.script(url, """
            CREATE FUNCTION full_disk() RETURNS event_trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'could not extend file: No space left on device'
                    USING ERRCODE = 'disk_full';
            END $$;
            CREATE EVENT TRIGGER full_disk ON ddl_command_start
                EXECUTE FUNCTION full_disk();
        """)
        error = await _refused(url)
        assert "is full" in str(error) and "free some space" in str(error)
    finally:
        postgres.drop_database(pg_server, url)


@pytest.mark.parametrize("url", [
    "postgresql://uno:pw@host:port/uno",
    "postgresql:///uno",
    "mysql://uno:pw@host/uno",
    "postgresql://uno:pw@host/a/b",
])
async def test_a_malformed_url_is_one_sentence(url: str) -> None:
    problem = database_url_problem(url)
    assert problem is not None and problem.startswith("DATABASE_URL")
    _one_line(problem)
    if url.startswith("postgresql"):
        error = await _refused(url)
        assert str(error) == problem


def test_a_good_url_has_no_problem() -> None:
    assert database_url_problem("postgresql://uno:p%40ss@db.example:5433/uno") is None
    assert database_url_problem("postgres://uno@db/uno?sslmode=require") is None


async def test_the_path_hides_the_password(pg_url: str) -> None:
    async with opened(pg_url) as db:
        assert postgres.PASSWORD not in db.path
        assert db.path.startswith("postgresql://uno:***@127.0.0.1:")


# --- failing writes -----------------------------------------------------------------------

_AT_COMMIT = """
CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.state = '"disk full"' THEN
        RAISE EXCEPTION 'could not extend file: No space left on device'
            USING ERRCODE = 'disk_full';
    END IF;
    IF NEW.state = '"cut"' THEN
        PERFORM pg_terminate_backend(pg_backend_pid());
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT OR UPDATE ON saved_games
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_at_commit();
"""


async def test_a_full_disk_at_commit_writes_nothing_and_the_next_save_works(
        pg_private_url: str) -> None:
    postgres.script(pg_private_url, _AT_COMMIT)
    async with opened(pg_private_url) as db:
        await db.save_game(game(1))
        with pytest.raises(DatabaseWriteError) as info:
            await db.save_game(game(2, '"disk full"'), [LogEntry("g2", 1, 2, 0, "{}", 1)])
        _one_line(str(info.value))
        assert "disk is full" in str(info.value)
        assert isinstance(info.value.__cause__, asyncpg.exceptions.DiskFullError)
        await db.save_game(game(3))
        assert [g.channel_id for g in await db.load_games()] == [1, 3]
        assert count_rows(pg_private_url, "game_log") == 0


async def test_a_connection_lost_mid_write_fails_that_write_and_the_next_reconnects(
        pg_private_url: str, caplog: pytest.LogCaptureFixture) -> None:
    postgres.script(pg_private_url, _AT_COMMIT)
    async with opened(pg_private_url) as db:
        await db.save_game(game(1))
        with caplog.at_level(logging.WARNING, logger="data"), \
                pytest.raises(DatabaseWriteError) as info:
            await db.save_game(game(2, '"cut"'), [LogEntry("g2", 1, 2, 0, "{}", 1)])
        _one_line(str(info.value))
        assert "connection to the server was lost" in str(info.value)
        # The move is not kept; the next save connects again and is written.
        await db.save_game(game(3))
        assert [g.channel_id for g in await db.load_games()] == [1, 3]
        assert count_rows(pg_private_url, "game_log") == 0
        assert any("Connected again" in r.getMessage() for r in caplog.records)


async def test_a_connection_cut_between_calls_is_opened_again(
        pg_server: postgres.PgServer, pg_url: str) -> None:
    async with opened(pg_url) as db:
        await db.save_game(game(1))
        backend = db._backend
        assert isinstance(backend, PostgresBackend)
        pid = backend.connection.get_server_pid()
        await pg_server.admin("SELECT pg_terminate_backend($1)", pid)
        # A read right away: tried again on a new connection if the cut is seen only now.
        assert [g.channel_id for g in await db.load_games()] == [1]
        await db.save_game(game(2))
        assert backend.connection.get_server_pid() != pid
        assert [g.channel_id for g in await db.load_games()] == [1, 2]


async def test_a_server_gone_fails_calls_with_one_sentence_then_they_work_again(
        pg_server: postgres.PgServer, pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server stays away (here: the backend is pointed at a port nobody listens on after
    its connection is cut): writes and reads fail with one sentence, nothing hangs, and
    once the server is back the next call works."""
    async with opened(pg_url) as db:
        backend = db._backend
        assert isinstance(backend, PostgresBackend)
        real_url = backend._url
        monkeypatch.setattr(backend, "_url",
                            f"postgresql://uno:x@127.0.0.1:{postgres.free_port()}/uno")
        monkeypatch.setattr("data.postgres.RECONNECT_PAUSE_S", 0.0)
        await pg_server.admin("SELECT pg_terminate_backend($1)",
                              backend.connection.get_server_pid())
        with pytest.raises(DatabaseWriteError) as info:
            await db.save_game(game(1))
        _one_line(str(info.value))
        from data import DatabaseUnreachableError
        with pytest.raises(DatabaseUnreachableError) as unreachable:
            await db.load_games()
        _one_line(str(unreachable.value))
        monkeypatch.setattr(backend, "_url", real_url)
        await db.save_game(game(2))
        assert [g.channel_id for g in await db.load_games()] == [2]


# --- locks for the whole fleet ------------------------------------------------------------


async def test_a_fleet_lock_is_held_across_processes_and_freed_when_one_dies(
        pg_server: postgres.PgServer, pg_url: str) -> None:
    async with opened(pg_url) as one, opened(pg_url) as two:
        order: list[str] = []
        held = asyncio.Event()
        release = asyncio.Event()

        async def first() -> None:
            async with one.fleet_lock("identify-0"):
                order.append("one in")
                held.set()
                await release.wait()
                order.append("one out")

        async def second() -> None:
            await held.wait()
            async with two.fleet_lock("identify-0"):
                order.append("two in")

        async def other_key() -> None:
            await held.wait()
            async with two.fleet_lock("identify-1"):  # another bucket: not held up
                order.append("other key")

        tasks = [asyncio.create_task(f()) for f in (first, second, other_key)]
        await asyncio.wait_for(held.wait(), 10)
        await asyncio.sleep(0.3)
        assert order == ["one in", "other key"], "two waits for one's lock"
        release.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 10)
        assert order == ["one in", "other key", "one out", "two in"]

        # A process that dies holding the lock (its session ends) frees it.
        held.clear()
        release.clear()
        dying = asyncio.create_task(first())
        await asyncio.wait_for(held.wait(), 10)
        await pg_server.admin(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
            "AND granted AND pid <> pg_backend_pid()")
        async with asyncio.timeout(10), two.fleet_lock("identify-0"):
            pass
        dying.cancel()
        await asyncio.gather(dying, return_exceptions=True)


async def test_pruning_takes_the_fleet_lock_so_processes_prune_one_at_a_time(
        pg_url: str) -> None:
    """Log pruning holds the fleet lock "prune-logs" for its transaction: while another
    process holds it, this one's pruning waits, then finds nothing left to delete twice."""
    async with opened(pg_url) as one, opened(pg_url) as two:
        await one.record_game(finished_game(), [LogEntry("done", 1, 5, 0, "{}", 10)])
        async with one.fleet_lock("prune-logs"):
            pruning = asyncio.create_task(two.prune_logs(older_than=50))
            await asyncio.sleep(0.3)
            assert not pruning.done(), "pruning waits for the lock's holder"
        assert await asyncio.wait_for(pruning, 10) == 1
