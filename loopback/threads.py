"""Threads in the loopback Discord: the thread channel, its REST routes, its test API.

A thread is a :class:`Thread` (a ``Channel`` with a parent): it shares its parent's
permission overwrites (threads inherit them, as on Discord), lives in ``server.channels``
so that every ``/channels/{id}/...`` route works on it, and is listed in
``guild.threads`` and ``parent.threads`` (not in ``guild.channels``).

What Discord documents and this models: creating (``POST /channels/{id}/threads``,
``POST /channels/{id}/messages/{mid}/threads``), posting (SEND_MESSAGES_IN_THREADS instead
of SEND_MESSAGES; a post in an archived, unlocked thread unarchives it; a locked thread
refuses whoever lacks MANAGE_THREADS with 403 code 50083), changing it (``PATCH``),
deleting it (``DELETE``), its members (``/thread-members``), and the gateway events
THREAD_CREATE / THREAD_UPDATE / THREAD_DELETE / THREAD_MEMBERS_UPDATE.
"""

from __future__ import annotations

from typing import Any, Protocol

import discord
from aiohttp import web

from .messages import MessageRoutes
from .models import Channel, Guild, Hub, Identity, Message, Overwrite, OverwriteTarget, iso_now
from .rest import Request, RestServer, json_response

ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD = 10, 11, 12
THREAD_TYPES = (ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD)
ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
DEFAULT_ARCHIVE_DURATION = 1440
HAS_THREAD = 1 << 5  # message flag: a thread was started from this message
THREAD_CREATED = 18  # message type: "X started a thread" in the parent channel
INTENT_GUILD_MEMBERS = 1 << 1
MEMBER_COUNT_CAP = 50  # Discord's member_count stops at 50


class ThreadHub(Hub, Protocol):
    """What starting a thread needs of the server (``server.LoopbackDiscord``)."""

    @property
    def messages(self) -> dict[int, Message]: ...


class ThreadServer(RestServer, ThreadHub, Protocol):
    """What the thread routes need of the server: the channel lookups of the message
    routes besides."""

    @property
    def message_routes(self) -> MessageRoutes: ...


