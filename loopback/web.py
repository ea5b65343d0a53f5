"""The loopback Discord in a browser: a chat page that shows a guild's channels as one member
sees them, and acts through the same ``users.Member`` code the tests use.

Routes (added to the loopback server's app when it runs with ``web_ui=True``):

- ``GET /`` the page, ``GET /static/{file}`` its script and style (plain files, no build);
- ``GET /ui/state?as=NAME`` the guild, its channels, members and synced commands;
- ``GET /ui/events?as=NAME&channel=ID`` server-sent events: ``meta`` (the state above, when it
  changes), ``message`` (a message as NAME sees it, on creation and every edit), ``delete``;
  another member's ephemeral messages are never sent;
- ``POST /ui/act`` a slash command, a click, a select or an autocomplete, as NAME
  (``Member.slash/click/select/autocomplete``): the bot gets a real INTERACTION_CREATE;
- ``POST /ui/channels`` a new text channel; ``GET /files/{message}/{name}?as=NAME`` an
  attachment's bytes (a message's ``attachment://NAME`` URLs are rewritten to it).

The channels listed are the guild's text channels NAME may see, each followed by its threads.

``?as=NAME`` picks who you are; a new name makes a new member. Nothing checks who is asking:
anyone who can reach the port can act as anyone (the playground binds 127.0.0.1).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import mimetypes
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from aiohttp import web

from .emojis import EmojiRoutes
from .interactions import InteractionState
from .limits import IS_COMPONENTS_V2
from .models import Channel, Guild, Identity, Message
from .users import (
    OPTION_BOOLEAN,
    OPTION_CHANNEL,
    OPTION_INTEGER,
    OPTION_MENTIONABLE,
    OPTION_NUMBER,
    OPTION_USER,
    InteractionFailed,
    Member,
    Stage,
)

STATIC = Path(__file__).resolve().parent / "static"
NAME_RE = re.compile(r"^[a-z0-9_.]{1,32}$")
PING_SECONDS = 15.0
ATTACHMENT = "attachment://"


class BadRequest(Exception):
    """The page asked for something that cannot be done; the message says what."""


class WebServer(Stage, Protocol):
    """What the page needs of the server (``server.LoopbackDiscord``)."""

    @property
    def guilds(self) -> list[Guild]: ...

    @property
    def channels(self) -> dict[int, Channel]: ...

    @property
    def messages(self) -> dict[int, Message]: ...

    @property
    def bot_identity(self) -> Identity: ...

    @property
    def interactions(self) -> dict[int, InteractionState]: ...

    @property
    def emojis(self) -> EmojiRoutes: ...

    @property
    def change_seq(self) -> int: ...

    @property
    def closing(self) -> bool: ...

    def next_change(self) -> int: ...

    async def wait_change(self, seconds: float) -> None: ...


class WebUI:
    def __init__(self, server: WebServer) -> None:
        self.server = server

    def add_routes(self, app: web.Application) -> None:
        app.router.add_get("/", self._index)
        app.router.add_get("/favicon.ico", self._favicon)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/ui/state", self._state)
        app.router.add_get("/ui/events", self._events)
        app.router.add_post("/ui/act", self._act)
        app.router.add_post("/ui/channels", self._new_channel)
        app.router.add_get("/files/{mid}/{name}", self._file)
        app.router.add_get("/emojis/{name}", self._emoji)

    # -- who and where -----------------------------------------------------------------
    @property
    def guild(self) -> Guild:
        assert self.server.guilds, "the loopback Discord has no guild"
        return self.server.guilds[0]

    def identity(self, name: str | None) -> Identity:
        name = (name or "").strip().lower()
        if not NAME_RE.match(name):
            raise BadRequest("a user name is 1 to 32 of a-z, 0-9, _ and .")
        if name == self.guild.owner.name:
            raise BadRequest(f"{name!r} is the guild's owner account; pick another name")
        self.guild.enrol(name)  # made on first use
        return self.guild.identities[name]

    def channel(self, raw: Any) -> Channel:
        try:
            channel = self.server.channels.get(int(raw))
        except (TypeError, ValueError):
            channel = None
        if channel is None or channel.deleted or channel.guild is not self.guild:
            raise BadRequest("no such channel")
        return channel

    def member(self, name: str | None, channel: Channel) -> Member:
        ident = self.identity(name)
        return Member(self.server, self.guild, ident, channel)

    def users(self) -> list[Identity]:
        return [i for i in self.guild.identities.values() if i.id != self.guild.owner.id]

    # -- what the page shows ---------------------------------------------------------------
    def meta(self, me: Identity) -> dict[str, Any]:
        guild = self.guild
        return {
            "guild": {"id": str(guild.id), "name": guild.name},
            "me": _user(me),
            "bot": {**_user(self.server.bot_identity), "online": self.server.bot_intents
                    is not None},
            "channels": self.channel_list(me),
            "users": [_user(i) for i in self.users()],
            "commands": [c for c in self.server.commands_for(guild) if c.get("type", 1) == 1],
        }

    def channel_list(self, me: Identity) -> list[dict[str, Any]]:
        """The text channels ``me`` can see, each followed by its live threads (archived
        ones too: a post brings them back), as Discord's channel list shows them."""
        guild = self.guild
        out: list[dict[str, Any]] = []
        for c in guild.channels:
            if not guild.permissions_in(me, c).view_channel:
                continue
            out.append({"id": str(c.id), "name": c.name})
            for t in c.threads:
                if isinstance(t, Channel) and not t.deleted \
                        and guild.permissions_in(me, t).view_channel:
                    out.append({"id": str(t.id), "name": t.name, "parent": str(c.id),
                                "archived": bool(getattr(t, "archived", False)),
                                "locked": bool(getattr(t, "locked", False))})
        return out

    def _meta_signature(self, me: Identity) -> str:
        return json.dumps(self.meta(me), sort_keys=True)

    def message_view(self, msg: Message, me: Identity) -> dict[str, Any]:
        data = msg.payload()
        data.pop("allowed_mentions", None)
        data["ephemeral"] = msg.ephemeral
        data["loading"] = msg.loading
        def url(name: str) -> str:
            return f"/files/{msg.id}/{quote(name)}?as={quote(me.name)}"

        # attachment://NAME in embeds and components becomes a URL the page can load, as
        # Discord gives its CDN's; a file shown there is not shown again beside them (nor is
        # any file of a Components V2 message, which shows only its components)
        referenced: set[str] = set()
        for key in ("embeds", "components"):
            if data.get(key):
                data[key] = _resolve_attachments(data[key], url, referenced)
        v2 = bool(int(data.get("flags") or 0) & IS_COMPONENTS_V2)
        data["attachments"] = [
            {**a, "url": url(str(a.get("filename", ""))),
             "content_type": mimetypes.guess_type(str(a.get("filename", "")))[0] or "",
             "inline": v2 or str(a.get("filename", "")) in referenced}
            for a in msg.attachments
        ]
        if data.get("components"):
            data["components"] = _string_ids(data["components"])
        meta = msg.interaction_metadata
        if meta is not None:
            state = self.server.interactions.get(int(meta["id"]))
            used = ""
            if state is not None and state.type == 2:
                used = state.label.split(": ", 1)[-1]
            data["used"] = {"user": _user_from_payload(meta["user"]), "command": used}
        return data

    # -- handlers ----------------------------------------------------------------------------
    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def _favicon(self, request: web.Request) -> web.StreamResponse:
        return web.Response(status=204)

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = STATIC / name
        if "/" in name or name.startswith(".") or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-cache"})

    async def _state(self, request: web.Request) -> web.StreamResponse:
        try:
            me = self.identity(request.query.get("as"))
        except BadRequest as exc:
            return web.json_response({"error": str(exc)}, status=400)
        return web.json_response(self.meta(me))

    async def _events(self, request: web.Request) -> web.StreamResponse:
        try:
            me = self.identity(request.query.get("as"))
            channel = self.channel(request.query.get("channel"))
        except BadRequest as exc:
            return web.json_response({"error": str(exc)}, status=400)
        resp = web.StreamResponse(headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        })
        await resp.prepare(request)
        sent: dict[int, int] = {}
        meta_sig = ""
        with contextlib.suppress(ConnectionError, asyncio.CancelledError, RuntimeError):
            while True:
                seq = self.server.change_seq
                out: list[str] = []
                sig = self._meta_signature(me)
                if sig != meta_sig:
                    meta_sig = sig
                    out.append(_event("meta", self.meta(me)))
                for msg in list(channel.all_messages):
                    # only public messages and this member's own ephemerals ever leave here
                    if msg.ephemeral_for not in (None, me.id):
                        continue
                    if msg.deleted:
                        if sent.get(msg.id, -1) != -1:
                            out.append(_event("delete", {"id": str(msg.id)}))
                            sent[msg.id] = -1
                        continue
                    if sent.get(msg.id) != msg.change_seq:
                        sent[msg.id] = msg.change_seq
                        out.append(_event("message", self.message_view(msg, me)))
                if channel.deleted:
                    out.append(_event("channel_deleted", {"id": str(channel.id)}))
                if out:
                    await resp.write("".join(out).encode())
                elif self.server.change_seq == seq:
                    await resp.write(b": ping\n\n")
                if channel.deleted or self.server.closing:
                    break
                if self.server.change_seq == seq:
                    await self.server.wait_change(PING_SECONDS)
        return resp

    async def _act(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise BadRequest("send a JSON object")
            channel = self.channel(body.get("channel"))
            member = self.member(body.get("as"), channel)
            return web.json_response(await self._do(member, body))
        except (BadRequest, json.JSONDecodeError) as exc:
            return web.json_response({"ok": False, "error": str(exc)}, status=400)
        except InteractionFailed as exc:
            first = str(exc).splitlines()[0] if str(exc) else ""
            return web.json_response(
                {"ok": False, "failed": True, "error": "This interaction failed", "detail": first})
        except AssertionError as exc:
            return web.json_response({"ok": False, "error": str(exc).splitlines()[0]})

    async def _do(self, member: Member, body: dict[str, Any]) -> dict[str, Any]:
        kind = body.get("kind")
        if kind == "slash":
            command = str(body.get("command") or "")
            options = self._options(member, command, body.get("options") or {})
            result = await member.slash(command, **options)
            return {"ok": True, "response": result.response_type,
                    "modal": result.modal is not None}
        if kind == "autocomplete":
            command = str(body.get("command") or "")
            option = str(body.get("option") or "")
            others = {k: v for k, v in (body.get("options") or {}).items()
                      if k != option and v not in ("", None)}
            typed = str(body.get("typed") or "")
            choices = await member.autocomplete(
                command, option, typed, **self._options(member, command, others))
            return {"ok": True, "choices": choices}
        if kind in ("click", "select"):
            msg = self._message(member, body.get("message"))
            custom_id = str(body.get("custom_id") or "")
            if kind == "click":
                result = await member.click(custom_id=custom_id, message=msg)
            else:
                values = [str(v) for v in body.get("values") or []]
                if not values:
                    raise BadRequest("pick at least one option")
                result = await member.select(*values, custom_id=custom_id, message=msg)
            return {"ok": True, "response": result.response_type,
                    "modal": result.modal is not None}
        raise BadRequest(f"unknown action {kind!r}")

    def _message(self, member: Member, raw: Any) -> Message:
        try:
            msg = self.server.messages.get(int(raw))
        except (TypeError, ValueError):
            msg = None
        if msg is None or msg.channel is not member.channel or msg.deleted:
            raise BadRequest("that message is gone")
        if msg.ephemeral_for not in (None, member.id):
            raise BadRequest("that message is not yours to use")
        return msg

    def _options(self, member: Member, command: str, raw: dict[str, Any]) -> dict[str, Any]:
        """The page sends every option as text; give each its declared type (an option with
        choices: the value of the choice typed, ``_choice``)."""
        _top, _path, leaf = member.find_command(command)
        declared = {o["name"]: o for o in leaf.get("options") or []}
        out: dict[str, Any] = {}
        for name, value in raw.items():
            opt = declared.get(name)
            if opt is None:
                raise BadRequest(f"/{command} has no option {name!r}")
            if value is None or value == "":
                continue
            out[name] = self._convert(opt, value, member.channel)
        return out

    def _convert(self, opt: dict[str, Any], value: Any, channel: Channel) -> Any:
        otype, name = opt["type"], opt["name"]
        text = str(value).strip()
        if opt.get("choices"):
            return _choice(name, opt["choices"], text)
        try:
            if otype == OPTION_INTEGER:
                return int(text)
            if otype == OPTION_NUMBER:
                return float(text)
        except ValueError:
            raise BadRequest(f"{name}: {text!r} is not a number") from None
        if otype == OPTION_BOOLEAN:
            if text.lower() not in ("true", "false"):
                raise BadRequest(f"{name}: pick True or False")
            return text.lower() == "true"
        if otype in (OPTION_USER, OPTION_MENTIONABLE):
            ident = self.guild.members_by_id.get(int(text)) if text.isdigit() else None
            ident = ident or self.guild.identities.get(text.lstrip("@").lower())
            if ident is None or ident.bot:
                raise BadRequest(f"{name}: no member {text!r}")
            return Member(self.server, self.guild, ident, channel)
        if otype == OPTION_CHANNEL:
            return self.channel(text)
        return text

    async def _new_channel(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            body = {}
        name = re.sub(r"[^a-z0-9_-]+", "-", str(body.get("name") or "").strip().lower())
        name = name.strip("-")[:90]
        if not name:
            return web.json_response({"error": "name the channel"}, status=400)
        if any(c.name == name for c in self.guild.channels):
            return web.json_response({"error": f"#{name} already exists"}, status=400)
        channel = self.guild.new_channel(name)
        self.server.next_change()
        return web.json_response({"id": str(channel.id), "name": channel.name})

    async def _file(self, request: web.Request) -> web.StreamResponse:
        try:
            me = self.identity(request.query.get("as"))
            msg = self.server.messages.get(int(request.match_info["mid"]))
        except (BadRequest, ValueError):
            raise web.HTTPNotFound() from None
        name = request.match_info["name"]
        if msg is None or msg.deleted or msg.ephemeral_for not in (None, me.id):
            raise web.HTTPNotFound()
        data = msg.files.get(name)
        if data is None:
            raise web.HTTPNotFound()
        ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        return web.Response(body=data, content_type=ctype)


    async def _emoji(self, request: web.Request) -> web.StreamResponse:
        """An application emoji's picture, as Discord's CDN serves /emojis/{id}.png."""
        eid = request.match_info["name"].partition(".")[0]
        for emojis in self.server.emojis.store.values():
            found = emojis.get(int(eid)) if eid.isdigit() else None
            if found is not None:
                data = found[1]
                gif = data.startswith(b"GIF8")
                return web.Response(body=data, content_type="image/gif" if gif else "image/png")
        raise web.HTTPNotFound()


def _folded(text: str) -> str:
    """``text`` as a person may type it: any case, accents or not ("francais")."""
    parts = unicodedata.normalize("NFKD", text.strip().casefold())
    return "".join(c for c in parts if not unicodedata.combining(c))


def _choice(name: str, choices: list[dict[str, Any]], text: str) -> Any:
    """The value of the choice typed in an option that has choices: Discord's clients only
    ever send a choice's value, picked from the list; the page's box takes its name typed in
    full too ("Français", "francais"), or its value ("fr"). Anything else is refused in
    words, naming the choices."""
    for key in ("name", "value"):
        for folding in (str.strip, _folded):
            found = [c for c in choices if folding(str(c[key])) == folding(text)]
            if len(found) == 1:
                return found[0]["value"]
    names = [str(c["name"]) for c in choices]
    listed = ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]
    raise BadRequest(f"{name}: “{text}” is not a choice here; pick {listed}.")


def _event(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


def _user(ident: Identity) -> dict[str, Any]:
    return {"id": str(ident.id), "name": ident.name,
            "display": ident.name if ident.bot else ident.name.capitalize(), "bot": ident.bot}


def _resolve_attachments(value: Any, url: Callable[[str], str], referenced: set[str]) -> Any:
    """A copy of embeds or components whose ``attachment://NAME`` URLs are ``url(NAME)``;
    the names met are added to ``referenced``."""
    if isinstance(value, list):
        return [_resolve_attachments(v, url, referenced) for v in value]
    if isinstance(value, dict):
        return {k: _resolve_attachments(v, url, referenced) for k, v in value.items()}
    if isinstance(value, str) and value.startswith(ATTACHMENT):
        name = value.removeprefix(ATTACHMENT)
        referenced.add(name)
        return url(name)
    return value


def _string_ids(value: Any) -> Any:
    """A copy of components whose emoji ids are strings, as Discord sends snowflakes
    (discord.py sends them as numbers, too big for JavaScript's)."""
    if isinstance(value, list):
        return [_string_ids(v) for v in value]
    if isinstance(value, dict):
        out = {k: _string_ids(v) for k, v in value.items()}
        emoji = out.get("emoji")
        if isinstance(emoji, dict) and emoji.get("id") is not None:
            out["emoji"] = {**emoji, "id": str(emoji["id"])}
        return out
    return value


def _user_from_payload(user: dict[str, Any]) -> dict[str, Any]:
    name = str(user.get("username", ""))
    return {"id": str(user.get("id", "")), "name": name,
            "display": user.get("global_name") or name, "bot": bool(user.get("bot"))}
