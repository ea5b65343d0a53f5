"""Hand pictures: drawn after the answer, in the person's look, added to their menu; and
drawn for the live panel's edits on its player's turn (``picture``, before the edit).

A hand drawn already (looked at again, unchanged) goes with the answer itself (``ready``).
Otherwise the hand menu answers with its text at once; the picture is drawn in a thread and
put on the menu by an edit (best effort: the text lists the same cards). The edit carries the
picture alone (never text), and only while the menu still shows what it was drawn for: an
answer to a click on the menu (a move, a page) that edited it meanwhile drops the picture,
and one that comes while the picture is being added waits for it (``Reply.shown``). At most
``MAX_PENDING_PICTURES`` are drawn at a time, and none for a hand answered late (the bot is
behind); past that a hand goes without its picture.
A person's look (high contrast or not) is read from the database at most once a minute.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import logging
import time
from collections import OrderedDict

import discord

from cogs.uno._reply import Reply, Shown, age_of
from cogs.uno.art import hand_image
from data import Database, UserSettings
from engine import Card

log = logging.getLogger(__name__)

MAX_PENDING_PICTURES = 32
"""Hand pictures drawn at once at most; a busy bot answers with the text alone."""
PICTURE_LATE = 0.25
"""A hand answered this many seconds after its click goes without its picture: the bot is
behind (a restart meeting every table's click at once, an overload), and the clicks
waiting behind this one come first (the text lists the same cards)."""
LOOK_TTL = 60.0
"""Seconds a person's look is kept before it is read again."""
MAX_LOOKS = 10_000
HAND_CARD_WIDTH = 80
"""Pixels per card in the hand picture (2 ms for seven cards, 13 KB; 120 px: 3.7 ms, 20 KB)."""
HAND_CACHE_BYTES = 16 * 1024 * 1024
"""PNG bytes of hand pictures kept (about 1,200 hands of seven cards): a hand looked at
again with the same cards playable (a waiting player's peek, then their turn's My hand on
the same top card; a menu's pages) is not drawn again."""

HandKey = tuple[tuple[str, ...], frozenset[str], bool]
"""A hand picture's cards in order, the playable ones, and the look (high contrast)."""


def _key(cards: list[Card], playable: set[Card], contrast: bool) -> HandKey:
    return (tuple(card.code for card in cards),
            frozenset(card.code for card in cards if card in playable), contrast)


def picture_name(cards: list[Card]) -> str:
    """The file name of a hand's picture: it names the hand drawn in it (a hash of its card
    codes), so a picture can be matched with the text it came with."""
    codes = ",".join(sorted(card.code for card in cards))
    return f"hand-{hashlib.blake2s(codes.encode(), digest_size=6).hexdigest()}.png"


class HandPictures:
    def __init__(self, db: Database, *, enabled: bool) -> None:
        self.db = db
        self.enabled = enabled
        self._pending: set[asyncio.Task[None]] = set()
        """Hand pictures being drawn and attached (bounded: past it, text only)."""
        self._looks: dict[int, tuple[bool, float]] = {}
        """Each person's look (high contrast?) and when it was read."""
        self._drawn: OrderedDict[HandKey, bytes] = OrderedDict()
        """Hand pictures drawn, least recently used first (at most HAND_CACHE_BYTES)."""
        self.drawn_bytes = 0
        self.hits = 0
        self.draws = 0

    def follow(self, reply: Reply, cards: list[Card], playable: set[Card], user: str) -> None:
        """Draw ``cards`` for ``user`` and add the picture to the menu ``reply`` just sent
        (in the background: drawing never delays an acknowledgement)."""
        if not cards or not self.enabled:
            return
        if age_of(reply.interaction) >= PICTURE_LATE:
            log.info("Behind: a hand goes without its picture")
            return
        if len(self._pending) >= MAX_PENDING_PICTURES:
            log.info("Busy: a hand goes without its picture")
            return
        shown = reply.shown
        if shown is None:
            log.info("The menu of %s is not known: it goes without its picture",
                     reply.interaction.id)
            return
        task = asyncio.create_task(self._attach(reply, shown, cards, playable, user))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _attach(self, reply: Reply, shown: Shown, cards: list[Card],
                      playable: set[Card], user: str) -> None:
        image = await self.picture(cards, playable, user)
        if image is None or reply.expired:
            return
        async with shown.unchanged() as current:
            if not current:
                # The player moved from this menu meanwhile: it shows another hand now.
                log.debug("The menu %s changed before its picture was ready: dropped",
                          shown.message_id)
                return
            try:
                await reply.interaction.edit_original_response(
                    attachments=[discord.File(io.BytesIO(image),
                                              filename=picture_name(cards))])
            except discord.HTTPException as exc:
                log.info("Adding the hand picture to %s failed: %s", reply.interaction.id,
                         exc)

    def ready(self, cards: list[Card], playable: set[Card], user: str) -> bytes | None:
        """The hand's picture if it is drawn already (the same hand looked at again, in the
        person's look as last read): it goes with the answer itself, with no edit after."""
        if not cards or not self.enabled:
            return None
        known = self._looks.get(int(user))
        if known is None or time.monotonic() - known[1] >= LOOK_TTL:
            return None
        image = self._drawn.get(_key(cards, playable, known[0]))
        if image is not None:
            self.hits += 1
        return image

    async def picture(self, cards: list[Card], playable: set[Card], user: str
                      ) -> bytes | None:
        """The hand as a picture (drawn off the event loop; cards come from a cache), in
        the person's look, or None: no cards to show, pictures off, or drawing failed (the
        text says it all)."""
        if not cards or not self.enabled:
            return None
        contrast = await self.high_contrast(int(user))
        key = _key(cards, playable, contrast)
        image = self._drawn.get(key)
        if image is not None:
            self._drawn.move_to_end(key)
            self.hits += 1
            return image
        try:
            image = await asyncio.to_thread(hand_image, cards, playable,
                                            width=HAND_CARD_WIDTH, contrast=contrast)
        except Exception:
            log.exception("Drawing a hand failed; the menu goes without its picture")
            return None
        self.draws += 1
        self._keep(key, image)
        return image

    def _keep(self, key: HandKey, image: bytes) -> None:
        old = self._drawn.pop(key, None)
        if old is not None:
            self.drawn_bytes -= len(old)
        self._drawn[key] = image
        self.drawn_bytes += len(image)
        while self.drawn_bytes > HAND_CACHE_BYTES and len(self._drawn) > 1:
            _key, dropped = self._drawn.popitem(last=False)
            self.drawn_bytes -= len(dropped)

    async def high_contrast(self, user: int, *, fresh: bool = False) -> bool:
        """The person's look, read from the database at most once a minute (another process
        of the bot may have changed it); ``fresh``: read now (the person asks what it is,
        and may have changed it through another process of the fleet)."""
        now = time.monotonic()
        known = self._looks.get(user)
        if known is not None and now - known[1] < LOOK_TTL and not fresh:
            return known[0]
        try:
            contrast = (await self.db.get_user_settings(user)).high_contrast
        except Exception as exc:
            log.warning("Reading the settings of user %s failed (%s)", user, exc)
            contrast = known[0] if known is not None else False
        self._remember(user, contrast, now)
        return contrast

    async def set_high_contrast(self, user: int, high_contrast: bool) -> None:
        """Save a person's look (raises DatabaseError when it can't be saved)."""
        await self.db.set_user_settings(UserSettings(user, high_contrast))
        self._remember(user, high_contrast, time.monotonic())

    def _remember(self, user: int, contrast: bool, now: float) -> None:
        self._looks[user] = (contrast, now)
        while len(self._looks) > MAX_LOOKS:
            del self._looks[next(iter(self._looks))]

    def close(self) -> None:
        for task in list(self._pending):
            task.cancel()

