"""The thread routes of the loopback Discord (threads themselves: ``threads.py``).

``POST /channels/{id}/threads``, ``POST /channels/{id}/messages/{mid}/threads``,
``PATCH``/``DELETE /channels/{id}``, ``/channels/{id}/thread-members[/{user}]``, and the checks
the message and interaction routes make when their channel is a thread (``needs_in``,
``before_post``, ``before_change``: ``messages.ThreadChecks``).
"""

from __future__ import annotations

from typing import Protocol

import discord
from aiohttp import web

from .messages import MessageRoutes
from .models import Channel, Identity, Message
from .rest import Request, RestServer, json_response
from .threads import (
    ANNOUNCEMENT_THREAD,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    Thread,
    ThreadHub,
    add_thread_member,
    open_thread,
    remove_thread_member,
)


class ThreadServer(RestServer, ThreadHub, Protocol):
    """What the thread routes need of the server: the channel lookups of the message
    routes besides."""

    @property
    def message_routes(self) -> MessageRoutes: ...


class ThreadRoutes:
    """The thread routes, registered on a LoopbackDiscord, and the checks the message
    routes make when their channel is a thread."""

    def __init__(self, server: ThreadServer) -> None:
        self.server = server

    def register(self) -> None:
        r = self.server.route
        r("POST", "/channels/{cid}/threads")(self._start_without_message)
        r("POST", "/channels/{cid}/messages/{mid}/threads")(self._start_from_message)
        r("PATCH", "/channels/{cid}")(self._modify_channel)
        r("DELETE", "/channels/{cid}")(self._delete_channel)
        r("GET", "/channels/{cid}/thread-members")(self._list_members)
        r("GET", "/channels/{cid}/thread-members/{uid}")(self._get_member)
        r("PUT", "/channels/{cid}/thread-members/@me")(self._join)
        r("DELETE", "/channels/{cid}/thread-members/@me")(self._leave)
        r("PUT", "/channels/{cid}/thread-members/{uid}")(self._add_member)
        r("DELETE", "/channels/{cid}/thread-members/{uid}")(self._remove_member)

    # -- hooks for the message routes -------------------------------------------------------
    @staticmethod
    def needs_in(channel: Channel, needs: tuple[str, ...]) -> tuple[str, ...]:
        """In a thread, posting needs SEND_MESSAGES_IN_THREADS instead of SEND_MESSAGES."""
        if not isinstance(channel, Thread):
            return needs
        return tuple("send_messages_in_threads" if n == "send_messages" else n for n in needs)

    def before_post(self, req: Request, channel: Channel) -> web.Response | None:
        """A new message (REST post, interaction response or followup) in ``channel``:
        a locked thread refuses a bot without MANAGE_THREADS (403 50083); an archived one
        is unarchived by the post (THREAD_UPDATE)."""
        if not isinstance(channel, Thread):
            return None
        if channel.locked and not self._bot_perms(channel).manage_threads:
            detail = f"#{channel.name} is locked (needs manage_threads)"
            return self.server.refuse(req, 403, 50083, "thread_locked", detail)
        if channel.archived:
            channel.unarchive()
        return None

    def before_change(self, req: Request, channel: Channel) -> web.Response | None:
        """Editing, deleting or reacting to a message of an archived thread: 400 50083."""
        if isinstance(channel, Thread) and channel.archived:
            return self.server.refuse(
                req, 400, 50083, "thread_archived", f"#{channel.name} is archived"
            )
        return None

    # -- helpers ---------------------------------------------------------------------------
    def _bot_perms(self, channel: Channel) -> discord.Permissions:
        guild = channel.guild
        assert guild is not None
        return guild.permissions_in(guild.bot_member, channel)

    def _thread(self, req: Request) -> tuple[Thread | None, web.Response | None]:
        channel, refused = self.server.message_routes.open_channel(req)
        if channel is None:
            return None, refused
        if not isinstance(channel, Thread):
            return None, self.server.refuse(req, 400, 50024, "wrong_channel_type", repr(channel))
        return channel, None

    def _start(
        self, req: Request, parent: Channel, thread_type: int, message: Message | None
    ) -> web.StreamResponse:
        server = self.server
        body = req.body or {}
        if isinstance(parent, Thread) or parent.guild is None or parent.type != 0:
            return server.refuse(req, 400, 50024, "wrong_channel_type", repr(parent))
        if thread_type == ANNOUNCEMENT_THREAD:  # only in announcement channels
            return server.refuse(req, 400, 50024, "wrong_channel_type", "type 10 in a text channel")
        perms = self._bot_perms(parent)
        private = thread_type == PRIVATE_THREAD
        need = "create_private_threads" if private else "create_public_threads"
        if not getattr(perms, need):
            return server.refuse(req, 403, 50013, "missing_permissions", need)
        thread = open_thread(
            server,
            parent,
            str(body["name"]),
            owner=parent.guild.bot_member,
            thread_type=thread_type,
            auto_archive_duration=body.get("auto_archive_duration"),
            rate_limit_per_user=body.get("rate_limit_per_user"),
            invitable=body.get("invitable"),
            message=message,
        )
        return json_response(thread.payload_for_bot(), 201)

    # -- routes ------------------------------------------------------------------------------
    async def _start_without_message(self, req: Request) -> web.StreamResponse:
        parent, refused = self.server.message_routes.open_channel(req)
        if parent is None:
            assert refused is not None
            return refused
        body = req.body or {}
        # `type` is optional today; Discord's default for this route is a private thread
        thread_type = int(body.get("type") or PRIVATE_THREAD)
        return self._start(req, parent, thread_type, None)

    async def _start_from_message(self, req: Request) -> web.StreamResponse:
        parent, refused = self.server.message_routes.open_channel(req)
        if parent is None:
            assert refused is not None
            return refused
        try:
            msg = self.server.messages.get(int(req.params["mid"]))
        except ValueError:
            msg = None
        if msg is None or msg.channel is not parent or msg.deleted or msg.ephemeral:
            return self.server.refuse(req, 404, 10008, "unknown_message")
        if msg.thread is not None:
            return self.server.refuse(req, 400, 160004, "thread_exists", repr(msg.thread))
        return self._start(req, parent, PUBLIC_THREAD, msg)

    async def _modify_channel(self, req: Request) -> web.StreamResponse:
        channel, refused = self.server.message_routes.open_channel(req)
        if channel is None:
            assert refused is not None
            return refused
        if not isinstance(channel, Thread):
            self.server.problem(
                "not_modeled", "PATCH of a channel that is not a thread is not modeled", req
            )
            return json_response({"message": "not modeled by the loopback", "code": 0}, 400)
        return self._modify_thread(req, channel)

    def _modify_thread(self, req: Request, thread: Thread) -> web.StreamResponse:
        """Discord: MANAGE_THREADS for everything, except that the thread's owner may
        rename it, change its auto-archive duration and archive it, and anyone who may send
        messages may unarchive an unlocked thread. An archived thread takes no change unless
        the request unarchives it (400 50083)."""
        server = self.server
        body = {k: v for k, v in (req.body or {}).items() if v is not None}
        perms = self._bot_perms(thread)
        manage = perms.manage_threads
        owner = thread.owner_id == server.bot_identity.id
        unarchiving = body.get("archived") is False
        if thread.archived and not unarchiving:
            return server.refuse(req, 400, 50083, "thread_archived", f"#{thread.name} is archived")
        missing: list[str] = []
        for key in body:
            if key in ("name", "auto_archive_duration"):
                ok = manage or owner
            elif key == "archived":
                if body["archived"]:
                    ok = manage or owner
                else:
                    locked = body.get("locked", thread.locked)
                    ok = manage or (not locked and (owner or perms.send_messages))
            else:  # locked, invitable, rate_limit_per_user, flags, applied_tags
                ok = manage
            if not ok:
                missing.append(key)
        if missing:
            detail = "manage_threads (for " + ", ".join(missing) + ")"
            return server.refuse(req, 403, 50013, "missing_permissions", detail)
        if "name" in body:
            thread.name = str(body["name"])
        if "auto_archive_duration" in body:
            thread.auto_archive_duration = int(body["auto_archive_duration"])
        if "rate_limit_per_user" in body:
            thread.rate_limit_per_user = int(body["rate_limit_per_user"])
        if "invitable" in body:
            thread.invitable = bool(body["invitable"])
        if "locked" in body:
            thread.locked = bool(body["locked"])
        if "archived" in body:
            thread.set_archived(bool(body["archived"]))
        thread.updated()
        return json_response(thread.payload_for_bot())

    async def _delete_channel(self, req: Request) -> web.StreamResponse:
        server = self.server
        channel, refused = server.message_routes.open_channel(req)
        if channel is None:
            assert refused is not None
            return refused
        perms = self._bot_perms(channel) if channel.guild is not None else None
        if isinstance(channel, Thread):
            assert perms is not None
            if not perms.manage_threads:
                return server.refuse(req, 403, 50013, "missing_permissions", "manage_threads")
            payload = channel.payload()
            channel.discard()
            return json_response(payload)
        if channel.guild is None:
            server.problem("not_modeled", "closing a DM channel is not modeled", req)
            return json_response({"message": "not modeled by the loopback", "code": 0}, 400)
        assert perms is not None
        if not perms.manage_channels:
            return server.refuse(req, 403, 50013, "missing_permissions", "manage_channels")
        payload = channel.payload()
        channel.guild.delete_channel(channel)
        return json_response(payload)

    async def _list_members(self, req: Request) -> web.StreamResponse:
        thread, refused = self._thread(req)
        if thread is None:
            assert refused is not None
            return refused
        with_member = req.query.get("with_member") in ("true", "True", "1")
        return json_response(
            [thread.member_payload(u, with_member=with_member) for u in thread.members]
        )

    async def _get_member(self, req: Request) -> web.StreamResponse:
        thread, refused = self._thread(req)
        if thread is None:
            assert refused is not None
            return refused
        try:
            uid = int(req.params["uid"])
        except ValueError:
            uid = -1
        if uid not in thread.members:
            return self.server.refuse(req, 404, 10007, "unknown_member")
        with_member = req.query.get("with_member") in ("true", "True", "1")
        return json_response(thread.member_payload(uid, with_member=with_member))

    def _member_change(
        self, req: Request, *, user: Identity | None, join: bool
    ) -> web.StreamResponse:
        thread, refused = self._thread(req)
        if thread is None:
            assert refused is not None
            return refused
        if thread.archived:
            return self.server.refuse(req, 400, 50083, "thread_archived", f"#{thread.name}")
        bot = thread.guild_.bot_member
        perms = self._bot_perms(thread)
        if user is None:  # the user id names nobody in the guild
            return self.server.refuse(req, 404, 10013, "unknown_user")
        if user.id != bot.id:
            # adding needs the right to post in the thread; removing needs MANAGE_THREADS
            # (or owning the private thread)
            if join:
                ok, need = perms.send_messages_in_threads, "send_messages_in_threads"
            else:
                ok = perms.manage_threads or (thread.private and thread.owner_id == bot.id)
                need = "manage_threads"
            if not ok:
                return self.server.refuse(req, 403, 50013, "missing_permissions", need)
        if join:
            add_thread_member(thread, user)
        else:
            remove_thread_member(thread, user)
        return web.Response(status=204)

    async def _join(self, req: Request) -> web.StreamResponse:
        return self._member_change(req, user=self._bot(req), join=True)

    async def _leave(self, req: Request) -> web.StreamResponse:
        return self._member_change(req, user=self._bot(req), join=False)

    def _bot(self, req: Request) -> Identity | None:
        channel = self.server.message_routes.channel(req)
        return channel.guild.bot_member if channel is not None and channel.guild else None

    def _user(self, req: Request) -> Identity | None:
        channel = self.server.message_routes.channel(req)
        if channel is None or channel.guild is None:
            return None
        try:
            return channel.guild.members_by_id.get(int(req.params["uid"]))
        except ValueError:
            return None

    async def _add_member(self, req: Request) -> web.StreamResponse:
        return self._member_change(req, user=self._user(req), join=True)

    async def _remove_member(self, req: Request) -> web.StreamResponse:
        return self._member_change(req, user=self._user(req), join=False)
