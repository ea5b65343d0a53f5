"""End to end through the loopback Discord: card faces as application emojis (issue 11).

At start-up the bot uploads one emoji per distinct card of every edition (only the missing
ones: a restart uploads nothing), and the hand panel's card buttons and hand text carry
them. With uploads refused the bot starts and plays as before, cards shown as text.
"""

from __future__ import annotations

import asyncio
import io
import re
import sys
from typing import Any

import pytest
from PIL import Image

from cogs.uno.art import all_cards
from cogs.uno.show.faces import emoji_name
from loopback.bot_process import BotProcess
from loopback.models import Channel, Message
from loopback.server import DEFAULT_CWD, LoopbackDiscord
from support.e2e import FAST_ENV, db_of
from support.games import install, scenario_session

EMOJI_ENV = {**FAST_ENV, "UNO_CARD_EMOJIS": "1"}
READY = "Card emojis ready"
WARNED = "WARNING cogs.uno._emojis"
NAMES = {emoji_name(c) for c in all_cards()}


pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**EMOJI_ENV)]


def uploads(discord_: LoopbackDiscord) -> list[Any]:
    return [r for r in discord_.requests
            if r[0] == "POST" and re.fullmatch(r"/api/v10/applications/\d+/emojis", r[1])]


async def wait_log(bot: BotProcess, text: str, count: int = 1, seconds: float = 60) -> None:
    for _ in range(int(seconds * 10)):
        if bot.log_text().count(text) >= count:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{text!r} not logged {count} times:\n{bot.log_tail()}")


async def play_table(discord_: LoopbackDiscord, bot: BotProcess, ch: Channel,
                     db_path: str) -> Message:
    """Alice's turn against a computer player, installed as a saved game, then a restart;
    returns Alice's hand menu."""
    alice = ch.member("alice")
    await install(db_path, scenario_session(ch, [alice, "cpu1"],
                                            hands={alice: "R3 R+2 B4 W+4", "cpu1": "G6 G7 Y1"},
                                            discard="R9", turn=alice))
    await bot.restart()
    table = await ch.wait_for(lambda m: "My hand" in m.button_labels(), timeout=15)
    r = await alice.click("My hand", message=table)
    assert r.ephemeral and r.message is not None
    return r.message


def play_options(menu: Message) -> list[dict[str, Any]]:
    """The panel's playable card buttons, each with its card code as ``value``."""
    options = [{**b, "value": str(b["custom_id"]).split(":")[4]} for b in menu.buttons()
               if str(b.get("custom_id", "")).startswith("uno:pc:") and not b.get("disabled")]
    assert options, menu.buttons()
    return options


async def test_every_card_is_uploaded_once(loopback_discord: LoopbackDiscord,
                                           loopback_bot: BotProcess) -> None:
    await wait_log(loopback_bot, READY)
    assert sorted(loopback_discord.emojis.names()) == sorted(NAMES)
    assert len(NAMES) == len(all_cards()) == 96
    assert len(uploads(loopback_discord)) == len(NAMES)
    for name in ("uno_R7", "uno_WP4", "uno_B4X", "uno_WV"):
        image = Image.open(io.BytesIO(loopback_discord.emojis.image(name)))
        assert image.format == "PNG" and image.size == (128, 128) and image.mode == "RGBA"
    assert WARNED not in loopback_bot.log_text()
    loopback_discord.assert_no_problems()


async def test_restart_uploads_nothing_and_the_menu_shows_card_faces(
        loopback_discord: LoopbackDiscord, loopback_bot: BotProcess) -> None:
    await wait_log(loopback_bot, READY)
    before = len(uploads(loopback_discord))
    ids = {p["name"]: p["id"] for p, _ in loopback_discord.emojis.of().values()}
    ch = loopback_discord.guilds[0].new_channel()
    menu = await play_table(loopback_discord, loopback_bot, ch,
                            db_of(loopback_bot))
    await wait_log(loopback_bot, READY, count=2)
    assert "96 cards, 0 uploaded now" in loopback_bot.log_text()
    assert len(uploads(loopback_discord)) == before
    assert len(loopback_discord.emojis.of()) == len(NAMES)
    options = play_options(menu)
    assert [o["value"] for o in options] == ["R3", "R+2", "W+4"]
    for o in options:
        name = emoji_name_of(o["value"])
        assert o["emoji"]["name"] == name and str(o["emoji"]["id"]) == ids[name], o
    # each card is said once: its button shows its face and names it, the text counts
    # the cards (issue 29)
    text = menu.text()
    assert "**Your hand** (4 cards)" in text and "<:" not in text and "`R3`" not in text
    assert WARNED not in loopback_bot.log_text()
    loopback_discord.assert_no_problems()
    assert loopback_bot.take_tracebacks() == []


def emoji_name_of(code: str) -> str:
    from engine import Card

    return emoji_name(Card.parse(code))


@pytest.mark.parametrize("method", ["POST", "GET"])
async def test_refused_emojis_leave_the_cards_as_text(
        tmp_path: Any, method: str) -> None:
    async with LoopbackDiscord() as discord_:
        ch = discord_.add_guild("Test").new_channel()
        route = "/applications/{app}/emojis"
        if method == "POST":
            discord_.fail_next("POST", route, 400, code=30008, count=1000)
        else:
            discord_.fail_next("GET", route, 403, code=50013, count=1000)
        db = str(tmp_path / "bot.db")
        bot = await discord_.start_bot([sys.executable, "bot.py"],
                                       env={"DATABASE_PATH": db, **EMOJI_ENV}, cwd=DEFAULT_CWD)
        try:
            await wait_log(bot, "Card emojis: ")
            assert bot.log_text().count(WARNED) == 1
            assert discord_.emojis.names() == []
            assert len(uploads(discord_)) == (1 if method == "POST" else 0)
            menu = await play_table(discord_, bot, ch, db)
            options = play_options(menu)
            assert [o["value"] for o in options] == ["R3", "R+2", "W+4"]
            assert all("emoji" not in o for o in options), options
            assert "<:" not in menu.text() and "**Your hand** (4 cards)" in menu.text()
            # the restart tried again (the fault took every upload) and still refused
            await wait_log(bot, "Card emojis: ", count=2)
            assert bot.take_tracebacks() == []
            discord_.assert_no_problems()
        finally:
            await bot.stop()
