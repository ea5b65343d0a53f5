"""End to end through the loopback Discord: the hand as a picture (issue 11, "Pictures").

My hand (and the answer to each move) carries a PNG of the cards the text lists, drawn by
`cogs.uno.art`; public messages never carry a picture of a hand.
"""

from __future__ import annotations

import io
import pathlib

import pytest
from PIL import Image

from cogs.uno.art import CARD_W
from e2e_support import FAST_ENV, saved_state
from loopback.fixtures import *  # noqa: F403
from loopback.fixtures import LoopbackTest
from loopback.models import Message

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")  # type: ignore[no-redef]
def loopback_bot_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    db = tmp_path_factory.mktemp("pictures-db") / "bot.db"
    cache = tmp_path_factory.mktemp("art-cache")
    return {"DATABASE_PATH": str(db), "UNO_ART_CACHE": str(cache), **FAST_ENV}


def picture(m: Message) -> Image.Image:
    names = [a["filename"] for a in m.attachments]
    assert names == ["hand.png"], names
    data = m.files["hand.png"]
    assert data.startswith(b"\x89PNG")
    return Image.open(io.BytesIO(data))


async def test_my_hand_shows_the_hand_as_a_picture_privately(loopback: LoopbackTest,
                                                              loopback_bot_env: dict[str, str]
                                                              ) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    await alice.slash("uno new")
    await alice.slash("uno settings", turn_timer=600)
    await bob.click("Join")
    await alice.click("Start")
    table = await loopback.channel.wait_for(lambda m: "My hand" in m.button_labels())
    state = await saved_state(loopback_bot_env["DATABASE_PATH"], loopback.channel)
    assert state is not None
    for member in (alice, bob):
        r = await member.click("My hand", message=table)
        assert r.ephemeral and r.message is not None
        held = state["game"]["hands"][str(member.id)]
        image = picture(r.message)
        # one card per column up to ten a row: the picture is as wide as the hand
        assert image.width >= min(len(held), 10) * CARD_W
        assert image.width < (min(len(held), 10) + 1) * CARD_W + 200
    assert all(a["filename"].startswith("table-") for m in loopback.channel.messages
               for a in m.attachments), "no public message carries a hand's picture"
    # The drawn cards are kept on disk for the next start.
    assert cached_pngs(loopback_bot_env["UNO_ART_CACHE"])


def cached_pngs(directory: str) -> list[pathlib.Path]:
    return list(pathlib.Path(directory).rglob("*.png"))
