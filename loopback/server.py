"""The loopback Discord server: REST under /api/v10 and a gateway websocket at /gateway.

``LoopbackDiscord`` assembles the aiohttp app from the route modules (``application.py``,
``interactions.py``, ``messages.py``, ``threads.py``, ``emojis.py``), the gateway
(``gateway.py``) and the injected faults (``faults.py``); it keeps the guilds, channels and
messages (``models.py``) and what the bot did wrong (``problems``) or failed at honestly
(``refused``). Every route module reaches it through a protocol of what it needs.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import secrets
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .application import ApplicationRoutes
from .bot_process import BotProcess
from .emojis import EmojiRoutes
from .encoding import dumps
from .faults import Fault as Fault
from .faults import FaultInjector
from .gateway import Gateway, GatewaySession, shard_of
from .interactions import InteractionRoutes
from .interactions import InteractionState as InteractionState
from .messages import MessageRoutes
from .models import Channel, Guild, Identity, Message, Problem, Refusal, snowflake
from .ratelimits import Decision, RateLimiter
from .rest import API_PREFIX as API_PREFIX
from .rest import (
    ERROR_MESSAGES,
    JSON_HEADERS,
    RETRIED_STATUSES,
    Handler,
    Router,
    read_body,
    uploaded_files,
)
from .rest import Request as Request
from .rest import error_response as error_response
from .rest import json_response as json_response
from .thread_routes import ThreadRoutes
from .threads import PRIVATE_THREAD, PUBLIC_THREAD, Thread, open_thread
from .users import Member

if TYPE_CHECKING:
    from .openapi import OpenApiValidator

log = logging.getLogger("loopback")

DEFAULT_CWD = Path(__file__).resolve().parents[1]
ACK_DEADLINE = 3.0


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
        self.recommended_shards = 1
        """``shards`` of GET /gateway/bot: what Discord recommends (the bot runs that many
        when no SHARD_COUNT is set). The gateway's sharding: ``gateway.max_guilds``,
        ``max_concurrency``, ``pace_identify`` (gateway.py)."""
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.command_syncs = 0
        self.interaction_token_life = 15 * 60.0
        """Seconds an interaction's token works for followups and edits (Discord: 15 min)."""
        self.problems: list[Problem] = []
        self.refused: list[Refusal] = []
        self.refusal_counts: Counter[str] = Counter()  # by reason, never emptied
        self.other_guild_ids: set[int] = set()  # servers that did not add the bot
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
        self.uploads: list[tuple[int, str, int]] = []
        """The files the bot uploaded: the index of their request in ``requests``, each
        file's name and its size in bytes (for the benchmarks)."""
        self.change_seq = 0
        self._change_event = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.bots: list[BotProcess] = []
        self.router = Router()
        self.injector = FaultInjector()
        self.gateway = Gateway(self)
        self.application_routes = ApplicationRoutes(self)
        self.interaction_routes = InteractionRoutes(self)
        self.message_routes = MessageRoutes(self)
        self.thread_routes = ThreadRoutes(self)
        self.emojis = EmojiRoutes(self)
        """Application emojis (emojis.py): ``emojis.of()``, ``emojis.names()``."""
        for routes in (self.application_routes, self.interaction_routes, self.message_routes,
                       self.thread_routes, self.emojis):
            routes.register()

    # -- what the components keep ------------------------------------------------------
    @property
    def faults(self) -> list[Fault]:
        """The injected faults and delays (faults.py)."""
        return self.injector.faults

    @property
    def sessions(self) -> dict[str, GatewaySession]:
        return self.gateway.sessions

    @property
    def current_session(self) -> GatewaySession | None:
        return self.gateway.current_session

    @property
    def identify_count(self) -> int:
        return self.gateway.identify_count

    def shard_sessions(self) -> dict[tuple[int, int], str]:
        """The session id identified last for each shard ``(id, count)``."""
        return {shard: session.session_id for shard, session in self.gateway.by_shard.items()}

    @property
    def resume_count(self) -> int:
        return self.gateway.resume_count

    @property
    def bot_intents(self) -> int | None:
        session = self.gateway.current_session
        return session.intents if session is not None else None

    @property
    def interactions(self) -> dict[int, InteractionState]:
        return self.interaction_routes.by_id

    @property
    def interactions_by_token(self) -> dict[str, InteractionState]:
        return self.interaction_routes.by_token

    # -- lifecycle -------------------------------------------------------------
    async def __aenter__(self) -> LoopbackDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", API_PREFIX + "/{tail:.*}", self._rest)
        app.router.add_get("/gateway", self.gateway.handle)
        app.router.add_get("/gateway/", self.gateway.handle)
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
        self.port = self._runner.addresses[0][1]  # the port the system chose for port 0

    async def close(self) -> None:
        self.closing = True
        self.next_change()  # wakes the web page's event streams, which then end
        for bot in list(self.bots):
            await bot.kill()
        await self.gateway.close()
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
        guild_ready_delay: float = 0.0,
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
    def add_guild(self, name: str = "Test", *, shard: tuple[int, int] | None = None,
                  bot: bool = True) -> Guild:
        """A new guild; ``shard=(id, count)``: one whose id Discord routes to that shard
        (``bot=False``: a server that did not add the bot, installs.py)."""
        if not bot:
            self.other_guild_ids.add((other := Guild(self, name, bot_present=False)).id)
            return other
        guild_id = None
        if shard is not None:
            guild_id = snowflake()
            while shard_of(guild_id, shard[1]) != shard[0]:
                guild_id = snowflake()
        guild = Guild(self, name, guild_id)
        self.guilds.append(guild)
        self.dispatch_soon("GUILD_CREATE", guild.create_payload())
        return guild

    def group_dm(self, *people: Member, name: str = "group") -> Channel:
        """A group DM (type 3) of these people, the bot not in it (installs.py)."""
        channel = Channel(self, None, name, channel_type=3, recipients=[p.identity for p in people])
        self.channels[channel.id] = channel
        return channel

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
        self.refusal_counts[reason] += 1
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
        them (``FaultInjector.fail_next``)."""
        return self.injector.fail_next(method, route, status, code=code, message=message,
                                       count=count, retry_after=retry_after)

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
        return self.injector.delay_next(method, route, seconds, count=count)

    def clear_faults(self) -> list[Fault]:
        """Drop the injected faults and delays; return those that were not used up."""
        return self.injector.clear()

    def reject(self, req: Request, kind: str, texts: list[str], code: int) -> None:
        """Record ``texts`` as problems of ``kind`` (Discord would answer 400 ``code``) and
        fail the user action waiting on the interaction callback, if it was one."""
        for text in texts:
            self.problem(kind, text, req, code)
        self.interaction_routes.fail(req, "Discord rejected: " + "; ".join(texts), code)

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

    def channel_guild(self, channel_id: int) -> int | None:
        channel = self.channels.get(channel_id)
        return channel.guild_id if channel is not None else None

    def session_start_limit(self) -> dict[str, int]:
        """GET /gateway/bot's ``session_start_limit``."""
        gateway = self.gateway
        return {"total": gateway.session_starts_total,
                "remaining": gateway.session_starts_left,
                "reset_after": 14400000,
                "max_concurrency": gateway.max_concurrency}

    # -- gateway (gateway.py) -------------------------------------------------------------
    def dispatch_soon(self, name: str, data: Any) -> None:
        """Send an event to the connected bot (no-op when none is identified)."""
        self.gateway.dispatch_soon(name, data)

    def dispatch(self, name: str, data: Any) -> None:
        self.gateway.dispatch(name, data)

    async def drop_gateway(self, code: int = 4000, *, wait_resume: float | None = 10.0) -> None:
        """Close the bot's websocket (a resumable close code by default) and, unless
        ``wait_resume`` is None, wait until the bot has RESUMEd."""
        await self.gateway.drop_gateway(code, wait_resume=wait_resume)

    async def request_reconnect(self, *, wait_resume: float | None = 10.0) -> None:
        """Send op 7 RECONNECT, as Discord does before moving a session."""
        await self.gateway.request_reconnect(wait_resume=wait_resume)

    # -- REST plumbing -------------------------------------------------------------
    def route(self, method: str, template: str) -> Callable[[Handler], Handler]:
        return self.router.route(method, template)

    async def _outside_api(self, request: web.Request) -> web.StreamResponse:
        self.problem("unknown_route", f"{request.method} {request.path_qs} (outside /api/v10)")
        return error_response(404, 0, "404: Not Found")

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = request.path[len(API_PREFIX) :]
        query = dict(request.query)
        template, handler, params = self.router.find(request.method, path)
        try:
            body = await read_body(request)
        except ValueError as exc:
            self.problem("invalid_body", str(exc))
            return error_response(400, 50109, "The request body contains invalid JSON.")
        req = Request(request.method, path, template, params, query, body, request)
        self.requests.append((request.method, request.path_qs, body))
        for name, data in uploaded_files(req).items():
            self.uploads.append((len(self.requests) - 1, name, len(data)))
        if handler is None:
            self.problem("unknown_route", f"the bot called {request.method} {path}", req)
            return error_response(404, 0, "404: Not Found")
        delay = self.injector.next_for(req, delay=True)
        if delay is not None:
            await asyncio.sleep(delay.delay)
        fault = self.injector.next_for(req, delay=False)
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
        return web.Response(status=429, body=dumps(decision.body()), headers=headers)

    async def _answer(self, req: Request, handler: Handler) -> web.StreamResponse:
        """Validate the request against Discord's OpenAPI description, then handle it."""
        method, path = req.method, req.raw.path
        if self.validator is not None:
            for text in self.validator.validate_query(method, path, req.query):
                self.problem("invalid_query", text, req)
            if req.body is not None or method in ("POST", "PUT", "PATCH"):
                errors = self.validator.validate_body(method, path, req.body)
                if errors and self.validator.find(method, path) is not None:
                    self.reject(req, "invalid_body", list(errors), 50035)
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

    # -- messages (messages.py) and members (users.py) -----------------------------------
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
        """Keep a message of the bot in ``channel`` (MESSAGE_CREATE unless ephemeral)."""
        meta = interaction.message_metadata(channel) if interaction is not None else None
        return self.message_routes.store(channel, data, ephemeral_for=ephemeral_for,
                                         msg_type=msg_type, interaction=meta, loading=loading)

    def user_message(self, channel: Channel, user: Identity, text: str) -> Message:
        """A person posts ``text`` in ``channel`` (``MessageRoutes.user_message``)."""
        return self.message_routes.user_message(channel, user, text)

    def edit_message(self, msg: Message, data: dict[str, Any]) -> None:
        self.message_routes.edit(msg, data)

    def delete_message(self, msg: Message) -> None:
        self.message_routes.delete(msg)

    def dm_channel(self, ident: Identity) -> Channel | None:
        return self.application_routes.dm_channel(ident)

    def member(self, guild: Guild, identity: Identity, channel: Channel) -> Member:
        """``identity`` acting in ``channel`` (what ``Guild.member`` hands out)."""
        return Member(self, guild, identity, channel)

    def start_thread(
        self,
        parent: Channel,
        name: str,
        *,
        owner: Identity,
        private: bool,
        auto_archive_duration: int,
        message: Message | None,
    ) -> Thread:
        """A thread in ``parent`` as ``owner`` starts it (``Channel.create_thread``)."""
        return open_thread(
            self,
            parent,
            name,
            owner=owner,
            thread_type=PRIVATE_THREAD if private else PUBLIC_THREAD,
            auto_archive_duration=auto_archive_duration,
            message=message,
        )

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
        """Send an interaction to the bot (``InteractionRoutes.send``). ``delayed``: it was
        created that many seconds ago (Discord's id says so), as when it reaches a bot whose
        event loop is behind."""
        return await self.interaction_routes.send(
            itype=itype, user=user, channel=channel, data=data, label=label,
            source_message=source_message, delayed=delayed,
        )
