"""The outbox: the only code that writes to channels. It queues, paces and routes the
writes and maps Discord's errors; what a table says comes from ``_table_post.py``.

Announcements are queued per channel (never awaited by the table service, never under a
game's lock) and gathered with the live table into one message. The table is **edited in
place** while chat has not buried it and no turn needs a notification; a new table is
posted (and the old one closed) only when chat has buried it (more than ``UNO_TABLE_BURY``
messages below it, counted from the gateway's MESSAGE_CREATE: ``seen``), a round ended,
someone asked for it, or its picture changed and Discord refuses edits that bring one
(discord-api-docs issue 7529). A player who must be notified (their turn came while they
were away) gets a reminder of their own below the table, deleted once they acted
(``_remind``): the table is never posted anew to notify, which would push the hand panels
up. The channel's newest message ids (``below``) tell the panels how far up they are.

Discord's limits decide the route (``_pacing.py``). A table is posted through a recent
interaction of its channel when there is one (the click that moved the game, usually: its
webhook is outside the global limit), edited through the token that posted it while that
token lives, and otherwise through the channel routes, paced per channel and by one budget
for the whole process (``global_writes`` per second, below Discord's 50 so the bot's other
requests fit). Each wait happens before the message is composed, so a table that waits shows
the latest state: updates coalesce, never queue up.

A 403 (the bot may not post) or a 404 (the channel is gone) is reported to the table service
once, which pauses or ends the game; on shutdown what is queued is flushed in time.

Where the bot is not a member of the channel (a group DM, a server that only a user install
reaches: ``_places.py``) a game lives **in replies**: every write goes through the game's
newest interaction token, never the channel's routes. A table is edited through the token
that posted it while that lives; once it is near its end the next write posts the table
anew through a newer one (every click renews the chain), and a minute before the last one
ends the table says so (``_arm_lapse``): the next click brings it back. A write that finds
no usable token waits for the next interaction of the channel; a message whose token is
gone is left as it is (a closed table keeps its buttons, which answer "out of date").
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import discord

from cogs.uno._pacing import Buckets, Budget, Carrier, Token, answered, settled, usable
from cogs.uno._places import in_replies
from cogs.uno._result_post import result_post
from cogs.uno._table_post import (
    MAX_MESSAGE,
    Compose,
    PictureMoved,
    TablePost,
    TableStyle,
    chunks,
    fixed,
    lobby_post,
    reminder_post,
    text_post,
)
from cogs.uno.table.contracts import REQUIRED_PERMISSIONS, THREAD_PERMISSIONS, missing_permissions
from cogs.uno.table.session import Session
from runtime.i18n import _
from runtime.priority import PRIORITY
from settings import CHANNEL_WRITES, TABLE_BURY

log = logging.getLogger(__name__)

MAX_WAITING_CARRIERS = 256
"""Interactions kept for channels that have no game yet (the newest ones)."""
RECENT = 16
"""The newest messages of a channel kept (ids only) to tell what lies below a message."""
MIN_POST_GAP = 0.5
"""Seconds gathered before a post, so a move and its consequences go out together."""
UNKNOWN_CHANNEL = 10003
UNKNOWN_MESSAGE = 10008
UNKNOWN_WEBHOOK = 10015
INVALID_TOKEN = 50027
THREAD_ARCHIVED = 50083
"""An edit in a thread Discord archived for inactivity (a post reopens the thread)."""

LAPSE_NOTICE = 60.0
"""Seconds before a replies-only table's newest token ends that the table says so."""
REPLIES_WAIT = 60.0
"""Seconds a replies-only write waits for an interaction before it checks whether its game
is still on (one that ended is not waited for any longer)."""

LostCallback = Callable[[int, bool], Awaitable[None]]
TableCallback = Callable[[Session], Awaitable[None]]
Route = Token | None
"""How a write reaches Discord: an interaction's followup webhook, or the channel (None)."""


@dataclass(frozen=True, slots=True)
class Reminder:
    """A reminder posted below a table: its message, the player it notified, and when
    (monotonic; a move of theirs after that time ends it)."""

    message_id: int
    pid: str
    at: float


