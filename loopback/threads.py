"""Threads in the loopback Discord: the thread channel, its REST routes, its test API.

A thread is a :class:`Thread` (a ``Channel`` with a parent): it shares its parent's
permission overwrites (threads inherit them, as on Discord), lives in ``server.channels``
so that every ``/channels/{id}/...`` route works on it, and is listed in
``guild.threads`` and ``parent.threads`` (not in ``guild.channels``).

Its REST routes are in ``thread_routes.py``. What Discord documents and this models:
creating (``POST /channels/{id}/threads``,
``POST /channels/{id}/messages/{mid}/threads``), posting (SEND_MESSAGES_IN_THREADS instead
of SEND_MESSAGES; a post in an archived, unlocked thread unarchives it; a locked thread
refuses whoever lacks MANAGE_THREADS with 403 code 50083), changing it (``PATCH``),
deleting it (``DELETE``), its members (``/thread-members``), and the gateway events
THREAD_CREATE / THREAD_UPDATE / THREAD_DELETE / THREAD_MEMBERS_UPDATE.
"""

from __future__ import annotations

from typing import Any, Protocol

import discord

from .events import message_created
from .models import (
    Channel,
    Guild,
    Hub,
    Identity,
    Message,
    Overwrite,
    OverwriteTarget,
    iso_now,
)

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

    def set_archived(self, archived: bool) -> None:
        if self.archived != archived:
            self.archived = archived
            self.archive_timestamp = iso_now()

    def archive(self) -> None:
        """Archive the thread as Discord does after ``auto_archive_duration`` minutes
        without activity (THREAD_UPDATE archived=true)."""
        assert not self.deleted, f"{self!r} was deleted"
        self.set_archived(True)
        self.updated()

    def unarchive(self) -> None:
        """Reopen the thread (THREAD_UPDATE archived=false)."""
        assert not self.deleted, f"{self!r} was deleted"
        self.set_archived(False)
        self.updated()

    def lock(self, *, archived: bool = True) -> None:
        """Lock the thread as a moderator does (locked=true, and archived by default):
        only members with MANAGE_THREADS may post or unarchive it. THREAD_UPDATE."""
        assert not self.deleted, f"{self!r} was deleted"
        self.locked = True
        if archived:
            self.set_archived(True)
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
        message_created(server, notice, owner.member_payload(with_user=False))
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
