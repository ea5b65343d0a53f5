"""What end-to-end tests of the real bot share: the bot's quick settings, its database, and
waiting for what it saves in the background."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.models import Channel, Message
from loopback.rest import Request
from loopback.users import InteractionResult, Member
from support.games import saved_state

FAST_ENV = {"UNO_CPU_DELAY": "0.05", "LOG_LEVEL": "INFO", "UNO_CARD_EMOJIS": "0",
            "UNO_MAX_LAG_MS": "0"}
"""Quick computer players; no card-face emojis (their upload in the background would make
hand texts depend on timing): tests/e2e/test_emojis.py turns them on; no "busy" for a late
event loop (a loaded test machine could make a click's answer depend on it:
tests/cog/test_reply_overload.py tests it on a loop held late). Every module's bot starts
with these (tests/conftest.py, ``loopback_bot_env``) unless its ``bot_env`` marker says
otherwise."""


def db_of(where: LoopbackTest | Channel | BotProcess) -> str:
    """The bot's database file (for :func:`support.games.saved_state`, ``install``,
    ``rows``): the bot of a test, of a channel's loopback Discord, or the bot itself."""
    if isinstance(where, LoopbackTest):
        bot = where.bot
    elif isinstance(where, Channel):
        bot = where.server.bots[0]
    else:
        bot = where
    return bot.extra_env["DATABASE_PATH"]


def saved_game(t: LoopbackTest, channel: Channel | None = None) -> dict[str, Any] | None:
    """The game of the test's channel (or of ``channel``) as the bot last saved it (an
    oracle for assertions, never for driving)."""
    return saved_state(db_of(t), channel or t.channel)


async def lobby_saved(db_path: str, channel: Channel, r: InteractionResult) -> Message:
    """The lobby message /uno new answered with (``r``), once the bot has saved its id.

    The bot saves the id just after posting the lobby, after the answer: a snapshot of the
    saved game taken before that save differs from one taken after it, and a lobby change
    made before it is not shown on the message (the lobby is refreshed on its message only
    once the bot knows which message that is)."""
    assert r.message is not None and not r.ephemeral, r
    s: dict[str, Any] | None = None
    for _ in range(100):
        s = saved_state(db_path, channel)
        if s is not None and s["lobby_message_id"] == r.message.id:
            return r.message
        await asyncio.sleep(0.05)
    raise AssertionError(f"the lobby's message id was never saved: {s}")


FRESH_DIR = "<a fresh folder>"
"""A ``bot_env`` marker's value for a new empty folder of the module (tests/conftest.py):
``pytest.mark.bot_env(UNO_ART_CACHE=FRESH_DIR)``."""


# ------------------------------------------------------------------ the live hand panel
def card_buttons(msg: Message, *, enabled: bool = True) -> list[str]:
    """The card codes a hand panel offers as buttons (enabled ones: those playable now),
    in order; a card offered "and call UNO!" is listed as ``R7|u``."""
    codes = []
    for b in msg.buttons():
        parts = str(b.get("custom_id", "")).split(":")
        if parts[:2] == ["uno", "pc"] and (not enabled or not b.get("disabled")):
            codes.append(parts[4] + ("|u" if parts[5:] == ["u"] else ""))
    return codes


def _button_id(member: Member, family: str, last: str, message: Message | None,
               uno: bool = False) -> str:
    """The custom_id of the ``uno:<family>:…`` button whose card (or towers) is ``last``."""
    messages = [message] if message is not None else list(reversed(member.sees()))
    for msg in messages:
        for b in msg.buttons():
            cid = str(b.get("custom_id", ""))
            parts = cid.split(":")
            if parts[:2] != ["uno", family] or b.get("disabled"):
                continue
            if family == "pc" and parts[4] == last and (parts[5:] == ["u"]) == uno:
                return cid
            if family == "tb" and parts[-1] == last:
                return cid
    raise AssertionError(f"{member.name} sees no {family} button {last!r} (uno={uno})")


async def play_card(member: Member, code: str, *, uno: bool = False,
                    message: Message | None = None, **kwargs: Any) -> InteractionResult:
    """Click card ``code`` in ``member``'s hand panel (``uno``: its "and call UNO!")."""
    if code.endswith("|u"):
        code, uno = code[:-2], True
    return await member.click(custom_id=_button_id(member, "pc", code, message, uno),
                              message=message, **kwargs)


async def grab(member: Member, towers: str, *, message: Message | None = None
               ) -> InteractionResult:
    """Click the button that grabs ``towers`` (``"N"``, or a pair such as ``"UO"``)."""
    return await member.click(custom_id=_button_id(member, "tb", towers, message),
                              message=message)


async def panel_shows(ch: Channel, panel: Message, text: str, timeout: float = 5.0) -> None:  # noqa: ASYNC109
    """Wait until the bot has edited ``panel`` (a hand panel in ``ch``) to show ``text``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while text not in panel.text():
        remaining = deadline - loop.time()
        assert remaining > 0, f"the panel never showed {text!r}: {panel.text()!r}"
        await ch.server.wait_change(min(remaining, 0.5))


def panel_text_edit(shown_by: InteractionResult) -> Callable[[Request], bool]:
    """Matches the bot's text edits of the panel that ``shown_by`` answered with (a JSON
    ``PATCH /webhooks/{app}/{token}/messages/@original`` with that click's token), for
    ``fail_next``: not the multipart edit that adds its hand picture, and not an edit of the
    table, which the outbox sends through a click's webhook when that click carried the
    table's post (``/messages/{id}``: a loaded machine reroutes a queued post so)."""
    token = shown_by.state.token

    def matches(req: Request) -> bool:
        return (req.params.get("token") == token and req.params.get("mid") == "@original"
                and req.raw.content_type == "application/json")
    return matches


# ------------------------------------------------------------------ the bot as a command
ROOT = Path(__file__).resolve().parents[2]


def run_bot(env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``python bot.py`` with ``env`` over this environment less its Discord and database
    settings (so the test says them all), to its end."""
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("DISCORD_", "DEV_GUILD", "DATABASE_"))}
    return subprocess.run([sys.executable, "bot.py"], cwd=ROOT, env={**base, **env},
                          capture_output=True, text=True, timeout=timeout, check=False)


def fake_token() -> str:
    """A token of the right shape, made up at each run (none is ever committed)."""
    first = base64.urlsafe_b64encode(b"123456789012345678").decode().rstrip("=")
    return f"{first}.{secrets.token_urlsafe(5)}.{secrets.token_urlsafe(27)}"


async def rest(t: LoopbackTest, method: str, path: str, body: dict[str, Any] | None = None
               ) -> tuple[int, Any]:
    """A REST call as the bot would make it, straight to the loopback server (tests of
    the loopback's own routes)."""
    headers = {"Authorization": f"Bot {t.discord.token}"}
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, t.discord.api_base + path, json=body, headers=headers) as resp,
    ):
        text = await resp.text()
        return resp.status, (json.loads(text) if text else None)
