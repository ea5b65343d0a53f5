"""Helpers for end-to-end modules that install one scenario table per channel and then
act on them through the UI: who sits there, what the bot saved, and the usual checks."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection, Mapping
from typing import Any

from cogs.uno._table_post import TablePost, TableStyle
from cogs.uno.table.session import Options, Session
from loopback.bot_process import BotProcess
from loopback.models import Channel, Message
from loopback.server import LoopbackDiscord
from loopback.users import InteractionResult, Member
from support.e2e import db_of, panel_shows
from support.games import install, install_header, saved_state, scenario_session

Scenario = Callable[[Channel], Session]
LONG_TURNS = Options(turn_timer=600)
"""Long turns: the scenarios wait while earlier tests run."""


def registry() -> tuple[dict[str, Scenario], Callable[[Scenario], Scenario]]:
    """A module's scenarios and the decorator that adds one (named after its function)."""
    scenarios: dict[str, Scenario] = {}

    def scenario(fn: Scenario) -> Scenario:
        scenarios[fn.__name__] = fn
        return fn

    return scenarios, scenario


async def open_tables(server: LoopbackDiscord, bot: BotProcess,
                      scenarios: Mapping[str, Scenario], *,
                      logged: Collection[str] = ()) -> dict[str, Channel]:
    """One channel per scenario, all installed as saved games (those named in ``logged``
    with a move log header, as if the bot had started them), then one restart of the bot;
    returns once every table with a game says it goes on."""
    db_path = db_of(bot)
    guild = server.guilds[0]
    channels = {name: guild.new_channel(name) for name in scenarios}
    sessions = {name: build(channels[name]) for name, build in scenarios.items()}
    await install(db_path, *sessions.values())
    for name in logged:
        await install_header(db_path, sessions[name])
    await bot.restart()
    for name, ch in channels.items():
        if sessions[name].game is not None:
            await ch.wait_for(lambda m: "goes on" in m.text(), timeout=15)
    return channels


def abc(ch: Channel) -> tuple[Member, Member, Member]:
    return ch.member("alice"), ch.member("bob"), ch.member("carol")


def pair(ch: Channel) -> Session:
    """Alice and Bob with red cards to play in turn; Alice to move (long turns)."""
    a, b, _c = abc(ch)
    return scenario_session(ch, [a, b], hands={a: "R3 R4 R5 B4", b: "R6 R7 R8 G1"},
                            discard="R9", draw="Y1 Y2 Y3 Y4 Y5 Y6", turn=a,
                            options=LONG_TURNS)


async def written_table(ch: Channel, lines: list[str], message_id: int = 501
                        ) -> tuple[TablePost, Session, dict[str, Any]]:
    """A V2 table of ``pair(ch)``'s game written as message ``message_id`` with ``lines``
    (composed, then adopted as the outbox does): its TablePost, session and body."""
    session = pair(ch)
    session.table_message_id = message_id
    post = TablePost(TableStyle())
    post.change(session, True)
    body = await post.compose(session, False, lambda: lines, lambda: True)
    assert body is not None
    post.adopt(message_id)
    return post, session, body


def state(ch: Channel) -> dict[str, Any]:
    """The game as the bot last saved it (an oracle for assertions only)."""
    s = saved_state(db_of(ch), ch)
    assert s is not None, f"no saved game in {ch!r}"
    game: dict[str, Any] = s["game"]
    return game


async def poll_state(ch: Channel, pred: Callable[[dict[str, Any]], bool],
                     timeout: float = 5.0) -> dict[str, Any]:  # noqa: ASYNC109
    """The saved game once ``pred`` holds for it (the bot saves in the background)."""
    deadline = time.monotonic() + timeout
    while True:
        s = state(ch)
        if pred(s):
            return s
        if time.monotonic() > deadline:
            raise AssertionError(f"saved state never matched; last: {s}")
        await asyncio.sleep(0.05)


def hand(s: dict[str, Any], m: Member | str) -> list[str]:
    cards: list[str] = s["hands"][m if isinstance(m, str) else str(m.id)]
    return cards


def pid(m: Member) -> str:
    return str(m.id)


async def said(ch: Channel, text: str, after: int | None, timeout: float = 5.0) -> Message:  # noqa: ASYNC109
    return await ch.wait_for(lambda m: text in m.text(), after=after, timeout=timeout)


def versions(m: Message) -> list[str]:
    """The message's content in each version, oldest first, the current one last (a table
    is edited in place)."""
    return [_shown(old) for old in m.history] + [m.text()]


def _shown(payload: dict[str, Any]) -> str:
    """The text of a stored version: its content and its Components V2 text displays."""
    parts = [str(payload.get("content") or "")]
    stack = list(payload.get("components") or [])
    while stack:
        c = stack.pop(0)
        if c.get("type") == 10 and c.get("content"):
            parts.append(str(c["content"]))
        stack += list(c.get("components") or [])
    return "\n".join(p for p in parts if p)


def first_saying(ch: Channel, text: str) -> str:
    """The first version of any message of the channel that says ``text``."""
    for m in ch.messages:
        for version in versions(m):
            if text in version:
                return version
    raise AssertionError(f"nothing in #{ch.name} ever said {text!r}")


def refused(r: InteractionResult, sentence: str) -> None:
    assert r.ephemeral, f"expected a private answer, got {r!r}"
    assert sentence in r.text, f"expected {sentence!r}, got {r.text!r}"


async def refused_in_panel(member: Member, r: InteractionResult, sentence: str) -> None:
    """A refused click on the table by a player whose hand panel is live (their newest
    private message): acknowledged with no message, the reason on top of the panel."""
    assert r.response_type == 6, f"expected no message (the panel answers), got {r!r}"
    panel = member.ephemerals()[-1]
    await panel_shows(member.channel, panel, sentence)


def table_message(ch: Channel) -> Message:
    return next(m for m in reversed(ch.messages) if "My hand" in m.button_labels())


async def end_game(member: Member) -> InteractionResult:
    """``/uno end``, confirmed: the question is public, with Confirm and Cancel; Confirm
    edits it into what happened (the result returned)."""
    r = await member.slash("uno end")
    assert r.message is not None and not r.ephemeral, r.text
    assert r.message.button_labels() == ["Confirm", "Cancel"], r.message
    return await member.click("Confirm", message=r.message)