class Thread(Channel):
    """A thread under a guild text channel (type 11 public, 12 private)."""

    def __init__(
        self,
        server: Hub,
        parent: Channel,
        name: str,
        *,
        owner: Identity,
        thread_type: int = PUBLIC_THREAD,
        auto_archive_duration: int = DEFAULT_ARCHIVE_DURATION,
        rate_limit_per_user: int = 0,
        invitable: bool = True,
        thread_id: int | None = None,
    ) -> None:
        assert parent.guild is not None, "threads live in guild channels"
        assert thread_type in THREAD_TYPES, f"thread type {thread_type}"
        assert auto_archive_duration in ARCHIVE_DURATIONS, auto_archive_duration
        super().__init__(server, parent.guild, name, channel_type=thread_type)
        if thread_id is not None:
            self.id = thread_id
        self.parent: Channel = parent
        # threads have no overwrites of their own: the parent's apply (the same dict)
        self.overwrites = parent.overwrites
        self.owner_id = owner.id
        self.archived = False
        self.locked = False
        self.invitable = invitable
        self.auto_archive_duration = auto_archive_duration
        self.rate_limit_per_user = rate_limit_per_user
        self.create_timestamp = iso_now()
        self.archive_timestamp = self.create_timestamp
        self.starter_message: Message | None = None
        self.members: dict[int, str] = {}
        """Thread members: user id -> join timestamp."""

    @property
    def guild_(self) -> Guild:
        assert self.guild is not None
        return self.guild

    @property
    def private(self) -> bool:
        return self.type == PRIVATE_THREAD

    # -- payloads ------------------------------------------------------------------------
    def metadata(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "archived": self.archived,
            "auto_archive_duration": self.auto_archive_duration,
            "archive_timestamp": self.archive_timestamp,
            "locked": self.locked,
            "create_timestamp": self.create_timestamp,
        }
        if self.private:
            data["invitable"] = self.invitable
        return data

    def payload(self) -> dict[str, Any]:
        public = [m for m in self.all_messages if not m.ephemeral]
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_.id),
            "parent_id": str(self.parent.id),
            "owner_id": str(self.owner_id),
            "name": self.name,
            "last_message_id": str(public[-1].id) if public else None,
            "rate_limit_per_user": self.rate_limit_per_user,
            "flags": 0,
            "message_count": len([m for m in public if not m.deleted]),
            "member_count": min(len(self.members), MEMBER_COUNT_CAP),
            "total_message_sent": len(public),
            "thread_metadata": self.metadata(),
        }

    def member_payload(self, user_id: int, *, with_member: bool = False) -> dict[str, Any]:
        """A thread member object (with the guild member, as THREAD_MEMBERS_UPDATE has it)."""
        data: dict[str, Any] = {
            "id": str(self.id),
            "user_id": str(user_id),
            "join_timestamp": self.members[user_id],
            "flags": 0,
        }
        if with_member:
            ident = self.guild_.members_by_id.get(user_id)
            if ident is not None:
                data["member"] = ident.member_payload()
                data["presence"] = None
        return data

    def payload_for_bot(self) -> dict[str, Any]:
        """The thread as the bot is told about it: with its thread member when it joined."""
        data = self.payload()
        bot_id = self.server.bot_identity.id
        if bot_id in self.members:
            data["member"] = self.member_payload(bot_id)
        return data

    def delete_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "guild_id": str(self.guild_.id),
            "parent_id": str(self.parent.id),
            "type": self.type,
        }

    # -- visibility ------------------------------------------------------------------------
    def restrict(self, ident: Identity, perms: discord.Permissions) -> discord.Permissions:
        """``ident``'s permissions in the parent, narrowed to this thread: a private thread
        is seen only by its members and those with MANAGE_THREADS."""
        if (
            self.private
            and ident.id not in self.members
            and not perms.manage_threads
            and not perms.administrator
        ):
            perms = discord.Permissions(perms.value & ~discord.Permissions(view_channel=True).value)
        return perms

    def bot_can_view(self) -> bool:
        guild = self.guild_
        return bool(guild.permissions_in(guild.bot_member, self).view_channel)

    def discard(self, *, announce: bool = True) -> None:
        """Mark the thread deleted; THREAD_DELETE (id, guild_id, parent_id, type) unless
        the whole parent went (then CHANNEL_DELETE is enough for the bot, as on Discord)."""
        assert not self.deleted, f"{self!r} is already deleted"
        visible = self.bot_can_view()
        self.deleted = True
        if self in self.guild_.threads:
            self.guild_.threads.remove(self)
        if self in self.parent.threads:
            self.parent.threads.remove(self)
        self.server.next_change()
        if announce and visible:
            self.server.dispatch_soon("THREAD_DELETE", self.delete_payload())

    # -- overwrites: none of its own ----------------------------------------------------
    def overwrite(self, target: OverwriteTarget, **permissions: bool | None) -> Overwrite | None:
        raise AssertionError(
            f"{self!r} has no permission overwrites: threads take the parent's "
            f"(set them on {self.parent!r})"
        )

    def clear_overwrites(self, target: OverwriteTarget | None = None) -> None:
        raise AssertionError(f"{self!r} has no permission overwrites (see its parent)")

    # -- test API: what Discord or a moderator does to the thread ----------------------------
    def updated(self) -> None:
        """Announce the thread's current state to the bot (THREAD_UPDATE)."""
        if not self.deleted:
            self.server.next_change()
            if self.bot_can_view():
                self.server.dispatch_soon("THREAD_UPDATE", self.payload_for_bot())

    def _set_archived(self, archived: bool) -> None:
        if self.archived != archived:
            self.archived = archived
            self.archive_timestamp = iso_now()

    def archive(self) -> None:
        """Archive the thread as Discord does after ``auto_archive_duration`` minutes
        without activity (THREAD_UPDATE archived=true)."""
        assert not self.deleted, f"{self!r} was deleted"
        self._set_archived(True)
        self.updated()

    def unarchive(self) -> None:
        """Reopen the thread (THREAD_UPDATE archived=false)."""
        assert not self.deleted, f"{self!r} was deleted"
        self._set_archived(False)
        self.updated()

    def lock(self, *, archived: bool = True) -> None:
        """Lock the thread as a moderator does (locked=true, and archived by default):
        only members with MANAGE_THREADS may post or unarchive it. THREAD_UPDATE."""
        assert not self.deleted, f"{self!r} was deleted"
        self.locked = True
        if archived:
            self._set_archived(True)
        self.updated()

    def unlock(self) -> None:
        """Unlock the thread (it stays archived if it was). THREAD_UPDATE."""
        assert not self.deleted, f"{self!r} was deleted"
        self.locked = False
        self.updated()

    async def delete(self) -> None:
        """Delete the thread (THREAD_DELETE); calls on it then answer 404 code 10003."""
        self.discard()

    def add_member(self, who: Identity | Any) -> None:
        """Add a member (a users.Member or an Identity) to the thread
        (THREAD_MEMBERS_UPDATE, sent to a bot with the GUILD_MEMBERS intent)."""
        ident = who if isinstance(who, Identity) else who.identity
        add_thread_member(self, ident)

    def remove_member(self, who: Identity | Any) -> None:
        ident = who if isinstance(who, Identity) else who.identity
        remove_thread_member(self, ident)

    def before_member_acts(self, ident: Identity, what: str) -> None:
        """A member acting here: a locked thread needs MANAGE_THREADS; an archived one is
        reopened by the member's activity, as their post would."""
        if self.locked:
            perms = self.guild_.permissions_in(ident, self)
            assert perms.manage_threads, (
                f"{ident.name} cannot {what}: {self!r} is locked (needs MANAGE_THREADS)"
            )
        if self.archived:
            self.unarchive()

    def __repr__(self) -> str:
        state = " archived" if self.archived else ""
        state += " locked" if self.locked else ""
        return f"<Thread #{self.name} {self.id} in #{self.parent.name}{state}>"


