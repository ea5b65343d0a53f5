"""Helpers for end-to-end tests of the real bot through the loopback Discord.

Scenario games: a test builds an exact position with ``Game.from_setup`` and saves it in the
bot's database as a game in progress (the same record the bot writes after every move), then
(re)starts the bot, which loads it like any game that survived a restart. Everything after
that goes through the UI.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

from cogs.uno._session import Options, Seat, Session
from data import LogEntry, SavedGame
from engine import Card, Color, Game, Settings, Tower
from engine.replay import replay_header
from loopback.models import Channel, Message
from loopback.users import InteractionResult, Member
from support.data import opened

FAST_ENV = {"UNO_CPU_DELAY": "0.05", "LOG_LEVEL": "INFO", "UNO_CARD_EMOJIS": "0",
            "UNO_MAX_LAG_MS": "0"}
"""Quick computer players; no card-face emojis (their upload in the background would make
hand texts depend on timing): tests/e2e/test_emojis.py turns them on; no "busy" for a late event
loop (a loaded test machine could make a click's answer depend on it:
tests/table/test_reply_overload.py tests it on a loop held late)."""


def cards(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


def scenario_session(
    channel: Channel,
    players: Sequence[Member | str],
    *,
    hands: dict[Member | str, str],
    discard: str,
    draw: str | None = None,
    color: Color | None = None,
    towers: dict[Tower, Member | str | None] | None = None,
    turn: Member | str | None = None,
    direction: int = 1,
    scores: dict[Member | str, int] | None = None,
    options: Options | None = None,
    seed: int = 7,
) -> Session:
    """A session whose game is at exactly this position. Strings name computer players
    (``cpu1``...); members are humans."""

    def pid(p: Member | str) -> str:
        return p if isinstance(p, str) else str(p.id)

    assert channel.guild is not None
    opts = options or Options()
    ids = [pid(p) for p in players]
    seats = [Seat(pid(p), p if isinstance(p, str) else p.name, cpu=isinstance(p, str))
             for p in players]
    game, _events = Game.from_setup(
        ids,
        edition=opts.edition,
        settings=Settings(target=opts.target, scoring=opts.scoring,
                          grab2_points=opts.grab2_points),
        seed=seed,
        hands={pid(p): cards(h) for p, h in hands.items()},
        draw=cards(draw) if draw is not None else None,
        discard=cards(discard),
        color=color,
        towers={t: (pid(h) if h is not None else None) for t, h in (towers or {}).items()},
        turn=pid(turn) if turn is not None else None,
        direction=direction,
        scores={pid(p): v for p, v in (scores or {}).items()},
    )
    game.names = {s.id: s.name for s in seats}
    human = next(s.id for s in seats if not s.cpu)
    session = Session(channel_id=channel.id, guild_id=channel.guild.id, host_id=human,
                      seats=seats, options=opts, game=game, serial=1,
                      last_human=time.time())
    session.cpu_counter = sum(1 for s in seats if s.cpu)
    return session


async def install(db_path: str, *sessions: Session) -> None:
    """Write sessions into the bot's database as saved games in progress."""
    async with opened(db_path) as db:
        for s in sessions:
            await db.save_game(SavedGame(channel_id=s.channel_id, guild_id=s.guild_id,
                                         game_id=s.game_id, state=s.to_json(),
                                         updated_at=int(time.time())))


async def install_header(db_path: str, session: Session) -> None:
    """The move log's header (seq 0), as if the bot had started the game, so that /uno log
    and the replay export read the moves that follow."""
    game = session.game
    assert game is not None
    header = {**replay_header(game, session.seed, {s.id: s.name for s in session.seats}),
              "game_id": session.game_id}
    async with opened(db_path) as db:
        await db.save_game(
            SavedGame(channel_id=session.channel_id, guild_id=session.guild_id,
                      game_id=session.game_id, state=session.to_json(),
                      updated_at=int(time.time())),
            [LogEntry(game_id=session.game_id, guild_id=session.guild_id,
                      channel_id=session.channel_id, seq=0,
                      entry=json.dumps(header), created_at=int(time.time()))])


def rows(db_path: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows of a read-only query on the bot's database (an oracle for assertions)."""
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


async def saved_state(db_path: str, channel: Channel) -> dict[str, Any] | None:
    """The game as the bot last saved it (an oracle for assertions, never for driving)."""
    async with opened(db_path) as db:
        saved = await db.load_game(channel.id)
    if saved is None:
        return None
    state: dict[str, Any] = json.loads(saved.state)
    return state


async def lobby_saved(db_path: str, channel: Channel, r: InteractionResult) -> Message:
    """The lobby message /uno new answered with (``r``), once the bot has saved its id.

    The bot saves the id just after posting the lobby, after the answer: a snapshot of the
    saved game taken before that save differs from one taken after it, and a lobby change
    made before it is not shown on the message (the lobby is refreshed on its message only
    once the bot knows which message that is)."""
    assert r.message is not None and not r.ephemeral, r
    s: dict[str, Any] | None = None
    for _ in range(100):
        s = await saved_state(db_path, channel)
        if s is not None and s["lobby_message_id"] == r.message.id:
            return r.message
        await asyncio.sleep(0.05)
    raise AssertionError(f"the lobby's message id was never saved: {s}")
