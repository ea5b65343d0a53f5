"""Guilds, channels, members and messages as the loopback Discord stores them."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeAlias

import discord

if TYPE_CHECKING:
    from .server import LoopbackDiscord
    from .threads import Thread
    from .users import Member

    # what a channel overwrite can name: a member, a role, the guild (@everyone), "bot"
    OverwriteTarget: TypeAlias = "Member | Identity | Role | Guild | str"

DISCORD_EPOCH_MS = 1420070400000
_counter = itertools.count()
_last_id = 0

EPHEMERAL = 1 << 6
LOADING = 1 << 7
IS_COMPONENTS_V2 = 1 << 15

# what a fresh Discord server grants @everyone
EVERYONE_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    embed_links=True,
    attach_files=True,
    add_reactions=True,
    use_external_emojis=True,
    use_external_stickers=True,
    mention_everyone=True,
    read_message_history=True,
    use_application_commands=True,
    connect=True,
    speak=True,
    stream=True,
    use_voice_activation=True,
    change_nickname=True,
    create_instant_invite=True,
)
BOT_PERMISSIONS = discord.Permissions.all() & ~discord.Permissions(administrator=True)
# app_permissions Discord sends for an interaction in a DM with the bot user
DM_APP_PERMISSIONS = discord.Permissions(
    attach_files=True, embed_links=True, mention_everyone=True, external_emojis=True
)
OVERWRITE_ROLE, OVERWRITE_MEMBER = 0, 1


def snowflake_from(seconds_ago: float) -> int:
    """A unique snowflake whose time is ``seconds_ago`` in the past (an event that took that
    long to reach its receiver)."""
    ms = int((time.time() - seconds_ago) * 1000) - DISCORD_EPOCH_MS
    return (ms << 22) | (next(_counter) & 0x3FFFFF)


def snowflake() -> int:
    """A fresh, strictly increasing snowflake with the current time in it."""
    global _last_id
    ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
    new = (ms << 22) | (next(_counter) & 0xFFF)
    if new <= _last_id:
        new = _last_id + 1
    _last_id = new
    return new


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


@dataclass
class Problem:
    """Something Discord would have rejected or the harness could not handle."""

    kind: str  # "invalid_body", "limits", "unknown_route", "late_ack", "double_ack", ...
    message: str
    method: str = ""
    path: str = ""
    code: int | None = None

    def __str__(self) -> str:
        where = f" [{self.method} {self.path}]" if self.method else ""
        code = f" (code {self.code})" if self.code else ""
        return f"{self.kind}{code}{where}: {self.message}"


@dataclass
class Refusal:
    """A call Discord answered with an error that is the bot's honest failure, not a bug in
    what it sent (missing permissions, a deleted channel, an injected fault)."""

    status: int
    code: int
    message: str
    method: str = ""
    path: str = ""
    # "missing_access", "missing_permissions", "unknown_channel", "injected"; threads.py adds
    # "thread_locked", "thread_archived", "thread_exists", "wrong_channel_type", ...
    reason: str = ""
    detail: str = ""  # e.g. the missing permission names

    def __str__(self) -> str:
        extra = f" ({self.detail})" if self.detail else ""
        return (
            f"{self.status} code {self.code} {self.message!r} [{self.method} {self.path}] "
            f"{self.reason}{extra}"
        )


@dataclass
class Overwrite:
    """A channel permission overwrite (type 0: role, 1: member)."""

    id: int
    type: int
    allow: int = 0
    deny: int = 0

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": self.type,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


def permission_bits(names: tuple[str, ...] | list[str], what: str) -> int:
    """The bit set of discord.Permissions flag names (``send_messages``, ``view_channel``)."""
    value = 0
    for name in names:
        if name not in discord.Permissions.VALID_FLAGS:
            raise AssertionError(f"{what}: no permission named {name!r}")
        value |= discord.Permissions.VALID_FLAGS[name]
    return value


@dataclass
class Identity:
    """A user account and its membership in one guild."""

    id: int
    name: str
    bot: bool = False
    role_ids: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=iso_now)
    locale: str = "en-US"

    def user_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": None if self.bot else self.name.capitalize(),
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "system": False,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "primary_guild": None,
            "collectibles": None,
        }

    def member_payload(self, *, with_user: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "nick": None,
            "avatar": None,
            "banner": None,
            "roles": [str(r) for r in self.role_ids],
            "joined_at": self.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user_payload()
        return data


@dataclass
class Role:
    id: int
    name: str
    permissions: discord.Permissions
    position: int = 0
    managed: bool = False

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions.value),
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
        }


class Message:
    """A message as stored by the server (public, or ephemeral for one user)."""

    def __init__(
        self,
        *,
        server: LoopbackDiscord,
        channel: Channel,
        author: dict[str, Any],
        data: dict[str, Any],
        ephemeral_for: int | None = None,
        msg_type: int = 0,
        interaction: dict[str, Any] | None = None,
        webhook_id: int | None = None,
    ) -> None:
        self.server = server
        self.id = snowflake()
        self.channel = channel
        self.author = author
        self.ephemeral_for = ephemeral_for
        self.type = msg_type
        self.interaction_metadata = interaction
        self.webhook_id = webhook_id
        self.timestamp = iso_now()
        self.edited_timestamp: str | None = None
        self.deleted = False
        self.content: str = ""
        self.embeds: list[dict[str, Any]] = []
        self.components: list[dict[str, Any]] = []
        self.attachments: list[dict[str, Any]] = []
        self.files: dict[str, bytes] = {}
        """The bytes of the attached files, by file name (what a member would download)."""
        self.allowed_mentions: dict[str, Any] | None = None
        """The ``allowed_mentions`` the bot sent with the message's last version."""
        self.flags = 0
        self.tts = False
        self.history: list[dict[str, Any]] = []
        self.change_seq = 0
        self.thread: Thread | None = None
        """The thread started from this message (threads.py)."""
        self.message_reference: dict[str, Any] | None = None
        self.apply(data, initial=True)

    # -- mutation --------------------------------------------------------------
    def apply(self, data: dict[str, Any], *, initial: bool = False) -> None:
        if not initial:
            self.history.append(self.payload())
            self.edited_timestamp = iso_now()
        if "content" in data:
            self.content = data["content"] or ""
        if "embeds" in data:
            self.embeds = list(data["embeds"] or [])
        if "components" in data:
            self.components = list(data["components"] or [])
        if "attachments" in data:
            # an entry with the id of an attachment the message has keeps it
            old = {str(a["id"]): a for a in ([] if initial else self.attachments)}
            self.attachments = [
                old.get(str(a.get("id")))
                or {
                    "id": str(snowflake()) if "filename" in a else str(a.get("id", snowflake())),
                    "filename": a.get("filename", "file"),
                    "size": 0,
                    "url": "http://127.0.0.1/attachment",
                    "proxy_url": "http://127.0.0.1/attachment",
                }
                for a in data["attachments"] or []
            ]
        if "allowed_mentions" in data:
            self.allowed_mentions = data["allowed_mentions"]
        if "tts" in data:
            self.tts = bool(data["tts"])
        if "flags" in data and data["flags"] is not None:
            keep = self.flags & (EPHEMERAL | IS_COMPONENTS_V2)
            self.flags = int(data["flags"]) | keep
        if self.ephemeral_for is not None:
            self.flags |= EPHEMERAL
        if not initial:
            self.flags &= ~LOADING
        self.change_seq = self.server.next_change()

    # -- views -----------------------------------------------------------------
    @property
    def ephemeral(self) -> bool:
        return self.ephemeral_for is not None

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    def payload(self) -> dict[str, Any]:
        guild = self.channel.guild
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "author": self.author,
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "mention_channels": [],
            "attachments": self.attachments,
            "embeds": self.embeds,
            "reactions": [],
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
            "components": self.components,
        }
        if guild is not None:
            data["guild_id"] = str(guild.id)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.server.application_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = self.interaction_metadata
        if self.message_reference is not None:
            data["message_reference"] = self.message_reference
        if self.thread is not None and not self.thread.deleted:
            data["thread"] = self.thread.payload_for_bot()
        if self.allowed_mentions is not None:
            # not part of Discord's message object: kept so tests can see who was notified
            data["allowed_mentions"] = self.allowed_mentions
        return data

    def text(self) -> str:
        """Everything a person reads in the message: content, embeds, text displays."""
        parts = [self.content] if self.content else []
        for embed in self.embeds:
            for key in ("title", "description"):
                if embed.get(key):
                    parts.append(str(embed[key]))
            if embed.get("author", {}).get("name"):
                parts.append(str(embed["author"]["name"]))
            for fld in embed.get("fields", []) or []:
                parts.append(f"{fld.get('name', '')}: {fld.get('value', '')}")
            if embed.get("footer", {}).get("text"):
                parts.append(str(embed["footer"]["text"]))
        for comp in self.walk_components():
            if comp.get("type") == 10 and comp.get("content"):
                parts.append(str(comp["content"]))
        return "\n".join(parts)

    def walk_components(self) -> Iterator[dict[str, Any]]:
        stack = list(reversed(self.components))
        while stack:
            comp = stack.pop()
            yield comp
            children = list(comp.get("components", []) or [])
            if comp.get("accessory"):
                children.append(comp["accessory"])
            stack.extend(reversed(children))

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.walk_components() if c.get("type") == 2]

    def selects(self) -> list[dict[str, Any]]:
        return [c for c in self.walk_components() if c.get("type") in (3, 5, 6, 7, 8)]

    def button_labels(self) -> list[str]:
        return [str(b.get("label", "")) for b in self.buttons()]

    def __repr__(self) -> str:
        vis = f" ephemeral_for={self.ephemeral_for}" if self.ephemeral else ""
        text = self.text().replace("\n", " | ")
        if len(text) > 80:
            text = text[:77] + "..."
        return f"<Message {self.id}{vis} {text!r} buttons={self.button_labels()}>"


