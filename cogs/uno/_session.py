"""A game session: one channel's lobby or game, with what the bot keeps beside the engine.

Pure data plus JSON round trip; the cog owns the lock, the timers and Discord calls.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from engine import Game, Settings

MAX_CPUS_WITH_ONE_HUMAN = 5
CPU_PREFIX = "cpu"
SESSION_VERSION = 1


@dataclass(slots=True)
class Seat:
    id: str
    """Discord user id as a string, or ``cpuN`` for a computer player."""
    name: str
    cpu: bool = False


@dataclass(slots=True)
class Options:
    """What the host chooses before the start (defaults from the server's settings)."""

    edition: str = "power-grab"
    target: int = 500
    scoring: str = "standard"
    grab2_points: int = 20
    turn_timer: int = 90
    mention_turn: bool = True
    shuffle_seats: bool = False

    def engine_settings(self) -> Settings:
        return Settings(target=self.target, scoring=self.scoring,
                        grab2_points=self.grab2_points, shuffle_seats=self.shuffle_seats)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Options:
        return cls(**{k: d[k] for k in cls.__slots__ if k in d})


@dataclass(slots=True)
class Session:
    channel_id: int
    guild_id: int
    host_id: str
    game_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    seats: list[Seat] = field(default_factory=list)
    options: Options = field(default_factory=Options)
    game: Game | None = None
    serial: int = 0
    """Counts turn moves; menus carry it so a stale one is recognised."""
    timeouts: dict[str, int] = field(default_factory=dict)
    deadline: float | None = None
    """Epoch seconds when the current player's time runs out (None: no timer)."""
    deadline_serial: int = -1
    """The serial the deadline was set for: a later decision gets a fresh one."""
    unranked: bool = False
    """The game ended because players left: it is not recorded on the leaderboard."""
    last_human: float = 0.0
    lobby_message_id: int | None = None
    table_message_id: int | None = None
    cpu_counter: int = 0
    recorded: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    # ------------------------------------------------------------------ seats
    @property
    def started(self) -> bool:
        return self.game is not None

    def seat(self, player: str) -> Seat | None:
        return next((s for s in self.seats if s.id == player), None)

    def is_seated(self, player: str) -> bool:
        if self.game is not None:
            return player in self.game.players
        return self.seat(player) is not None

    def is_cpu(self, player: str) -> bool:
        seat = self.seat(player)
        return seat is not None and seat.cpu

    def name(self, player: str) -> str:
        seat = self.seat(player)
        return seat.name if seat else player

    def humans(self) -> list[str]:
        live = self.game.players if self.game is not None else [s.id for s in self.seats]
        return [p for p in live if not self.is_cpu(p)]

    def add_cpu(self) -> Seat:
        self.cpu_counter += 1
        seat = Seat(f"{CPU_PREFIX}{self.cpu_counter}", f"CPU {self.cpu_counter}", cpu=True)
        self.seats.append(seat)
        return seat

    def start_game(self) -> Game:
        game = Game.new(
            [s.id for s in self.seats],
            edition=self.options.edition,
            settings=self.options.engine_settings(),
            seed=int(self.game_id, 16),
            names={s.id: s.name for s in self.seats},
        )
        self.game = game
        return game

    # ------------------------------------------------------------------ persistence
    def to_json(self) -> str:
        return json.dumps({
            "version": SESSION_VERSION,
            "channel_id": self.channel_id,
            "guild_id": self.guild_id,
            "host_id": self.host_id,
            "game_id": self.game_id,
            "seats": [[s.id, s.name, s.cpu] for s in self.seats],
            "options": self.options.to_dict(),
            "game": self.game.to_dict() if self.game is not None else None,
            "serial": self.serial,
            "timeouts": self.timeouts,
            "deadline": self.deadline,
            "deadline_serial": self.deadline_serial,
            "last_human": self.last_human,
            "lobby_message_id": self.lobby_message_id,
            "table_message_id": self.table_message_id,
            "cpu_counter": self.cpu_counter,
        }, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Session:
        d = json.loads(text)
        if d.get("version") != SESSION_VERSION:
            raise ValueError("unknown saved session version")
        return cls(
            channel_id=int(d["channel_id"]),
            guild_id=int(d["guild_id"]),
            host_id=str(d["host_id"]),
            game_id=str(d["game_id"]),
            seats=[Seat(str(i), str(n), bool(c)) for i, n, c in d["seats"]],
            options=Options.from_dict(d["options"]),
            game=Game.from_dict(d["game"]) if d["game"] is not None else None,
            serial=int(d["serial"]),
            timeouts={str(k): int(v) for k, v in d["timeouts"].items()},
            deadline=d["deadline"],
            deadline_serial=int(d.get("deadline_serial", -1)),
            last_human=float(d["last_human"]),
            lobby_message_id=d["lobby_message_id"],
            table_message_id=d["table_message_id"],
            cpu_counter=int(d["cpu_counter"]),
        )