@dataclass
class _Channel:
    guild_id: int
    post: TablePost
    """The table's composition: what its next post or edit says."""
    session: Session | None = None
    lines: list[str] = field(default_factory=list)
    lasting: list[str] = field(default_factory=list)
    """Lines that stay in the channel as their own message (posted before the table)."""
    posts: list[Compose] = field(default_factory=list)
    """Messages of their own, posted after the lines (a finished game's result)."""
    table: bool = False
    fresh: bool = False
    """Post the table anew (a round ended, someone asked for it) instead of editing it."""
    mention: str | None = None
    """The player a reminder is to notify (their turn came while they were away)."""
    reminder: Reminder | None = None
    """The reminder below the table, deleted once its player acted or the turn moved on."""
    recent: deque[int] = field(default_factory=lambda: deque(maxlen=RECENT))
    """The newest messages of the channel (ids, from the gateway, deleted ones gone)."""
    edits: dict[int, Compose] = field(default_factory=dict)
    """Messages to edit (id → what to send), newest wish wins."""
    task: asyncio.Task[None] | None = None
    last_post: float = 0.0
    buckets: Buckets = field(default_factory=Buckets)
    lost: bool = False
    carrier: Carrier = None
    """The newest interaction in this channel: its webhook can post for 15 minutes."""
    via_for: dict[int, Token] = field(default_factory=dict)
    """Messages posted through an interaction's webhook (id → the interaction)."""
    denied: bool = False
    """The newest interaction showed the bot lacks a permission to post here."""
    carried: asyncio.Event | None = None
    """Set when an interaction comes while a post waits for the channel route's turn."""
    editing: int | None = None  # the message an edit is being sent for (answered_in_place)
    replies: bool = False
    """The game lives in interaction replies: the bot is not a member of the channel, so
    no write takes the channel's routes (``_places.py``)."""
    lapse: asyncio.TimerHandle | None = None
    """When the table says its chain of tokens is about to end (replies only)."""

    def drop(self) -> None:
        """Forget what waits to be posted (the channel is lost)."""
        self.lines, self.lasting, self.posts, self.edits, self.table = [], [], [], {}, False


class ChannelLost(Exception):
    def __init__(self, gone: bool) -> None:
        super().__init__("channel gone" if gone else "missing permissions")
        self.gone = gone


def _taker(box: _Channel, taken: list[str]) -> Callable[[], list[str]]:
    """What takes the channel's waiting lines into ``taken`` (the lines its table brings)."""
    def take() -> list[str]:
        lines, box.lines = box.lines, []
        taken.extend(lines)
        box.table = False
        return taken
    return take


