"""Live hand panels: one private message per player that follows the game.

A player's hand menu (My hand, ``/uno hand``, or the answer to any click in it) is their
*panel*. Every click in it answers by editing it in place (an interaction response of type
7, which also gives the panel a fresh 15-minute token), and after every change at the table
the bot edits the panels whose view changed for their player (``show.hand.panel_key``:
their hand, their turn starting or ending, a decision that is theirs) through the token of
the last interaction that showed it (``PATCH /webhooks/{app}/{token}/messages/@original``).
A panel is never edited for another player's turn passing to a third, so a move edits
about one or two panels: the next player's (their turn starts) and a player made to draw.

Edits of one panel are sent one at a time, the newest content wins (``stamp``: every
content is numbered when it is built, from the game as saved, and an older one is never
written over a newer one, whether the newer came by a click's answer or by an edit), and
they share the message's write lock with the click answers (``_reply.writing``), so a
picture drawn for an older content is not added over a newer one. A change only notes which
panels it changed (``follow``): each is built when its edit's turn comes, from the game as
saved (under the game's lock), once for all the changes before it, and gives way to clicks
waiting for their answer (``runtime.priority``): the click that moved the game is answered
without building anyone else's panel first. A panel is registered only once its answer
has gone out, after the game's lock was released: it then catches up with the game as
saved (``_catch_up``), since a change saved in between found no panel to edit.

A panel stays in reach (R-BOT-REACH): when its player has a decision to make and more
than one message came below it (chat, a new round's table: ``lowers``, counted by the
outbox from the gateway), its next content goes in a new message at the bottom, a followup
of the interaction that shows it, and the old message is deleted (``_lower``).

Interaction tokens last 15 minutes (Discord's rule; the bot's time scale shortens it in
tests). A panel not clicked for that long can no longer be edited: a minute and a half
before its token ends it says so, with a Reopen button (a click on it is a new interaction
and makes the panel live again in place), and the bot stops following it. Panels live in
memory only: after a restart a click in an old panel makes it live again the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import logging
import time
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import discord

from cogs.uno._reply import age_since, writing
from cogs.uno.table.session import Session
from runtime.i18n import Locale, _
from runtime.priority import PRIORITY

log = logging.getLogger(__name__)

TOKEN_LIFE = 15 * 60.0
"""Seconds an interaction token can edit its message (Discord's rule)."""
CLOSE_BEFORE = 90.0
"""Seconds before its token ends that a panel says it stops following the game."""
LOWER_PAST = 1
"""Messages below a panel, at its player's decision, past which it goes down to the
bottom (one: a reminder of their turn, or the table posted anew, leaves it in place)."""

Menu = tuple[str, discord.ui.View | None]
Key = Callable[[Session, str], Hashable]
"""What a player's panel shows that matters to them (equal keys: no edit)."""
Build = Callable[[Session, str, Locale, bool], Menu]
"""A player's panel now (``True``: its token ends soon, say so and offer Reopen)."""
Picture = Callable[[], Awaitable[tuple[bytes, str] | None]]
"""Draws the picture that goes with a panel's content (its PNG and file name), off the
game's lock; None: none (the text says everything)."""
Art = Callable[[Session, str], Picture | None]
"""The picture a player's panel shows with its content now, if any (read under the
game's lock, drawn after it)."""
Content = tuple[int, Menu, Picture | None]
"""A panel's content: its number (``Panels.stamp``), its text and view, its picture."""


def moved_text(locale: Locale) -> str:
    """What a retired panel says."""
    return _("Your hand moved to a newer message below.", locale)


@dataclass(frozen=True, slots=True)
class Reach:
    """How the bot edits a panel: the last interaction that showed it, whose token edits
    its first answer (``edit_original_response``) or, once the panel was sent again lower
    down, the followup it sent (``message_id``), for 15 minutes from when Discord created
    the interaction."""

    interaction: discord.Interaction[Any]
    message_id: int | None = None
    """None: the panel is the interaction's own answer; else a followup it sent."""

    @classmethod
    def of(cls, interaction: discord.Interaction[Any]) -> Reach:
        return cls(interaction)

    def age(self) -> float:
        """Seconds since the interaction was created (``_reply.age_of``)."""
        return age_since(self.interaction.created_at)

    async def edit(self, text: str, view: discord.ui.View | None,
                   picture: tuple[bytes, str] | None = None) -> None:
        """Edit the panel to ``text``, ``view`` and ``picture`` (PNG, file name; None: the
        picture it had goes)."""
        files = _files(picture)
        if self.message_id is None:
            await self.interaction.edit_original_response(content=text, view=view,
                                                          attachments=files)
        else:
            await self.interaction.followup.edit_message(self.message_id, content=text,
                                                         view=view, attachments=files)

    async def send(self, text: str, view: discord.ui.View | None,
                   picture: tuple[bytes, str] | None = None) -> Reach:
        """Send the panel anew, at the bottom of its player's channel (a followup of the
        same interaction: its token edits it from then on), with its ``picture``."""
        followup = self.interaction.followup
        extra: dict[str, Any] = {"files": _files(picture)} if picture is not None else {}
        if view is not None:
            extra["view"] = view
        message = await followup.send(text, ephemeral=True, wait=True,
                                      allowed_mentions=discord.AllowedMentions.none(), **extra)
        return Reach(self.interaction, message.id)

    async def delete(self) -> None:
        """Delete the panel's message (it was sent again below)."""
        if self.message_id is None:
            await self.interaction.delete_original_response()
        else:
            await self.interaction.followup.delete_message(self.message_id)


def _files(picture: tuple[bytes, str] | None) -> list[discord.File]:
    """A panel's picture as the files of a request (none: no picture)."""
    return ([discord.File(io.BytesIO(picture[0]), filename=picture[1])]
            if picture is not None else [])


@dataclass(eq=False, slots=True)
class Panel:
    channel_id: int
    pid: str
    locale: Locale
    reach: Reach
    """The last interaction that showed the panel: its token edits it."""
    message_id: int | None
    key: Hashable
    written: int
    """The number (``Panels.stamp``) of the newest content shown or being shown."""
    pending: Content | None = None
    follow: Session | None = None
    """The game changed: the panel is built from it (as saved) when its edit's turn comes,
    not in the click that changed it (whose answer waits for nothing else)."""
    unsure: bool = False
    """Shown while a change held the game: the view it shows may not be the game as saved,
    and its next edit is built only if the view differs (``Panels._catch_up``)."""
    lower: bool = False
    """Its next content goes in a new message at the bottom (``Panels.lowers``)."""
    left: int | None = None
    """The message it left when it was sent again lower down (deleted, or being)."""
    built: bool = False
    """It shows content built from the game (not a click's answer, which may be a
    question the game does not hold, such as a wild's colour): it may go down as it is."""
    task: asyncio.Task[None] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Panels:
    """Every live panel, by channel and player."""

    def __init__(self, key: Key, build: Build, *, art: Art | None = None,
                 scale: float = 1.0) -> None:
        self.key = key
        self.build = build
        self.art = art
        self.life = TOKEN_LIFE * scale
        self.close_before = CLOSE_BEFORE * scale
        self.by_channel: dict[int, dict[str, Panel]] = {}
        self.newest: dict[int, dict[str, int]] = {}
        """The id of each player's newest panel message, by channel (kept after the panel
        stops being followed): an older one is retired and never becomes the panel again."""
        self._numbers = itertools.count(1)
        self.below: Callable[[int, int, str], int] | None = None
        """How many messages lie below a message of a channel, for a player (set by the
        owner: the outbox counts them from the gateway; None: panels stay where they
        are)."""
        self.edits = 0
        """Edits sent through tokens (not click answers), for the benchmark and tests."""
        self.sent_lower = 0
        """Panels sent again at the bottom (``lowers``), for the benchmark and tests."""
        self.failed = 0

    def stamp(self) -> int:
        """A number for content built now, from the game as saved (later: newer)."""
        return next(self._numbers)

    # ------------------------------------------------------------------ what was shown
    def live(self, channel_id: int | None, pid: str) -> Panel | None:
        """``pid``'s panel in the channel, if the bot can still edit it."""
        panel = self.by_channel.get(channel_id or 0, {}).get(pid)
        if panel is None or panel.reach.age() >= self.life - self.close_before:
            return None
        return panel

    def retired(self, channel_id: int | None, pid: str, message_id: int) -> bool:
        """Whether ``message_id`` is an older panel of ``pid`` than their newest one (it
        says the hand moved below, and never becomes their panel again)."""
        return message_id < self.newest.get(channel_id or 0, {}).get(pid, 0)

    def expect(self, session: Session, pid: str, key: Hashable) -> None:
        """``pid``'s answer, built under the game's lock, will show their view ``key``:
        the announcement of the same change leaves their panel to it."""
        panel = self.by_channel.get(session.channel_id, {}).get(pid)
        if panel is not None:
            panel.key = key

    def shown(self, session: Session, pid: str, locale: Locale,
              interaction: discord.Interaction[Any], message_id: int | None, key: Hashable,
              number: int, menu: Menu | None = None, picture: Picture | None = None
              ) -> None:
        """``pid``'s hand was shown (content number ``number``, ``menu``) by answering
        ``interaction``: in the message clicked (the panel, now with a fresh token) or in a
        new message, which becomes the panel (the old one says it moved). A message older
        than the player's newest panel never becomes the panel again (``_moved_on``)."""
        panels = self.by_channel.setdefault(session.channel_id, {})
        old = panels.get(pid)
        newest = self.newest.setdefault(session.channel_id, {})
        if message_id is not None and message_id < newest.get(pid, 0):
            self._moved_on(Panel(session.channel_id, pid, locale, Reach.of(interaction),
                                 message_id, None, number), old, menu, key, picture)
            return
        if message_id is not None:
            newest[pid] = message_id
        clicked = interaction.message
        if old is not None and clicked is not None and clicked.id == old.left:
            # a click on the message the panel just left (its deletion crossed the click):
            # the panel stays below, and shows the game as the click left it
            old.key = None
            self._catch_up(session, old)
            return
        in_place = (clicked is not None and old is not None
                    and (old.message_id is None or clicked.id == old.message_id))
        if old is not None and in_place:
            old.reach, old.locale = Reach.of(interaction), locale
            old.built = False
            if number > old.written:
                old.written, old.key = number, key
            elif number < old.written:
                # a newer content was edited in before this answer went out, and the answer
                # covered it: show the game as it is now again
                old.key = None
                self._catch_up(session, old)
            return
        panel = Panel(session.channel_id, pid, locale, Reach.of(interaction), message_id, key,
                      number)
        panels[pid] = panel
        if old is not None:
            self._retire(old)
        # Its content was built before the answer went out: a change saved meanwhile (a
        # computer player's move) found no panel to edit, and none may follow it.
        self._catch_up(session, panel)

    def push(self, panel: Panel, menu: Menu, key: Hashable, number: int,
             picture: Picture | None = None) -> None:
        """Show ``menu`` (content number ``number``, the player's view ``key``) and its
        ``picture`` in ``panel`` (the answer to a click elsewhere, such as the table's
        Draw)."""
        if number <= panel.written:
            return
        panel.key = key
        panel.pending = (number, menu, picture)
        panel.follow = None  # built after any change it would have followed
        self._kick(panel, keep=True)

    def _moved_on(self, answered: Panel, live: Panel | None, menu: Menu | None,
                  key: Hashable, picture: Picture | None) -> None:
        """An answer went out in a message older than the player's newest panel: a click
        through it was taken while it was the panel, and a newer panel was shown before the
        answer went out (two clicks at once, one on each). It says the hand moved again,
        and what it showed goes to the live panel, if newer than what that shows."""
        self._retire(answered)
        if live is not None and menu is not None:
            self.push(live, menu, key, answered.written, picture)

    def _retire(self, panel: Panel) -> None:
        """A panel a newer one replaced: it says so and loses its buttons."""
        panel.follow = None
        panel.pending = (self.stamp(), (moved_text(panel.locale), None), None)
        self._kick(panel, keep=False)

    # ------------------------------------------------------------------ following the game
    def changed(self, session: Session) -> None:
        """After a saved change of ``session`` (the game as saved, no await since): edit
        the panels whose view changed for their player."""
        panels = self.by_channel.get(session.channel_id)
        if not panels:
            return
        for panel in list(panels.values()):
            self._follow(session, panel)

    def _follow(self, session: Session, panel: Panel) -> None:
        """Edit ``panel`` if its player's view of ``session`` (as saved) is not the one it
        shows."""
        key = self.key(session, panel.pid)
        if key == panel.key:
            return
        panel.key, panel.unsure = key, False
        panel.follow = session
        self._kick(panel, keep=self._lasts(session, key))

    def lowers(self, session: Session, panel: Panel) -> bool:
        """Whether ``panel`` goes down to the bottom with its next content: its player has
        a decision to make and more than one message came below it (a new round's table,
        chat; a reminder alone does not), so their hand stays within reach. It goes in a
        new message through the token that shows it, and the old one is deleted."""
        if not self._pushed_up(panel):
            return False
        game = session.game
        return game is not None and not game.is_over and game.turn == panel.pid

    def _pushed_up(self, panel: Panel) -> bool:
        """More than ``LOWER_PAST`` messages lie below ``panel`` (for its player)."""
        return (panel.message_id is not None and self.below is not None
                and self.below(panel.channel_id, panel.message_id, panel.pid) > LOWER_PAST)

    def posted(self, session: Session) -> None:
        """A message came in ``session``'s channel: a panel whose player decides now and
        that it pushed too far up goes down (see ``lowers``)."""
        for panel in list(self.by_channel.get(session.channel_id, {}).values()):
            # (not over a click's answer: a question open there would be lost)
            if panel.built and not panel.lower and self.lowers(session, panel):
                panel.lower = True
                panel.follow = session
                self._kick(panel, keep=True)

    def _catch_up(self, session: Session, panel: Panel) -> None:
        """``panel`` shows content built before now: follow the game as saved, at once if
        no change holds it, else once the lock is free (a change under way may yet be
        undone, and one that is saved is followed as every change is)."""
        if not session.lock.locked():
            self._follow(session, panel)
            return
        panel.unsure = True
        panel.follow = session
        self._kick(panel, keep=True)

    @staticmethod
    def _lasts(session: Session, key: Hashable) -> bool:
        """Whether a panel showing view ``key`` of ``session`` is still followed."""
        return key is not None and session.game is not None and not session.game.is_over

    def sweep(self, sessions: Mapping[int, Session]) -> None:
        """Panels whose token ends soon say so (with Reopen) and are no longer followed
        (``sessions``: the games by channel)."""
        for channel_id, panels in list(self.by_channel.items()):
            for panel in list(panels.values()):
                if panel.reach.age() < self.life - self.close_before:
                    continue
                del panels[panel.pid]
                session = sessions.get(channel_id)
                if session is not None and session.game is not None:
                    panel.follow = None
                    panel.pending = (self.stamp(), self.build(session, panel.pid,
                                                              panel.locale, True), None)
                    self._kick(panel, keep=False)
            if not panels:
                del self.by_channel[channel_id]
        for channel_id in [c for c in self.newest if c not in sessions]:
            del self.newest[channel_id]  # no game there any more

    # ------------------------------------------------------------------ sending
    def _drop(self, panel: Panel) -> None:
        """``panel`` is no longer followed."""
        panels = self.by_channel.get(panel.channel_id)
        if panels is not None and panels.get(panel.pid) is panel:
            del panels[panel.pid]

    def _kick(self, panel: Panel, *, keep: bool) -> None:
        if not keep:
            self._drop(panel)
        if panel.task is None or panel.task.done():
            panel.task = asyncio.create_task(self._send(panel))

    async def _send(self, panel: Panel) -> None:
        try:
            await self._write(panel)
        finally:
            # a finished task keeps its coroutine and context: not kept till the next edit
            if panel.task is asyncio.current_task():
                panel.task = None

    async def _write(self, panel: Panel) -> None:
        while panel.pending is not None or panel.follow is not None:
            await PRIORITY.give_way()  # a click waiting for its answer goes first
            session, panel.follow = panel.follow, None
            if session is not None:
                async with session.lock:  # the game as saved (no change under way)
                    if panel.unsure:
                        panel.unsure = False
                        key = self.key(session, panel.pid)
                        if key == panel.key:
                            continue  # it shows the game as saved
                        panel.key = key
                        if not self._lasts(session, key):
                            self._drop(panel)
                    panel.pending = (self.stamp(), self.build(session, panel.pid,
                                                              panel.locale, False),
                                     self.art(session, panel.pid) if self.art else None)
                    panel.lower = panel.lower or self.lowers(session, panel)
                    built = True
            else:
                built = False  # a click's answer elsewhere (``push``)
            if panel.pending is None:
                continue
            number, (text, view), picture = panel.pending
            panel.pending = None
            if number < panel.written:
                continue  # a click's answer showed newer content meanwhile
            # drawn before the message's lock is taken (a cached hand: no wait at all)
            drawn = await picture() if picture is not None else None
            if panel.pending is not None and panel.pending[0] > number:
                continue  # newer content came while it was drawn: that one goes instead
            async with writing(panel.message_id):
                if number < panel.written:
                    continue
                panel.written = number
                started = time.perf_counter()
                try:
                    panel.built = built
                    if panel.lower and await self._lower(panel, text[:2000], view, drawn):
                        continue
                    await panel.reach.edit(text[:2000], view, drawn)
                except discord.HTTPException as exc:
                    # the token ended, or the player dismissed the message: stop following
                    self.failed += 1
                    log.info("A hand panel in channel %s could not be edited (%s); it is "
                             "no longer followed", panel.channel_id, exc)
                    self._drop(panel)
                    return
                self.edits += 1
                log.debug("Panel of %s edited in %.1f ms", panel.pid,
                          (time.perf_counter() - started) * 1000)

    async def _lower(self, panel: Panel, text: str, view: discord.ui.View | None,
                     picture: tuple[bytes, str] | None) -> bool:
        """Send ``panel`` anew at the bottom with ``text``, ``view`` and ``picture``, then
        delete the old message (under its write lock). False: it need not go down any more
        (it went down meanwhile) or could not be sent: edit it in place."""
        panel.lower = False
        if not self._pushed_up(panel):
            return False
        old = panel.reach
        try:
            panel.reach = await old.send(text, view, picture)
        except discord.HTTPException as exc:
            log.info("A hand panel in channel %s could not be sent again below (%s); it is "
                     "edited in place", panel.channel_id, exc)
            return False
        panel.left = panel.message_id
        panel.message_id = panel.reach.message_id
        self.sent_lower += 1
        try:
            await old.delete()
        except discord.HTTPException as exc:
            # (the player dismissed it, or its token ended: it says where the hand went)
            log.info("An old hand panel in channel %s could not be deleted (%s)",
                     panel.channel_id, exc)
            with contextlib.suppress(discord.HTTPException):
                await old.edit(moved_text(panel.locale), None)
        return True