class Channel:
    """A guild text channel (or a DM channel when ``guild`` is None); threads are
    ``threads.Thread``, a subclass with a ``parent``."""

    parent: Channel | None = None

    def __init__(
        self,
        server: LoopbackDiscord,
        guild: Guild | None,
        name: str,
        *,
        channel_type: int = 0,
        recipient: Identity | None = None,
    ) -> None:
        self.server = server
        self.guild = guild
        self.id = snowflake()
        self.name = name
        self.type = channel_type
        self.recipient = recipient
        self.all_messages: list[Message] = []
        self._writes: deque[float] = deque()
        self.max_writes_per_5s = 0
        self.overwrites: dict[int, Overwrite] = {}
        self.deleted = False
        self.threads: list[Thread] = []
        """Threads started in this channel (deleted ones leave the list)."""

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
        if self.recipient is not None:
            data["recipients"] = [self.recipient.user_payload()]
            data.pop("name")
        return data

    def create_thread(
        self,
        name: str,
        *,
        by: Member | Identity | None = None,
        message: Message | None = None,
        private: bool = False,
        auto_archive_duration: int = 1440,
    ) -> Thread:
        """A member (the guild owner by default) starts a thread here, from ``message`` if
        given: THREAD_CREATE (newly_created) and THREAD_MEMBERS_UPDATE as Discord sends."""
        from .threads import PRIVATE_THREAD, PUBLIC_THREAD, open_thread

        guild = self._guild()
        assert self.parent is None, "threads cannot have threads"
        ident = by if isinstance(by, Identity) else guild.owner if by is None else by.identity
        return open_thread(
            self.server,
            self,
            name,
            owner=ident,
            thread_type=PRIVATE_THREAD if private else PUBLIC_THREAD,
            auto_archive_duration=auto_archive_duration,
            message=message,
        )

    def thread(self, name: str) -> Thread:
        """The live thread of this channel named ``name``."""
        found = [t for t in self.threads if t.name == name]
        assert found, f"#{self.name} has no thread {name!r}; has {[t.name for t in self.threads]}"
        return found[-1]

    def member(self, name: str, **permissions: bool) -> Member:
        """The guild member ``name`` acting in this channel."""
        assert self.guild is not None, "DM channels have no members"
        return self.guild.member(name, **permissions).at(self)

    # -- permission overwrites -------------------------------------------------------
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
    def __init__(self, server: LoopbackDiscord, name: str) -> None:
        self.server = server
        self.id = snowflake()
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
        self.threads: list[Thread] = []
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
        from .threads import delete_thread

        payload = channel.payload()
        for thread in list(channel.threads):  # the bot drops them on CHANNEL_DELETE
            delete_thread(thread, announce=False)
        channel.deleted = True
        self.channels.remove(channel)
        self.server.next_change()
        self.server.dispatch_soon("CHANNEL_DELETE", payload)

    def new_channel(self, name: str | None = None) -> Channel:
        """Create a text channel (announced to a connected bot with CHANNEL_CREATE)."""
        channel = self._make_channel(name or f"test-{len(self.channels)}")
        self.server.dispatch_soon("CHANNEL_CREATE", channel.payload())
        return channel

    def member(self, name: str, **permissions: bool) -> Member:
        """The member ``name`` (created on first use), in the guild's default channel.

        Keyword arguments are discord.Permissions flags (``manage_guild=True``); they are
        granted through a role of the member's own.
        """
        from .users import Member

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
        return Member(self.server, self, ident, self.default_channel)

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
            from .threads import Thread

            assert isinstance(channel, Thread)
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
