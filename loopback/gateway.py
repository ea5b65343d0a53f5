"""The loopback Discord's gateway: the websocket at ``/gateway``, IDENTIFY (READY and a
GUILD_CREATE per guild), RESUME (the events the bot missed), heartbeats, member requests,
and the dispatch of events to the connected bot (``dispatch_soon``). A test can drop the
connection (``drop_gateway``) or ask the bot to reconnect (``request_reconnect``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any, Protocol

from aiohttp import WSMsgType, web

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

    def problem(self, kind: str, message: str) -> Problem: ...


class Connection:
    """One websocket; a single writer task sends frames in the order they were queued."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.task = asyncio.get_running_loop().create_task(self._run())

    def send(self, frame: dict[str, Any]) -> None:
        self.queue.put_nowait(json.dumps(frame))

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

    def __init__(self, session_id: str, intents: int) -> None:
        self.session_id = session_id
        self.intents = intents
        self.seq = 0
        self.buffer: list[dict[str, Any]] = []
        self.conn: Connection | None = None

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
        self.identify_count = 0
        self.resume_count = 0

    async def close(self) -> None:
        """Close every session's websocket and stop its writer."""
        for session in self.sessions.values():
            if session.ws is not None and not session.ws.closed:
                await session.ws.close()
            if session.conn is not None:
                session.conn.close()

    def dispatch_soon(self, name: str, data: Any) -> None:
        """Send an event to the connected bot (no-op when none is identified)."""
        session = self.current_session
        if session is None:
            return
        if name in MESSAGE_EVENTS:
            # a guild's message events need GUILD_MESSAGES, a DM's DIRECT_MESSAGES
            needed = INTENT_GUILD_MESSAGES if "guild_id" in data else INTENT_DIRECT_MESSAGES
            if not session.intents & needed:
                return
        session.send_event(name, data)

    def dispatch(self, name: str, data: Any) -> None:
        session = self.current_session
        assert session is not None, "no bot is connected to the gateway"
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
        ws = web.WebSocketResponse(max_msg_size=16 * 1024 * 1024)
        await ws.prepare(request)
        session: GatewaySession | None = None
        conn = Connection(ws)
        conn.send({"op": 10, "d": {"heartbeat_interval": 41250}})
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
                    conn.send({"op": 11})
                elif op == 2:
                    session = await self._identify(conn, data)
                    if session is None:
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

    async def _identify(self, conn: Connection, data: dict[str, Any]) -> GatewaySession | None:
        server = self.server
        if data.get("token") != server.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            server.problem("gateway", "IDENTIFY with a wrong token")
            return None
        session = GatewaySession(secrets.token_hex(16), int(data.get("intents", 0)))
        session.conn = conn
        self.sessions[session.session_id] = session
        self.current_session = session
        ready = {
            "v": 10,
            "user": {
                **server.bot_identity.user_payload(),
                "verified": True,
                "mfa_enabled": False,
                "email": None,
            },
            "guilds": [{"id": str(g.id), "unavailable": True} for g in server.guilds],
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
        for guild in server.guilds:
            session.send_event("GUILD_CREATE", guild.create_payload())
        self.identify_count += 1
        return session

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