class Outbox:
    def __init__(self, client: discord.Client, *, time_scale: float = 1.0,
                 global_writes: float = CHANNEL_WRITES, v2: bool = True,
                 bury: int = TABLE_BURY) -> None:
        self.client = client
        self.style = TableStyle(v2=v2, bury=bury)
        """How every table is written: V2 or embed, whether edits bring a new picture."""
        self.scale = min(1.0, max(time_scale, 0.05))
        self.on_lost: LostCallback | None = None
        self.on_table: TableCallback | None = None
        """Called when a session's table was posted anew (its message id is to be saved,
        so that after a restart the bot knows which table to close)."""
        self.is_live: Callable[[Session], bool] = lambda session: True
        """Set by the owner: whether a session is still the channel's live one."""
        self._channels: dict[int, _Channel] = {}
        self._carriers: OrderedDict[int, discord.Interaction[Any]] = OrderedDict()
        """Newest interactions of channels without a game yet (a bounded few)."""
        self._closing = False
        self._budget = Budget(global_writes)
        self._rerouted = Budget(global_writes)
        """Posts that left the channel route's queue for a click's webhook."""

    @property
    def v2(self) -> bool:
        """The table is one Components V2 message with its picture (else an embed)."""
        return self.style.v2

    @property
    def picture_edits(self) -> bool:
        """Edits may bring a table's new picture (False once Discord refused one)."""
        return self.style.picture_edits

    # ------------------------------------------------------------------ what to post
    def announce(self, session: Session, lines: Sequence[str], *, table: bool = True,
                 mention: str | None = None, fresh: bool = False,
                 lasting: bool = False, result: bool = False) -> None:
        """Queue ``lines`` with the table (``table``: the game goes on). ``fresh``: post the
        table anew rather than edit it; ``lasting``: the lines are a record that stays in the
        channel (a round's result), posted as their own message, not edited away later;
        ``result``: the finished game's result follows them (its own message)."""
        box = self._box(session.channel_id, session.guild_id, session.replies)
        if result:
            box.posts += result_post(session, lambda: box.post.attach)
        box.session = session
        box.post.change(session, table)
        if lasting:
            box.lasting.extend(box.lines)
            box.lasting.extend(line[:MAX_MESSAGE] for line in lines if line)
            box.lines.clear()
            lines = ()
        box.lines.extend(line[:MAX_MESSAGE] for line in lines if line)
        box.table = box.table or table
        box.fresh = box.fresh or fresh
        if mention is not None:
            box.mention = mention
        if not table and session.table_message_id is not None:
            # The game is over or gone: its last table loses its buttons.
            stale = session.table_message_id
            session.table_message_id = None
            box.edits[stale] = box.post.ended(stale, session)
        self._kick(session.channel_id, box)

    def notice(self, channel_id: int, guild_id: int, lines: Sequence[str]) -> None:
        box = self._box(channel_id, guild_id)
        box.lines.extend(lines)
        self._kick(channel_id, box)

    def refresh_lobby(self, session: Session, now: Compose | None = None) -> None:
        """Show the lobby as it is now on its message (or ``now``: what to show instead)."""
        if session.lobby_message_id is None:
            return
        box = self._box(session.channel_id, session.guild_id, session.replies)
        box.edits[session.lobby_message_id] = now or lobby_post(session)
        self._kick(session.channel_id, box)

    def answered_in_place(self, session: Session, message_id: int,
                          now: Compose | None = None) -> None:
        """A click's answer edited lobby ``message_id``: an edit of it under way, composed
        before, would land over it with the lobby as it was, so edit it again (``now``:
        what the answer made of it, e.g. ``LOBBY_GONE``; by default the lobby as it is)."""
        if (box := self._channels.get(session.channel_id)) and box.editing == message_id:
            self.refresh_lobby(session, now)

    def close_message(self, session: Session, message_id: int | None) -> None:
        """Take the buttons off a message (a closed lobby, an old table)."""
        if message_id is None:
            return
        box = self._box(session.channel_id, session.guild_id, session.replies)
        box.edits[message_id] = box.post.closed(message_id, None)
        self._kick(session.channel_id, box)

    def answered_with(self, session: Session, message_id: int,
                      interaction: discord.Interaction[Any]) -> None:
        """``message_id`` is ``interaction``'s answer (a lobby posted by ``/uno new``):
        its token edits it while it lives (where the game lives in replies, nothing else
        can)."""
        box = self._box(session.channel_id, session.guild_id, session.replies)
        route = usable(interaction)
        if route is not None:
            box.via_for[message_id] = route

    def reopen(self, channel_id: int) -> None:
        """The bot may post in the channel again (after a pause)."""
        box = self._channels.get(channel_id)
        if box is not None:
            box.lost = False

    # ------------------------------------------------------------------ what happens
    def carry(self, interaction: discord.Interaction[Any]) -> None:
        """An interaction in a channel: its webhook may carry the channel's table (kept
        for the channel's game, or briefly for a channel whose game may be starting)."""
        channel_id = interaction.channel_id or 0
        perms = interaction.app_permissions
        needed = (THREAD_PERMISSIONS if isinstance(interaction.channel, discord.Thread)
                  else REQUIRED_PERMISSIONS)
        replies = in_replies(interaction)
        # (in replies a webhook is the only way, and needs no permission in the channel)
        may_post = replies or not missing_permissions(perms, needed)
        box = self._channels.get(channel_id)
        if box is not None:
            box.post.attach = bool(perms.attach_files)
            # A webhook could post (and the bot edit its table) without these permissions;
            # the bot respects them: its next table goes by the channel route, meets the 403
            # and the game pauses until it may post again.
            box.carrier = interaction if may_post else None
            box.denied = not may_post
            if may_post and box.carried is not None:
                box.carried.set()  # a post waiting for the channel route takes this webhook
            return
        if not may_post:
            self._carriers.pop(channel_id, None)
            return
        self._carriers[channel_id] = interaction
        self._carriers.move_to_end(channel_id)
        while len(self._carriers) > MAX_WAITING_CARRIERS:
            self._carriers.popitem(last=False)

    def seen(self, channel_id: int, message_id: int) -> None:
        """A message was posted in a channel or thread (by anyone, the bot included: the
        gateway's MESSAGE_CREATE): one more below its table, if it is newer. Past
        ``bury`` of them the table's next update posts it anew at the bottom. A count,
        no request; it starts from zero when the process does."""
        box = self._channels.get(channel_id)
        if box is None:
            return
        if not box.recent or message_id > box.recent[-1]:
            box.recent.append(message_id)
        if box.session is not None:
            box.post.seen(message_id, box.session.table_message_id)

    def gone(self, channel_id: int, message_id: int) -> None:
        """A message was deleted (the gateway's MESSAGE_DELETE): no longer below anything."""
        box = self._channels.get(channel_id)
        if box is None:
            return
        if message_id in box.recent:
            box.recent.remove(message_id)
        if box.session is not None:
            box.post.gone(message_id, box.session.table_message_id)

    def below(self, channel_id: int, message_id: int, pid: str) -> int:
        """How many messages the gateway showed in the channel after ``message_id`` that are
        still there, for player ``pid`` (counted among the channel's newest ``RECENT``; an
        ephemeral message, which the gateway does not show, is not counted, nor is another
        player's reminder: it goes once they acted)."""
        box = self._channels.get(channel_id)
        if box is None:
            return 0
        passing = (box.reminder.message_id if box.reminder is not None
                   and box.reminder.pid != pid else None)
        return sum(1 for seen in box.recent if seen > message_id and seen != passing)

    # ------------------------------------------------------------------ life cycle
    async def close(self, limit: float = 5.0) -> None:
        """Post what is queued (within ``limit`` seconds), then stop."""
        self._closing = True
        for box in self._channels.values():
            if box.lapse is not None:
                box.lapse.cancel()
            if box.replies and box.carried is not None:
                box.carried.set()  # no interaction will come: what waits for one gives up
        tasks = [b.task for b in self._channels.values() if b.task and not b.task.done()]
        if tasks:
            __done, pending = await asyncio.wait(tasks, timeout=limit)
            for task in pending:
                task.cancel()
            if pending:
                log.warning("%d channels still had announcements at shutdown", len(pending))
            await asyncio.gather(*pending, return_exceptions=True)

    # ------------------------------------------------------------------ posting
    def _box(self, channel_id: int, guild_id: int, replies: bool = False) -> _Channel:
        box = self._channels.get(channel_id)
        if box is None:
            box = self._channels[channel_id] = _Channel(guild_id, TablePost(self.style))
            box.carrier = self._carriers.pop(channel_id, None)
            if box.carrier is not None:
                box.post.attach = bool(box.carrier.app_permissions.attach_files)
        box.replies = box.replies or replies  # (the game's: its session says it)
        return box

    def _kick(self, channel_id: int, box: _Channel) -> None:
        if box.lost:
            box.drop()
            return
        if box.task is None or box.task.done():
            box.task = asyncio.create_task(self._flush(channel_id, box),
                                           name=f"uno:{channel_id}:outbox")

    async def _flush(self, channel_id: int, box: _Channel) -> None:
        try:
            if not self._closing:
                wait = box.last_post + MIN_POST_GAP * self.scale - time.time()
                await asyncio.sleep(max(0.05 * self.scale, wait))
            while box.lines or box.lasting or box.posts or box.edits or box.table:
                await PRIORITY.give_way()  # a click waiting for its answer goes first
                await self._send(channel_id, box)
                box.carrier = settled(box.carrier)  # the interaction itself is let go
                box.last_post = time.time()
                if (box.lines or box.lasting or box.posts or box.edits or box.table
                        ) and not self._closing:
                    await asyncio.sleep(MIN_POST_GAP * self.scale)
        except ChannelLost as lost:
            box.lost = True
            box.drop()
            if self.on_lost is not None:
                await self.on_lost(channel_id, lost.gone)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("Posting to channel %s failed", channel_id)
            box.lines.clear()
            box.table = False
        finally:
            # a finished task keeps its coroutine and context: not kept till the next write
            if box.task is asyncio.current_task():
                box.task = None
        if box.replies:
            self._arm_lapse(channel_id, box)
        if ((box.session is None or not self.is_live(box.session))
                and self._channels.get(channel_id) is box and not (box.lines or box.edits)):
            # Nothing more will come for this channel's game: forget its box.
            del self._channels[channel_id]

    async def _pace(self, box: _Channel, route: Route, *, reroute: bool = False) -> None:
        """Wait until one more write fits: the token's bucket for an interaction webhook;
        the channel's window and the process's budget for a channel route. ``reroute``: a
        post that would wait for the budget raises _Rerouted as soon as an interaction in
        the channel brings a webhook (after a restart every table's notice queues for the
        budget, 30 a second: a click in a channel no longer waits for its channel's turn)."""
        writes = await box.buckets.room(None if route is None else route.id, self.scale)
        if route is None:
            delay = self._budget.reserve()
            if delay > 0:
                if reroute and not box.denied:
                    if await self._carried_within(box, time.monotonic() + delay):
                        raise _Rerouted
                else:
                    await asyncio.sleep(delay)
        writes.append(time.monotonic())

    async def _carried_within(self, box: _Channel, due: float) -> bool:
        """Wait for a channel-route write's turn (monotonic ``due``), or less if an
        interaction in the channel brings a webhook that can post sooner (True): one that
        can carry a message (answered, not too old), whose turn among the posts that took
        a webhook this way comes before ``due``. Those are paced too, as many a second:
        a restart brings a click in every channel at once, and their answers come first."""
        while (left := due - time.monotonic()) > 0:
            box.carried = asyncio.Event()
            try:
                await asyncio.wait_for(box.carried.wait(), left)
            except TimeoutError:
                return False
            finally:
                box.carried = None
            await answered(box.carrier)
            if (not box.denied and usable(box.carrier) is not None
                    and self._rerouted.free_at() < due):
                await asyncio.sleep(self._rerouted.reserve())
                return True
        return False

    async def _write(self, box: _Channel, route: Route, call: Callable[[], Awaitable[Any]],
                     *, edit: bool = False) -> Any:
        """One write (paced before the caller composed it); a 403/404 on the channel raises
        ChannelLost. A webhook that no longer works leaves the caller to use the channel."""
        try:
            return await call()
        except discord.NotFound as exc:
            if exc.code == UNKNOWN_CHANNEL:
                raise ChannelLost(gone=True) from None
            if edit and exc.code == UNKNOWN_MESSAGE:
                return None  # the message was deleted: nothing to edit
            if route is not None and exc.code == UNKNOWN_WEBHOOK:
                raise _TokenGone from None
            raise
        except discord.Forbidden as exc:
            if route is not None:
                raise _TokenGone from None
            if edit and exc.code not in (50001, 50013):
                return None  # e.g. not our message
            raise ChannelLost(gone=False) from None
        except discord.HTTPException as exc:
            if route is not None and exc.code == INVALID_TOKEN:
                raise _TokenGone from None
            if edit and exc.code == THREAD_ARCHIVED:
                return None  # can't be edited now: the table is posted anew, which reopens it
            raise

    async def _attempt(self, box: _Channel, route: Route,
                       compose: Compose, send: Callable[[dict[str, Any]], Awaitable[Any]], *,
                       edit: bool = False, reroute: bool = False) -> tuple[bool, Any]:
        """Wait for room on ``route``, compose (so the newest state goes), write. Returns
        whether there was something to send, and what the write returned."""
        for retry in (False, True):
            await self._pace(box, route, reroute=reroute and not retry)
            body = await compose()
            if body is None:
                return False, None
            try:
                return True, await self._write(box, route, partial(send, body), edit=edit)
            except ChannelLost as lost:
                if retry or lost.gone or not box.post.attach or not _uploads(body):
                    raise
            # The bot may write here but not attach files: the table goes without its
            # picture (the next interaction in the channel says whether it may again).
            log.warning("Channel %s refused the table's picture (Attach Files is missing): "
                        "its tables go without it",
                        box.session.channel_id if box.session else "?")
            box.post.attach = False
        raise AssertionError("unreachable")

    async def _post(self, box: _Channel, channel: discord.PartialMessageable,
                    compose: Compose) -> int | None:
        """Post a new message: through the channel's newest interaction when it can, else
        the channel route, unless an interaction comes while that waits for its turn.
        Returns its id (None: there was nothing to post). In replies: through the newest
        interaction's webhook only, waiting for one if there is none."""
        while box.replies:
            route = await self._newest_token(box)
            if route is None:
                return None  # shutting down: nothing can carry it
            try:
                return await self._post_through(box, route, compose)
            except _TokenGone:
                box.carrier = None
        while True:
            await answered(box.carrier)
            route = None if box.denied else usable(box.carrier)
            if route is not None:
                box.carrier = route  # the interaction itself need not be kept
                try:
                    return await self._post_through(box, route, compose)
                except _TokenGone:
                    box.carrier = None
            try:
                sent, message = await self._attempt(box, None, compose,
                                                    lambda body: channel.send(**body),
                                                    reroute=True)
            except _Rerouted:
                continue
            return int(message.id) if sent else None

    async def _newest_token(self, box: _Channel) -> Token | None:
        """The newest usable interaction token of a replies-only channel, waiting for an
        interaction when there is none (None: the bot is shutting down, or the game is over
        and nobody came for a minute: what waited is dropped, nothing is kept for it)."""
        while not self._closing:
            await answered(box.carrier)
            route = usable(box.carrier)
            if route is not None:
                box.carrier = route
                return route
            box.carried = asyncio.Event()
            try:
                await asyncio.wait_for(box.carried.wait(), REPLIES_WAIT * self.scale)
            except TimeoutError:
                if box.session is None or not self._is_live(box.session):
                    return None
            finally:
                box.carried = None
        return None

    async def _post_through(self, box: _Channel, route: Token, compose: Compose) -> int | None:
        """Post through an interaction's webhook (raises _TokenGone if it no longer works)."""
        sent, message_id = await self._attempt(box, route, compose,
                                               partial(_post_through, route.webhook))
        if not sent:
            return None
        box.via_for[message_id] = route
        while len(box.via_for) > 4:
            del box.via_for[next(iter(box.via_for))]
        return int(message_id)

    async def _edit(self, box: _Channel, channel: discord.PartialMessageable, message_id: int,
                    compose: Compose, *, reroute: bool = False) -> bool:
        """Edit a message through the webhook that posted it while that lives, else the
        channel route (``reroute``: raising _Rerouted if an interaction comes while that
        waits for its turn). False when the message is gone (or nothing was to send)."""
        route = usable(box.via_for.get(message_id))
        if route is not None:
            token = route
            try:
                sent, done = await self._attempt(
                    box, route, compose,
                    lambda body: token.webhook.edit_message(message_id, **body), edit=True)
            except _TokenGone:
                box.via_for.pop(message_id, None)
            else:
                return sent and done is not None
        if box.replies:
            return False  # its token is gone, and the channel is not the bot's to write in
        message = channel.get_partial_message(message_id)
        sent, done = await self._attempt(box, None, compose,
                                         lambda body: message.edit(**body), edit=True,
                                         reroute=reroute)
        return sent and done is not None

    async def _send(self, channel_id: int, box: _Channel) -> None:
        channel = self.client.get_partial_messageable(channel_id, guild_id=box.guild_id)
        session = box.session
        edits, box.edits = box.edits, {}
        lasting, box.lasting = box.lasting, []
        for chunk in chunks(lasting):
            await self._post(box, channel, text_post(chunk))
        if box.table and session is not None and self._is_live(session):
            await self._send_table(box, channel, session)
        else:
            box.table = False
        if session is not None:
            await self._remind(box, channel, session)
        if not (box.table and session is not None and self._is_live(session)):
            # (lines that came with a table while this one was written wait for it)
            lines, box.lines = box.lines, []
            for chunk in chunks(lines):
                await self._post(box, channel, text_post(chunk))
            while box.posts:
                await self._post(box, channel, box.posts.pop(0))
        for message_id, compose in edits.items():
            box.editing = message_id  # (left set by an error: one needless edit at most)
            await self._edit(box, channel, message_id, compose)
        box.editing = None

    async def _remind(self, box: _Channel, channel: discord.PartialMessageable,
                      session: Session) -> None:
        """The reminder of a turn (R-BOT-MENTION): a message of its own below the table,
        which notifies its player, deleted once they acted or the turn moved on, so the
        table is never posted anew to notify and a reminder never outlives its use."""
        old, game = box.reminder, session.game
        if old is not None and (
                box.mention is not None or game is None or game.is_over or game.turn != old.pid
                or (session.last_acted.get(old.pid, 0.0) > old.at and game.pending is None)
                or session.paused is not None or not self._is_live(session)):
            # (their turn ended: it passed, or they acted and it came back to them, a Skip
            # between two players; it goes on while a decision of theirs pends, a card
            # drawn that they may play)
            box.reminder = None
            if old.message_id in box.recent:
                box.recent.remove(old.message_id)  # (below nothing from now: it is going)
            await self._delete(box, channel, old.message_id)
        pid, box.mention = box.mention, None
        if pid is None or not self._is_live(session) or box.replies:
            return  # (in replies, no reminder: its post would not notify anyone anyway)
        at = time.monotonic()
        message_id = await self._post(box, channel, reminder_post(session, pid))
        if message_id is not None:
            box.reminder = Reminder(message_id, pid, at)

    async def _delete(self, box: _Channel, channel: discord.PartialMessageable,
                      message_id: int) -> None:
        """Delete a message of the bot's: through the webhook that posted it while that
        lives, else the channel route (a message already gone is not an error)."""
        route = usable(box.via_for.get(message_id))
        if route is not None:
            token = route
            try:
                await self._attempt(box, route, fixed({}),
                                    lambda body: token.webhook.delete_message(message_id),
                                    edit=True)
                return
            except _TokenGone:
                box.via_for.pop(message_id, None)
        if box.replies:
            return
        message = channel.get_partial_message(message_id)
        await self._attempt(box, None, fixed({}), lambda body: message.delete(), edit=True)

    async def _send_table(self, box: _Channel, channel: discord.PartialMessageable,
                          session: Session) -> None:
        """The table, with what happened since the last one: edited in place, or posted
        anew (and the old one loses its buttons). What it says comes from ``box.post``."""
        previous = session.table_message_id
        new = previous is None or box.fresh or box.post.buried or box.denied
        if box.replies and previous is not None and not new:
            # its token is near its end (or gone, after a restart): a newer one posts it
            await answered(box.carrier)
            own, newest = usable(box.via_for.get(previous)), usable(box.carrier)
            new = own is None or (newest is not None and newest.id != own.id
                                  and own.expires - time.monotonic() < LAPSE_NOTICE * 2)
        if not new and previous not in box.via_for and not box.denied:
            # A table the channel route posted (before a restart, say) is replaced once by
            # one an interaction posts, whose token then edits it outside the global limit.
            await answered(box.carrier)
            new = usable(box.carrier) is not None
        live = partial(self._is_live, session)
        if not new:
            # Discord refused an edit bringing a new picture: a changed picture goes anew
            new = box.post.goes_anew(previous, live)
        if new:
            # lines that don't fit in the table's message go first, on their own
            parts = chunks(box.lines)
            box.lines = parts[-1:]
            for chunk in parts[:-1]:
                await self._post(box, channel, text_post(chunk))
        taken: list[str] = []
        take = _taker(box, taken)
        composed = False
        repost = False
        attached = False

        async def compose() -> dict[str, Any] | None:
            # composed at the last moment: what arrived while waiting goes out too
            nonlocal composed, attached
            body = await box.post.compose(session, new, take, live)
            if body is None:
                box.lines = taken + box.lines  # the game ended meanwhile: say it plainly
                return None
            composed = True
            attached = "attachments" in body
            return body

        if new:
            box.fresh = False
            message_id = await self._post(box, channel, compose)
            if message_id is None:
                return
            session.table_message_id = message_id
            box.post.adopt(message_id, new=True)
            if self.on_table is not None:
                await self.on_table(session)  # saved before the old one is closed
            if previous is not None:
                box.edits.pop(previous, None)
                await self._edit(box, channel, previous, box.post.closed(previous, session))
            return
        assert previous is not None
        try:
            done = await self._edit(box, channel, previous, compose,
                                    reroute=previous not in box.via_for)
        except (_Rerouted, PictureMoved):
            # a click came while this edit waited for the channel route's turn: its webhook
            # posts the table anew now (and edits it from then on); or the game moved while
            # the picture was drawn, and edits may not bring a new one
            done = False
            repost = True
        except discord.HTTPException as exc:
            if not (attached and exc.status == 400):
                raise
            # Discord refused an edit that brings a new picture into the gallery: from now
            # on a table whose picture changed is posted anew instead
            log.warning("Editing table %s with a new picture was refused (%s %s): tables "
                        "whose picture changed are posted anew from now on", previous,
                        exc.code, exc.text)
            self.style.picture_edits = False
            repost = True
            box.lines = taken + box.lines
        if repost:
            box.fresh = True
            await self._send_table(box, channel, session)
            return
        box.post.adopt(previous)
        if not done and composed:
            # the table message is gone (someone deleted it): post it anew
            if session.table_message_id == previous:
                session.table_message_id = None
            box.lines = taken + box.lines
            box.table = True
            box.fresh = True

    def _is_live(self, session: Session) -> bool:
        return self.is_live(session)

    def _arm_lapse(self, channel_id: int, box: _Channel) -> None:
        """In replies: a minute before the table's token ends, renew it through a newer
        interaction, or, if none came, say on the table that it stops updating."""
        if box.lapse is not None:
            box.lapse.cancel()
            box.lapse = None
        session = box.session
        if (session is None or session.table_message_id is None or self._closing
                or not self._is_live(session)):
            return
        own = usable(box.via_for.get(session.table_message_id))
        if own is None:
            return
        delay = max(0.0, own.expires - time.monotonic() - LAPSE_NOTICE)
        box.lapse = asyncio.get_running_loop().call_later(delay, self._lapsing, channel_id, box)

    def _lapsing(self, channel_id: int, box: _Channel) -> None:
        box.lapse = None
        session = box.session
        if (session is None or session.table_message_id is None or self._closing
                or not self._is_live(session) or self._channels.get(channel_id) is not box):
            return
        own = usable(box.via_for.get(session.table_message_id))
        if own is None:
            return
        newest = usable(box.carrier) if not isinstance(box.carrier, discord.Interaction) \
            or box.carrier.response.is_done() else None
        if newest is None or newest.id == own.id:
            box.lines.append(_("⏳ Nobody has clicked for a while: this table stops updating "
                               "in a minute. Any click (My hand, or /uno table) brings it "
                               "back.", session.options.language))
        box.table = True  # (a newer token posts it anew: the chain goes on)
        self._kick(channel_id, box)


class _Rerouted(Exception):
    """A post waiting for the channel route's turn can go through an interaction now."""


class _TokenGone(Exception):
    """An interaction's webhook no longer works (expired, unknown): use the channel."""


async def _post_through(webhook: discord.Webhook, body: dict[str, Any]) -> int:
    """Post ``body`` through an interaction's followup webhook; the new message's id."""
    if body.get("content", 0) is None:
        body = {k: v for k, v in body.items() if k != "content"}
    message = await webhook.send(wait=True, **body)
    return message.id


def _uploads(body: dict[str, Any]) -> bool:
    """Whether a message body uploads a file."""
    return "file" in body or any(isinstance(a, discord.File)
                                 for a in body.get("attachments") or ())
