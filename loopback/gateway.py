"""The loopback Discord's gateway: the websocket at ``/gateway``, IDENTIFY (READY and a
GUILD_CREATE per guild), RESUME (the events the bot missed), heartbeats (each ACKed after a
round trip, ``heartbeat_ack_delay``), member requests, and the dispatch of events to the
connected bot (``dispatch_soon``). A test can drop the
connection (``drop_gateway``) or ask the bot to reconnect (``request_reconnect``).

Sharding as Discord does it (docs: gateway, "Sharding"): an IDENTIFY with ``shard: [id,
count]`` gets the guilds with ``(guild_id >> 22) % count == id`` and their events only
(interactions included); events without a guild (DMs) go to shard 0. An IDENTIFY without
``shard`` is shard ``[0, 1]``. A shard that is not below its count is closed with 4010; a
session that would handle more than ``max_guilds`` guilds with 4011 (Discord: 2,500). With
``pace_identify``, a second IDENTIFY in one bucket (``shard_id % max_concurrency``) within
``identify_window`` seconds is answered Invalid Session (op 9, ``d: false``), as Discord
answers an app past its ``max_concurrency``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any, Protocol

from aiohttp import WSMsgType, web

from .encoding import dumps
from .models import Guild, Identity
from .records import Problem

log = logging.getLogger("loopback")

INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
MESSAGE_EVENTS = frozenset({"MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE",
                            "MESSAGE_DELETE_BULK"})
"""The events of GUILD_MESSAGES in a guild, of DIRECT_MESSAGES in a DM (gateway.mdx)."""


class GatewayServer(Protocol):
    """What the gateway needs of the server (``server.LoopbackDiscord``)."""

    @property
    def token(self) -> str: ...

    @property
    def application_id(self) -> int: ...

    @property
    def bot_identity(self) -> Identity: ...

    @property
    def guilds(self) -> list[Guild]: ...

    @property
    def gateway_url(self) -> str: ...

    def find_guild(self, guild_id: int) -> Guild | None: ...

    @property
    def other_guild_ids(self) -> set[int]:
        """Servers that did not add the bot: the gateway sends nothing of them."""
        ...

    def channel_guild(self, channel_id: int) -> int | None:
        """The guild of a channel or thread (None: a DM, or unknown)."""
        ...

    def problem(self, kind: str, message: str) -> Problem: ...


GUILD_EVENTS = ("GUILD_CREATE", "GUILD_UPDATE", "GUILD_DELETE")
"""Events whose guild is their own ``id`` (every other names it ``guild_id``)."""


def shard_of(guild_id: int, count: int) -> int:
    """Discord's sharding formula."""
    return (guild_id >> 22) % count