# -- thread life cycle (used by the routes and the test API) ---------------------------------
def open_thread(
    server: ThreadHub,
    parent: Channel,
    name: str,
    *,
    owner: Identity,
    thread_type: int = PUBLIC_THREAD,
    auto_archive_duration: int | None = None,
    rate_limit_per_user: int | None = None,
    invitable: bool | None = None,
    message: Message | None = None,
) -> Thread:
    """Create a thread in ``parent`` (from ``message`` when given): THREAD_CREATE with
    ``newly_created`` and THREAD_MEMBERS_UPDATE for the creator; a public thread without a
    starter message leaves a THREAD_CREATED (type 18) message in the parent."""
    guild = parent.guild
    assert guild is not None
    thread = Thread(
        server,
        parent,
        name,
        owner=owner,
        thread_type=thread_type,
        auto_archive_duration=auto_archive_duration or DEFAULT_ARCHIVE_DURATION,
        rate_limit_per_user=rate_limit_per_user or 0,
        invitable=True if invitable is None else invitable,
        thread_id=message.id if message is not None else None,
    )
    thread.members[owner.id] = iso_now()
    parent.threads.append(thread)
    guild.threads.append(thread)
    server.channels[thread.id] = thread
    if message is not None:
        thread.starter_message = message
        message.thread = thread
        message.flags |= HAS_THREAD
    server.next_change()
    if thread.bot_can_view():
        server.dispatch_soon("THREAD_CREATE", {**thread.payload(), "newly_created": True})
        _members_update(server, thread, added=[owner.id])
    if message is None and thread_type == PUBLIC_THREAD:
        notice = Message(
            server=server,
            channel=parent,
            author=owner.user_payload(),
            data={"content": name},
            msg_type=THREAD_CREATED,
        )
        notice.message_reference = {
            "type": 0,
            "channel_id": str(thread.id),
            "guild_id": str(guild.id),
        }
        server.messages[notice.id] = notice
        parent.all_messages.append(notice)
        event = notice.payload()
        event["member"] = owner.member_payload(with_user=False)
        server.dispatch_soon("MESSAGE_CREATE", event)
    return thread


def _members_update(
    server: Hub,
    thread: Thread,
    *,
    added: list[int] = (),  # type: ignore[assignment]
    removed: list[int] = (),  # type: ignore[assignment]
) -> None:
    """THREAD_MEMBERS_UPDATE: always when the bot is concerned, else only to a bot with the
    GUILD_MEMBERS intent (as Discord documents)."""
    intents = server.bot_intents
    if intents is None or not thread.bot_can_view():
        return
    bot_id = server.bot_identity.id
    if bot_id not in (*added, *removed) and not intents & INTENT_GUILD_MEMBERS:
        return
    data: dict[str, Any] = {
        "id": str(thread.id),
        "guild_id": str(thread.guild_.id),
        "member_count": min(len(thread.members), MEMBER_COUNT_CAP),
    }
    if added:
        data["added_members"] = [thread.member_payload(uid, with_member=True) for uid in added]
    if removed:
        data["removed_member_ids"] = [str(uid) for uid in removed]
    server.dispatch_soon("THREAD_MEMBERS_UPDATE", data)


def add_thread_member(thread: Thread, ident: Identity) -> None:
    if ident.id in thread.members:
        return
    thread.members[ident.id] = iso_now()
    thread.server.next_change()
    if ident.id == thread.server.bot_identity.id and thread.bot_can_view():
        # Discord: joining fires THREAD_CREATE (with the member) and THREAD_MEMBERS_UPDATE
        thread.server.dispatch_soon("THREAD_CREATE", thread.payload_for_bot())
    _members_update(thread.server, thread, added=[ident.id])


def remove_thread_member(thread: Thread, ident: Identity) -> None:
    if thread.members.pop(ident.id, None) is None:
        return
    thread.server.next_change()
    _members_update(thread.server, thread, removed=[ident.id])


# -- REST ------------------------------------------------------------------------------------
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
            thread._set_archived(bool(body["archived"]))
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
