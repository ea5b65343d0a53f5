"""Guilds, channels and messages as the loopback Discord stores them.

They live below the server: what they need of it is :class:`Hub` (the server,
``server.LoopbackDiscord``, is one), what the guild lists of a thread is :class:`ThreadLike`
(``threads.Thread``), and what ``Guild.member`` hands out is a :class:`Person`
(``users.Member``, made by the hub). The plain records (``Identity``, ``Role``...) are in
``records.py`` and can be imported from here too.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol, TypeAlias

import discord

from . import installs
from .installs import GROUP_DM_CHANNEL as GROUP_DM
from .records import BOT_PERMISSIONS as BOT_PERMISSIONS
from .records import DM_APP_PERMISSIONS as DM_APP_PERMISSIONS
from .records import EPHEMERAL as EPHEMERAL
from .records import EVERYONE_PERMISSIONS as EVERYONE_PERMISSIONS
from .records import IS_COMPONENTS_V2 as IS_COMPONENTS_V2
from .records import LOADING as LOADING
from .records import OVERWRITE_MEMBER, OVERWRITE_ROLE
from .records import Identity as Identity
from .records import Message as Message
from .records import Overwrite as Overwrite
from .records import Problem as Problem
from .records import Refusal as Refusal
from .records import Role as Role
from .records import iso_now as iso_now
from .records import permission_bits as permission_bits
from .records import snowflake as snowflake
from .records import snowflake_from as snowflake_from


class Person(Protocol):
    """A guild member acting in a channel, as ``Guild.member`` hands it out
    (``users.Member``)."""

    @property
    def identity(self) -> Identity: ...

    def at(self, channel: Channel) -> Person: ...


# what a channel overwrite can name: a member, a role, the guild (@everyone), "bot"
OverwriteTarget: TypeAlias = "Person | Identity | Role | Guild | str"


class Hub(Protocol):
    """What guilds, channels and messages need of the server that keeps them."""

    @property
    def application_id(self) -> int: ...

    @property
    def bot_identity(self) -> Identity: ...

    @property
    def channels(self) -> dict[int, Channel]: ...

    @property
    def change_seq(self) -> int: ...

    @property
    def bot_intents(self) -> int | None:
        """The gateway intents of the connected bot (None: no bot connected)."""
        ...

    def next_change(self) -> int:
        """Count a change (of a message, a channel...) and wake whoever waits for one."""
        ...

    async def wait_change(self, seconds: float) -> None: ...

    def dispatch_soon(self, name: str, data: Any) -> None:
        """Send a gateway event to the connected bot (none: nothing happens)."""
        ...

    def member(self, guild: Guild, identity: Identity, channel: Channel) -> Person:
        """``identity`` acting in ``channel`` (a ``users.Member``)."""
        ...

    def start_thread(
        self,
        parent: Channel,
        name: str,
        *,
        owner: Identity,
        private: bool,
        auto_archive_duration: int,
        message: Message | None,
    ) -> ThreadLike:
        """A thread in ``parent`` (a ``threads.Thread``), as ``owner`` starts it."""
        ...


class ThreadLike(Protocol):
    """A thread as its guild and channel list it (``threads.Thread``)."""

    name: str
    deleted: bool
    archived: bool

    def payload_for_bot(self) -> dict[str, Any]: ...

    def bot_can_view(self) -> bool: ...

    def discard(self, *, announce: bool = True) -> None:
        """Mark the thread deleted (THREAD_DELETE when ``announce``)."""
        ...


class Channel:
    """A guild text channel (or a DM channel when ``guild`` is None); threads are
    ``threads.Thread``, a subclass with a ``parent``."""

    parent: Channel | None = None

    def __init__(
        self,
        server: Hub,
        guild: Guild | None,
        name: str,
        *,
        channel_type: int = 0,
        recipient: Identity | None = None,
        recipients: list[Identity] | None = None,
    ) -> None:
        self.server = server
        self.guild = guild
        self.id = snowflake()
        self.name = name
        self.type = channel_type
        self.recipient = recipient
        self.recipients = recipients or ([recipient] if recipient else [])  # DM, group DM
        self.all_messages: list[Message] = []
        self._writes: deque[float] = deque()
        self.max_writes_per_5s = 0
        self.overwrites: dict[int, Overwrite] = {}
        self.deleted = False
        self.threads: list[ThreadLike] = []
        """Threads started in this channel (deleted ones leave the list)."""

    @property
    def guild_id(self) -> int | None:
        return self.guild.id if self.guild is not None else None

    @property
    def messages(self) -> list[Message]:
        """Public (non-ephemeral, not deleted) messages, oldest first."""
        return [m for m in self.all_messages if not m.ephemeral and not m.deleted]

    def last_message(self) -> Message:
        msgs = self.messages
        assert msgs, f"#{self.name} has no messages"
        return msgs[-1]

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "flags": 0,
            "last_message_id": str(self.all_messages[-1].id) if self.all_messages else None,
        }
        if self.guild is not None:
            data.update(
                guild_id=str(self.guild.id),
                position=self.guild.channels.index(self) if self in self.guild.channels else 0,
                permission_overwrites=[o.payload() for o in self.overwrites.values()],
                topic=None,
                nsfw=False,
                rate_limit_per_user=0,
                parent_id=None,
            )
        if self.type == GROUP_DM:
            data.update(installs.group_dm_fields(self.recipients))
        elif self.recipient is not None:
            data["recipients"] = [self.recipient.user_payload()]
            data.pop("name")
        return data

    def create_thread(
        self,
        name: str,
        *,
        by: Person | Identity | None = None,
        message: Message | None = None,
        private: bool = False,
        auto_archive_duration: int = 1440,
    ) -> ThreadLike:
        """A member (the guild owner by default) starts a thread here, from ``message`` if
        given: THREAD_CREATE (newly_created) and THREAD_MEMBERS_UPDATE as Discord sends
        (a ``threads.Thread``, made by the hub)."""
        guild = self._guild()
        assert self.parent is None, "threads cannot have threads"
        ident = by if isinstance(by, Identity) else guild.owner if by is None else by.identity
        return self.server.start_thread(
            self,
            name,
            owner=ident,
            private=private,
            auto_archive_duration=auto_archive_duration,
            message=message,
        )

    def thread(self, name: str) -> ThreadLike:
        """The live thread of this channel named ``name``."""
        found = [t for t in self.threads if t.name == name]
        assert found, f"#{self.name} has no thread {name!r}; has {[t.name for t in self.threads]}"
        return found[-1]

    def member(self, name: str, **permissions: bool) -> Person:
        """The guild member ``name`` acting in this channel."""
        assert self.guild is not None, "DM channels have no members"
        return self.guild.member(name, **permissions).at(self)

    # -- permission overwrites -------------------------------------------------------
    def restrict(self, ident: Identity, perms: discord.Permissions) -> discord.Permissions:
        """``ident``'s permissions in the parent channel, narrowed to this one (a thread
        narrows them, ``threads.Thread``; a channel has no parent)."""
        return perms

    def _guild(self) -> Guild:
        assert self.guild is not None, f"{self!r} is a DM channel: it has no overwrites"
        assert not self.deleted, f"{self!r} was deleted"
        return self.guild

    def _overwrite_key(self, target: OverwriteTarget) -> tuple[int, int]:
        """(id, type) of an overwrite target: a Member, an Identity, a Role, the Guild
        (its @everyone role), "@everyone" or "bot"."""
        guild = self._guild()
        if isinstance(target, str):
            if target in ("@everyone", "everyone"):
                return guild.id, OVERWRITE_ROLE
            if target == "bot":
                return guild.bot_member.id, OVERWRITE_MEMBER
            raise AssertionError(f"overwrite target {target!r}: use '@everyone' or 'bot'")
        if isinstance(target, Role):
            return target.id, OVERWRITE_ROLE
        if isinstance(target, Guild):
            return target.id, OVERWRITE_ROLE
        if isinstance(target, Identity):
            return target.id, OVERWRITE_MEMBER
        ident = getattr(target, "identity", None)
        if isinstance(ident, Identity):
            return ident.id, OVERWRITE_MEMBER
        raise AssertionError(f"cannot put an overwrite on {target!r}")

    def overwrite(self, target: OverwriteTarget, **permissions: bool | None) -> Overwrite | None:
        """Change ``target``'s overwrite like discord.py's PermissionOverwrite: True allows,
        False denies, None goes back to neutral (inherit). Sends CHANNEL_UPDATE.

        Returns the overwrite, or None when it ended up empty (then it is removed)."""
        oid, otype = self._overwrite_key(target)
        ow = self.overwrites.get(oid) or Overwrite(oid, otype)
        for name, value in permissions.items():
            bit = permission_bits([name], f"overwrite on #{self.name}")
            ow.allow &= ~bit
            ow.deny &= ~bit
            if value is True:
                ow.allow |= bit
            elif value is False:
                ow.deny |= bit
        if ow.allow or ow.deny:
            self.overwrites[oid] = ow
        else:
            self.overwrites.pop(oid, None)
        self.updated()
        return self.overwrites.get(oid)

    def allow(self, target: OverwriteTarget, *names: str) -> Overwrite | None:
        """Allow the named permissions to ``target`` in this channel (CHANNEL_UPDATE)."""
        return self.overwrite(target, **dict.fromkeys(names, True))

    def deny(self, target: OverwriteTarget, *names: str) -> Overwrite | None:
        """Deny the named permissions to ``target`` in this channel (CHANNEL_UPDATE)."""
        return self.overwrite(target, **dict.fromkeys(names, False))

    def set_bot_permissions(self, **permissions: bool | None) -> Overwrite | None:
        """The bot's member overwrite here: ``set_bot_permissions(send_messages=False)``."""
        return self.overwrite("bot", **permissions)

    def clear_overwrites(self, target: OverwriteTarget | None = None) -> None:
        """Remove ``target``'s overwrite (every overwrite by default); CHANNEL_UPDATE."""
        if target is None:
            self._guild()
            self.overwrites.clear()
        else:
            self.overwrites.pop(self._overwrite_key(target)[0], None)
        self.updated()

    def permissions_for(self, who: OverwriteTarget) -> discord.Permissions:
        """``who``'s permissions in this channel, computed as Discord documents it: base
        permissions from @everyone and the member's roles (all for the owner or with
        ADMINISTRATOR), then the @everyone overwrite, the member's role overwrites
        together, and the member's own overwrite."""
        guild = self._guild()
        oid, otype = self._overwrite_key(who)
        assert otype == OVERWRITE_MEMBER, "permissions_for takes a member or 'bot'"
        ident = guild.members_by_id.get(oid)
        assert ident is not None, f"{who!r} is not a member of {guild!r}"
        return guild.permissions_in(ident, self)

    def updated(self) -> None:
        """Announce this channel's current state to the bot (CHANNEL_UPDATE)."""
        if self.guild is not None and not self.deleted:
            self.server.dispatch_soon("CHANNEL_UPDATE", self.payload())

    async def delete(self) -> None:
        """Delete this channel (CHANNEL_DELETE); REST calls on it then answer 404 10003."""
        self._guild().delete_channel(self)
        await asyncio.sleep(0)

    def record_write(self) -> int:
        """Count a channel message create/edit; return how many in the last 5 s."""
        now = time.monotonic()
        self._writes.append(now)
        while self._writes and self._writes[0] <= now - 5.0:
            self._writes.popleft()
        self.max_writes_per_5s = max(self.max_writes_per_5s, len(self._writes))
        return len(self._writes)

    def mark(self) -> int:
        """A point in time for :meth:`wait_for` (only later creates/edits count)."""
        return self.server.change_seq

    async def wait_for(
        self,
        predicate: Callable[[Message], bool],
        *,
        timeout: float = 5.0,  # noqa: ASYNC109
        after: int | None = None,
    ) -> Message:
        """Wait for a public message of this channel (created or edited after ``after``,
        default: any, including existing ones) for which ``predicate`` is true."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            for msg in reversed(self.messages):
                if (after is None or msg.change_seq > after) and predicate(msg):
                    return msg
            remaining = deadline - loop.time()
            if remaining <= 0:
                recent = "\n  ".join(repr(m) for m in self.messages[-8:])
                raise AssertionError(
                    f"no matching message in #{self.name} within {timeout} s; "
                    f"latest messages:\n  {recent}"
                )
            await self.server.wait_change(remaining)

    def __repr__(self) -> str:
        return f"<Channel #{self.name} {self.id}>"


class Guild:
    def __init__(self, server: Hub, name: str, guild_id: int | None = None, *,
                 bot_present: bool = True) -> None:
        self.server = server
        self.bot_present = bot_present  # the server added the bot (installs.py)
        self.id = guild_id if guild_id is not None else snowflake()
        self.name = name
        self.channels: list[Channel] = []
        self.identities: dict[str, Identity] = {}
        self.members_by_id: dict[int, Identity] = {}
        self.everyone = Role(self.id, "@everyone", EVERYONE_PERMISSIONS)
        self.roles: list[Role] = [self.everyone]
        self.owner = Identity(snowflake(), "owner")
        self._add_identity(self.owner)
        self.bot_role = Role(snowflake(), server.bot_identity.name, BOT_PERMISSIONS, 1, True)
        self.roles.append(self.bot_role)
        self.bot_member = Identity(server.bot_identity.id, server.bot_identity.name, bot=True)
        self.bot_member.role_ids.append(self.bot_role.id)
        self.members_by_id[self.bot_member.id] = self.bot_member
        self.threads: list[ThreadLike] = []
        """Live threads, archived ones included (threads.py)."""
        self.locale = "en-US"
        """The server's Discord locale (``preferred_locale``, an interaction's
        ``guild_locale``): set it to "fr" for a French server."""
        self.default_channel = self._make_channel("general")

    def _add_identity(self, ident: Identity) -> None:
        self.identities[ident.name] = ident
        self.members_by_id[ident.id] = ident

    def _make_channel(self, name: str) -> Channel:
        channel = Channel(self.server, self, name)
        self.channels.append(channel)
        self.server.channels[channel.id] = channel
        return channel

    def delete_channel(self, channel: Channel) -> None:
        """Delete ``channel``: CHANNEL_DELETE goes to the bot, every REST call on it answers
        404 code 10003 (Unknown Channel) and members can no longer act there."""
        assert channel.guild is self, f"{channel!r} is not in {self!r}"
        assert not channel.deleted, f"{channel!r} is already deleted"
        payload = channel.payload()
        for thread in list(channel.threads):  # the bot drops them on CHANNEL_DELETE
            thread.discard(announce=False)
        channel.deleted = True
        self.channels.remove(channel)
        self.server.next_change()
        self.server.dispatch_soon("CHANNEL_DELETE", payload)

    def new_channel(self, name: str | None = None) -> Channel:
        """Create a text channel (announced to a connected bot with CHANNEL_CREATE)."""
        channel = self._make_channel(name or f"test-{len(self.channels)}")
        self.server.dispatch_soon("CHANNEL_CREATE", channel.payload())
        return channel

    def member(self, name: str, **permissions: bool) -> Person:
        """The member ``name`` (created on first use), in the guild's default channel.

        Keyword arguments are discord.Permissions flags (``manage_guild=True``); they are
        granted through a role of the member's own.
        """
        return self.server.member(self, self.enrol(name, **permissions), self.default_channel)

    def enrol(self, name: str, **permissions: bool) -> Identity:
        """The account of member ``name`` (created on first use); ``permissions``
        (discord.Permissions flags) are granted through a role of the member's own."""
        ident = self.identities.get(name)
        if ident is None:
            ident = Identity(snowflake(), name)
            self._add_identity(ident)
        if permissions:
            perms = discord.Permissions(**permissions)
            role = next((r for r in self.roles if r.name == f"{name}-role"), None)
            if role is None:
                role = Role(snowflake(), f"{name}-role", perms, len(self.roles))
                self.roles.append(role)
                ident.role_ids.append(role.id)
                self.server.dispatch_soon(
                    "GUILD_ROLE_CREATE", {"guild_id": str(self.id), "role": role.payload()}
                )
            else:
                role.permissions = perms
        return ident

    def admit(self, ident: Identity) -> Identity:
        """The account of a member of another guild joins this one too (one person in two
        servers: the same user id, the same personal settings)."""
        if self.identities.get(ident.name) is not ident:
            self._add_identity(ident)
        return ident

    def permissions_of(self, ident: Identity) -> discord.Permissions:
        if ident.id == self.owner.id:
            return discord.Permissions.all()
        value = self.everyone.permissions.value
        for role in self.roles:
            if role.id in ident.role_ids:
                value |= role.permissions.value
        perms = discord.Permissions(value)
        if perms.administrator:
            return discord.Permissions.all()
        return perms

    def permissions_in(self, ident: Identity, channel: Channel) -> discord.Permissions:
        """``ident``'s computed permissions in ``channel`` (Discord's documented algorithm;
        implicit denials, e.g. no SEND_MESSAGES means no ATTACH_FILES, are not applied).
        A thread takes its parent's permissions (a private one hides from non-members)."""
        if channel.parent is not None:
            return channel.restrict(ident, self.permissions_in(ident, channel.parent))
        base = self.permissions_of(ident)
        if base.administrator:
            return discord.Permissions.all()
        value = base.value
        everyone = channel.overwrites.get(self.id)
        if everyone is not None:
            value = (value & ~everyone.deny) | everyone.allow
        allow = deny = 0
        for role_id in ident.role_ids:
            ow = channel.overwrites.get(role_id)
            if ow is not None and ow.type == OVERWRITE_ROLE:
                allow |= ow.allow
                deny |= ow.deny
        value = (value & ~deny) | allow
        own = channel.overwrites.get(ident.id)
        if own is not None and own.type == OVERWRITE_MEMBER:
            value = (value & ~own.deny) | own.allow
        return discord.Permissions(value)

    def create_role(self, name: str, **permissions: bool) -> Role:
        """A new role with these guild-level permissions (GUILD_ROLE_CREATE)."""
        role = Role(snowflake(), name, discord.Permissions(**permissions), len(self.roles))
        self.roles.append(role)
        self.server.dispatch_soon(
            "GUILD_ROLE_CREATE", {"guild_id": str(self.id), "role": role.payload()}
        )
        return role

    def role(self, role_id: int) -> Role | None:
        return next((r for r in self.roles if r.id == role_id), None)

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner.id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.payload() for r in self.roles],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "max_members": 500000,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "safety_alerts_channel_id": None,
        }

    def create_payload(self) -> dict[str, Any]:
        """GUILD_CREATE: the guild plus channels, the bot's member and roles."""
        data = self.payload()
        data.update(
            joined_at=self.bot_member.joined_at,
            large=False,
            unavailable=False,
            member_count=len(self.members_by_id),
            voice_states=[],
            members=[self.bot_member.member_payload()],
            channels=[c.payload() for c in self.channels],
            # active threads the bot can see, so that a restarted bot finds them again
            threads=[
                t.payload_for_bot()
                for t in self.threads
                if not t.archived and not t.deleted and t.bot_can_view()
            ],
            presences=[],
            stage_instances=[],
            guild_scheduled_events=[],
            soundboard_sounds=[],
        )
        return data

    def __repr__(self) -> str:
        return f"<Guild {self.name} {self.id}>"
