"""End to end: the bot as a fleet. Two bot processes (shards 0 and 1 of 2) against one
loopback Discord with a server on each shard and ONE shared database; started at once.

- Each process serves its shard's servers only: it restores only their saved games (each
  channel hears "the game goes on" once), logs its shards and server count at start;
  IDENTIFYs are paced across the processes (the loopback refuses one too soon in its
  bucket, as Discord does: none is refused); the commands are synced once, the card
  emojis uploaded once (no upload refused as a name already taken).
- Games are played in both at once; one process is killed (SIGKILL) mid-game and started
  again: its games resume exactly as saved, the other process's games go on meanwhile.
- Each server's leaderboard counts its own games exactly; a ``/uno appearance`` change
  made in one shard's server is what the other shard's server shows.

The database is the ``fleet_database`` fixture's parameter: one SQLite file in WAL that
both processes open (the SQLite backend allows it: its writes take SQLite's own file lock,
and the fleet's lock is a lock file beside it), then PostgreSQL (``DATABASE_URL``; the
fleet's lock an advisory lock).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from cogs.uno.table.session import Options, Session
from loopback.bot_process import BotProcess
from loopback.models import Channel
from loopback.server import LoopbackDiscord
from support import postgres
from support.e2e import FAST_ENV
from support.games import install, saved_state, scenario_session

pytestmark = [pytest.mark.asyncio(loop_scope="module")]

LONG = Options(turn_timer=600)
CARD_FACES = 96
"""Card emojis the bot uploads (one per distinct card of every edition)."""


@dataclass
class FleetDatabase:
    """The one database of the fleet: what each process's environment says, and what the
    test reads as its oracle."""

    env: dict[str, str]
    oracle: str

    def state(self, ch: Channel) -> dict[str, Any] | None:
        return saved_state(self.oracle, ch)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def fleet_database(request: pytest.FixtureRequest,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[FleetDatabase]:
    """The fleet's one database: a SQLite file both processes open, then a database on the
    tests' throwaway PostgreSQL server (skipped, saying why, where PostgreSQL is not
    installed)."""
    if request.param == "sqlite":
        path = str(tmp_path_factory.mktemp("fleet-db") / "fleet.db")
        yield FleetDatabase({"DATABASE_PATH": path}, path)
        return
    server: postgres.PgServer = request.getfixturevalue("pg_server")
    url = postgres.new_database(server)
    unused = str(tmp_path_factory.mktemp("fleet-pg") / "never.db")
    yield FleetDatabase({"DATABASE_URL": url, "DATABASE_PATH": unused}, url)
    postgres.drop_database(server, url)


@dataclass
class Server:
    """One Discord server of the fleet and the process that serves it."""

    shard: int
    bot: BotProcess
    play: Channel
    """Alice and Bob in the middle of a game."""
    finish: Channel
    """Alice one card from winning."""


@dataclass
class Fleet:
    discord: LoopbackDiscord
    db: FleetDatabase
    servers: list[Server]


def pair(ch: Channel) -> Session:
    a, b = ch.member("alice"), ch.member("bob")
    return scenario_session(ch, [a, b], hands={a: "R3 R4 R5 B4", b: "R6 R7 R8 G1"},
                            discard="R9", draw="Y1 Y2 Y3 Y4 Y5 Y6", turn=a, options=LONG)


def finish(ch: Channel) -> Session:
    a, b = ch.member("alice"), ch.member("bob")
    return scenario_session(ch, [a, b], hands={a: "R3", b: "W+4 WG G+2 G5"}, discard="R9",
                            draw="Y2 Y3 Y4", turn=a,
                            options=Options(turn_timer=600, target=100))


async def logged(bot: BotProcess, pattern: str, seconds: float = 60) -> re.Match[str]:
    for _ in range(int(seconds * 10)):
        found = re.search(pattern, bot.log_text())
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"{pattern!r} not logged:\n{bot.log_tail()}")


async def played(db: FleetDatabase, ch: Channel, card: str, seconds: float = 5) -> None:
    """Wait until the game of ``ch`` is saved with ``card`` on its discard pile."""
    state: dict[str, Any] | None = None
    for _ in range(int(seconds * 20)):
        state = db.state(ch)
        if state is not None and state["game"]["discard"][-1] == card:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{card} never played in {ch!r}: {state and state['game']}")


def bot_env(db: FleetDatabase, shard: int) -> dict[str, str]:
    return {**FAST_ENV, **db.env, "SHARD_COUNT": "2", "SHARD_IDS": str(shard),
            "UNO_CARD_EMOJIS": "1",
            "DEV_GUILD_ID": ""}  # global commands: both servers have them


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def fleet(fleet_database: FleetDatabase) -> AsyncIterator[Fleet]:
    async with LoopbackDiscord() as discord_:
        discord_.recommended_shards = 2
        discord_.gateway.pace_identify = True  # one IDENTIFY per 5 s, as Discord
        guilds = [discord_.add_guild(f"shard-{s}", shard=(s, 2)) for s in (0, 1)]
        # one person in both servers (her look is hers everywhere)
        alice = guilds[0].enrol("alice")
        guilds[1].admit(alice)
        plays = [g.new_channel("play") for g in guilds]
        finishes = [g.new_channel("finish") for g in guilds]
        await install(fleet_database.oracle, *(pair(ch) for ch in plays),
                      *(finish(ch) for ch in finishes))
        bots = await asyncio.gather(*(discord_.start_bot(env=bot_env(fleet_database, s),
                                                         ready_timeout=60)
                                      for s in (0, 1)))
        for bot in bots:
            await logged(bot, r"Ready as")
        yield Fleet(discord_, fleet_database,
                    [Server(s, bots[s], plays[s], finishes[s]) for s in (0, 1)])
        for bot in bots:
            await bot.stop()


def check(fleet: Fleet) -> None:
    problems = fleet.discord.take_problems()
    tracebacks = [t for s in fleet.servers for t in s.bot.take_tracebacks()]
    assert not problems and not tracebacks, (problems, tracebacks)


async def test_each_process_serves_its_shard(fleet: Fleet) -> None:
    for server in fleet.servers:
        log = server.bot.log_text()
        assert re.search(rf"Ready as .*: shards {server.shard} of 2, 1 servers", log), log
        assert "Restored 2 saved games" in log, "its own two games, not the other's"
        for ch in (server.play, server.finish):
            await ch.wait_for(lambda m: "goes on" in m.text(), timeout=15)
    await asyncio.sleep(1)  # a process restoring the other's games would have said so
    for server in fleet.servers:
        for ch in (server.play, server.finish):
            assert sum("goes on" in m.text() for m in ch.messages) == 1, ch.messages
    gateway = fleet.discord.gateway
    assert sorted(gateway.by_shard) == [(0, 2), (1, 2)]
    assert gateway.identify_refused == 0, f"IDENTIFYs paced across the processes: " \
        f"refused (shard, seconds after the bucket's last): {gateway.too_soon}"
    assert fleet.discord.command_syncs == 1, "the process of shard 0 syncs the commands"
    leader, other = (s.bot.log_text() for s in fleet.servers)
    assert "Synced" in leader and "the process that runs shard 0 syncs them" in other
    check(fleet)


async def test_card_emojis_are_uploaded_once_in_the_fleet(fleet: Fleet) -> None:
    for server in fleet.servers:
        await logged(server.bot, r"Card emojis ready: \d+ cards", seconds=120)
    names = fleet.discord.emojis.names()
    assert len(names) == len(set(names)) == CARD_FACES
    uploaded = sorted(int(m) for s in fleet.servers for m in re.findall(
        r"Card emojis ready: \d+ cards, (\d+) uploaded now", s.bot.log_text()))
    assert uploaded == [0, CARD_FACES], "one process uploads, the other finds them"
    assert not [r for r in fleet.discord.refused if "emoji" in r.reason], \
        "no upload refused as a name already taken"
    check(fleet)


async def test_games_in_both_at_once_and_a_process_killed(fleet: Fleet) -> None:
    zero, one = fleet.servers
    # both servers move at the same moment, each through its own process
    await asyncio.gather(*(s.play.member("alice").slash("uno play", card="R3")
                           for s in fleet.servers))
    for s in fleet.servers:
        await played(fleet.db, s.play, "R3")

    before = fleet.db.state(zero.play)
    await zero.bot.kill()
    # the other process's game never pauses: its moves are answered while shard 0 is down
    await one.play.member("bob").slash("uno play", card="R6")
    await played(fleet.db, one.play, "R6")
    await one.play.member("alice").slash("uno play", card="R4")
    await played(fleet.db, one.play, "R4")
    assert fleet.db.state(zero.play) == before

    mark = zero.play.mark()
    await zero.bot.start(ready_timeout=60)
    await logged(zero.bot, r"(?s)start 2:.*Ready as .*shards 0 of 2")
    await zero.play.wait_for(lambda m: "goes on" in m.text(), after=mark, timeout=15)
    after = fleet.db.state(zero.play)
    assert after is not None and before is not None
    assert after["game"] == before["game"], "its game resumes exactly as saved"
    await zero.play.member("bob").slash("uno play", card="R6")
    await played(fleet.db, zero.play, "R6")
    assert fleet.discord.gateway.identify_refused == 0
    assert "shards 1 of 2" in one.bot.log_text() and one.bot.running
    check(fleet)


async def test_each_servers_leaderboard_is_exact(fleet: Fleet) -> None:
    await asyncio.gather(*(s.finish.member("alice").slash("uno play", card="R3")
                           for s in fleet.servers))
    for s in fleet.servers:
        await s.finish.wait_for(lambda m: "won the game" in m.text(), timeout=10)
        alice = s.finish.member("alice")
        text = (await alice.slash("uno leaderboard")).text
        assert f"**1.** <@{alice.id}>: 1 win in 1 game · 125 points" in text, text
        bob = s.finish.member("bob")
        assert f"<@{bob.id}>: 0 wins in 1 game · 0 points" in text, text
    check(fleet)


async def test_appearance_is_one_persons_across_shards(fleet: Fleet) -> None:
    zero, one = fleet.servers
    here, there = zero.play.member("alice"), one.play.member("alice")
    assert here.id == there.id, "one person in both servers"
    r = await here.slash("uno appearance", high_contrast=True)
    assert "high contrast" in r.text
    r = await there.slash("uno appearance")
    assert "high contrast" in r.text, "the other process reads the same setting"
    await there.slash("uno appearance", high_contrast=False)
    r = await here.slash("uno appearance")
    assert "normal look" in r.text
    check(fleet)


def test_the_database_is_shared_in_wal(fleet_database: FleetDatabase) -> None:
    if "DATABASE_PATH" not in fleet_database.env or "DATABASE_URL" in fleet_database.env:
        pytest.skip("not a SQLite file")
    import sqlite3

    with sqlite3.connect(fleet_database.oracle) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


async def test_without_settings_one_process_runs_every_recommended_shard(
        tmp_path: Path) -> None:
    """No SHARD_COUNT: the bot asks GET /gateway/bot and runs every shard it recommends in
    one process, serving the servers of all of them; past ``max_guilds`` servers on one
    connection Discord would close an unsharded bot with 4011."""
    async with LoopbackDiscord() as discord_:
        discord_.recommended_shards = 2
        discord_.gateway.max_guilds = 1  # one connection for both servers: 4011
        discord_.gateway.pace_identify = True
        guilds = [discord_.add_guild(f"shard-{s}", shard=(s, 2)) for s in (0, 1)]
        plays = [g.new_channel("play") for g in guilds]
        db = str(tmp_path / "one.db")
        await install(db, *(pair(ch) for ch in plays))
        bot = await discord_.start_bot(env={**FAST_ENV, "DATABASE_PATH": db,
                                            "DEV_GUILD_ID": ""}, ready_timeout=60)
        await logged(bot, r"Ready as .*: shards 0,1 of 2, 2 servers")
        assert "Shards 0,1 of 2 (Discord's recommendation)" in bot.log_text()
        assert sorted(discord_.gateway.by_shard) == [(0, 2), (1, 2)]
        assert discord_.gateway.identify_refused == 0, discord_.gateway.too_soon
        for ch in plays:
            await ch.wait_for(lambda m: "goes on" in m.text(), timeout=15)
        await asyncio.gather(*(ch.member("alice").slash("uno play", card="R3")
                               for ch in plays))
        for ch in plays:
            await played(FleetDatabase({}, db), ch, "R3")
        assert not discord_.take_problems() and not bot.take_tracebacks()
        await bot.stop()


async def test_a_process_without_shard_0_starts_alone_and_syncs_nothing(
        tmp_path: Path) -> None:
    """The process of shard 1 started first (or alone): it serves its server without
    syncing the commands, which is the work of the process of shard 0."""
    async with LoopbackDiscord() as discord_:
        guild = discord_.add_guild("shard-1", shard=(1, 2))
        bot = await discord_.start_bot(env={
            **FAST_ENV, "DATABASE_PATH": str(tmp_path / "one.db"), "DEV_GUILD_ID": "",
            "SHARD_COUNT": "2", "SHARD_IDS": "1"}, ready_timeout=60)
        await logged(bot, r"Ready as .*: shards 1 of 2, 1 servers")
        assert "the process that runs shard 0 syncs them" in bot.log_text()
        assert discord_.command_syncs == 0
        assert sorted(discord_.gateway.by_shard) == [(1, 2)]
        assert [g["id"] for g in discord_.gateway.by_shard[(1, 2)].buffer[0]["d"]["guilds"]] \
            == [str(guild.id)]
        assert not discord_.take_problems() and not bot.take_tracebacks()
        await bot.stop()
