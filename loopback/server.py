"""The loopback Discord server: REST under /api/v10 and a gateway websocket at /gateway."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import http
import json
import logging
import re
import secrets
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from .bot_process import BotProcess
from .emojis import EmojiRoutes
from .interactions import InteractionRoutes
from .interactions import InteractionState as InteractionState
from .limits import IS_COMPONENTS_V2, check_message_limits, gallery_urls
from .models import (
    DM_APP_PERMISSIONS,
    LOADING,
    Channel,
    Guild,
    Identity,
    Message,
    Problem,
    Refusal,
    snowflake,
    snowflake_from,
)
from .ratelimits import Decision, RateLimiter
from .threads import ThreadRoutes

if TYPE_CHECKING:
    from .openapi import OpenApiValidator

log = logging.getLogger("loopback")

API_PREFIX = "/api/v10"
DEFAULT_CWD = Path(__file__).resolve().parents[1]
JSON_HEADERS = {"Content-Type": "application/json"}
ACK_DEADLINE = 3.0
INTENT_GUILD_MESSAGES = 1 << 9

Handler = Callable[["Request"], Awaitable[web.StreamResponse]]


def json_response(data: Any, status: int = 200) -> web.Response:
    """A JSON response with ``Content-Type: application/json`` exactly (no charset)."""
    return web.Response(status=status, body=json.dumps(data).encode(), headers=JSON_HEADERS)


def error_response(status: int, code: int, message: str, errors: Any = None) -> web.Response:
    data: dict[str, Any] = {"message": message, "code": code}
    if errors:
        data["errors"] = errors
    return json_response(data, status)


def rate_limited_response(retry: float, *, global_: bool = False) -> web.Response:
    """A 429 as Discord sends it (body and rate-limit headers)."""
    headers = {
        **JSON_HEADERS,
        "Retry-After": str(max(1, int(retry + 0.999))),
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset-After": str(retry),
        "X-RateLimit-Bucket": "loopback",
        "X-RateLimit-Scope": "global" if global_ else "shared",
        "Via": "1.1 google",  # without it discord.py assumes a Cloudflare ban
    }
    if global_:
        headers["X-RateLimit-Global"] = "true"
    body = {"message": "You are being rate limited.", "retry_after": retry, "global": global_}
    return web.Response(status=429, body=json.dumps(body).encode(), headers=headers)


# the messages Discord sends with these JSON error codes
ERROR_MESSAGES = {
    0: "General error",
    10003: "Unknown Channel",
    10007: "Unknown Member",
    10008: "Unknown Message",
    10013: "Unknown User",
    10014: "Unknown Emoji",
    10015: "Unknown Webhook",
    10062: "Unknown interaction",
    40060: "Interaction has already been acknowledged.",
    30008: "Maximum number of emojis reached (2000)",
    50001: "Missing Access",
    50013: "Missing Permissions",
    50024: "Cannot execute action on this channel type",
    50035: "Invalid Form Body",
    50083: "Thread is archived",
    160004: "A thread has already been created for this message",
}
# statuses discord.py retries by itself (after 1 + 2 * tries seconds; 429 after retry_after)
RETRIED_STATUSES = {429, 500, 502, 504, 524}


def _normalize_template(template: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", template.split("?")[0].rstrip("/"))


@dataclass
class Fault:
    """An injected answer (``status``) or delay (``delay``) for matching REST calls."""

    method: str | None
    match: str | Callable[[Request], bool]
    status: int = 0
    code: int | None = None
    message: str | None = None
    delay: float = 0.0
    retry_after: float = 1.0
    remaining: int = 1
    hits: list[Request] = field(default_factory=list)

    def matches(self, req: Request) -> bool:
        if self.remaining <= 0:
            return False
        if self.method not in (None, "*") and self.method.upper() != req.method:
            return False
        if callable(self.match):
            return bool(self.match(req))
        if "{" in self.match:
            return _normalize_template(self.match) == _normalize_template(req.template)
        return self.match.split("?")[0].rstrip("/") == req.path.rstrip("/")

    def text(self) -> str:
        if self.message is not None:
            return self.message
        if self.status == 429:
            return "You are being rate limited."
        if self.status >= 500:
            try:
                reason = http.HTTPStatus(self.status).phrase
            except ValueError:
                reason = "Server Error"
            return f"{self.status}: {reason}"
        return ERROR_MESSAGES.get(self.code or 0, "")

    def response(self) -> web.Response:
        if self.status == 429:
            return rate_limited_response(self.retry_after)
        return error_response(self.status, self.code or 0, self.text())


UPLOADED_FILES = web.RequestKey("loopback_files", dict)
"""The bytes of the files a multipart request uploaded, by file name."""


@dataclass
class Request:
    """One REST call, after routing and body parsing."""

    method: str
    path: str
    template: str
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    raw: web.Request


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


class LoopbackDiscord:
    """A Discord stand-in on 127.0.0.1 that a real discord.py process can log in to.

    Use as ``async with LoopbackDiscord() as discord_:``.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        ack_deadline: float = ACK_DEADLINE,
        action_timeout: float = 5.0,
        enforce_rate_limits: bool = False,
        validate_bodies: bool = True,
        web_ui: bool = False,
        bot_name: str = "loopback-bot",
    ) -> None:
        self.host = host
        self.web_ui = web_ui
        self.closing = False
        self.port = port
        self.ack_deadline = ack_deadline
        self.action_timeout = action_timeout
        # Discord's per-route and global rate limits (ratelimits.py): 429s and X-RateLimit-*
        # headers only when enforced; requests are counted per bucket either way
        self.enforce_rate_limits = enforce_rate_limits
        self.validate_bodies = validate_bodies
        self.validator: OpenApiValidator | None = None
        if validate_bodies:
            # imported here: body validation needs jsonschema (a test requirement), the
            # playground runs without it
            from .openapi import OpenApiValidator

            self.validator = OpenApiValidator.shared()
        self.application_id = snowflake()
        self.bot_identity = Identity(self.application_id, bot_name, bot=True)
        self.rate_limiter = RateLimiter(self.application_id)
        self.rate_limited: list[Decision] = []
        # generated per run; the first part encodes the bot id like a real token would
        self.token = ".".join(
            [
                base64.urlsafe_b64encode(str(self.application_id).encode()).decode().rstrip("="),
                secrets.token_urlsafe(6),
                secrets.token_urlsafe(27),
            ]
        )
        self.guilds: list[Guild] = []
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.command_syncs = 0
        self.interactions: dict[int, InteractionState] = {}
        self.interactions_by_token: dict[str, InteractionState] = {}
        self.interaction_token_life = 15 * 60.0
        """Seconds an interaction's token works for followups and edits (Discord: 15 min)."""
        self.problems: list[Problem] = []
        self.refused: list[Refusal] = []
        self.faults: list[Fault] = []
        # Discord lets a bot edit its own messages without SEND_MESSAGES (VIEW_CHANNEL is
        # enough); set True to refuse such edits with 50013 as well
        self.edit_requires_send_messages = False
        self.gallery_edit_bug = True
        """Model Discord's open bug (discord-api-docs issue 7529): an edit that brings a
        media gallery into a Components V2 message that had none, showing a file uploaded
        with the edit, is refused (400 50035); posting a new message with it works. (The
        report is about such edits; an edit that replaces the file of a gallery the message
        already shows is let through.)"""
        self.requests: list[tuple[str, str, Any]] = []
        self.sessions: dict[str, GatewaySession] = {}
        self.current_session: GatewaySession | None = None
        self.identify_count = 0
        self.resume_count = 0
        self.change_seq = 0
        self._change_event = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._routes: list[tuple[str, re.Pattern[str], str, Handler]] = []
        self.bots: list[BotProcess] = []
        self.thread_routes = ThreadRoutes(self)
        self.interaction_routes = InteractionRoutes(self)
        self.emojis = EmojiRoutes(self)
        """Application emojis (emojis.py): ``emojis.of()``, ``emojis.names()``."""
        self._setup_routes()

    # -- lifecycle -------------------------------------------------------------
    async def __aenter__(self) -> LoopbackDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/gateway/", self._gateway)
        if self.web_ui:
            from .web import WebUI

            WebUI(self).add_routes(app)
        app.router.add_route("*", "/{tail:.*}", self._outside_api)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=5.0
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1]

    async def close(self) -> None:
        self.closing = True
        self.next_change()  # wakes the web page's event streams, which then end
        for bot in list(self.bots):
            await bot.kill()
        for session in self.sessions.values():
            if session.ws is not None and not session.ws.closed:
                await session.ws.close()
            if session.conn is not None:
                session.conn.close()
        for task in list(self._tasks):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def url(self) -> str:
        """The web page (when started with ``web_ui=True``)."""
        return f"http://{self.host}:{self.port}/"

    @property
    def api_base(self) -> str:
        return f"http://{self.host}:{self.port}{API_PREFIX}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    def bot_env(self) -> dict[str, str]:
        """Environment variables that point a bot (bot.py contract) at this server."""
        env = {
            "DISCORD_TOKEN": self.token,
            "DISCORD_API_BASE": self.api_base,
            "DISCORD_GATEWAY_URL": self.gateway_url,
        }
        if self.guilds:
            env["DEV_GUILD_ID"] = str(self.guilds[0].id)
        return env

    async def start_bot(
        self,
        command: Sequence[str] | None = None,
        *,
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        ready_timeout: float = 30.0,
        guild_ready_delay: float = 2.1,
    ) -> BotProcess:
        """Start the bot as a subprocess and wait until it is ready (see BotProcess)."""
        bot = BotProcess(
            self,
            list(command) if command else [sys.executable, "bot.py"],
            env=env or {},
            cwd=Path(cwd) if cwd else DEFAULT_CWD,
            guild_ready_delay=guild_ready_delay,
        )
        self.bots.append(bot)
        await bot.start(ready_timeout=ready_timeout)
        return bot

    # -- state helpers -----------------------------------------------------------
    def add_guild(self, name: str = "Test") -> Guild:
        guild = Guild(self, name)
        self.guilds.append(guild)
        self.dispatch_soon("GUILD_CREATE", guild.create_payload())
        return guild

    def next_change(self) -> int:
        self.change_seq += 1
        self._change_event.set()
        self._change_event = asyncio.Event()
        return self.change_seq

    async def wait_change(self, seconds: float) -> None:
        """Wait until some message changes (or ``seconds`` pass)."""
        event = self._change_event
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), seconds)

    def problem(
        self, kind: str, message: str, req: Request | None = None, code: int | None = None
    ) -> Problem:
        p = Problem(kind, message, req.method if req else "", req.path if req else "", code)
        log.warning("loopback problem: %s", p)
        self.problems.append(p)
        return p

    def take_problems(
        self, kind: str | None = None, *, code: int | None = None, contains: str | None = None
    ) -> list[Problem]:
        """Remove and return recorded problems matching the filters (all by default)."""
        taken = [
            p
            for p in self.problems
            if (kind is None or p.kind == kind)
            and (code is None or p.code == code)
            and (contains is None or contains in str(p))
        ]
        self.problems = [p for p in self.problems if p not in taken]
        return taken

    # -- refusals and injected faults ------------------------------------------------
    def refuse(
        self, req: Request, status: int, code: int, reason: str, detail: str = ""
    ) -> web.Response:
        """Answer an error that is the bot's honest failure (kept in ``refused``, not a
        problem); a waiting user action fails with InteractionFailed if it was a callback."""
        text = ERROR_MESSAGES[code]
        self.refused.append(Refusal(status, code, text, req.method, req.path, reason, detail))
        if status not in RETRIED_STATUSES:
            self.interaction_routes.fail(
                req, f"Discord answered {status} code {code}: {text}", code
            )
        return error_response(status, code, text)

    def take_refused(
        self, *, code: int | None = None, status: int | None = None, reason: str | None = None
    ) -> list[Refusal]:
        """Remove and return the refusals matching the filters (all by default)."""
        taken = [
            r
            for r in self.refused
            if (code is None or r.code == code)
            and (status is None or r.status == status)
            and (reason is None or r.reason == reason)
        ]
        self.refused = [r for r in self.refused if r not in taken]
        return taken

    def fail_next(
        self,
        method: str | None,
        route: str | Callable[[Request], bool],
        status: int,
        *,
        code: int | None = None,
        message: str | None = None,
        count: int = 1,
        retry_after: float = 1.0,
    ) -> Fault:
        """Answer the next ``count`` matching REST calls with ``status`` instead of handling
        them. ``route`` is a template ("/channels/{channel_id}/messages", placeholder names
        do not matter), a concrete path, or a predicate on the Request; ``method`` None or
        "*" matches any. Bodies are Discord's: ``{"code": code, "message": ...}`` (5xx:
        ``{"code": 0, "message": "500: Internal Server Error"}``; 429 with ``retry_after``)."""
        assert status >= 400, "fail_next takes an error status"
        fault = Fault(
            method, route, status, code, message, retry_after=retry_after, remaining=count
        )
        self.faults.append(fault)
        return fault

    def delay_next(
        self,
        method: str | None,
        route: str | Callable[[Request], bool],
        seconds: float,
        *,
        count: int = 1,
    ) -> Fault:
        """Hold the next ``count`` matching REST calls ``seconds`` before handling them
        (the delay counts towards the 3-second interaction deadline)."""
        fault = Fault(method, route, delay=seconds, remaining=count)
        self.faults.append(fault)
        return fault

    def clear_faults(self) -> list[Fault]:
        """Drop the injected faults and delays; return those that were not used up."""
        pending = [f for f in self.faults if f.remaining > 0]
        self.faults = []
        return pending

    def _next_fault(self, req: Request, *, delay: bool) -> Fault | None:
        for fault in self.faults:
            if (fault.delay > 0) == delay and fault.matches(req):
                fault.remaining -= 1
                fault.hits.append(req)
                return fault
        return None

    def assert_no_problems(self) -> None:
        problems = self.take_problems()
        if problems:
            listing = "\n  ".join(str(p) for p in problems)
            raise AssertionError(f"the bot did things Discord would reject:\n  {listing}")

    def commands_for(self, guild: Guild | None) -> list[dict[str, Any]]:
        cmds = list(self.global_commands)
        if guild is not None:
            cmds += self.guild_commands.get(guild.id, [])
        return cmds

    def find_guild(self, guild_id: int) -> Guild | None:
        return next((g for g in self.guilds if g.id == guild_id), None)

    # -- gateway -----------------------------------------------------------------
    def dispatch_soon(self, name: str, data: Any) -> None:
        """Send an event to the connected bot (no-op when none is identified)."""
        session = self.current_session
        if session is None:
            return
        if name.startswith("MESSAGE_") and not session.intents & INTENT_GUILD_MESSAGES:
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

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=16 * 1024 * 1024)
        await ws.prepare(request)
        session: GatewaySession | None = None
        conn = Connection(ws)
        conn.send({"op": 10, "d": {"heartbeat_interval": 41250}})
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    if msg.type == WSMsgType.BINARY:
                        self.problem("gateway", "binary gateway frame from the bot")
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
                    self.problem("gateway", f"unexpected gateway op {op}: {payload!r}"[:300])
        finally:
            conn.close()
            if session is not None and session.conn is conn:
                session.conn = None
        return ws

    async def _identify(self, conn: Connection, data: dict[str, Any]) -> GatewaySession | None:
        if data.get("token") != self.token:
            await conn.ws.close(code=4004, message=b"Authentication failed.")
            self.problem("gateway", "IDENTIFY with a wrong token")
            return None
        session = GatewaySession(secrets.token_hex(16), int(data.get("intents", 0)))
        session.conn = conn
        self.sessions[session.session_id] = session
        self.current_session = session
        ready = {
            "v": 10,
            "user": {
                **self.bot_identity.user_payload(),
                "verified": True,
                "mfa_enabled": False,
                "email": None,
            },
            "guilds": [{"id": str(g.id), "unavailable": True} for g in self.guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": 0},
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
        for guild in self.guilds:
            session.send_event("GUILD_CREATE", guild.create_payload())
        self.identify_count += 1
        return session

    def _resume(self, conn: Connection, data: dict[str, Any]) -> GatewaySession | None:
        session = self.sessions.get(data.get("session_id", ""))
        if session is None or data.get("token") != self.token:
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
        guild = self.find_guild(int(data.get("guild_id", 0)))
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

    # -- REST plumbing -------------------------------------------------------------
    def route(self, method: str, template: str) -> Callable[[Handler], Handler]:
        pattern = "^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$"

        def deco(fn: Handler) -> Handler:
            self._routes.append((method, re.compile(pattern), template, fn))
            return fn

        return deco

    async def _outside_api(self, request: web.Request) -> web.StreamResponse:
        self.problem("unknown_route", f"{request.method} {request.path_qs} (outside /api/v10)")
        return error_response(404, 0, "404: Not Found")

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = request.path[len(API_PREFIX) :]
        query = dict(request.query)
        handler: Handler | None = None
        params: dict[str, str] = {}
        template = ""
        candidates = []
        for method, regex, tmpl, fn in self._routes:
            m = regex.match(path)
            if m and method == request.method:
                candidates.append((tmpl.count("{"), tmpl, fn, m.groupdict()))
        if candidates:
            candidates.sort(key=lambda c: c[0])
            _, template, handler, params = candidates[0]
        try:
            body = await self._read_body(request)
        except ValueError as exc:
            self.problem("invalid_body", str(exc))
            return error_response(400, 50109, "The request body contains invalid JSON.")
        req = Request(request.method, path, template, params, query, body, request)
        self.requests.append((request.method, request.path_qs, body))
        if handler is None:
            self.problem("unknown_route", f"the bot called {request.method} {path}", req)
            return error_response(404, 0, "404: Not Found")
        delay = self._next_fault(req, delay=True)
        if delay is not None:
            await asyncio.sleep(delay.delay)
        fault = self._next_fault(req, delay=False)
        if fault is not None:
            response = fault.response()
            code = fault.code or 0
            self.refused.append(
                Refusal(fault.status, code, fault.text(), req.method, req.path, "injected")
            )
            if fault.status not in RETRIED_STATUSES:
                self.interaction_routes.fail(req, f"injected {fault.status} {fault.text()}", code)
            return response
        if not self.enforce_rate_limits:
            self.rate_limiter.count(req.method, req.path, req.template)
            return await self._answer(req, handler)
        decision = self.rate_limiter.check(req.method, req.path, req.template)
        if not decision.allowed:
            return self._too_many_requests(req, decision)
        answer = await self._answer(req, handler)
        answer.headers.update(decision.headers())
        return answer

    def _too_many_requests(self, req: Request, decision: Decision) -> web.Response:
        """Discord's 429 for a refused request (recorded in ``rate_limited``)."""
        self.rate_limited.append(decision)
        where = f" ({decision.resource})" if decision.resource else ""
        self.problem(
            "rate_limited",
            f"{decision.scope} rate limit {decision.bucket}{where}: retry after "
            f"{decision.retry_after:.3f} s",
            req,
            429,
        )
        # without Via discord.py takes a 429 for a Cloudflare ban
        headers = {**JSON_HEADERS, **decision.headers(), "Via": "1.1 google"}
        return web.Response(status=429, body=json.dumps(decision.body()).encode(), headers=headers)

    async def _answer(self, req: Request, handler: Handler) -> web.StreamResponse:
        """Validate the request against Discord's OpenAPI description, then handle it."""
        method, path = req.method, req.raw.path
        if self.validator is not None:
            for text in self.validator.validate_query(method, path, req.query):
                self.problem("invalid_query", text, req)
            if req.body is not None or method in ("POST", "PUT", "PATCH"):
                errors = self.validator.validate_body(method, path, req.body)
                if errors and self.validator.find(method, path) is not None:
                    for text in errors:
                        self.problem("invalid_body", text, req, 50035)
                    self.interaction_routes.fail(
                        req, "Discord rejected: " + "; ".join(errors), 50035
                    )
                    tree = self.validator.error_tree(method, path, req.body)
                    return error_response(400, 50035, "Invalid Form Body", tree)
        try:
            return await handler(req)
        except web.HTTPException:
            raise
        except Exception as exc:
            log.exception("loopback handler crashed")
            self.problem("harness_error", f"{type(exc).__name__}: {exc}", req)
            return error_response(500, 0, "loopback harness error")

    async def _read_body(self, request: web.Request) -> Any:
        if not request.can_read_body:
            return None
        ctype = request.content_type
        if ctype == "multipart/form-data":
            reader = await request.multipart()
            payload: Any = None
            files: dict[str, bytes] = {}
            async for part in reader:
                if part is None:
                    break
                name = getattr(part, "name", None)
                data = await part.read()  # type: ignore[union-attr]
                if name == "payload_json":
                    payload = json.loads(data)
                elif name and name.startswith("files["):
                    files[getattr(part, "filename", None) or name] = bytes(data)
            # the uploaded bytes, by file name, for the message they end up on
            request[UPLOADED_FILES] = files
            return payload
        raw = await request.read()
        if not raw:
            return None
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{request.method} {request.path}: body is not JSON: {exc}") from exc

    # -- routes --------------------------------------------------------------------
    def _setup_routes(self) -> None:
        r = self.route
        r("GET", "/users/@me")(self._get_me)
        r("GET", "/users/{user_id}")(self._get_user)
        r("GET", "/oauth2/applications/@me")(self._get_application)
        r("GET", "/applications/@me")(self._get_application)
        r("GET", "/gateway/bot")(self._get_gateway_bot)
        r("GET", "/gateway")(self._get_gateway)
        r("PUT", "/applications/{app}/commands")(self._put_commands)
        r("GET", "/applications/{app}/commands")(self._get_commands)
        r("PUT", "/applications/{app}/guilds/{guild}/commands")(self._put_commands)
        r("GET", "/applications/{app}/guilds/{guild}/commands")(self._get_commands)
        # interactions.py: /interactions/{iid}/{token}/callback, /webhooks/{app}/{token}...
        self.interaction_routes.register()
        r("GET", "/channels/{cid}")(self._get_channel)
        r("GET", "/channels/{cid}/messages")(self._list_messages)
        r("POST", "/channels/{cid}/messages")(self._create_message)
        r("GET", "/channels/{cid}/messages/{mid}")(self._channel_message)
        r("PATCH", "/channels/{cid}/messages/{mid}")(self._channel_message)
        r("DELETE", "/channels/{cid}/messages/{mid}")(self._channel_message)
        r("POST", "/channels/{cid}/typing")(self._typing)
        r("PUT", "/channels/{cid}/messages/{mid}/reactions/{emoji}/@me")(self._reaction)
        r("DELETE", "/channels/{cid}/messages/{mid}/reactions/{emoji}/@me")(self._reaction)
        r("GET", "/guilds/{gid}")(self._get_guild)
        r("GET", "/guilds/{gid}/channels")(self._get_guild_channels)
        r("GET", "/guilds/{gid}/members/{uid}")(self._get_member)
        r("POST", "/users/@me/channels")(self._create_dm)
        self.thread_routes.register()  # threads.py: /channels/{id}/threads, PATCH, DELETE...
        self.emojis.register()  # emojis.py: /applications/{app}/emojis[/{emoji_id}]

    async def _no_content(self, req: Request) -> web.StreamResponse:
        return web.Response(status=204)

    async def _get_me(self, req: Request) -> web.StreamResponse:
        return json_response(
            {**self.bot_identity.user_payload(), "verified": True, "mfa_enabled": False}
        )

    def _user_by_id(self, user_id: int) -> Identity | None:
        if user_id == self.bot_identity.id:
            return self.bot_identity
        for guild in self.guilds:
            if user_id in guild.members_by_id:
                return guild.members_by_id[user_id]
        return None

    async def _get_user(self, req: Request) -> web.StreamResponse:
        ident = self._user_by_id(int(req.params["user_id"]))
        if ident is None:
            return error_response(404, 10013, "Unknown User")
        return json_response(ident.user_payload())

    async def _get_application(self, req: Request) -> web.StreamResponse:
        owner = Identity(snowflake(), "app-owner")
        return json_response(
            {
                "id": str(self.application_id),
                "name": self.bot_identity.name,
                "icon": None,
                "description": "loopback test application",
                "summary": "",
                "type": None,
                "bot": self.bot_identity.user_payload(),
                "bot_public": False,
                "bot_require_code_grant": False,
                "verify_key": secrets.token_hex(32),
                "flags": 0,
                "owner": owner.user_payload(),
                "team": None,
                "rpc_origins": [],
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.guilds),
                "integration_types_config": {"0": {}},
            }
        )

    async def _get_gateway_bot(self, req: Request) -> web.StreamResponse:
        return json_response(
            {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 14400000,
                    "max_concurrency": 1,
                },
            }
        )

    async def _get_gateway(self, req: Request) -> web.StreamResponse:
        return json_response({"url": self.gateway_url})

    def _check_app(self, req: Request) -> web.Response | None:
        if req.params.get("app") != str(self.application_id):
            self.problem("wrong_application", f"application id {req.params.get('app')}", req)
            return error_response(404, 10002, "Unknown Application")
        return None

    async def _put_commands(self, req: Request) -> web.StreamResponse:
        bad = self._check_app(req)
        if bad:
            return bad
        guild_id = int(req.params["guild"]) if "guild" in req.params else None
        if guild_id is not None and self.find_guild(guild_id) is None:
            self.problem("unknown_guild", f"command sync to unknown guild {guild_id}", req)
            return error_response(404, 10004, "Unknown Guild")
        previous = {
            (c["name"], c.get("type", 1)): c
            for c in (self.guild_commands.get(guild_id, []) if guild_id else self.global_commands)
        }
        stored = []
        for cmd in req.body or []:
            old = previous.get((cmd["name"], cmd.get("type", 1)))
            data = {
                "type": 1,
                "description": "",
                "options": [],
                "default_member_permissions": None,
                "nsfw": False,
                "contexts": None,
                "integration_types": [0],
                "name_localizations": None,
                "description_localizations": None,
                **cmd,
                "id": old["id"] if old else str(snowflake()),
                "application_id": str(self.application_id),
                "version": str(snowflake()),
            }
            if guild_id is not None:
                data["guild_id"] = str(guild_id)
            else:
                data.setdefault("dm_permission", True)
            stored.append(data)
        if guild_id is None:
            self.global_commands = stored
        else:
            self.guild_commands[guild_id] = stored
        self.command_syncs += 1
        self.next_change()
        return json_response(stored)

    async def _get_commands(self, req: Request) -> web.StreamResponse:
        bad = self._check_app(req)
        if bad:
            return bad
        if "guild" in req.params:
            return json_response(self.guild_commands.get(int(req.params["guild"]), []))
        return json_response(self.global_commands)

    # -- messages --------------------------------------------------------------------
    @staticmethod
    def _attachment_names(req: Request, data: dict[str, Any],
                          msg: Message | None = None) -> set[str]:
        """The file names the message will have once ``data`` is applied: the attachments
        it lists (an existing one by its id) and the files uploaded with it, or, when it
        lists none, those ``msg`` (the edited message) has now."""
        uploaded: dict[str, bytes] = req.raw.get(UPLOADED_FILES) or {}
        names = set(uploaded)
        if "attachments" not in data:
            names.update(str(a.get("filename")) for a in (msg.attachments if msg else []))
            return names
        known = {str(a.get("id")): str(a.get("filename")) for a in
                 (msg.attachments if msg else [])}
        for a in data.get("attachments") or []:
            if not isinstance(a, dict):
                continue
            if a.get("filename"):
                names.add(str(a["filename"]))
            elif str(a.get("id")) in known:
                names.add(known[str(a.get("id"))])
        return names

    def _limits(self, req: Request, data: dict[str, Any] | None,
                msg: Message | None = None) -> web.Response | None:
        """Discord's 400 50035 for a message body past its limits (``msg``: the message
        an edit changes, whose flags and attachments count)."""
        if not isinstance(data, dict):
            return None
        if msg is not None:
            data = {**data, "flags": msg.flags | int(data.get("flags") or 0)}
        if (int(data.get("flags") or 0) & IS_COMPONENTS_V2 and not data.get("components")
                and (msg is None or "components" in data)):
            # a Components V2 message shows only its components: without any it is empty
            text = "Cannot send an empty message (a Components V2 message without components)"
            self.problem("invalid_body", text, req, 50006)
            self.interaction_routes.fail(req, "Discord rejected: " + text, 50006)
            return error_response(400, 50006, "Cannot send an empty message")
        issues = check_message_limits(data, self._attachment_names(req, data, msg))
        if (msg is not None and self.gallery_edit_bug and int(data["flags"]) & IS_COMPONENTS_V2
                and not any(c.get("type") == 12 for c in msg.walk_components())):
            # Discord's open bug (discord-api-docs issue 7529): an edit that brings a media
            # gallery into a message (one that had none), showing a file uploaded with the
            # edit, is refused
            uploaded: dict[str, bytes] = req.raw.get(UPLOADED_FILES) or {}
            issues += [f"{url}: unfurled media attachment not found (an edit cannot bring a "
                       "media gallery with a new file)" for url in gallery_urls(data)
                       if url.removeprefix("attachment://") in uploaded]
        if not issues:
            return None
        for text in issues:
            self.problem("limits", text, req, 50035)
        self.interaction_routes.fail(req, "Discord rejected: " + "; ".join(issues), 50035)
        return error_response(
            400,
            50035,
            "Invalid Form Body",
            {"_errors": [{"code": "BASE_TYPE_INVALID", "message": t} for t in issues]},
        )

    def store_message(
        self,
        channel: Channel,
        data: dict[str, Any],
        *,
        ephemeral_for: int | None = None,
        msg_type: int = 0,
        interaction: InteractionState | None = None,
        loading: bool = False,
    ) -> Message:
        meta = None
        if interaction is not None:
            meta = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": interaction.user.user_payload(),
                "authorizing_integration_owners": {"0": str(channel.guild.id)}
                if channel.guild
                else {},
            }
            if interaction.source_message is not None:
                meta["interacted_message_id"] = str(interaction.source_message.id)
        msg = Message(
            server=self,
            channel=channel,
            author=self.bot_identity.user_payload(),
            data=data,
            ephemeral_for=ephemeral_for,
            msg_type=msg_type,
            interaction=meta,
            webhook_id=self.application_id if interaction is not None else None,
        )
        if loading:
            msg.flags |= LOADING
        self.messages[msg.id] = msg
        channel.all_messages.append(msg)
        if not msg.ephemeral:
            event = msg.payload()
            if channel.guild is not None:
                event["member"] = channel.guild.bot_member.member_payload(with_user=False)
            self.dispatch_soon("MESSAGE_CREATE", event)
        return msg

    def user_message(self, channel: Channel, user: Identity, text: str) -> Message:
        """A person posts ``text`` in ``channel`` (MESSAGE_CREATE as Discord sends it to a
        bot with the GUILD_MESSAGES intent; without MESSAGE_CONTENT its content is empty)."""
        msg = Message(server=self, channel=channel, author=user.user_payload(),
                      data={"content": text})
        self.messages[msg.id] = msg
        channel.all_messages.append(msg)
        event = msg.payload()
        event["content"] = ""
        if channel.guild is not None:
            event["member"] = user.member_payload(with_user=False)
        self.dispatch_soon("MESSAGE_CREATE", event)
        return msg

    @staticmethod
    def _keep_files(msg: Message, req: Request) -> None:
        """Keep the bytes of files uploaded with ``req`` on the message (``Message.files``)."""
        files: dict[str, bytes] = req.raw.get(UPLOADED_FILES) or {}
        if files:
            msg.files.update(files)
            for a in msg.attachments:
                if a.get("filename") in files:
                    a["size"] = len(files[a["filename"]])
        kept = {a.get("filename") for a in msg.attachments}
        for name in [n for n in msg.files if n not in kept]:
            del msg.files[name]  # an edit that left the file out removed it

    def edit_message(self, msg: Message, data: dict[str, Any]) -> None:
        msg.apply(data)
        if not msg.ephemeral:
            self.dispatch_soon("MESSAGE_UPDATE", msg.payload())

    def delete_message(self, msg: Message) -> None:
        msg.deleted = True
        self.next_change()
        if not msg.ephemeral:
            payload: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel.id)}
            if msg.channel.guild is not None:
                payload["guild_id"] = str(msg.channel.guild.id)
            self.dispatch_soon("MESSAGE_DELETE", payload)

    def _channel(self, req: Request) -> Channel | None:
        try:
            channel = self.channels.get(int(req.params["cid"]))
        except ValueError:
            return None
        return None if channel is None or channel.deleted else channel

    def _open_channel(
        self, req: Request, *needs: str
    ) -> tuple[Channel | None, web.Response | None]:
        """The channel of a /channels/{cid} route, or Discord's refusal: 404 10003 for an
        unknown or deleted channel, 403 50001 when the bot lacks VIEW_CHANNEL, 403 50013
        when it lacks one of ``needs`` (discord.Permissions flag names)."""
        channel = self._channel(req)
        if channel is None:
            return None, self.refuse(req, 404, 10003, "unknown_channel")
        guild = channel.guild
        if guild is None:
            return channel, None
        perms = guild.permissions_in(guild.bot_member, channel)
        if not perms.view_channel:
            return None, self.refuse(req, 403, 50001, "missing_access", "view_channel")
        needs = self.thread_routes.needs_in(channel, needs)
        missing = [name for name in needs if not getattr(perms, name)]
        if missing:
            return None, self.refuse(req, 403, 50013, "missing_permissions", ", ".join(missing))
        return channel, None

    async def _get_channel(self, req: Request) -> web.StreamResponse:
        channel, refused = self._open_channel(req)
        if channel is None:
            assert refused is not None
            return refused
        return json_response(channel.payload())

    async def _list_messages(self, req: Request) -> web.StreamResponse:
        channel, refused = self._open_channel(req)
        if channel is None:
            assert refused is not None
            return refused
        guild = channel.guild
        if guild is not None:
            perms = guild.permissions_in(guild.bot_member, channel)
            if not perms.read_message_history:  # Discord then returns no messages
                return json_response([])
        limit = int(req.query.get("limit", "50"))
        msgs = list(reversed(channel.messages))[:limit]
        return json_response([m.payload() for m in msgs])

    async def _create_message(self, req: Request) -> web.StreamResponse:
        body = dict(req.body or {})
        needs = ["send_messages"]
        if body.get("attachments"):
            needs.append("attach_files")
        if body.get("tts"):
            needs.append("send_tts_messages")
        if body.get("message_reference"):
            needs.append("read_message_history")
        channel, refused = self._open_channel(req, *needs)
        if channel is None:
            assert refused is not None
            return refused
        bad = self._limits(req, req.body)
        if bad:
            return bad
        has_any = any(body.get(k) for k in ("content", "embeds", "components", "attachments"))
        if not has_any and "sticker_ids" not in body and "poll" not in body:
            self.problem("invalid_body", "Cannot send an empty message", req, 50006)
            return error_response(400, 50006, "Cannot send an empty message")
        refused = self.thread_routes.before_post(req, channel)
        if refused is not None:
            return refused
        channel.record_write()
        msg = self.store_message(channel, body)
        self._keep_files(msg, req)
        return json_response(msg.payload())

    async def _channel_message(self, req: Request) -> web.StreamResponse:
        needs: list[str] = []
        if req.method == "GET":
            needs.append("read_message_history")
        elif req.method == "PATCH" and self.edit_requires_send_messages:
            needs.append("send_messages")
        if req.method == "PATCH" and req.raw.get(UPLOADED_FILES):
            needs.append("attach_files")  # an edit that uploads a file, as a post does
        channel, refused = self._open_channel(req, *needs)
        if channel is None:
            assert refused is not None
            return refused
        msg = self.messages.get(int(req.params["mid"]))
        if msg is None or msg.channel is not channel or msg.deleted or msg.ephemeral:
            return error_response(404, 10008, "Unknown Message")
        if req.method == "GET":
            return json_response(msg.payload())
        refused = self.thread_routes.before_change(req, channel)
        if refused is not None:
            return refused
        own = msg.author.get("id") == str(self.bot_identity.id)
        if req.method == "DELETE":
            if not own:
                channel, refused = self._open_channel(req, "manage_messages")
                if channel is None:
                    assert refused is not None
                    return refused
            self.delete_message(msg)
            return web.Response(status=204)
        if not own:
            self.problem("forbidden", "editing a message authored by another user", req, 50005)
            return error_response(403, 50005, "Cannot edit a message authored by another user")
        bad = self._limits(req, req.body, msg)
        if bad:
            return bad
        channel.record_write()
        self.edit_message(msg, req.body or {})
        self._keep_files(msg, req)
        return json_response(msg.payload())

    async def _typing(self, req: Request) -> web.StreamResponse:
        _, refused = self._open_channel(req, "send_messages")
        return refused or web.Response(status=204)

    async def _reaction(self, req: Request) -> web.StreamResponse:
        needs = ["read_message_history"] + (["add_reactions"] if req.method == "PUT" else [])
        channel, refused = self._open_channel(req, *needs)
        if channel is not None:
            refused = self.thread_routes.before_change(req, channel)
        return refused or web.Response(status=204)

    async def _get_guild(self, req: Request) -> web.StreamResponse:
        guild = self.find_guild(int(req.params["gid"]))
        if guild is None:
            return error_response(404, 10004, "Unknown Guild")
        return json_response(guild.payload())

    async def _get_guild_channels(self, req: Request) -> web.StreamResponse:
        guild = self.find_guild(int(req.params["gid"]))
        if guild is None:
            return error_response(404, 10004, "Unknown Guild")
        return json_response([c.payload() for c in guild.channels])

    async def _get_member(self, req: Request) -> web.StreamResponse:
        guild = self.find_guild(int(req.params["gid"]))
        ident = guild.members_by_id.get(int(req.params["uid"])) if guild else None
        if guild is None or ident is None:
            return error_response(404, 10007, "Unknown Member")
        return json_response(ident.member_payload())

    async def _create_dm(self, req: Request) -> web.StreamResponse:
        body = req.body or {}
        ident = self._user_by_id(int(body.get("recipient_id", 0)))
        if ident is None:
            return error_response(400, 50007, "Cannot send messages to this user")
        for channel in self.channels.values():
            if channel.recipient is ident:
                return json_response(channel.payload())
        channel = Channel(self, None, f"dm-{ident.name}", channel_type=1, recipient=ident)
        self.channels[channel.id] = channel
        return json_response(channel.payload())

    def dm_channel(self, ident: Identity) -> Channel | None:
        return next((c for c in self.channels.values() if c.recipient is ident), None)

    # -- sending interactions (used by users.Member) -----------------------------------
    async def send_interaction(
        self,
        *,
        itype: int,
        user: Identity,
        channel: Channel,
        data: dict[str, Any],
        label: str,
        source_message: Message | None = None,
        delayed: float = 0.0,
    ) -> InteractionState:
        """Send an interaction to the bot. ``delayed``: it was created that many seconds ago
        (Discord's id says so), as when it reaches a bot whose event loop is behind."""
        assert self.current_session is not None, "no bot is connected to the gateway"
        assert not channel.deleted, f"{channel!r} was deleted: no interaction can come from it"
        guild = channel.guild
        iid = snowflake_from(delayed) if delayed else snowflake()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48)
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "channel": channel.payload(),
            "channel_id": str(channel.id),
            "token": token,
            "version": 1,
            "locale": user.locale,
            "entitlements": [],
            "authorizing_integration_owners": (
                {"0": str(guild.id)} if guild else {"1": str(user.id)}
            ),
            "context": 0 if guild else 1,
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if guild is not None:
            # as Discord sends them: the member's and the app's permissions in this channel
            perms = guild.permissions_in(user, channel)
            payload["channel"]["permissions"] = str(perms.value)
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                member={**user.member_payload(), "permissions": str(perms.value)},
                app_permissions=str(guild.permissions_in(guild.bot_member, channel).value),
            )
        else:
            payload.update(user=user.user_payload(), app_permissions=str(DM_APP_PERMISSIONS.value))
        if source_message is not None:
            payload["message"] = source_message.payload()
        state = InteractionState(
            id=iid,
            token=token,
            type=itype,
            user=user,
            channel=channel,
            payload=payload,
            sent_at=asyncio.get_running_loop().time() - delayed,
            label=label,
            source_message=source_message,
        )
        state.ack = asyncio.get_running_loop().create_future()
        self.interactions[iid] = state
        self.interactions_by_token[token] = state
        self.dispatch("INTERACTION_CREATE", payload)
        return state
