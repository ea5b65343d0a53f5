"""Games at exact positions, saved as the bot saves them, and read back.

A test builds an exact position with ``Game.from_setup`` (:func:`scenario_session`) and
saves it in the database as a game in progress (:func:`install`: the same record the bot
or the table service writes after every move); the bot, or a table service, then loads it
like any game that survived a restart. :func:`saved_state` reads the game back as it was
last saved: an oracle for assertions, never for driving.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping, Sequence
from typing import Any

from cogs.uno.table.contracts import Actor
from cogs.uno.table.session import Options, Seat, Session
from data import Database, LogEntry, SavedGame
from data.database import is_url
from engine import Card, Color, Game, Settings, Tower
from engine.replay import replay_header
from loopback.models import Channel
from loopback.users import Member
from support.data import opened, query
from support.postgres import real_url

Player = Member | Actor | str
"""A seat: a loopback member or a service test's actor is a human; a string is a computer
player (``"cpu1"``...) or, as a key of ``hands`` and the like, a player's id."""


def cards(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


def player_id(p: Player) -> str:
    if isinstance(p, str):
        return p
    return p.id if isinstance(p, Actor) else str(p.id)


def scenario_session(
    channel: Channel | int,
    players: Sequence[Player],
    *,
    hands: Mapping[Player, str],
    discard: str,
    draw: str | None = None,
    color: Color | None = None,
    towers: Mapping[Tower, Player | None] | None = None,
    turn: Player | None = None,
    direction: int = 1,
    scores: Mapping[Player, int] | None = None,
    options: Options | None = None,
    seed: int = 7,
    guild_id: int | None = None,
) -> Session:
    """A session whose game is at exactly this position, in a loopback channel or (for the
    table service's tests) a channel id with ``guild_id``. Strings in ``players`` name
    computer players; members and actors are humans (the first one hosts)."""
    if isinstance(channel, int):
        assert guild_id is not None, "a channel id needs its guild_id"
        channel_id, guild = channel, guild_id
    else:
        assert channel.guild is not None
        channel_id, guild = channel.id, channel.guild.id
    opts = options or Options()
    ids = [player_id(p) for p in players]
    seats = [Seat(player_id(p), p if isinstance(p, str) else p.name, cpu=isinstance(p, str))
             for p in players]
    game, _events = Game.from_setup(
        ids,
        edition=opts.edition,
        settings=Settings(target=opts.target, scoring=opts.scoring,
                          grab2_points=opts.grab2_points),
        seed=seed,
        hands={player_id(p): cards(h) for p, h in hands.items()},
        draw=cards(draw) if draw is not None else None,
        discard=cards(discard),
        color=color,
        towers={t: (player_id(h) if h is not None else None)
                for t, h in (towers or {}).items()},
        turn=player_id(turn) if turn is not None else None,
        direction=direction,
        scores={player_id(p): v for p, v in (scores or {}).items()},
    )
    game.names = {s.id: s.name for s in seats}
    human = next(s.id for s in seats if not s.cpu)
    session = Session(channel_id=channel_id, guild_id=guild, host_id=human,
                      seats=seats, options=opts, game=game, serial=1,
                      last_human=time.time())
    session.cpu_counter = sum(1 for s in seats if s.cpu)
    return session


def _record(s: Session) -> SavedGame:
    return SavedGame(channel_id=s.channel_id, guild_id=s.guild_id, game_id=s.game_id,
                     state=s.to_json(), updated_at=int(time.time()))


async def install(db: str | Database, *sessions: Session) -> None:
    """Write sessions into the database (a file, or one already open) as saved games in
    progress."""
    if isinstance(db, Database):
        for s in sessions:
            await db.save_game(_record(s))
        return
    async with opened(db) as database:
        await install(database, *sessions)


async def install_header(db_path: str, session: Session) -> None:
    """The move log's header (seq 0), as if the bot had started the game, so that /uno log
    and the replay export read the moves that follow."""
    game = session.game
    assert game is not None
    header = {**replay_header(game, session.seed, {s.id: s.name for s in session.seats}),
              "game_id": session.game_id}
    async with opened(db_path) as db:
        await db.save_game(
            _record(session),
            [LogEntry(game_id=session.game_id, guild_id=session.guild_id,
                      channel_id=session.channel_id, seq=0,
                      entry=json.dumps(header), created_at=int(time.time()))])


def rows(db: str | Database, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows of a read-only query on the database file (an oracle for assertions); on a
    PostgreSQL test database, through a connection of its own."""
    path = db.path if isinstance(db, Database) else db
    if is_url(path):
        return query(real_url(path), sql, *args)
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def saved_state(db: str | Database, channel: Channel | int) -> dict[str, Any] | None:
    """The game of this channel as it was last saved (the session's JSON: ``game``, ``seats``,
    ``options``...), or None: read from the file, read-only, so it is what a restart would
    load. An oracle for assertions, never for driving."""
    channel_id = channel if isinstance(channel, int) else channel.id
    found = rows(db, "SELECT state FROM saved_games WHERE channel_id = ?", channel_id)
    if not found:
        return None
    state: dict[str, Any] = json.loads(found[0][0])
    return state
