"""The outbox: the only code that writes to channels.

Announcements are queued per channel (never awaited by the table service, never under a
game's lock), gathered into as few messages as fit, paced to Discord's five writes per five
seconds per channel, and posted with the live table. A 403 (the bot may not post) or a 404
(the channel is gone) is reported to the table service once, which pauses or ends the game;
on shutdown what is queued is flushed within a time limit, not dropped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

from cogs.uno._menus import lobby_view, table_view, turn_ping
from cogs.uno._render import lobby_embed, table_embed
from cogs.uno._session import Session

log = logging.getLogger(__name__)

MAX_MESSAGE = 1900
WRITES_PER_WINDOW = 5
WRITE_WINDOW = 5.0
"""Discord allows five channel writes (posts and edits alike) per five seconds."""
MIN_POST_GAP = 1.2
"""Seconds gathered before a post, so a move and its consequences go out together."""
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008

LostCallback = Callable[[int, bool], Awaitable[None]]


@dataclass
class _Channel:
    guild_id: int
    session: Session | None = None
    lines: list[str] = field(default_factory=list)
    table: bool = False
    mention: str | None = None
    edits: dict[int, Callable[[], dict[str, Any]]] = field(default_factory=dict)
    """Messages to edit (id → what to send), newest wish wins."""
    task: asyncio.Task[None] | None = None
    last_post: float = 0.0
    writes: deque[float] = field(default_factory=deque)
    lost: bool = False


class ChannelLost(Exception):
    def __init__(self, gone: bool) -> None:
        super().__init__("channel gone" if gone else "missing permissions")
        self.gone = gone


class Outbox:
    def __init__(self, client: discord.Client, *, time_scale: float = 1.0) -> None:
        self.client = client
        self.scale = min(1.0, max(time_scale, 0.05))
        self.on_lost: LostCallback | None = None
        self.is_live: Callable[[Session], bool] = lambda session: True
        """Set by the owner: whether a session is still the channel's live one."""
        self._channels: dict[int, _Channel] = {}
        self._closing = False

    # ------------------------------------------------------------------ what to post
    def announce(self, session: Session, lines: Sequence[str], *, table: bool = True,
                 mention: str | None = None) -> None:
        box = self._box(session.channel_id, session.guild_id)
        box.session = session
        box.lines.extend(line[:MAX_MESSAGE] for line in lines if line)
        box.table = box.table or table
        if mention is not None:
            box.mention = mention
        if not table and session.table_message_id is not None:
            # The game is over or gone: its last table loses its buttons.
            stale = session.table_message_id
            session.table_message_id = None
            box.edits[stale] = lambda: {"view": None}
        self._kick(session.channel_id, box)

    def notice(self, channel_id: int, guild_id: int, lines: Sequence[str]) -> None:
        box = self._box(channel_id, guild_id)
        box.lines.extend(lines)
        self._kick(channel_id, box)

    def refresh_lobby(self, session: Session) -> None:
        """Show the lobby as it is now on its message."""
        if session.lobby_message_id is None:
            return
        box = self._box(session.channel_id, session.guild_id)
        box.edits[session.lobby_message_id] = lambda: {
            "embed": lobby_embed(session), "view": lobby_view(session)}
        self._kick(session.channel_id, box)

    def close_message(self, session: Session, message_id: int | None) -> None:
        """Take the buttons off a message (a closed lobby, an old table)."""
        if message_id is None:
            return
        box = self._box(session.channel_id, session.guild_id)
        box.edits[message_id] = lambda: {"view": None}
        self._kick(session.channel_id, box)

    def reopen(self, channel_id: int) -> None:
        """The bot may post in the channel again (after a pause)."""
        box = self._channels.get(channel_id)
        if box is not None:
            box.lost = False

    # ------------------------------------------------------------------ life cycle
    async def close(self, limit: float = 5.0) -> None:
        """Post what is queued (within ``limit`` seconds), then stop."""
        self._closing = True
        tasks = [b.task for b in self._channels.values() if b.task and not b.task.done()]
        if tasks:
            __done, pending = await asyncio.wait(tasks, timeout=limit)
            for task in pending:
                task.cancel()
            if pending:
                log.warning("%d channels still had announcements at shutdown", len(pending))
            await asyncio.gather(*pending, return_exceptions=True)

    # ------------------------------------------------------------------ posting
    def _box(self, channel_id: int, guild_id: int) -> _Channel:
        box = self._channels.get(channel_id)
        if box is None:
            box = self._channels[channel_id] = _Channel(guild_id)
        return box

    def _kick(self, channel_id: int, box: _Channel) -> None:
        if box.lost:
            box.lines.clear()
            box.edits.clear()
            return
        if box.task is None or box.task.done():
            box.task = asyncio.create_task(self._flush(channel_id, box),
                                           name=f"uno:{channel_id}:outbox")

    async def _flush(self, channel_id: int, box: _Channel) -> None:
        try:
            if not self._closing:
                wait = box.last_post + MIN_POST_GAP * self.scale - time.time()
                await asyncio.sleep(max(0.05, wait))
            while box.lines or box.edits or box.table:
                await self._send(channel_id, box)
                box.last_post = time.time()
                if (box.lines or box.edits or box.table) and not self._closing:
                    await asyncio.sleep(MIN_POST_GAP * self.scale)
        except ChannelLost as lost:
            box.lost = True
            box.lines.clear()
            box.edits.clear()
            box.table = False
            if self.on_lost is not None:
                await self.on_lost(channel_id, lost.gone)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("Posting to channel %s failed", channel_id)
            box.lines.clear()
            box.table = False
        if ((box.session is None or not self.is_live(box.session))
                and self._channels.get(channel_id) is box and not (box.lines or box.edits)):
            # Nothing more will come for this channel's game: forget its box.
            del self._channels[channel_id]

    async def _pace(self, box: _Channel, need: int = 1) -> None:
        """Wait until ``need`` more writes fit in the channel's five-second window."""
        window = WRITE_WINDOW * self.scale
        while True:
            now = time.monotonic()
            while box.writes and box.writes[0] <= now - window:
                box.writes.popleft()
            room = WRITES_PER_WINDOW - len(box.writes)
            if room >= need:
                return
            await asyncio.sleep(box.writes[need - room - 1] + window - now + 0.01)

    async def _write(self, box: _Channel, call: Callable[[], Awaitable[Any]], *,
                     edit: bool = False) -> Any:
        """One channel write, paced; a 403/404 on the channel raises ChannelLost."""
        await self._pace(box)
        try:
            return await call()
        except discord.NotFound as exc:
            if exc.code == UNKNOWN_CHANNEL:
                raise ChannelLost(gone=True) from None
            if edit and exc.code == UNKNOWN_MESSAGE:
                return None  # the message was deleted: nothing to edit
            raise
        except discord.Forbidden as exc:
            if edit and exc.code not in (50001, 50013):
                return None  # e.g. not our message
            raise ChannelLost(gone=False) from None
        finally:
            box.writes.append(time.monotonic())

    async def _send(self, channel_id: int, box: _Channel) -> None:
        channel = self.client.get_partial_messageable(channel_id, guild_id=box.guild_id)
        session = box.session
        lines, box.lines = box.lines, []
        with_table, box.table = box.table, False
        mention, box.mention = box.mention, None
        edits, box.edits = box.edits, {}
        chunks = _chunks(lines)
        quiet = discord.AllowedMentions.none()
        table = None
        if with_table and session is not None:
            for chunk in chunks[:-1]:
                await self._write(box, _sender(channel, chunk, quiet))
            chunks = chunks[-1:]
            await self._pace(box)
            table = await self._table(session, chunks[0] if chunks else None, mention)
        if table is None:
            for chunk in chunks:
                await self._write(box, _sender(channel, chunk, quiet))
        elif session is not None:
            content, embed, view, mentions = table
            previous = session.table_message_id
            message = await self._write(box, lambda: channel.send(
                content, embed=embed, view=view, allowed_mentions=mentions))
            session.table_message_id = message.id
            if previous is not None:
                edits.setdefault(previous, lambda: {"view": None})
        for message_id, build in edits.items():
            await self._write(box, _editor(channel.get_partial_message(message_id), build),
                              edit=True)

    async def _table(self, session: Session, text: str | None, mention: str | None
                     ) -> tuple[str | None, discord.Embed, discord.ui.View,
                                discord.AllowedMentions] | None:
        """The live table as it was last saved (read under the session's lock, so never a
        change that is still being saved), or None when the game is over or gone."""
        async with session.lock:
            game = session.game
            if game is None or game.is_over or not self._is_live(session):
                return None
            ping = None
            if (session.options.mention_turn and game.turn.isdigit()
                    and not session.is_cpu(game.turn)):
                # Every table names whose turn it is; the mention notifies once per turn.
                ping = mention if mention == game.turn and not session.paused else None
                line = turn_ping(session, game)
                text = f"{text}\n{line}" if text else line
            mentions = discord.AllowedMentions(
                users=[discord.Object(int(ping))] if ping else [], everyone=False, roles=False)
            return text, table_embed(session), table_view(session), mentions

    def _is_live(self, session: Session) -> bool:
        return self.is_live(session)


def _sender(channel: discord.PartialMessageable, text: str,
            mentions: discord.AllowedMentions) -> Callable[[], Awaitable[Any]]:
    return lambda: channel.send(text, allowed_mentions=mentions)


def _editor(message: discord.PartialMessage, build: Callable[[], dict[str, Any]]
            ) -> Callable[[], Awaitable[Any]]:
    return lambda: message.edit(**build())


def _chunks(lines: Sequence[str]) -> list[str]:
    chunks: list[str] = []
    current = ""
    for line in lines:
        if current and len(current) + 1 + len(line) > MAX_MESSAGE:
            chunks.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        chunks.append(current)
    return chunks
