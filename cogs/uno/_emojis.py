"""Card faces as application emojis: small pictures in select options and hand texts.

At start-up (a background task: READY does not wait for it) the bot lists its application's
emojis and uploads the card faces that are missing, one at a time, one emoji per distinct
card of every edition (``uno_R7``, ``uno_WP4`` for W+4, ``uno_R4X`` for R4!). A restart
uploads nothing new. Until an emoji is known, or if listing or an upload fails (one warning
in the log), its card is shown as text only: nothing else depends on the emojis.

The faces found or uploaded are made known through ``cogs.uno.show.faces.register``: the
menus read them there (``card_emoji``), the hands' text in the words.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from typing import TYPE_CHECKING

import discord
from PIL import Image

from cogs.uno.art import all_cards, card_height, card_image
from cogs.uno.show.faces import emoji_name, register
from engine import Card

if TYPE_CHECKING:
    from runtime.unobot import UnoBot

log = logging.getLogger(__name__)

SIZE = 128
"""Emoji images are SIZE × SIZE PNGs (Discord shows them at 48 px at most)."""
PACE = 0.1
"""Seconds between two uploads: 10 a second at most, far below the global 50 a second
(discord.py also waits out any 429 it gets)."""


def emoji_png(card: Card) -> bytes:
    """The card's face fitted on a transparent SIZE × SIZE square, as PNG bytes."""
    width = SIZE * 2 // 3
    while card_height(width) > SIZE:
        width -= 1
    face = card_image(card, width=width)
    square = Image.new("RGBA", (SIZE, SIZE), (0, 0, 0, 0))
    square.paste(face, ((SIZE - face.width) // 2, (SIZE - face.height) // 2), face)
    out = io.BytesIO()
    square.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _partial(emoji: discord.Emoji) -> discord.PartialEmoji:
    return discord.PartialEmoji(name=emoji.name, id=emoji.id, animated=emoji.animated)


class CardEmojis:
    """The start-up task that makes sure every card has its application emoji."""

    def __init__(self, bot: UnoBot, *, pace: float = PACE) -> None:
        self.bot = bot
        self.pace = pace
        self.task: asyncio.Task[None] | None = None
        self.uploaded = 0

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.create_task(self.sync(), name="card-emojis")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            self.task = None

    async def sync(self) -> None:
        """List the application's emojis, upload the missing card faces; never raises
        (but for cancellation). Under the fleet's lock: processes starting together take
        turns, so the first uploads and the others find every face already there."""
        async with self.bot.fleet_lock("card-emojis"):
            await self._sync()

    async def _sync(self) -> None:
        cards = all_cards()
        try:
            existing = await self.bot.fetch_application_emojis()
        except Exception as exc:
            log.warning("Card emojis: listing the application's emojis failed (%s); cards "
                        "are shown as text", exc)
            return
        by_name: dict[str, discord.Emoji] = {}
        for emoji in existing:
            by_name.setdefault(emoji.name, emoji)
        register({c.code: _partial(by_name[emoji_name(c)])
                  for c in cards if emoji_name(c) in by_name})
        missing = [c for c in cards if emoji_name(c) not in by_name]
        for i, card in enumerate(missing):
            try:
                image = await asyncio.to_thread(emoji_png, card)
                emoji = await self.bot.create_application_emoji(name=emoji_name(card),
                                                                image=image)
            except Exception as exc:
                if self.bot.is_closed():
                    return  # shutting down: not a failure worth a warning
                log.warning("Card emojis: uploading %s failed (%s); %d cards are shown as "
                            "text", emoji_name(card), exc, len(missing) - i)
                return
            register({card.code: _partial(emoji)})
            self.uploaded += 1
            if i + 1 < len(missing):
                await asyncio.sleep(self.pace)
        log.info("Card emojis ready: %d cards, %d uploaded now", len(cards), self.uploaded)
