"""The loopback Discord's plain records: snowflakes, accounts (``Identity``), roles,
permission overwrites and constants, messages (``Message``, posted in a :class:`Place`), and
what it keeps of the bot's mistakes (``Problem``) and honest failures (``Refusal``)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import discord

DISCORD_EPOCH_MS = 1420070400000
EPHEMERAL = 1 << 6
LOADING = 1 << 7
IS_COMPONENTS_V2 = 1 << 15
_counter = itertools.count()
_last_id = 0

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
    installed: bool = False
    """The user installed the application to their account (a user install,
    ``installs.py``): its global commands that allow it follow them anywhere."""

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


class Place(Protocol):
    """Where a message is posted (``models.Channel``)."""

    @property
    def id(self) -> int: ...

    @property
    def guild_id(self) -> int | None: ...


class MessageHub(Protocol):
    """What a message needs of the server that keeps it (``models.Hub``)."""

    @property
    def application_id(self) -> int: ...

    def next_change(self) -> int: ...


class StartedThread(Protocol):
    """The thread started from a message (``threads.Thread``)."""

    @property
    def deleted(self) -> bool: ...

    def payload_for_bot(self) -> dict[str, Any]: ...


class Message:
    """A message as stored by the server (public, or ephemeral for one user)."""

    def __init__(
        self,
        *,
        server: MessageHub,
        channel: Place,
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
        self.thread: StartedThread | None = None
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
        guild_id = self.channel.guild_id
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
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
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
