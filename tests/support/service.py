"""The table service without Discord, as its tests drive it: a real database, a recording
outbox in place of Discord, and the usual players."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cogs.uno.table.contracts import Actor
from cogs.uno.table.scheduler import Scheduler
from cogs.uno.table.service import TableService
from cogs.uno.table.session import Session
from data import Database
from support.games import install, scenario_session

GUILD = 500
ALICE = Actor("111", "Alice")
BOB = Actor("222", "Bob")
CAROL = Actor("333", "Carol")


@dataclass
class RecordingOutbox:
    """Records what the service asks to post; posts nothing."""

    announced: list[tuple[int, list[str], bool, str | None]] = field(default_factory=list)
    results: list[Session] = field(default_factory=list)
    """Sessions whose result was asked for (a finished game's result message)."""
    notices: list[tuple[int, list[str]]] = field(default_factory=list)
    lobbies: list[int] = field(default_factory=list)
    closed: list[int | None] = field(default_factory=list)
    reopened: list[int] = field(default_factory=list)

    def announce(self, session: Session, lines: Sequence[str], *, table: bool = True,
                 mention: str | None = None, fresh: bool = False,
                 lasting: bool = False, result: bool = False) -> None:
        self.announced.append((session.channel_id, list(lines), table, mention))
        if result:
            self.results.append(session)

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


def make_service(db: Database, *, scale: float = 1.0, cpu_delay: float = 0.01
                 ) -> tuple[TableService, RecordingOutbox]:
    outbox = RecordingOutbox()
    return TableService(db, outbox, Scheduler(), time_scale=scale, cpu_delay=cpu_delay), outbox


def scenario(channel_id: int, players: Sequence[Actor | str], **position: Any) -> Session:
    """:func:`support.games.scenario_session` in the service tests' guild (seed 3): strings
    in ``players`` are computer players, keys of ``hands`` are player ids."""
    return scenario_session(channel_id, players, guild_id=GUILD, seed=3, **position)


async def running(db: Database, *sessions: Session, scale: float = 1.0
                  ) -> tuple[TableService, RecordingOutbox]:
    await install(db, *sessions)
    service, outbox = make_service(db, scale=scale)
    await service.restore()
    outbox.announced.clear()
    return service, outbox


PATIENCE = 120.0
"""Seconds a test waits for something that must come (a loaded machine is slow, a wrong one
never does it): only how long a broken bot takes to fail, never a condition to pass."""


async def until(cond: Callable[[], object], what: str, seconds: float = PATIENCE) -> None:
    """Wait until ``cond()`` holds: for what happens, not for a time that is enough only
    on an idle machine."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not cond():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)
