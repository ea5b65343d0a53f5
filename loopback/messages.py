"""The channel message routes of the loopback Discord, and the message store they share with
the interaction routes (``interactions.py``).

``GET /channels/{id}``, ``GET``/``POST /channels/{id}/messages``,
``GET``/``PATCH``/``DELETE /channels/{id}/messages/{mid}``, typing and the bot's reactions,
each checking the bot's permissions in the channel (``open_channel``: 404 10003 for an
unknown or deleted channel, 403 50001 without VIEW_CHANNEL, 403 50013 without what the call
needs) and Discord's message limits (``limits``: 400 50035, an empty message 400 50006). In a
thread the thread routes (:class:`ThreadChecks`, ``threads.ThreadRoutes``) have their say.
"""

from __future__ import annotations

from typing import Any, Protocol

from aiohttp import web

from . import installs
from .events import message_created
from .limits import IS_COMPONENTS_V2, check_message_limits, gallery_urls
from .models import LOADING, Channel, Identity, Message
from .rest import Request, RestServer, error_response, json_response, uploaded_files


class ThreadChecks(Protocol):
    """What the message routes ask of the thread routes (``threads.ThreadRoutes``)."""

    def needs_in(self, channel: Channel, needs: tuple[str, ...]) -> tuple[str, ...]:
        """The permissions ``needs`` stand for in ``channel`` (a thread has its own)."""
        ...

    def before_post(self, req: Request, channel: Channel) -> web.Response | None:
        """A refusal of a new message in ``channel``, or None."""
        ...

    def before_change(self, req: Request, channel: Channel) -> web.Response | None:
        """A refusal of an edit, a deletion or a reaction in ``channel``, or None."""
        ...


class MessageServer(RestServer, Protocol):
    """What the message routes need of the server (``server.LoopbackDiscord``)."""

    @property
    def application_id(self) -> int: ...

    @property
    def bot_identity(self) -> Identity: ...

    @property
    def channels(self) -> dict[int, Channel]: ...

    @property
    def messages(self) -> dict[int, Message]: ...

    @property
    def thread_routes(self) -> ThreadChecks: ...

    @property
    def edit_requires_send_messages(self) -> bool: ...

    @property
    def gallery_edit_bug(self) -> bool: ...

    def next_change(self) -> int: ...

    @property
    def bot_intents(self) -> int | None: ...

    def dispatch_soon(self, name: str, data: Any) -> None: ...


