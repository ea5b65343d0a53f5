"""The hand's picture never lands on a menu that shows another hand (issue 16, step 0,
fault 3): the picture of My hand is drawn after the answer and added by an edit; a click on
the menu meanwhile (a move, whose answer edits the menu) makes it out of date.

The real ``Reply`` and ``HandPictures``, with a slowed-down drawer, answer stand-ins for
Discord's interactions; a stand-in message applies each write when it "arrives" (after the
request's time on the network), as Discord would, in arrival order.
tests/test_e2e_pictures.py checks the same against the loopback Discord.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from types import SimpleNamespace
from typing import Any

import discord
import pytest

import cogs.uno._pictures as pictures_module
from cogs.uno._pictures import HandPictures, picture_name
from cogs.uno._reply import Reply
from engine import Card

OLD = [Card.parse(c) for c in ("R1", "G2", "B3")]
_IDS = itertools.count(1000)


class Menu:
    """A private message as Discord keeps it: its text and its files, each write applied
    when it arrives."""

    def __init__(self) -> None:
        self.id = next(_IDS)  # message ids are never reused
        self.content = ""
        self.files: list[str] = []
        self.log: list[str] = []

    def apply(self, who: str, data: dict[str, Any]) -> None:
        if "content" in data:
            self.content = data["content"]
        if "attachments" in data:
            self.files = [f.filename for f in data["attachments"]]
        self.log.append(who)


def interaction(menu: Menu, *, clicked: bool, flight: float = 0.0,
                before_posted: Any = None) -> Any:
    """My hand (``clicked`` False: its answer posts ``menu``) or a click on ``menu`` (its
    answer edits it). An edit through the interaction's token (the picture's) takes
    ``flight`` seconds to arrive; ``before_posted`` runs after the post arrived and before
    the bot hears back (a click on the new menu the bot gets first)."""
    done = [False]
    who = "click" if clicked else "picture"

    async def send_message(**kwargs: Any) -> Any:
        done[0] = True
        menu.apply("post", kwargs)
        if before_posted is not None:
            await before_posted()
        return SimpleNamespace(message_id=menu.id)

    async def edit_message(**kwargs: Any) -> None:
        done[0] = True
        menu.apply(who, kwargs)

    async def edit_original_response(**kwargs: Any) -> None:
        await asyncio.sleep(flight)
        menu.apply(who, kwargs)

    response = SimpleNamespace(is_done=lambda: done[0], send_message=send_message,
                               edit_message=edit_message, _parent=None)
    return SimpleNamespace(
        id=discord.utils.time_snowflake(discord.utils.utcnow()),
        created_at=discord.utils.utcnow(), response=response,
        edit_original_response=edit_original_response,
        locale=discord.Locale.british_english, data={}, command=None, guild=None,
        client=None, type=discord.InteractionType.component,
        message=SimpleNamespace(id=menu.id) if clicked else None)


def slow_drawer(seconds: float) -> Any:
    def draw(cards: list[Card], playable: set[Card], **_: Any) -> bytes:
        time.sleep(seconds)
        return b"\x89PNG " + ",".join(c.code for c in cards).encode()
    return draw


class Settings:
    async def get_user_settings(self, user: int) -> Any:
        return SimpleNamespace(high_contrast=False)


async def my_hand(pictures: HandPictures, menu: Menu, flight: float = 0.0,
                  before_posted: Any = None) -> None:
    """My hand: the text at once, the picture of OLD to follow."""
    reply = Reply(interaction(menu, clicked=False, flight=flight,
                              before_posted=before_posted))
    await reply.menu(("**Your hand**: R1 G2 B3", None))
    reply.cancel()
    pictures.follow(reply, OLD, set(), "42")


async def move(menu: Menu) -> None:
    """A click on the menu answered with the hand after the move (text only)."""
    reply = Reply(interaction(menu, clicked=True), edit=True)
    await reply.menu(("You drew Y4.\n**Your hand**: R1 G2 B3 Y4", None))
    reply.cancel()


async def settle(pictures: HandPictures) -> None:
    """Time for any picture on its way to land (drawn in 0.2 s, 0.3 s on the network)."""
    await asyncio.sleep(0.7)


@pytest.fixture
def pictures() -> HandPictures:
    return HandPictures(Settings(), enabled=True)  # type: ignore[arg-type]


@pytest.mark.slow
async def test_without_a_click_the_picture_lands(pictures: HandPictures,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pictures_module, "hand_image", slow_drawer(0.05))
    menu = Menu()
    await my_hand(pictures, menu)
    await settle(pictures)
    assert menu.log == ["post", "picture"]
    assert menu.files == [picture_name(OLD)]


@pytest.mark.slow
async def test_a_move_while_the_picture_is_drawn_drops_it(
        pictures: HandPictures, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pictures_module, "hand_image", slow_drawer(0.2))
    menu = Menu()
    await my_hand(pictures, menu)
    await move(menu)  # at once: the picture is still being drawn
    await settle(pictures)
    assert menu.log == ["post", "click"], "the old hand's picture never lands"
    assert menu.files == [] and "Y4" in menu.content


@pytest.mark.slow
async def test_a_move_while_the_picture_is_on_its_way_waits_for_it(
        pictures: HandPictures, monkeypatch: pytest.MonkeyPatch) -> None:
    """The picture's edit is in flight (slow network) when the move's answer is ready: the
    answer goes after it, so it replaces the picture rather than being covered by it."""
    monkeypatch.setattr(pictures_module, "hand_image", slow_drawer(0.0))
    menu = Menu()
    await my_hand(pictures, menu, flight=0.3)
    await asyncio.sleep(0.1)  # drawn; its edit is on the network
    assert menu.log == ["post"]
    await move(menu)
    await settle(pictures)
    assert menu.log == ["post", "picture", "click"]
    assert menu.files == [] and "Y4" in menu.content


@pytest.mark.slow
async def test_a_move_answered_before_the_bot_heard_its_menu_was_posted(
        pictures: HandPictures, monkeypatch: pytest.MonkeyPatch) -> None:
    """The click on the new menu is answered before the post's own answer reached the bot
    (the bot then learns the menu's id): the picture is still known to be out of date."""
    monkeypatch.setattr(pictures_module, "hand_image", slow_drawer(0.0))
    menu = Menu()
    await my_hand(pictures, menu, before_posted=lambda: move(menu))
    await settle(pictures)
    assert menu.log == ["post", "click"]
    assert menu.files == [] and "Y4" in menu.content


async def test_a_move_answered_elsewhere_leaves_the_menu_its_picture(
        pictures: HandPictures, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move whose answer is a new message (a refusal, a command) leaves the menu as it
    was: its text and its picture still show the same hand."""
    monkeypatch.setattr(pictures_module, "hand_image", slow_drawer(0.2))
    menu, elsewhere = Menu(), Menu()
    await my_hand(pictures, menu)
    reply = Reply(interaction(elsewhere, clicked=False))
    await reply.menu(("You drew Y4.", None))
    reply.cancel()
    await settle(pictures)
    assert menu.files == [picture_name(OLD)] and "Y4" not in menu.content
