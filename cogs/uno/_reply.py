"""Answering an interaction exactly once and in time.

Discord wants an acknowledgement within 3 seconds. A :class:`Reply` answers with the result
when the work behind it is quick; if it is not done after ``DEFER_AFTER`` seconds (a slow
database write, a queue of moves), it acknowledges first (deferred, privately or as an
update of the message the click came from) and the answer follows. A reply that failed is
never followed by a second, late "something went wrong".
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import io
import logging
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import discord

from cogs.uno._options import check_options
from cogs.uno.table.contracts import Refusal, StaleComponent, stale_text
from runtime.i18n import _
from runtime.logs import about
from runtime.metrics import metrics_of
from runtime.priority import PRIORITY
from settings import MAX_LAG_MS

log = logging.getLogger(__name__)

DEFER_AFTER = 1.5
"""Seconds (of the interaction's age) after which it is acknowledged before it is answered."""
BUSY_AFTER = 1.5
"""An interaction that reaches its handler this old (the bot is past capacity) is not
worked on: it gets a quick "busy, try again" and nothing changes."""
MAX_LAG = MAX_LAG_MS / 1000
"""While the event loop runs what is due this many seconds late on average, a new
interaction is answered "busy" at once (the setting: ``settings.MAX_LAG_MS``). A loop that
stays behind runs every ready step of every click in hand before it comes back to any of
them, so each click in hand slows every other: past that point turning new clicks away
keeps the ones taken quick, and the ones turned away get an answer in time rather than
"This interaction failed". Measured (bench/README.md "Overload"): at 1,000 tables and 100
turns/s asked not one click was turned away; with the lateness taken as the most of the
last half second instead of the mean, a machine whose cores were shared turned away 8 %
to a third of the clicks (300 turns/s asked) while the bot had CPU to spare."""
MAX_WAITING = 40
"""While more clicks than this wait for their answer (arrived, not answered: clicks first,
``runtime.priority``), a new interaction is answered "busy" at once. Each click in hand
waits for a step of every other, so past capacity the wait grows with their number, and
an answer started late cannot make Discord's 3 s: turning new ones away keeps the ones
taken in time (bench/README.md, "Overload")."""
TOO_LATE = 2.7
"""Past this age an acknowledgement would arrive after Discord's 3 seconds: none is sent."""
EXPIRED = (10062, 40060)
"""Unknown interaction (too late) and already acknowledged: no further answer can work."""


class _BusyLog:
    """Overload is logged once a minute at most, with how many clicks it turned away."""

    def __init__(self) -> None:
        self.late = 0
        self.late_age = 0.0
        """The age of the last interaction that reached its handler too late."""
        self.crowded = 0
        self.last = 0.0

    def note(self, age: float, crowded: bool) -> None:
        if crowded:
            self.crowded += 1
        else:
            self.late += 1
            self.late_age = age
        now = time.monotonic()
        if now - self.last >= 60:
            log.warning("Past capacity: %d interactions answered busy since the last report "
                        "(%d reached their handler too late, the last %.1f s old; %d came "
                        "while the event loop ran over %.0f ms late or over %d clicks "
                        "waited)", self.late + self.crowded, self.late, self.late_age,
                        self.crowded, _LAG.limit * 1000, MAX_WAITING)
            self.late = self.crowded = 0
            self.last = now


_BUSY = _BusyLog()


class _Skew:
    """How far this machine's clock is from Discord's, as the smallest apparent age of the
    interactions seen in each of the last ten minutes (the quickest ones arrive within
    milliseconds). A host clock that is seconds off would otherwise make every click look
    late, and be answered "busy"."""

    MINUTES = 10

    def __init__(self) -> None:
        self.minima: deque[tuple[int, float]] = deque()

    def note(self, raw_age: float, now: float) -> float:
        """Record an interaction's apparent age; return the clock's offset."""
        minute = int(now // 60)
        if self.minima and self.minima[-1][0] == minute:
            if raw_age < self.minima[-1][1]:
                self.minima[-1] = (minute, raw_age)
        else:
            self.minima.append((minute, raw_age))
        while self.minima[0][0] <= minute - self.MINUTES:
            self.minima.popleft()
        return self.offset()

    def offset(self) -> float:
        return min((m for _minute, m in self.minima), default=0.0)


_SKEW = _Skew()


def age_of(interaction: discord.Interaction[Any], *, first: bool = False) -> float:
    """Seconds since Discord created the interaction (its id holds the time), corrected
    for this machine's clock offset. ``first``: the interaction's first look (noted for
    the offset)."""
    return age_since(interaction.created_at, first=first)


def age_since(created_at: datetime.datetime, *, first: bool = False) -> float:
    """:func:`age_of` for an interaction known by when Discord created it."""
    raw = (discord.utils.utcnow() - created_at).total_seconds()
    offset = _SKEW.note(raw, time.time()) if first else _SKEW.offset()
    return max(0.0, raw - offset)


KEEP_WRITES = 10.0
"""Seconds a message's count of edits is kept after a write even when nothing refers to it
(a picture of what a new message shows is registered only once its post returned: an edit
that came meanwhile must still be counted)."""


class _Writes:
    """The bot's writes to one message: how many edits, and the lock each edit holds while
    it is sent (so two edits of the message are never in flight at once)."""

    __slots__ = ("__weakref__", "edits", "last", "lock")

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.edits = 0
        self.last = 0.0
        """When it was last looked up for a write (monotonic seconds)."""


_WRITES: weakref.WeakValueDictionary[int, _Writes] = weakref.WeakValueDictionary()
"""Each message's writes, while a Reply or a picture on its way refers to them."""
_RECENT: OrderedDict[int, _Writes] = OrderedDict()
"""The writes of the last ``KEEP_WRITES`` seconds, kept alive for that long (oldest write
first; a write moves its message to the end: no object is made per write, which would
outlive the young garbage collections)."""


def _writes_of(message_id: int) -> _Writes:
    now = time.monotonic()
    while _RECENT:
        oldest = next(iter(_RECENT.values()))
        if oldest.last >= now - KEEP_WRITES:
            break
        _RECENT.popitem(last=False)
    writes = _WRITES.get(message_id)
    if writes is None:
        writes = _WRITES[message_id] = _Writes()
    writes.last = now
    _RECENT[message_id] = writes
    _RECENT.move_to_end(message_id)
    return writes


@contextlib.asynccontextmanager
async def writing(message_id: int | None) -> AsyncIterator[None]:
    """Hold ``message_id``'s write lock for an edit that is not a Reply's (a hand panel's,
    through its token): the edit waits for one in flight and counts as a new version of
    the message (a picture drawn for what it showed before is not added any more)."""
    if message_id is None:
        yield
        return
    writes = _writes_of(message_id)
    async with writes.lock:
        writes.edits += 1
        yield


class Shown:
    """What a Reply wrote: a message, as of one of its writes (its post, or an edit)."""

    def __init__(self, message_id: int, writes: _Writes, edits: int) -> None:
        self.message_id = message_id
        self._writes = writes
        self._edits = edits

    @contextlib.asynccontextmanager
    async def unchanged(self) -> AsyncIterator[bool]:
        """Holds back every other edit of the message (answers to clicks on it) while
        the caller edits it; yields whether the message still shows what this Reply
        wrote (no edit came since)."""
        async with self._writes.lock:
            yield (_WRITES.get(self.message_id) is self._writes
                   and self._writes.edits == self._edits)


_FLEETING: set[asyncio.Task[None]] = set()
"""Short answers waiting to remove themselves (``Reply.fleeting``)."""


class Reply:
    def __init__(self, interaction: discord.Interaction[Any], *, edit: bool = False,
                 public: bool = False, defer_after: float = DEFER_AFTER) -> None:
        self.interaction = interaction
        self.edit = edit
        """Replace the message the click came from (a private menu) instead of adding one."""
        self.public = public
        self.attempted = False
        self.expired = False
        """Discord refused an acknowledgement as too late or repeated: say nothing more."""
        self.shown: Shown | None = None
        """The message this reply posted or edited, as it wrote it (None: not known)."""
        self.acked = False
        """Its acknowledgement went out (and was counted, with its age: /metrics)."""
        self._deferred: asyncio.Task[None] | None = None
        self._timer = asyncio.get_running_loop().call_later(
            max(0.0, defer_after - age_of(interaction)), self._defer_now)

    def _defer_now(self) -> None:
        if self.interaction.response.is_done() or self.attempted:
            return
        if age_of(self.interaction) >= TOO_LATE:
            self.expired = True  # an acknowledgement now would be late: none at all
            return
        self._deferred = asyncio.create_task(self._defer())

    async def _defer(self) -> None:
        response = self.interaction.response
        PRIORITY.answered(self.interaction.id)
        try:
            if self.edit:
                await response.defer()
            else:
                await response.defer(ephemeral=not self.public, thinking=True)
            self._acked()
        except discord.HTTPException as exc:
            self.expired = self.expired or exc.code in EXPIRED
            log.warning("Deferring interaction %s failed: %s", self.interaction.id, exc)

    def cancel(self) -> None:
        self._timer.cancel()

    def _acked(self) -> None:
        """The acknowledgement went out: its age counted once (/metrics)."""
        if not self.acked:
            self.acked = True
            metrics_of(self.interaction.client).acked(age_of(self.interaction))

    async def refuse(self, text: str) -> None:
        """A one-sentence refusal, privately. A public command already deferred (its
        "thinking..." shows in the channel) has that removed first, since a follow-up keeps
        the visibility of the deferral."""
        self._timer.cancel()
        if self._deferred is not None:
            await self._deferred
            if self.expired:
                return
            if self.public and not self.edit:
                self.attempted = True
                try:
                    await self.interaction.delete_original_response()
                except discord.HTTPException as exc:
                    log.warning("Could not remove the deferred answer of %s: %s",
                                self.interaction.id, exc)
                await self.interaction.followup.send(
                    text[:2000], ephemeral=True, allowed_mentions=discord.AllowedMentions.none())
                return
        await self.send(text, edit=False, public=False)

    async def quiet(self) -> bool:
        """Acknowledge a click without a message or a change to the message clicked (its
        answer shows elsewhere: the player's panel). False when that is no longer possible
        (the click was already acknowledged otherwise): answer as usual then."""
        if self._deferred is not None or self.attempted or self.expired:
            return False
        self._timer.cancel()
        self.attempted = True
        PRIORITY.answered(self.interaction.id)
        try:
            await self.interaction.response.defer()
            self._acked()
        except discord.HTTPException as exc:
            self.expired = self.expired or exc.code in EXPIRED
            log.warning("Acknowledging interaction %s failed: %s", self.interaction.id, exc)
        return True

    async def fleeting(self, text: str, life: float) -> None:
        """A short private answer that removes itself after ``life`` seconds: Discord wants
        every interaction answered, and a command whose real answer shows elsewhere (a
        typed move, in the player's hand panel) must not leave a message behind."""
        await self.send(text, edit=False, public=False)
        if self.expired:
            return
        task = asyncio.create_task(self._remove_after(life))
        _FLEETING.add(task)
        task.add_done_callback(_FLEETING.discard)

    async def _remove_after(self, life: float) -> None:
        await asyncio.sleep(life)
        try:
            await self.interaction.delete_original_response()
        except discord.HTTPException as exc:
            log.info("Removing the answer of %s failed: %s", self.interaction.id, exc)

    async def menu(self, menu: tuple[str, discord.ui.View | None], *,
                   image: bytes | None = None, image_name: str = "hand.png") -> int | None:
        """A private menu: its text and its components, and the picture of the hand it
        shows (``image``, PNG; an edited menu without one loses the old picture)."""
        file = discord.File(io.BytesIO(image), filename=image_name) if image else None
        return await self.send(menu[0], view=menu[1], file=file, replace_files=True)

    async def send(self, content: str | None = None, *, view: discord.ui.View | None = None,
                   embed: discord.Embed | None = None, clear_embed: bool = False,
                   file: discord.File | None = None, replace_files: bool = False,
                   public: bool | None = None, edit: bool | None = None,
                   mention: discord.abc.Snowflake | None = None) -> int | None:
        """The answer (once). Returns the id of the message it created, if known. An edit
        with ``replace_files`` puts ``file`` (or nothing) in place of the message's files.
        ``mention``: the one user a new message may notify (no one else, ever).
        An edit of the message clicked waits for an edit of it in flight (a hand's picture
        being added) and counts as a new version of it: a picture drawn for what it showed
        before is not added any more (``Shown.unchanged``)."""
        message = self.interaction.message
        if (self.edit if edit is None else edit) and message is not None:
            writes = _writes_of(message.id)
            async with writes.lock:
                writes.edits += 1
                self.shown = Shown(message.id, writes, writes.edits)
                return await self._send(content, view=view, embed=embed,
                                        clear_embed=clear_embed, file=file,
                                        replace_files=replace_files, public=public, edit=edit)
        message_id = await self._send(content, view=view, embed=embed,
                                      clear_embed=clear_embed, file=file,
                                      replace_files=replace_files, public=public, edit=edit,
                                      mention=mention)
        if message_id is not None:
            # A new message: its post is its version 0 (an edit that came before this
            # line, from a click on it, was counted and makes it out of date).
            self.shown = Shown(message_id, _writes_of(message_id), 0)
        return message_id

    async def _send(self, content: str | None, *, view: discord.ui.View | None,
                    embed: discord.Embed | None, clear_embed: bool,
                    file: discord.File | None, replace_files: bool, public: bool | None,
                    edit: bool | None, mention: discord.abc.Snowflake | None = None
                    ) -> int | None:
        self._timer.cancel()
        if self._deferred is not None:
            await self._deferred
        self.attempted = True
        if self.expired:
            log.info("Interaction %s expired before it could be answered", self.interaction.id)
            return None
        edit = self.edit if edit is None else edit
        public = self.public if public is None else public
        interaction = self.interaction
        mentions = discord.AllowedMentions.none() if mention is None else \
            discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                    users=[mention])
        kwargs: dict[str, Any] = {"content": content[:2000] if content is not None else None}
        if embed is not None:
            kwargs["embed"] = embed
        elif clear_embed and edit:
            kwargs["embed"] = None
        edit_files: dict[str, Any] = (
            {"attachments": [file] if file is not None else []} if replace_files else {})
        if not interaction.response.is_done():
            PRIORITY.answered(interaction.id)  # work that gave way to it goes on
            if edit and interaction.message is not None:
                await interaction.response.edit_message(view=view, **kwargs, **edit_files)
                self._acked()
                return interaction.message.id
            extra: dict[str, Any] = {"view": view} if view is not None else {}
            if file is not None:
                extra["file"] = file
            response = await interaction.response.send_message(
                ephemeral=not public, allowed_mentions=mentions, **kwargs, **extra)
            self._acked()
            message_id = getattr(response, "message_id", None)
            return int(message_id) if message_id is not None else None
        if edit and self._deferred is not None and interaction.message is not None:
            await interaction.edit_original_response(view=view, **kwargs, **edit_files)
            return interaction.message.id
        extra = {"view": view} if view is not None else {}
        if file is not None:
            extra["file"] = file
        message = await interaction.followup.send(
            ephemeral=not public, wait=True, allowed_mentions=mentions,
            **{k: v for k, v in kwargs.items() if v is not None}, **extra)
        return message.id


class _Lag:
    """How late the event loop runs what is due: a tick every ``TICK`` seconds notes how
    late it ran; ``recent`` is the mean of the last ``KEPT`` (half a second or more), so one
    long step (a collection, the process waiting for a core) weighs a tenth of its length,
    and a loop that stays behind weighs fully. A busy loop runs every ready step of every
    click in hand before it comes back to any of them: this is how long each step waits."""

    TICK = 0.05
    KEPT = 10

    def __init__(self) -> None:
        self.limit = MAX_LAG
        self._late: deque[float] = deque(maxlen=self.KEPT)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._due = 0.0

    def recent(self) -> float:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # first use on this loop (tests run several)
            self._loop = loop
            self._late.clear()
            self._due = loop.time() + self.TICK
            loop.call_at(self._due, self._tick, loop)
        return sum(self._late) / self.KEPT

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        if loop is not self._loop:  # another loop took over: this one's ticks stop
            return
        now = loop.time()
        self._late.append(now - self._due)
        self._due = now + self.TICK
        loop.call_at(self._due, self._tick, loop)

    def crowded(self) -> bool:
        return 0 < self.limit < self.recent()


_LAG = _Lag()


def limit_lag(seconds: float) -> None:
    """New interactions are answered "busy" while the event loop runs this late (0: never);
    see MAX_LAG."""
    _LAG.limit = max(0.0, seconds)


async def answer(interaction: discord.Interaction[Any], work: Callable[[Reply], Awaitable[None]],
                 *, edit: bool = False, public: bool = False) -> None:
    """Every entry point's one error handler: run ``work`` with a Reply (a slash command's
    options first checked against what it declares, ``_options``); a refusal becomes
    one private sentence; a failure is logged and answered once, unless an answer was
    already attempted (a second, late "something went wrong" would only confuse).

    Once answered, the interaction lets go of the message it came from (discord.py built
    it for the click, its components and all; the answer has read what it needed): a hand
    panel keeps its last interaction for 15 minutes, to edit the panel through its token,
    and every full garbage collection would walk that message's objects meanwhile."""
    guild = interaction.guild
    try:
        with about(shard=guild.shard_id if guild is not None else None):
            outcome = await _answer(interaction, work, edit=edit, public=public)
    except BaseException:
        outcome = "failed"
        raise
    finally:
        PRIORITY.answered(interaction.id)
        interaction.message = None
        metrics_of(interaction.client).interaction(interaction.type.name, outcome)


async def _answer(interaction: discord.Interaction[Any],
                  work: Callable[[Reply], Awaitable[None]], *, edit: bool,
                  public: bool) -> str:
    """Answer, and say how it went (``runtime.metrics.OUTCOMES``)."""
    age = age_of(interaction, first=True)
    crowded = _LAG.crowded() or PRIORITY.waiting > MAX_WAITING
    if age < BUSY_AFTER and not crowded:
        return await _handle(interaction, work, edit=edit, public=public)
    # Past capacity: do nothing rather than answer late; a prompt "busy" if there is still
    # time for one.
    _BUSY.note(age, crowded)
    log.debug("Interaction %s (%.1f s old, the loop %.0f ms late) answered busy",
              interaction.id, age, _LAG.recent() * 1000)
    if age >= TOO_LATE:
        return "late"
    reply = Reply(interaction, edit=edit, public=public, defer_after=TOO_LATE)
    reply.cancel()
    await _refuse(reply, _("The bot is very busy right now and did nothing: try again "
                           "in a moment.", interaction.locale))
    return "busy"


async def _handle(interaction: discord.Interaction[Any],
                  work: Callable[[Reply], Awaitable[None]], *, edit: bool,
                  public: bool) -> str:
    reply = Reply(interaction, edit=edit, public=public)
    outcome = "answered"
    try:
        check_options(interaction)
        await work(reply)
    except Refusal as refusal:  # translated now, for its reader
        outcome = "refused"
        await _refuse(reply, refusal.text(interaction.locale))
    except StaleComponent:
        outcome = "refused"
        await _refuse(reply, stale_text(interaction.locale))
    except Exception:
        outcome = "failed"
        log.exception("Interaction %s failed", (interaction.data and
                      interaction.data.get("custom_id")) or
                      (interaction.command.qualified_name if interaction.command else "?"))
        if not reply.attempted:
            await _refuse(reply, _("Something went wrong; nothing was changed.",
                                   interaction.locale))
    finally:
        reply.cancel()
    return "late" if reply.expired and outcome != "failed" else outcome


async def _refuse(reply: Reply, text: str) -> None:
    try:
        await reply.refuse(text)
    except discord.HTTPException as exc:
        log.warning("Could not answer interaction %s: %s", reply.interaction.id, exc)