class MessageRoutes:
    """The channel message routes, registered on a LoopbackDiscord
    (``server.message_routes``), and the message store."""

    def __init__(self, server: MessageServer) -> None:
        self.server = server

    def register(self) -> None:
        r = self.server.route
        r("GET", "/channels/{cid}")(self._get_channel)
        r("GET", "/channels/{cid}/messages")(self._list_messages)
        r("POST", "/channels/{cid}/messages")(self._create_message)
        r("GET", "/channels/{cid}/messages/{mid}")(self._channel_message)
        r("PATCH", "/channels/{cid}/messages/{mid}")(self._channel_message)
        r("DELETE", "/channels/{cid}/messages/{mid}")(self._channel_message)
        r("POST", "/channels/{cid}/typing")(self._typing)
        r("PUT", "/channels/{cid}/messages/{mid}/reactions/{emoji}/@me")(self._reaction)
        r("DELETE", "/channels/{cid}/messages/{mid}/reactions/{emoji}/@me")(self._reaction)

    @staticmethod
    def _attachment_names(req: Request, data: dict[str, Any],
                          msg: Message | None = None) -> set[str]:
        """The file names the message will have once ``data`` is applied: the attachments
        it lists (an existing one by its id) and the files uploaded with it, or, when it
        lists none, those ``msg`` (the edited message) has now."""
        uploaded = uploaded_files(req)
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

    def limits(self, req: Request, data: dict[str, Any] | None,
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
            self.server.reject(req, "invalid_body", [text], 50006)
            return error_response(400, 50006, "Cannot send an empty message")
        issues = check_message_limits(data, self._attachment_names(req, data, msg))
        if (msg is not None and self.server.gallery_edit_bug
                and int(data["flags"]) & IS_COMPONENTS_V2
                and not any(c.get("type") == 12 for c in msg.walk_components())):
            # Discord's open bug (discord-api-docs issue 7529): an edit that brings a media
            # gallery into a message (one that had none), showing a file uploaded with the
            # edit, is refused
            uploaded = uploaded_files(req)
            issues += [f"{url}: unfurled media attachment not found (an edit cannot bring a "
                       "media gallery with a new file)" for url in gallery_urls(data)
                       if url.removeprefix("attachment://") in uploaded]
        if not issues:
            return None
        self.server.reject(req, "limits", issues, 50035)
        return error_response(
            400,
            50035,
            "Invalid Form Body",
            {"_errors": [{"code": "BASE_TYPE_INVALID", "message": t} for t in issues]},
        )

    def store(
        self,
        channel: Channel,
        data: dict[str, Any],
        *,
        ephemeral_for: int | None = None,
        msg_type: int = 0,
        interaction: dict[str, Any] | None = None,
        loading: bool = False,
    ) -> Message:
        """Keep a message of the bot (MESSAGE_CREATE unless ephemeral); ``interaction``:
        the ``interaction_metadata`` of the interaction it answers."""
        msg = Message(
            server=self.server,
            channel=channel,
            author=self.server.bot_identity.user_payload(),
            data=data,
            ephemeral_for=ephemeral_for,
            msg_type=msg_type,
            interaction=interaction,
            webhook_id=self.server.application_id if interaction is not None else None,
        )
        if loading:
            msg.flags |= LOADING
        self.server.messages[msg.id] = msg
        channel.all_messages.append(msg)
        guild = channel.guild
        message_created(self.server, msg, None if guild is None
                        else guild.bot_member.member_payload(with_user=False))
        return msg

    def user_message(self, channel: Channel, user: Identity, text: str) -> Message:
        """A person posts ``text`` in ``channel`` (MESSAGE_CREATE as Discord sends it to a
        bot with the GUILD_MESSAGES intent that can view the channel; without
        MESSAGE_CONTENT its content is empty unless it mentions the bot)."""
        msg = Message(server=self.server, channel=channel, author=user.user_payload(),
                      data={"content": text})
        self.server.messages[msg.id] = msg
        channel.all_messages.append(msg)
        message_created(self.server, msg, None if channel.guild is None
                        else user.member_payload(with_user=False))
        return msg

    @staticmethod
    def keep_files(msg: Message, req: Request) -> None:
        """Keep the bytes of files uploaded with ``req`` on the message (``Message.files``)."""
        files = uploaded_files(req)
        if files:
            msg.files.update(files)
            for a in msg.attachments:
                if a.get("filename") in files:
                    a["size"] = len(files[a["filename"]])
        kept = {a.get("filename") for a in msg.attachments}
        for name in [n for n in msg.files if n not in kept]:
            del msg.files[name]  # an edit that left the file out removed it

    def edit(self, msg: Message, data: dict[str, Any]) -> None:
        msg.apply(data)
        if not msg.ephemeral:
            self.server.dispatch_soon("MESSAGE_UPDATE", msg.payload())

    def delete(self, msg: Message) -> None:
        msg.deleted = True
        self.server.next_change()
        if not msg.ephemeral:
            payload: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel.id)}
            guild_id = msg.channel.guild_id
            if guild_id is not None:
                payload["guild_id"] = str(guild_id)
            self.server.dispatch_soon("MESSAGE_DELETE", payload)

    def channel(self, req: Request) -> Channel | None:
        try:
            channel = self.server.channels.get(int(req.params["cid"]))
        except ValueError:
            return None
        return None if channel is None or channel.deleted else channel

    def open_channel(
        self, req: Request, *needs: str
    ) -> tuple[Channel | None, web.Response | None]:
        """The channel of a /channels/{cid} route, or Discord's refusal: 404 10003 for an
        unknown or deleted channel, 403 50001 when the bot lacks VIEW_CHANNEL, 403 50013
        when it lacks one of ``needs`` (discord.Permissions flag names)."""
        channel = self.channel(req)
        if channel is None:
            return None, self.server.refuse(req, 404, 10003, "unknown_channel")
        if not installs.bot_is_member(channel, self.server.bot_identity):
            # a group DM it is not in, a server that did not add it (a user install only)
            return None, self.server.refuse(req, 403, 50001, "not_a_member", repr(channel))
        guild = channel.guild
        if guild is None:
            return channel, None
        perms = guild.permissions_in(guild.bot_member, channel)
        if not perms.view_channel:
            return None, self.server.refuse(req, 403, 50001, "missing_access", "view_channel")
        needs = self.server.thread_routes.needs_in(channel, needs)
        missing = [name for name in needs if not getattr(perms, name)]
        if missing:
            detail = ", ".join(missing)
            return None, self.server.refuse(req, 403, 50013, "missing_permissions", detail)
        return channel, None

    async def _get_channel(self, req: Request) -> web.StreamResponse:
        channel, refused = self.open_channel(req)
        if channel is None:
            assert refused is not None
            return refused
        return json_response(channel.payload())

    async def _list_messages(self, req: Request) -> web.StreamResponse:
        channel, refused = self.open_channel(req)
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
        channel, refused = self.open_channel(req, *needs)
        if channel is None:
            assert refused is not None
            return refused
        bad = self.limits(req, req.body)
        if bad:
            return bad
        has_any = any(body.get(k) for k in ("content", "embeds", "components", "attachments"))
        if not has_any and "sticker_ids" not in body and "poll" not in body:
            self.server.problem("invalid_body", "Cannot send an empty message", req, 50006)
            return error_response(400, 50006, "Cannot send an empty message")
        refused = self.server.thread_routes.before_post(req, channel)
        if refused is not None:
            return refused
        channel.record_write()
        msg = self.store(channel, body)
        self.keep_files(msg, req)
        return json_response(msg.payload())

    async def _channel_message(self, req: Request) -> web.StreamResponse:
        needs: list[str] = []
        if req.method == "GET":
            needs.append("read_message_history")
        elif req.method == "PATCH" and self.server.edit_requires_send_messages:
            needs.append("send_messages")
        if req.method == "PATCH" and uploaded_files(req):
            needs.append("attach_files")  # an edit that uploads a file, as a post does
        channel, refused = self.open_channel(req, *needs)
        if channel is None:
            assert refused is not None
            return refused
        msg = self.server.messages.get(int(req.params["mid"]))
        if msg is None or msg.channel is not channel or msg.deleted or msg.ephemeral:
            return error_response(404, 10008, "Unknown Message")
        if req.method == "GET":
            return json_response(msg.payload())
        refused = self.server.thread_routes.before_change(req, channel)
        if refused is not None:
            return refused
        own = msg.author.get("id") == str(self.server.bot_identity.id)
        if req.method == "DELETE":
            if not own:
                channel, refused = self.open_channel(req, "manage_messages")
                if channel is None:
                    assert refused is not None
                    return refused
            self.delete(msg)
            return web.Response(status=204)
        if not own:
            self.server.problem("forbidden", "editing a message authored by another user", req,
                                50005)
            return error_response(403, 50005, "Cannot edit a message authored by another user")
        bad = self.limits(req, req.body, msg)
        if bad:
            return bad
        channel.record_write()
        self.edit(msg, req.body or {})
        self.keep_files(msg, req)
        return json_response(msg.payload())

    async def _typing(self, req: Request) -> web.StreamResponse:
        _, refused = self.open_channel(req, "send_messages")
        return refused or web.Response(status=204)

    async def _reaction(self, req: Request) -> web.StreamResponse:
        needs = ["read_message_history"] + (["add_reactions"] if req.method == "PUT" else [])
        channel, refused = self.open_channel(req, *needs)
        if channel is not None:
            refused = self.server.thread_routes.before_change(req, channel)
        return refused or web.Response(status=204)
