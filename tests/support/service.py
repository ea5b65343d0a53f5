"""The table service without Discord, as its tests drive it: a real database, a recording
outbox in place of Discord, and the usual players."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from cogs.uno._contracts import Actor
from cogs.uno._scheduler import Scheduler
from cogs.uno._service import TableService
from cogs.uno._session import Options, Seat, Session
from data import Database, SavedGame
from engine import Card, Color, Game, Settings
from support.data import opened

GUILD = 500
ALICE = Actor("111", "Alice")
BOB = Actor("222", "Bob")
CAROL = Actor("333", "Carol")


@dataclass
class RecordingOutbox:
    """Records what the service asks to post; posts nothing."""

    announced: list[tuple[int, list[str], bool, str | None]] = field(default_factory=list)
    notices: list[tuple[int, list[str]]] = field(default_factory=list)
    lobbies: list[int] = field(default_factory=list)
    closed: list[int | None] = field(default_factory=list)
    reopened: list[int] = field(default_factory=list)

    def announce(self, session: Session, lines: Sequence[str], *, table: bool = True,
                 mention: str | None = None, fresh: bool = False,
                 lasting: bool = False) -> None:
        self.announced.append((session.channel_id, list(lines), table, mention))

    def notice(self, channel_id: int, guild_id: int, lines: Sequence[str]) -> None:
        self.notices.append((channel_id, list(lines)))

    def refresh_lobby(self, session: Session) -> None:
        self.lobbies.append(session.channel_id)

    def close_message(self, session: Session, message_id: int | None) -> None:
        self.closed.append(message_id)

    def reopen(self, channel_id: int) -> None:
        self.reopened.append(channel_id)

    def text(self) -> str:
        return "\n".join(line for _c, lines, _t, _m in self.announced for line in lines)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    async with opened(tmp_path / "bot.db") as database:
        yield database


def make_service(db: Database, *, scale: float = 1.0, cpu_delay: float = 0.01
                 ) -> tuple[TableService, RecordingOutbox]:
    outbox = RecordingOutbox()
    return TableService(db, outbox, Scheduler(), time_scale=scale, cpu_delay=cpu_delay), outbox


def scenario(channel_id: int, players: Sequence[Actor | str], *, hands: dict[str, str],
             discard: str, draw: str, turn: str, options: Options | None = None,
             scores: dict[str, int] | None = None, color: Color | None = None) -> Session:
    """A session at exactly this position (strings in ``players`` are computer players)."""
    opts = options or Options()
    ids = [p if isinstance(p, str) else p.id for p in players]
    seats = [Seat(p, p.upper(), cpu=True) if isinstance(p, str) else Seat(p.id, p.name)
             for p in players]
    game, _events = Game.from_setup(
        ids, edition=opts.edition,
        settings=Settings(target=opts.target, scoring=opts.scoring),
        seed=3, hands={p: [Card.parse(c) for c in h.split()] for p, h in hands.items()},
        draw=[Card.parse(c) for c in draw.split()],
        discard=[Card.parse(c) for c in discard.split()], turn=turn, color=color,
        scores=scores or {})
    game.names = {s.id: s.name for s in seats}
    human = next(s.id for s in seats if not s.cpu)
    session = Session(channel_id=channel_id, guild_id=GUILD, host_id=human, seats=seats,
                      options=opts, game=game, serial=1, last_human=time.time())
    session.cpu_counter = sum(1 for s in seats if s.cpu)
    return session


async def install(db: Database, *sessions: Session) -> None:
    for s in sessions:
        await db.save_game(SavedGame(s.channel_id, s.guild_id, s.game_id, s.to_json(),
                                     int(time.time())))


async def saved(db: Database, channel_id: int) -> dict[str, Any] | None:
    record = await db.load_game(channel_id)
    return json.loads(record.state) if record is not None else None


async def running(db: Database, *sessions: Session, scale: float = 1.0
                  ) -> tuple[TableService, RecordingOutbox]:
    await install(db, *sessions)
    service, outbox = make_service(db, scale=scale)
    await service.restore()
    outbox.announced.clear()
    return service, outbox
