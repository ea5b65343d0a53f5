"""cogs/uno/_emojis.py without Discord: names, images, the start-up sync; the faces it makes
known (cogs/uno/show/faces.py) to the menus and the hands' text."""

from __future__ import annotations

import contextlib
import io
import logging
import re
from collections.abc import AsyncIterator, Iterator
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from PIL import Image

from cogs.uno import _emojis
from cogs.uno._emojis import CardEmojis, emoji_png
from cogs.uno.art import all_cards
from cogs.uno.show import faces
from cogs.uno.show.faces import card_emoji, emoji_name
from cogs.uno.table.words.cards import card_face, hand_text
from engine import Card


@pytest.fixture(autouse=True)
def empty_registry() -> Iterator[None]:
    faces.forget()
    yield
    faces.forget()


class FakeBot:
    """The two calls CardEmojis makes, on an application's emoji list."""

    def __init__(self, existing: list[str] = (), fail_at: int | None = None,
                 list_fails: bool = False) -> None:  # type: ignore[assignment]
        self.emojis = [SimpleNamespace(name=n, id=1000 + i, animated=False)
                       for i, n in enumerate(existing)]
        self.fail_at = fail_at
        self.list_fails = list_fails
        self.created: list[str] = []

    def is_closed(self) -> bool:
        return False

    @contextlib.asynccontextmanager
    async def fleet_lock(self, key: str) -> AsyncIterator[None]:
        """One process of the fleet at a time (here: the only one)."""
        yield

    async def fetch_application_emojis(self) -> list[Any]:
        if self.list_fails:
            raise discord.DiscordServerError(SimpleNamespace(status=503, reason="x"), "down")
        return list(self.emojis)

    async def create_application_emoji(self, *, name: str, image: bytes) -> Any:
        if self.fail_at is not None and len(self.created) == self.fail_at:
            raise discord.HTTPException(SimpleNamespace(status=400, reason="x"), "full")
        self.created.append(name)
        emoji = SimpleNamespace(name=name, id=5000 + len(self.emojis), animated=False)
        self.emojis.append(emoji)
        return emoji


@pytest.fixture
def cheap_png(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_emojis, "emoji_png", lambda card: b"png")


def test_names_are_valid_and_distinct() -> None:
    names = [emoji_name(c) for c in all_cards()]
    assert len(set(names)) == len(names) == 96
    assert all(re.fullmatch(r"[A-Za-z0-9_]{2,32}", n) for n in names)
    assert emoji_name(Card.parse("W+4")) == "uno_WP4"
    assert emoji_name(Card.parse("R4!")) == "uno_R4X"


def test_png_is_a_small_transparent_square() -> None:
    data = emoji_png(Card.parse("G7O"))
    assert len(data) <= 256 * 1024
    image = Image.open(io.BytesIO(data))
    assert image.size == (128, 128) and image.mode == "RGBA"
    assert image.getpixel((0, 0))[3] == 0  # transparent around the card
    assert image.getpixel((64, 64))[3] == 255


async def test_sync_uploads_the_missing_then_nothing(cheap_png: None) -> None:
    bot = FakeBot(existing=["uno_R7", "someone_else"])
    sync = CardEmojis(bot, pace=0)  # type: ignore[arg-type]
    await sync.sync()
    assert len(bot.created) == 95 and "uno_R7" not in bot.created
    r7 = card_emoji(Card.parse("R7"))
    assert r7 is not None and r7.id == 1000 and r7.name == "uno_R7"
    assert all(card_emoji(c) is not None for c in all_cards())
    faces.forget()
    again = CardEmojis(bot, pace=0)  # type: ignore[arg-type]
    await again.sync()
    assert again.uploaded == 0 and len(bot.created) == 95
    assert all(card_emoji(c) is not None for c in all_cards())


async def test_a_failed_upload_warns_once_and_leaves_text(
        cheap_png: None, caplog: pytest.LogCaptureFixture) -> None:
    bot = FakeBot(fail_at=2)
    with caplog.at_level(logging.INFO, logger="cogs.uno._emojis"):
        await CardEmojis(bot, pace=0).sync()  # type: ignore[arg-type]
    assert len(bot.created) == 2
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "94 cards are shown as text" in warnings[0].getMessage()
    known = [c for c in all_cards() if card_emoji(c) is not None]
    assert len(known) == 2


async def test_a_failed_listing_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    bot = FakeBot(list_fails=True)
    with caplog.at_level(logging.INFO, logger="cogs.uno._emojis"):
        await CardEmojis(bot, pace=0).sync()  # type: ignore[arg-type]
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert bot.created == [] and card_emoji(Card.parse("R7")) is None


def test_a_registered_face_is_known_to_the_menus_and_the_hands_text() -> None:
    r7, w4 = Card.parse("R7"), Card.parse("W+4")
    assert card_emoji(r7) is None and card_face(r7) == ""
    faces.register({"R7": discord.PartialEmoji(name="uno_R7", id=42)})
    emoji = card_emoji(r7)
    assert emoji is not None and emoji.id == 42 and emoji.name == "uno_R7"
    assert card_face(r7) == "<:uno_R7:42>"
    assert hand_text([r7, w4]) == "<:uno_R7:42> 🟥 red 7 `R7`, 🌈 Wild Draw Four `W+4`"
    faces.forget()
    assert card_emoji(r7) is None and card_face(r7) == ""