class Connection:
    """One websocket; a single writer task sends frames in the order they were queued."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.task = asyncio.get_running_loop().create_task(self._run())

    def send(self, frame: dict[str, Any]) -> None:
        self.queue.put_nowait(dumps(frame).decode())

    async def _run(self) -> None:
        while True:
            text = await self.queue.get()
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                log.info("gateway send failed; events stay buffered for RESUME")
                return

    def close(self) -> None:
        self.task.cancel()


class GatewaySession:
    """A gateway session: sequence numbers and every dispatched event, for RESUME."""

    def __init__(self, session_id: str, intents: int,
                 shard: tuple[int, int] = (0, 1)) -> None:
        self.session_id = session_id
        self.intents = intents
        self.shard = shard
        """``[id, count]`` as the IDENTIFY gave it (``[0, 1]`` without one)."""
        self.seq = 0
        self.buffer: list[dict[str, Any]] = []
        self.conn: Connection | None = None

    def serves(self, guild_id: int | None) -> bool:
        """Whether this session gets the events of ``guild_id`` (None: shard 0's)."""
        shard, count = self.shard
        if guild_id is None:
            return shard == 0
        return shard_of(guild_id, count) == shard

    @property
    def ws(self) -> web.WebSocketResponse | None:
        return self.conn.ws if self.conn is not None else None

    def send_event(self, name: str, data: Any) -> None:
        """Number the event, keep it for RESUME and queue it on the live connection."""
        self.seq += 1
        frame = {"op": 0, "t": name, "s": self.seq, "d": data}
        self.buffer.append(frame)
        if self.conn is not None:
            self.conn.send(frame)


class Gateway:
    """The gateway sessions of a LoopbackDiscord (``server.gateway``): the live one
    (``current_session``), and those a bot may RESUME."""

    def __init__(self, server: GatewayServer) -> None:
        self.server = server
        self.sessions: dict[str, GatewaySession] = {}
        self.current_session: GatewaySession | None = None
        """The session identified or resumed last (the only one of an unsharded bot)."""
        self.by_shard: dict[tuple[int, int], GatewaySession] = {}
        """The newest session of each ``[id, count]``: the ones events are sent to (a
        session whose process died keeps its events for a RESUME until a new IDENTIFY of
        its shard replaces it)."""
        self.identify_count = 0
        self.resume_count = 0
        self.max_guilds = 2500
        """Guilds one session may handle; past it IDENTIFY is closed with 4011."""
        self.max_concurrency = 1
        """``session_start_limit.max_concurrency`` (GET /gateway/bot)."""
        self.pace_identify = False
        """Refuse an IDENTIFY that comes too soon in its bucket (op 9), as Discord does;
        off by default, so that tests restarting an unsharded bot are not slowed."""
        self.identify_window = 5.0
        self.last_identify: dict[int, float] = {}
        """Per bucket, when its last IDENTIFY was accepted (the loop's clock)."""
        self.identify_refused = 0
        """IDENTIFYs answered op 9 because they came too soon in their bucket."""
        self.too_soon: list[tuple[int, float]] = []
        """Each of them: (shard, seconds since its bucket's last IDENTIFY)."""
        self.session_starts_total = 1000
        self.session_starts_left = 1000
        self.heartbeat_interval = 41.25
        """Seconds between the bot's heartbeats (HELLO's ``heartbeat_interval``, Discord's
        41,250 ms), for the connections opened after it is set."""
        self.heartbeat_ack_delay = 0.1
        """Seconds from a heartbeat to its ACK: a round trip, as over the Internet. An ACK
        sent at once reaches discord.py before its keep-alive thread has noted when the
        heartbeat went out: it then measures the ACK from the heartbeat before and warns
        "Can't keep up, shard ID None websocket is 41.3s behind" at every heartbeat."""
        self.heartbeats = 0
        """Heartbeats (op 1) received, on every connection."""
        self.refusing = False
        """While True, a new gateway connection is refused (HTTP 503 instead of the
        websocket upgrade), as when Discord's gateway is out of reach: the bot retries,
        with discord.py's backoff, until it is False again."""

    async def close(self) -> None:
        """Close every session's websocket and stop its writer."""
        for session in self.sessions.values():
            if session.ws is not None and not session.ws.closed:
                await session.ws.close()
            if session.conn is not None:
                session.conn.close()

    def guild_of(self, name: str, data: Any) -> int | None:
        """The guild an event belongs to (None: a DM or a guildless event, shard 0's)."""
        if not isinstance(data, dict):
            return None
        if name in GUILD_EVENTS:
            return int(data["id"])
        if data.get("guild_id"):
            return int(data["guild_id"])
        if data.get("channel_id"):
            return self.server.channel_guild(int(data["channel_id"]))
        return None

    def owners(self, name: str, data: Any) -> list[GatewaySession]:
        """The sessions that get this event: the newest of each shard that owns it."""
        guild_id = self.guild_of(name, data)
        return [s for s in self.by_shard.values() if s.serves(guild_id)]

    def dispatch_soon(self, name: str, data: Any) -> None:
        """Send an event to the bot's sessions that own it (no-op when none is
        identified, or the event is of a server that did not add the bot)."""
        if self.guild_of(name, data) in self.server.other_guild_ids:
            return
        for session in self.owners(name, data):
            if name in MESSAGE_EVENTS:
                # a guild's message events need GUILD_MESSAGES, a DM's DIRECT_MESSAGES
                needed = INTENT_GUILD_MESSAGES if "guild_id" in data else INTENT_DIRECT_MESSAGES
                if not session.intents & needed:
                    continue
            session.send_event(name, data)

    def dispatch(self, name: str, data: Any) -> None:
        sessions = self.owners(name, data)
        assert sessions, f"no bot session serves this {name}"
        for session in sessions:
            session.send_event(name, data)

    async def drop_gateway(self, code: int = 4000, *, wait_resume: float | None = 10.0) -> None:
        """Close the bot's websocket (a resumable close code by default) and, unless
        ``wait_resume`` is None, wait until the bot has RESUMEd."""
        session = self.current_session
        assert session is not None and session.ws is not None, "no gateway connection"
        resumes = self.resume_count
        await session.ws.close(code=code, message=b"loopback drop")
        if wait_resume is not None:
            await self._wait(lambda: self.resume_count > resumes, wait_resume, "bot RESUME")

    async def request_reconnect(self, *, wait_resume: float | None = 10.0) -> None:
        """Send op 7 RECONNECT, as Discord does before moving a session."""
        session = self.current_session
        assert session is not None and session.ws is not None, "no gateway connection"
        resumes = self.resume_count
        assert session.conn is not None
        session.conn.send({"op": 7, "d": None})
        if wait_resume is not None:
            await self._wait(lambda: self.resume_count > resumes, wait_resume, "bot RESUME")

    async def _wait(self, cond: Callable[[], bool], seconds: float, what: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while not cond():
            if loop.time() > deadline:
                raise AssertionError(f"timed out after {seconds} s waiting for {what}")
            await asyncio.sleep(0.02)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if self.refusing:
            return web.Response(status=503, text="loopback: the gateway refuses connections")
        ws = web.WebSocketResponse(max_msg_size=16 * 1024 * 1024)
        await ws.prepare(request)
        session: GatewaySession | None = None
        conn = Connection(ws)
        conn.send({"op": 10, "d": {"heartbeat_interval": round(self.heartbeat_interval * 1000)}})
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    if msg.type == WSMsgType.BINARY:
                        self.server.problem("gateway", "binary gateway frame from the bot")
                    continue
                payload = json.loads(msg.data)
                op = payload.get("op")
                data = payload.get("d")
                if op == 1:
                    self.heartbeats += 1
                    self._ack(conn)
                elif op == 2:
                    session = await self._identify(conn, data)
                    if session is None:
                        await asyncio.sleep(0.05)  # let op 9 go out first
                        break
                elif op == 6:
                    session = self._resume(conn, data)
                    if session is None:
                        await asyncio.sleep(0.05)  # let op 9 go out first
                        break
                elif op == 8:
                    self._request_members(session, data)
                elif op in (3, 4):
                    pass  # presence / voice state updates
                else:
                    self.server.problem("gateway", f"unexpected gateway op {op}: {payload!r}"[:300])
        finally:
            conn.close()
            if session is not None and session.conn is conn:
                session.conn = None
        return ws

    def _ack(self, conn: Connection) -> None:
        """HEARTBEAT_ACK (op 11), ``heartbeat_ack_delay`` after the heartbeat."""
        if self.heartbeat_ack_delay <= 0:
            conn.send({"op": 11})
        else:
            asyncio.get_running_loop().call_later(self.heartbeat_ack_delay, conn.send,
                                                  {"op": 11})

    async def _identify(self, conn: Connection, data: dict[str, Any]) -> GatewaySession | None:
        server = self.server
        if data.get("token") != server.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            server.problem("gateway", "IDENTIFY with a wrong token")
            return None
        shard = self._shard(data.get("shard"))
        if shard is None:
            server.problem("gateway", f"IDENTIFY with an invalid shard: {data.get('shard')!r}")
            await conn.ws.close(code=4010, message=b"Invalid shard.")
            return None
        guilds = [g for g in server.guilds if shard_of(g.id, shard[1]) == shard[0]]
        if len(guilds) > self.max_guilds:
            server.problem("gateway", f"IDENTIFY as shard {list(shard)} would handle "
                                      f"{len(guilds)} guilds (at most {self.max_guilds})")
            await conn.ws.close(code=4011, message=b"Sharding required.")
            return None
        if not self._identify_allowed(shard[0]):
            conn.send({"op": 9, "d": False})
            return None
        self.session_starts_left = max(0, self.session_starts_left - 1)
        session = GatewaySession(secrets.token_hex(16), int(data.get("intents", 0)), shard)
        session.conn = conn
        self.sessions[session.session_id] = session
        self.by_shard[shard] = session
        self.current_session = session
        ready = {
            "v": 10,
            "user": {
                **server.bot_identity.user_payload(),
                "verified": True,
                "mfa_enabled": False,
                "email": None,
            },
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": server.gateway_url,
            "application": {"id": str(server.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "auth": {},
            "_trace": ["loopback"],
        }
        if data.get("shard") is not None:
            ready["shard"] = data["shard"]
        session.send_event("READY", ready)
        for guild in guilds:
            session.send_event("GUILD_CREATE", guild.create_payload())
        self.identify_count += 1
        return session

    @staticmethod
    def _shard(raw: Any) -> tuple[int, int] | None:
        """IDENTIFY's ``shard`` as (id, count): (0, 1) when absent, None when invalid."""
        if raw is None:
            return (0, 1)
        if (not isinstance(raw, list) or len(raw) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in raw)):
            return None
        shard, count = raw
        if count < 1 or not 0 <= shard < count:
            return None
        return (shard, count)

    def _identify_allowed(self, shard: int) -> bool:
        """One IDENTIFY per bucket per ``identify_window`` when ``pace_identify``."""
        bucket = shard % max(1, self.max_concurrency)
        now = asyncio.get_running_loop().time()
        last = self.last_identify.get(bucket)
        if self.pace_identify and last is not None and now - last < self.identify_window:
            self.identify_refused += 1
            self.too_soon.append((shard, now - last))
            log.warning("IDENTIFY of shard %d refused: bucket %d identified %.2f s ago",
                     shard, bucket, now - last)
            return False
        self.last_identify[bucket] = now
        return True

    def _resume(self, conn: Connection, data: dict[str, Any]) -> GatewaySession | None:
        session = self.sessions.get(data.get("session_id", ""))
        if session is None or data.get("token") != self.server.token:
            conn.send({"op": 9, "d": False})
            return None
        session.conn = conn
        since = int(data.get("seq") or 0)
        for frame in session.buffer:
            if frame["s"] > since:
                conn.send(frame)
        self.current_session = session
        self.by_shard.setdefault(session.shard, session)
        session.send_event("RESUMED", {"_trace": ["loopback"]})
        self.resume_count += 1
        return session

    def _request_members(self, session: GatewaySession | None, data: dict[str, Any]) -> None:
        if session is None:
            return
        guild = self.server.find_guild(int(data.get("guild_id", 0)))
        if guild is None:
            return
        members = [i.member_payload() for i in guild.members_by_id.values()]
        chunk = {
            "guild_id": str(guild.id),
            "members": members,
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        session.send_event("GUILD_MEMBERS_CHUNK", chunk)
