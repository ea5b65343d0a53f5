"""Interactions in the loopback Discord: the routes a bot answers them with.

An interaction is sent to the bot by ``LoopbackDiscord.send_interaction`` (a user's click or
command, users.py) and kept as an :class:`InteractionState` in ``server.interactions`` (by
id) and ``server.interactions_by_token``. What Discord documents and this models: the
callback (``POST /interactions/{iid}/{token}/callback``: one acknowledgement, within the
ack deadline, of a type the interaction allows), followups (``POST /webhooks/{app}/{token}``;
the first after a thinking defer replaces the "thinking" message), the original response
and the followups by id (``GET``/``PATCH``/``DELETE /webhooks/{app}/{token}/messages/{mid}``,
``@original`` included), and the token's life (15 minutes: then 401 code 50027).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .models import EPHEMERAL, Channel, Identity, Message

if TYPE_CHECKING:
    from .server import LoopbackDiscord, Request


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


class InteractionRoutes:
    """The interaction and webhook routes, registered on a LoopbackDiscord
    (``server.interaction_routes``), and the lookups the REST plumbing uses."""

    def __init__(self, server: LoopbackDiscord) -> None:
        self.server = server

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
            state = self.server.interactions.get(int(req.params["iid"]))
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
            from .users import InteractionFailed

            state.ack.set_exception(InteractionFailed(text, code=code))
            state.ack.exception()  # mark retrieved: nobody may be waiting any more

    async def _callback(self, req: Request) -> web.StreamResponse:
        state = self.find(req)
        if state is None:
            self.server.problem("unknown_interaction", "callback for an unknown interaction",
                                req, 10062)
            return _error(404, 10062, "Unknown interaction")
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
            return _error(400, 40060, "Interaction has already been acknowledged.")
        if elapsed > self.server.ack_deadline:
            text = (
                f"{state.label}: acknowledged after {elapsed:.2f} s (Discord's limit is "
                f"{self.server.ack_deadline:g} s); Discord answers 404 code 10062 Unknown "
                "interaction"
            )
            self.server.problem("late_ack", text, req, 10062)
            self.fail(req, text, 10062)
            state.ack_type = -1
            return _error(404, 10062, "Unknown interaction")
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
            return _error(400, 50035, "Invalid Form Body")
        if rtype in (4, 7):
            bad = self.server._limits(req, data, state.source_message if rtype == 7 else None)
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
            message = self.server.store_message(
                state.channel,
                data,
                ephemeral_for=ephemeral_for,
                msg_type=20 if state.type == 2 else 0,
                interaction=state,
            )
            state.original = message
            self.server._keep_files(message, req)
            resource["message"] = message.payload()
        elif rtype == 5:
            message = self.server.store_message(
                state.channel,
                {"content": "", "flags": flags & EPHEMERAL},
                ephemeral_for=ephemeral_for,
                msg_type=20 if state.type == 2 else 0,
                interaction=state,
                loading=True,
            )
            state.original = message
        elif rtype in (6, 7):
            message = state.source_message
            state.original = message
            if rtype == 7 and message is not None:
                self.server.edit_message(message, data)
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
        return _json(result)

    def _webhook_state(self, req: Request) -> tuple[InteractionState | None, web.Response | None]:
        if req.params["app"] != str(self.server.application_id):
            self.server.problem("unknown_webhook", "webhook call with a wrong application id", req)
            return None, _error(404, 10015, "Unknown Webhook")
        state = self.server.interactions_by_token.get(req.params["token"])
        if state is None:
            self.server.problem("unknown_webhook", "webhook call with an unknown token", req, 10015)
            return None, _error(404, 10015, "Unknown Webhook")
        if state.ack_type is None or state.ack_type < 0:
            self.server.problem(
                "unknown_webhook", f"{state.label}: followup before acknowledgement", req, 10015
            )
            return None, _error(404, 10015, "Unknown Webhook")
        if state.channel.deleted:
            detail = f"#{state.channel.name} deleted"
            return None, self.server.refuse(req, 404, 10003, "unknown_channel", detail)
        age = asyncio.get_running_loop().time() - state.sent_at
        if age > self.server.interaction_token_life:
            self.server.problem("expired_token", f"{state.label}: token used {age:.0f} s after the "
                         f"interaction (it works for {self.server.interaction_token_life:.0f} s)",
                         req, 50027)
            return None, _error(401, 50027, "Invalid Webhook Token")
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
        bad = self.server._limits(req, data, state.original if replaces else None)
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
            self.server.edit_message(state.original, data)
            self.server._keep_files(state.original, req)
            return _json(state.original.payload())
        msg = self.server.store_message(
            state.channel,
            data,
            ephemeral_for=state.user.id if flags & EPHEMERAL else None,
            msg_type=20 if state.type == 2 else 0,
            interaction=state,
        )
        state.followups.append(msg)
        self.server._keep_files(msg, req)
        return _json(msg.payload())

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
            return _error(404, 10008, "Unknown Message")
        if req.method == "GET":
            return _json(msg.payload())
        refused = self.server.thread_routes.before_change(req, state.channel)
        if refused is not None:
            return refused
        if req.method == "DELETE":
            self.server.delete_message(msg)
            return web.Response(status=204)
        data = dict(req.body or {})
        bad = self.server._limits(req, data, msg)
        if bad:
            return bad
        self.server.edit_message(msg, data)
        self.server._keep_files(msg, req)
        return _json(msg.payload())


def _json(data: Any, status: int = 200) -> web.Response:
    from .server import json_response

    return json_response(data, status)


def _error(status: int, code: int, message: str) -> web.Response:
    from .server import error_response

    return error_response(status, code, message)
