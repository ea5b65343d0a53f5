"""The loopback Discord shards like Discord (docs: gateway, "Sharding", "Identifying",
"Get Gateway Bot"): GET /gateway/bot gives the recommended count and the session start
limit; an IDENTIFY with ``shard: [id, count]`` gets its guilds and their events only
(interactions included), DMs go to shard 0; 4010 for an invalid shard, 4011 for a session
with too many guilds; an IDENTIFY too soon in its bucket is answered op 9.

Driven by a bare websocket client, as a bot's gateway connection."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from loopback.server import LoopbackDiscord

pytestmark = pytest.mark.asyncio


class Shard:
    """One gateway connection: HELLO read, IDENTIFY sent, every frame kept."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []

    async def read(self, until: Any, timeout: float = 3.0) -> dict[str, Any]:  # noqa: ASYNC109
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.ws.receive()
                if msg.type != aiohttp.WSMsgType.TEXT:
                    return {"closed": self.ws.close_code}
                frame: dict[str, Any] = json.loads(msg.data)
                self.frames.append(frame)
                if until(frame):
                    return frame

    def events(self, name: str) -> list[dict[str, Any]]:
        return [f["d"] for f in self.frames if f.get("t") == name]

    async def settle(self) -> None:
        """Read what is already on its way."""
        with contextlib.suppress(TimeoutError):
            await self.read(lambda f: False, timeout=0.3)


@pytest_asyncio.fixture
async def server() -> AsyncIterator[LoopbackDiscord]:
    async with LoopbackDiscord() as discord_:
        yield discord_


@pytest_asyncio.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def connect(server: LoopbackDiscord, http: aiohttp.ClientSession,
                  shard: list[int] | None) -> tuple[Shard, dict[str, Any]]:
    """Open a connection, IDENTIFY (as ``shard``), return it and the first answer."""
    conn = Shard(await http.ws_connect(server.gateway_url))
    await conn.read(lambda f: f.get("op") == 10)
    identify: dict[str, Any] = {"token": server.token, "intents": 513, "properties": {}}
    if shard is not None:
        identify["shard"] = shard
    await conn.ws.send_json({"op": 2, "d": identify})
    answer = await conn.read(lambda f: f.get("t") == "READY" or f.get("op") == 9)
    return conn, answer


async def test_gateway_bot_says_shards_and_session_start_limit(
        server: LoopbackDiscord, http: aiohttp.ClientSession) -> None:
    server.recommended_shards = 4
    server.gateway.max_concurrency = 2
    async with http.get(server.api_base + "/gateway/bot",
                        headers={"Authorization": f"Bot {server.token}"}) as resp:
        data = await resp.json()
    assert data["shards"] == 4 and data["url"] == server.gateway_url
    assert data["session_start_limit"] == {"total": 1000, "remaining": 1000,
                                           "reset_after": 14400000, "max_concurrency": 2}
    await connect(server, http, [0, 4])
    async with http.get(server.api_base + "/gateway/bot",
                        headers={"Authorization": f"Bot {server.token}"}) as resp:
        assert (await resp.json())["session_start_limit"]["remaining"] == 999


@pytest.mark.slow
async def test_each_shard_gets_its_guilds_and_their_events_only(
        server: LoopbackDiscord, http: aiohttp.ClientSession) -> None:
    g0 = server.add_guild("zero", shard=(0, 2))
    g1 = server.add_guild("one", shard=(1, 2))
    assert (g0.id >> 22) % 2 == 0 and (g1.id >> 22) % 2 == 1
    s0, ready0 = await connect(server, http, [0, 2])
    s1, ready1 = await connect(server, http, [1, 2])
    assert [g["id"] for g in ready0["d"]["guilds"]] == [str(g0.id)]
    assert [g["id"] for g in ready1["d"]["guilds"]] == [str(g1.id)]
    assert ready0["d"]["shard"] == [0, 2] and ready1["d"]["shard"] == [1, 2]
    await s0.settle()
    await s1.settle()
    assert [g["id"] for g in s0.events("GUILD_CREATE")] == [str(g0.id)]
    assert [g["id"] for g in s1.events("GUILD_CREATE")] == [str(g1.id)]

    # a message in each guild (its event names the guild), a channel created, a DM channel
    ch0, ch1 = g0.new_channel("play"), g1.new_channel("play")
    server.user_message(ch0, g0.enrol("alice"), "hi")
    server.user_message(ch1, g1.enrol("bob"), "hi")
    server.dispatch_soon("CHANNEL_CREATE", {"id": "1", "type": 1})  # a DM: no guild
    # an interaction (a slash command in shard 1's guild)
    server.global_commands = [{"id": "1", "name": "ping", "type": 1, "description": "ping",
                               "options": []}]
    bob = ch1.member("bob")
    task = asyncio.create_task(bob.slash("ping"))
    await s1.read(lambda f: f.get("t") == "INTERACTION_CREATE")
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    await s0.settle()
    await s1.settle()
    assert {m["channel_id"] for m in s0.events("MESSAGE_CREATE")} == {str(ch0.id)}
    assert {m["channel_id"] for m in s1.events("MESSAGE_CREATE")} == {str(ch1.id)}
    assert {c["id"] for c in s0.events("CHANNEL_CREATE")} == {str(ch0.id), "1"}
    assert {c["id"] for c in s1.events("CHANNEL_CREATE")} == {str(ch1.id)}
    assert s0.events("INTERACTION_CREATE") == []
    assert [i["guild_id"] for i in s1.events("INTERACTION_CREATE")] == [str(g1.id)]
    server.take_problems()


