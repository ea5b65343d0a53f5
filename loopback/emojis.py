"""Application emojis, as Discord documents them (``/applications/{id}/emojis``).

An application owns up to 2,000 emojis, usable by its bot anywhere. The bot's side:

- ``GET /applications/{app}/emojis``: ``{"items": [emoji, ...]}``
- ``POST /applications/{app}/emojis`` ``{"name", "image"}``: 201 with the emoji. The name is
  2-32 characters of ``[A-Za-z0-9_]``, the image a data URI (png, jpeg, gif, webp) of at
  most 256 KiB; a name already taken: 400 50035 ``APPLICATION_EMOJI_NAME_ALREADY_TAKEN``;
  the 2,001st emoji: 400 30008.
- ``GET / PATCH {"name"} / DELETE /applications/{app}/emojis/{emoji_id}``; unknown: 404 10014.

Bodies are validated against the OpenAPI description like every route. A malformed name or
image is a problem (a bug in the bot); a taken name or a full application is a refusal
(``server.refused``). Uploads fail on demand with the usual fault injection:
``server.fail_next("POST", "/applications/{app}/emojis", 500, count=...)``.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Protocol

from aiohttp import web

from .application import ApplicationRoutes
from .models import Identity, Refusal, snowflake
from .rest import Request, RestServer, error_response, json_response

MAX_APPLICATION_EMOJIS = 2000
MAX_EMOJI_BYTES = 256 * 1024
NAME_RE = re.compile(r"[A-Za-z0-9_]{2,32}")
DATA_URI_RE = re.compile(r"data:image/(png|jpeg|jpg|gif|webp);base64,(.*)", re.DOTALL)


def form_error(field: str, code: str, message: str) -> dict[str, Any]:
    """Discord's ``errors`` tree for one invalid field."""
    return {field: {"_errors": [{"code": code, "message": message}]}}


class EmojiServer(RestServer, Protocol):
    """What the emoji routes need of the server (``server.LoopbackDiscord``)."""

    @property
    def application_id(self) -> int: ...

    @property
    def bot_identity(self) -> Identity: ...

    @property
    def refused(self) -> list[Refusal]: ...

    @property
    def application_routes(self) -> ApplicationRoutes: ...

    def next_change(self) -> int: ...


class EmojiRoutes:
    """The application emoji routes and store of a LoopbackDiscord (``server.emojis``)."""

    def __init__(self, server: EmojiServer) -> None:
        self.server = server
        self.limit = MAX_APPLICATION_EMOJIS
        # application id -> emoji id -> (payload, image bytes)
        self.store: dict[int, dict[int, tuple[dict[str, Any], bytes]]] = {}

    def register(self) -> None:
        r = self.server.route
        r("GET", "/applications/{app}/emojis")(self._list)
        r("POST", "/applications/{app}/emojis")(self._create)
        r("GET", "/applications/{app}/emojis/{emoji_id}")(self._one)
        r("PATCH", "/applications/{app}/emojis/{emoji_id}")(self._one)
        r("DELETE", "/applications/{app}/emojis/{emoji_id}")(self._one)

    # -- for tests -----------------------------------------------------------------
    def of(self, application_id: int | None = None) -> dict[int, tuple[dict[str, Any], bytes]]:
        """The emojis of an application (the bot's by default): id -> (payload, image)."""
        app = self.server.application_id if application_id is None else application_id
        return self.store.setdefault(app, {})

    def names(self, application_id: int | None = None) -> list[str]:
        return [p["name"] for p, _ in self.of(application_id).values()]

    def image(self, name: str) -> bytes:
        """The uploaded bytes of the bot's emoji ``name``."""
        for payload, data in self.of().values():
            if payload["name"] == name:
                return data
        raise KeyError(name)

    # -- routes --------------------------------------------------------------------
    def _refuse(self, req: Request, status: int, code: int, message: str, reason: str,
                errors: dict[str, Any] | None = None) -> web.Response:
        self.server.refused.append(Refusal(status, code, message, req.method, req.path, reason))
        return error_response(status, code, message, errors)

    def _invalid(self, req: Request, field: str, code: str, message: str) -> web.Response:
        self.server.problem("limits", f"emoji {field}: {message}", req, 50035)
        return error_response(400, 50035, "Invalid Form Body", form_error(field, code, message))

    def _taken(self, app: int, name: str, but: int | None = None) -> bool:
        return any(p["name"] == name and i != but for i, (p, _) in self.of(app).items())

    def _check_name(self, req: Request, app: int, name: Any,
                    but: int | None = None) -> web.Response | None:
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            return self._invalid(req, "name", "STRING_TYPE_REGEX",
                                 "String value did not match validation regex.")
        if self._taken(app, name, but):
            return self._refuse(req, 400, 50035, "Invalid Form Body", "emoji_name_taken",
                                form_error("name", "APPLICATION_EMOJI_NAME_ALREADY_TAKEN",
                                           "Emoji name already taken."))
        return None

    async def _list(self, req: Request) -> web.StreamResponse:
        bad = self.server.application_routes.check_app(req)
        if bad:
            return bad
        app = int(req.params["app"])
        return json_response({"items": [p for p, _ in self.of(app).values()]})

    async def _create(self, req: Request) -> web.StreamResponse:
        bad = self.server.application_routes.check_app(req)
        if bad:
            return bad
        app = int(req.params["app"])
        body = req.body if isinstance(req.body, dict) else {}
        refused = self._check_name(req, app, body.get("name"))
        if refused is not None:
            return refused
        m = DATA_URI_RE.fullmatch(str(body.get("image") or ""))
        if m is None:
            return self._invalid(req, "image", "IMAGE_INVALID", "Invalid image data")
        try:
            data = base64.b64decode(m.group(2), validate=True)
        except (binascii.Error, ValueError):
            return self._invalid(req, "image", "IMAGE_INVALID", "Invalid image data")
        if len(data) > MAX_EMOJI_BYTES:
            return self._invalid(req, "image", "BINARY_TYPE_MAX_SIZE",
                                 "File cannot be larger than 256.0 kb.")
        emojis = self.of(app)
        if len(emojis) >= self.limit:
            return self._refuse(req, 400, 30008, "Maximum number of emojis reached (2000)",
                                "emoji_limit")
        eid = snowflake()
        payload = {
            "id": str(eid),
            "name": body["name"],
            "user": self.server.bot_identity.user_payload(),
            "roles": [],
            "require_colons": True,
            "managed": False,
            "animated": m.group(1) == "gif",
            "available": True,
        }
        emojis[eid] = (payload, data)
        self.server.next_change()
        return json_response(payload, 201)

    async def _one(self, req: Request) -> web.StreamResponse:
        bad = self.server.application_routes.check_app(req)
        if bad:
            return bad
        app = int(req.params["app"])
        emojis = self.of(app)
        try:
            eid = int(req.params["emoji_id"])
        except ValueError:
            eid = 0
        if eid not in emojis:
            return self._refuse(req, 404, 10014, "Unknown Emoji", "unknown_emoji")
        payload, data = emojis[eid]
        if req.method == "GET":
            return json_response(payload)
        if req.method == "DELETE":
            del emojis[eid]
            self.server.next_change()
            return web.Response(status=204)
        body = req.body if isinstance(req.body, dict) else {}
        if "name" in body:
            refused = self._check_name(req, app, body["name"], but=eid)
            if refused is not None:
                return refused
            payload = {**payload, "name": body["name"]}
            emojis[eid] = (payload, data)
            self.server.next_change()
        return json_response(payload)
