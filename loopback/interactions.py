"""Interactions in the loopback Discord: the routes a bot answers them with.

An interaction is sent to the bot by ``InteractionRoutes.send`` (``server.send_interaction``:
a user's click or command, users.py) and kept as an :class:`InteractionState` in
``server.interactions`` (by id) and ``server.interactions_by_token``. What Discord documents
and this models: the callback (``POST /interactions/{iid}/{token}/callback``: one
acknowledgement, within the ack deadline, of a type the interaction allows), followups
(``POST /webhooks/{app}/{token}``; the first after a thinking defer replaces the "thinking"
message), the original response and the followups by id
(``GET``/``PATCH``/``DELETE /webhooks/{app}/{token}/messages/{mid}``, ``@original``
included), and the token's life (15 minutes: then 401 code 50027).
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import web

from . import installs
from .messages import MessageRoutes, ThreadChecks
from .models import EPHEMERAL, Channel, Identity, Message
from .records import snowflake, snowflake_from
from .rest import Request, RestServer, error_response, json_response


class InteractionFailed(AssertionError):
    """The bot did not (validly) acknowledge an interaction in time."""

    def __init__(self, message: str, *, code: int | None = None) -> None:
        super().__init__(message)
        self.code = code


class InteractionServer(RestServer, Protocol):
    """What the interaction routes need of the server (``server.LoopbackDiscord``)."""

    @property
    def application_id(self) -> int: ...

    @property
    def bot_identity(self) -> Identity: ...

    def commands_for(self, guild: Any) -> list[dict[str, Any]]: ...

    @property
    def ack_deadline(self) -> float: ...

    @property
    def interaction_token_life(self) -> float: ...

    @property
    def bot_intents(self) -> int | None: ...

    @property
    def message_routes(self) -> MessageRoutes: ...

    @property
    def thread_routes(self) -> ThreadChecks: ...

    def dispatch(self, name: str, data: Any) -> None: ...


@dataclass
class InteractionState:
    id: int
    token: str
    type: int
    user: Identity
    channel: Channel
    payload: dict[str, Any]
    sent_at: float
    label: str
    source_message: Message | None = None
    ack_type: int | None = None
    acked_at: float | None = None
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    response_data: dict[str, Any] | None = None
    ack: asyncio.Future[int] | None = None
    waiting: bool = False

    def message_metadata(self, channel: Channel) -> dict[str, Any]:
        """The ``interaction_metadata`` of a message in ``channel`` answering this."""
        meta: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.user_payload(),
            "authorizing_integration_owners": self.payload["authorizing_integration_owners"],
        }
        if self.source_message is not None:
            meta["interacted_message_id"] = str(self.source_message.id)
        return meta


class InteractionRoutes:
    """The interaction and webhook routes, registered on a LoopbackDiscord
    (``server.interaction_routes``), and the lookups the REST plumbing uses."""

    def __init__(self, server: InteractionServer) -> None:
        self.server = server
        self.by_id: dict[int, InteractionState] = {}
        self.by_token: dict[str, InteractionState] = {}

    def register(self) -> None:
        r = self.server.route
        r("POST", "/interactions/{iid}/{token}/callback")(self._callback)
        r("POST", "/webhooks/{app}/{token}")(self._followup)
        r("GET", "/webhooks/{app}/{token}/messages/{mid}")(self._webhook_message)
        r("PATCH", "/webhooks/{app}/{token}/messages/{mid}")(self._webhook_message)
        r("DELETE", "/webhooks/{app}/{token}/messages/{mid}")(self._webhook_message)

    def find(self, req: Request) -> InteractionState | None:
        """The interaction a route's path names (``iid`` and its ``token``), or None."""
        try:
            state = self.by_id.get(int(req.params["iid"]))
        except ValueError:
            return None
        if state is None or state.token != req.params["token"]:
            return None
        return state

    def fail(self, req: Request, text: str, code: int) -> None:
        """A rejected callback: the user action waiting on it raises InteractionFailed (the
        problem stays recorded too)."""
        if not req.template.endswith("/callback"):
            return
        state = self.find(req)
        if state is not None and state.ack is not None and not state.ack.done():
            state.ack.set_exception(InteractionFailed(text, code=code))
            state.ack.exception()  # mark retrieved: nobody may be waiting any more

    async def send(
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
        assert self.server.bot_intents is not None, "no bot is connected to the gateway"
        assert not channel.deleted, f"{channel!r} was deleted: no interaction can come from it"
        guild = channel.guild
        bot = self.server.bot_identity
        if itype in (2, 4):  # a command: the installations it is available in here
            cmd = next((c for c in self.server.commands_for(guild)
                        if str(c.get("id")) == str(data.get("id"))), {})
            owners = installs.command_owners(cmd, channel, user, bot)
            assert owners, (f"{user.name} cannot use /{data.get('name')} in {channel!r}: "
                            "no installation of the app allows it there")
        else:
            meta = source_message.interaction_metadata if source_message is not None else None
            owners = installs.component_owners(meta, channel, user, bot)
        iid = snowflake_from(delayed) if delayed else snowflake()
        token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48)
        payload: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(self.server.application_id),
            "type": itype,
            "data": data,
            "channel": channel.payload(),
            "channel_id": str(channel.id),
            "token": token,
            "version": 1,
            "locale": user.locale,
            "entitlements": [],
            "authorizing_integration_owners": installs.owners_payload(owners),
            "context": installs.context_of(channel, bot),
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
                app_permissions=str(installs.app_permissions(channel, bot).value),
            )
        else:
            payload.update(user=user.user_payload(),
                           app_permissions=str(installs.app_permissions(channel, bot).value))
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
        self.by_id[iid] = state
        self.by_token[token] = state
        self.server.dispatch("INTERACTION_CREATE", payload)
        return state

    async def _callback(self, req: Request) -> web.StreamResponse:
        state = self.find(req)
        if state is None:
            self.server.problem("unknown_interaction", "callback for an unknown interaction",
                                req, 10062)
            return error_response(404, 10062, "Unknown interaction")
        if state.channel.deleted:
            detail = f"#{state.channel.name} deleted"
            return self.server.refuse(req, 404, 10003, "unknown_channel", detail)
        loop = asyncio.get_running_loop()
        elapsed = loop.time() - state.sent_at
        if state.ack_type is not None:
            self.server.problem(
                "double_ack",
                f"{state.label}: second acknowledgement (already answered with type "
                f"{state.ack_type})",
                req,
                40060,
            )
            return error_response(400, 40060, "Interaction has already been acknowledged.")
        if elapsed > self.server.ack_deadline:
            text = (
                f"{state.label}: acknowledged after {elapsed:.2f} s (Discord's limit is "
                f"{self.server.ack_deadline:g} s); Discord answers 404 code 10062 Unknown "
                "interaction"
            )
            self.server.problem("late_ack", text, req, 10062)
            self.fail(req, text, 10062)
            state.ack_type = -1
            return error_response(404, 10062, "Unknown interaction")
        body = req.body or {}
        rtype = int(body.get("type", 0))
        data = body.get("data") or {}
        allowed = {
            2: {4, 5, 9},
            3: {4, 5, 6, 7, 9},
            4: {8},
            5: {4, 5, 6, 7},
        }[state.type]
        if rtype not in allowed:
            text = (
                f"{state.label}: callback type {rtype} is not valid for interaction type "
                f"{state.type}"
            )
            self.server.problem("invalid_callback", text, req, 50035)
            self.fail(req, text, 50035)
            return error_response(400, 50035, "Invalid Form Body")
        if rtype in (4, 7):
            edited = state.source_message if rtype == 7 else None
            bad = self.server.message_routes.limits(req, data, edited)
            if bad:
                return bad
        # in a thread: a locked one refuses new messages, an archived one refuses edits
        # (a new message unarchives it)
        if rtype in (4, 5):
            refused = self.server.thread_routes.before_post(req, state.channel)
            if refused is not None:
                return refused
        elif rtype == 7:
            refused = self.server.thread_routes.before_change(req, state.channel)
            if refused is not None:
                return refused
        flags = int(data.get("flags") or 0)
        ephemeral_for = state.user.id if flags & EPHEMERAL else None
        resource: dict[str, Any] = {"type": rtype}
        message: Message | None = None
        if rtype == 4:
            message = self.server.message_routes.store(
                state.channel,
                data,
                ephemeral_for=ephemeral_for,
                msg_type=20 if state.type == 2 else 0,
                interaction=state.message_metadata(state.channel),
            )
            state.original = message
            self.server.message_routes.keep_files(message, req)
            resource["message"] = message.payload()
        elif rtype == 5:
            message = self.server.message_routes.store(
                state.channel,
                {"content": "", "flags": flags & EPHEMERAL},
                ephemeral_for=ephemeral_for,
                msg_type=20 if state.type == 2 else 0,
                interaction=state.message_metadata(state.channel),
                loading=True,
            )
            state.original = message
        elif rtype in (6, 7):
            message = state.source_message
            state.original = message
            if rtype == 7 and message is not None:
                self.server.message_routes.edit(message, data)
                resource["message"] = message.payload()
        elif rtype in (8, 9):
            state.response_data = data
        state.ack_type = rtype
        state.acked_at = loop.time()
        if state.ack is not None and not state.ack.done():
            state.ack.set_result(rtype)
        if req.query.get("with_response") not in ("1", "true", "True"):
            return web.Response(status=204)
        interaction: dict[str, Any] = {"id": str(state.id), "type": state.type}
        if message is not None and rtype in (4, 5):
            interaction["response_message_id"] = str(message.id)
            interaction["response_message_loading"] = rtype == 5
            interaction["response_message_ephemeral"] = message.ephemeral
        result: dict[str, Any] = {"interaction": interaction}
        if rtype != 6:
            result["resource"] = resource
        return json_response(result)

    def _webhook_state(self, req: Request) -> tuple[InteractionState | None, web.Response | None]:
        if req.params["app"] != str(self.server.application_id):
            self.server.problem("unknown_webhook", "webhook call with a wrong application id", req)
            return None, error_response(404, 10015, "Unknown Webhook")
        state = self.by_token.get(req.params["token"])
        if state is None:
            self.server.problem("unknown_webhook", "webhook call with an unknown token", req, 10015)
            return None, error_response(404, 10015, "Unknown Webhook")
        if state.ack_type is None or state.ack_type < 0:
            self.server.problem(
                "unknown_webhook", f"{state.label}: followup before acknowledgement", req, 10015
            )
            return None, error_response(404, 10015, "Unknown Webhook")
        if state.channel.deleted:
            detail = f"#{state.channel.name} deleted"
            return None, self.server.refuse(req, 404, 10003, "unknown_channel", detail)
        age = asyncio.get_running_loop().time() - state.sent_at
        if age > self.server.interaction_token_life:
            self.server.problem("expired_token", f"{state.label}: token used {age:.0f} s after the "
                         f"interaction (it works for {self.server.interaction_token_life:.0f} s)",
                         req, 50027)
            return None, error_response(401, 50027, "Invalid Webhook Token")
        return state, None

    async def _followup(self, req: Request) -> web.StreamResponse:
        state, bad = self._webhook_state(req)
        if state is None:
            assert bad is not None
            return bad
        data = dict(req.body or {})
        replaces = (state.ack_type == 5 and state.original is not None
                    and state.original.loading and not state.original.deleted)
        # the first followup after a thinking defer is an edit of that message (issue 7529
        # refuses a new gallery file there as well)
        bad = self.server.message_routes.limits(req, data, state.original if replaces else None)
        if bad:
            return bad
        flags = int(data.get("flags") or 0)
        refused = self.server.thread_routes.before_post(req, state.channel)
        if refused is not None:
            return refused
        # the first followup after a thinking defer replaces the "thinking" message (a new
        # message, with its own flags, once the bot has deleted that one)
        if (state.ack_type == 5 and state.original is not None and state.original.loading
                and not state.original.deleted):
            self.server.message_routes.edit(state.original, data)
            self.server.message_routes.keep_files(state.original, req)
            return json_response(state.original.payload())
        msg = self.server.message_routes.store(
            state.channel,
            data,
            ephemeral_for=state.user.id if flags & EPHEMERAL else None,
            msg_type=20 if state.type == 2 else 0,
            interaction=state.message_metadata(state.channel),
        )
        state.followups.append(msg)
        self.server.message_routes.keep_files(msg, req)
        return json_response(msg.payload())

    async def _webhook_message(self, req: Request) -> web.StreamResponse:
        state, bad = self._webhook_state(req)
        if state is None:
            assert bad is not None
            return bad
        mid = req.params["mid"]
        if mid == "@original":
            msg = state.original
        else:
            msg = next((m for m in state.followups if str(m.id) == mid), None)
            if msg is None and state.original is not None and str(state.original.id) == mid:
                msg = state.original
        if msg is None or msg.deleted:
            return error_response(404, 10008, "Unknown Message")
        if req.method == "GET":
            return json_response(msg.payload())
        refused = self.server.thread_routes.before_change(req, state.channel)
        if refused is not None:
            return refused
        if req.method == "DELETE":
            self.server.message_routes.delete(msg)
            return web.Response(status=204)
        data = dict(req.body or {})
        bad = self.server.message_routes.limits(req, data, msg)
        if bad:
            return bad
        self.server.message_routes.edit(msg, data)
        self.server.message_routes.keep_files(msg, req)
        return json_response(msg.payload())
