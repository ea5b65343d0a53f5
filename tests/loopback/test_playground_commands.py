"""The playground page's slash commands, as its command box sends them (``POST /ui/act``,
every option as the text in its box) to the real bot: an option with choices takes a
choice's name typed in full, or is refused in words."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from loopback.fixtures import LoopbackTest
from loopback.server import LoopbackDiscord
from support.e2e import FAST_ENV, saved_game

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.bot_env(**FAST_ENV),
              pytest.mark.slow]


@pytest_asyncio.fixture(scope="module", loop_scope="module", name="loopback_discord")
async def web_discord() -> AsyncIterator[LoopbackDiscord]:
    """The loopback Discord with the playground's page (the module's bot plays on it)."""
    async with LoopbackDiscord(web_ui=True) as discord_:
        discord_.add_guild("Test")
        yield discord_


async def slash(t: LoopbackTest, who: str, command: str, **options: str) -> dict[str, Any]:
    """``/command`` from the page's command box, as ``who``: the page's answer."""
    body = {"as": who, "channel": str(t.channel.id), "kind": "slash", "command": command,
            "options": options}
    async with (aiohttp.ClientSession() as http,
                http.post(f"{t.discord.url}ui/act", json=body) as resp):
        answer: dict[str, Any] = await resp.json()
        return answer


def language(t: LoopbackTest) -> str:
    return str((saved_game(t) or {})["options"]["language"])


async def test_a_choice_typed_by_its_name(loopback: LoopbackTest) -> None:
    """``language:Français`` typed in full (or "francais", or the value "fr" the page sends
    for a choice picked from its list) sets the lobby's language; "Klingon" is refused in
    one sentence naming the choices, and nothing reaches the bot."""
    assert (await slash(loopback, "alice", "uno new"))["ok"]
    assert language(loopback) == "en"
    for typed, code in (("Français", "fr"), ("english", "en"), ("francais", "fr"),
                        ("en", "en"), ("FR", "fr")):
        answer = await slash(loopback, "alice", "uno settings", language=typed)
        assert answer["ok"], (typed, answer)
        assert language(loopback) == code, typed
    sent = len(loopback.discord.interactions)
    answer = await slash(loopback, "alice", "uno settings", language="Klingon")
    assert answer == {"ok": False, "error": "language: “Klingon” is not a choice here; pick "
                                            "English or Français."}
    assert len(loopback.discord.interactions) == sent
    assert language(loopback) == "fr"
