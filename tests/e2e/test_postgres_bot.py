"""End to end on PostgreSQL (issue 18): the real bot process with ``DATABASE_URL`` set plays
on the tests' throwaway PostgreSQL server, reconnects when its connection is cut mid-game,
and refuses bad database settings at start in one line (a malformed URL: exit 2; a server
it cannot reach: exit 1)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from loopback.fixtures import LoopbackTest
from loopback.server import LoopbackDiscord
from support import postgres
from support.e2e import FAST_ENV, fake_token, run_bot
from support.games import install, saved_state, scenario_session

pytestmark = [pytest.mark.asyncio(loop_scope="module")]


@pytest.fixture(scope="module")
def bot_database(pg_server: postgres.PgServer) -> Iterator[str]:
    url = postgres.new_database(pg_server)
    yield url
    postgres.drop_database(pg_server, url)


@pytest.fixture(scope="module")
def loopback_bot_env(bot_database: str, tmp_path_factory: pytest.TempPathFactory
                     ) -> dict[str, str]:
    """The bot on PostgreSQL; its DATABASE_PATH is a file that must never be made."""
    unused = tmp_path_factory.mktemp("pg-bot") / "never.db"
    return {**FAST_ENV, "DATABASE_URL": bot_database, "DATABASE_PATH": str(unused)}


async def test_the_bot_plays_on_postgresql_and_reconnects_when_cut(
        loopback: LoopbackTest, bot_database: str, pg_server: postgres.PgServer,
        loopback_bot_env: dict[str, str]) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    channel = loopback.channel
    session = scenario_session(channel, [alice, bob], hands={alice: "R3 B4 G5", bob: "G6 R7"},
                               discard="R9", draw="Y1 Y2 Y3", turn=alice)
    await install(bot_database, session)
    await loopback.bot.restart()
    await channel.wait_for(lambda m: "goes on" in m.text(), timeout=15)
    r = await alice.slash("uno play", card="R3")
    assert "couldn't be saved" not in r.text, r.text
    state = saved_state(bot_database, channel)
    assert state is not None and state["game"]["hands"][str(alice.id)] == ["B4", "G5"]

    # Every connection of the bot to its database cut, as a server restart would.
    name = bot_database.rsplit("/", 1)[1]
    cut = await pg_server.admin(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = $1 AND pid <> pg_backend_pid()", name)
    assert cut, "the bot was connected"
    r = await bob.slash("uno play", card="R7")
    assert "couldn't be saved" not in r.text, r.text
    state = saved_state(bot_database, channel)
    assert state is not None and state["game"]["hands"][str(bob.id)] == ["G6"]
    await loopback.bot.restart()
    await channel.wait_for(lambda m: "goes on" in m.text(), timeout=15)
    made = await asyncio.to_thread(os.path.exists, loopback_bot_env["DATABASE_PATH"])
    assert not made, "no SQLite file was made"
    assert not loopback.bot.take_tracebacks()


def test_a_malformed_database_url_exits_2_with_one_line(tmp_path: Path) -> None:
    result = run_bot({"DISCORD_TOKEN": fake_token(),
                      "DATABASE_URL": "postgresql://uno:secret@db:port/uno",
                      "DATABASE_PATH": str(tmp_path / "x.db")})
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("DATABASE_URL is malformed"), lines
    assert "secret" not in result.stderr


async def test_a_server_that_cannot_be_reached_exits_1_with_one_line(tmp_path: Path) -> None:
    url = f"postgresql://uno:secret@127.0.0.1:{postgres.free_port()}/uno"
    async with LoopbackDiscord() as discord_:
        discord_.add_guild("Test")
        env = {**discord_.bot_env(), "DATABASE_URL": url,
               "DATABASE_PATH": str(tmp_path / "x.db")}
        result = await asyncio.to_thread(run_bot, env)
    assert result.returncode == 1, result.stderr
    errors = [line for line in result.stderr.splitlines() if " ERROR " in line]
    assert len(errors) == 1 and "Cannot reach the PostgreSQL server" in errors[0], \
        result.stderr
    assert "Traceback" not in result.stderr and "secret" not in result.stderr
    assert not await asyncio.to_thread((tmp_path / "x.db").exists)