async def test_no_shard_is_shard_0_of_1(
        server: LoopbackDiscord, http: aiohttp.ClientSession) -> None:
    """An unsharded bot (the playground, every other test) gets every guild."""
    guilds = [server.add_guild(f"g{i}") for i in range(3)]
    _conn, ready = await connect(server, http, None)
    assert {g["id"] for g in ready["d"]["guilds"]} == {str(g.id) for g in guilds}


@pytest.mark.parametrize("shard", [[2, 2], [-1, 2], [0, 0], ["0", 2], [0]])
async def test_an_invalid_shard_is_closed_4010(
        server: LoopbackDiscord, http: aiohttp.ClientSession, shard: list[Any]) -> None:
    _conn, answer = await connect(server, http, shard)
    assert answer == {"closed": 4010}
    assert [p.kind for p in server.take_problems()] == ["gateway"]


async def test_too_many_guilds_unsharded_is_closed_4011(
        server: LoopbackDiscord, http: aiohttp.ClientSession) -> None:
    server.gateway.max_guilds = 2
    for i in range(3):
        server.add_guild(f"g{i}")
    _conn, answer = await connect(server, http, None)
    assert answer == {"closed": 4011}
    server.take_problems()
    # sharded in two, each session has at most two of them (3 guilds, none has 3 alone
    # unless the ids all fall on one shard: then that shard is refused as well)
    counts = [sum(1 for g in server.guilds if (g.id >> 22) % 2 == s) for s in (0, 1)]
    for s, count in enumerate(counts):
        _c, answer = await connect(server, http, [s, 2])
        assert (answer.get("t") == "READY") == (count <= 2)
    server.take_problems()


async def test_identify_too_soon_in_its_bucket_is_op_9(
        server: LoopbackDiscord, http: aiohttp.ClientSession) -> None:
    gateway = server.gateway
    gateway.pace_identify = True
    gateway.max_concurrency = 2
    gateway.identify_window = 0.5
    _a, first = await connect(server, http, [0, 4])
    _b, other_bucket = await connect(server, http, [1, 4])
    _c, same_bucket = await connect(server, http, [2, 4])  # 2 % 2: bucket 0, too soon
    assert first["t"] == "READY" and other_bucket["t"] == "READY"
    assert same_bucket == {"op": 9, "d": False, **{k: same_bucket[k] for k in same_bucket
                                                    if k not in ("op", "d")}}
    assert gateway.identify_refused == 1
    await asyncio.sleep(0.5)
    _d, later = await connect(server, http, [2, 4])
    assert later["t"] == "READY" and gateway.identify_refused == 1


SHARD_PROCESS = """
import asyncio, os, aiohttp
async def main():
    await asyncio.sleep(float(os.environ["IDENTIFY_AFTER"]))
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(os.environ["DISCORD_GATEWAY_URL"])
        await ws.receive()  # HELLO
        shard = [int(os.environ["SHARD_IDS"]), int(os.environ["SHARD_COUNT"])]
        await ws.send_json({"op": 2, "d": {"token": os.environ["DISCORD_TOKEN"],
                                           "intents": 513, "properties": {}, "shard": shard}})
        async for _msg in ws:
            pass
asyncio.run(main())
"""
"""A fleet's process as the gateway sees it: it IDENTIFYs as its shard after a wait (as the
bot's processes pace their IDENTIFYs five seconds apart), then listens."""


@pytest.mark.slow
async def test_a_fleet_process_started_at_once_is_ready_when_its_own_shard_identified(
        server: LoopbackDiscord) -> None:
    """Two processes started together (shards 0 and 1 of 2), shard 1 identifying first:
    each start returns once its own shard has identified, not at the other's IDENTIFY (the
    fleet's capacity bench sent shard 0's guilds clicks that no session served)."""
    server.global_commands = [{"id": "1", "name": "ping", "type": 1, "description": "ping",
                               "options": []}]  # synced already: no sync to wait for
    seen: dict[int, list[tuple[int, int]]] = {}

    async def start(shard: int, after: float) -> None:
        bot = await server.start_bot(
            [sys.executable, "-c", SHARD_PROCESS], ready_timeout=20,
            env={"SHARD_COUNT": "2", "SHARD_IDS": str(shard), "IDENTIFY_AFTER": str(after)})
        seen[shard] = sorted(server.gateway.by_shard)
        await bot.stop()

    await asyncio.gather(start(0, 1.5), start(1, 0.0))
    assert (0, 2) in seen[0], seen
    assert seen[1] == [(1, 2)], "shard 1 is ready at its IDENTIFY, before shard 0's"
