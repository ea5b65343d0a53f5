"""A game session: one channel's lobby or game, with what the bot keeps beside the engine.

Pure data plus a versioned JSON round trip; the table service owns the lock, the scheduler
the timers, the outbox every channel message.

Saved format: ``{"version": N, ...}``. A record of an older version is upgraded step by step
(``_UPGRADES``), never deleted; one that cannot be read raises :class:`SavedFormatError`, and
the table service sets it aside (kept in the database, logged, its channel told).
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from data import GuildSettings, LogEntry, SavedGame
from engine import Game, Match, Settings
from engine.events import Event
from engine.players import Notes, SeatView, seat_view
from engine.teams import TEAM_SIZES

_DEFAULTS = GuildSettings(0)
"""A server's defaults before it sets any (data.models holds every setting's default)."""
MAX_CPUS_WITH_ONE_HUMAN = 5
CPU_PREFIX = "cpu"
SESSION_VERSION = 5
LEVELS = ("easy", "normal", "hard")
"""The computer players' levels (engine/players/heuristic.py, engine/players/search.py);
"normal" is the default, and what every computer player saved before the levels plays."""
MODES = ("solo", "partners", "rotating")
"""How a table plays (sheet 004, "Playing with Partners"): everyone for themselves; fixed
partners sitting across (4 or 6 players); or four players rotating partners hand by hand.
(A tournament's sign-up has mode "tournament": /uno tournament opens it.)"""
TOURNAMENT_PLAYERS = 8
TEAM_SIZE = 2
PARTNER_PLAYERS = TEAM_SIZES
"""How many players partner play takes (4 or 6: partners sit across)."""
MAX_PLAYERS_PARTNERS = 6


_ORJSON_ONLY_PLAIN = (orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
                      | orjson.OPT_PASSTHROUGH_DATETIME)
"""orjson writes only plain values: a subclass of str, int, dict or list, a dataclass or a
date goes to the standard library, which writes it (or refuses it) as it always did."""


def compact_json(value: Any) -> str:
    """``value`` as compact JSON text, as ``json.dumps(value, separators=(",", ":"))`` writes
    it and ``json.loads`` reads it back: orjson writes it about ten times faster (a save a
    move: bench/README.md, "Where a click's CPU goes"). The text differs in two ways only,
    both read back as the same values: text outside ASCII is UTF-8 ("Zoé", not "Zo\\u00e9")
    and a float's exponent is written "1e+16" as Python does but small ones in full
    ("0.00001", not "1e-05"). Whatever orjson refuses (an int past 64 bits, a lone
    surrogate, a key that is not a string, a subclass) the standard library writes.
    (The session's floats are times, never NaN: orjson would write NaN as null.)"""
    try:
        return orjson.dumps(value, option=_ORJSON_ONLY_PLAIN).decode()
    except TypeError:  # orjson.JSONEncodeError is one
        return json.dumps(value, separators=(",", ":"))


class SavedFormatError(ValueError):
    """A saved session that cannot be read (unknown version, damaged record)."""


@dataclass(slots=True)
class Seat:
    id: str
    """Discord user id as a string, or ``cpuN`` for a computer player."""
    name: str
    cpu: bool = False
    team: int | None = None
    """The team chosen in the lobby (partners: 0, 1, 2), or None (dealt at the start)."""
    level: str = "normal"
    """A computer player's level (one of LEVELS)."""


@dataclass(slots=True)
class Options:
    """What the host chooses before the start (defaults from the server's settings)."""

    edition: str = _DEFAULTS.edition
    target: int = _DEFAULTS.target
    scoring: str = _DEFAULTS.scoring
    grab2_points: int = _DEFAULTS.grab2_points
    turn_timer: int = _DEFAULTS.turn_timer
    mention_turn: bool = _DEFAULTS.mention_turn
    shuffle_seats: bool = _DEFAULTS.shuffle_seats
    missed_turns: int = _DEFAULTS.missed_turns
    """Turns in a row a person may miss before a computer player keeps their seat warm."""
    mode: str = "solo"
    """One of MODES, or "tournament" (a game's choice, not a server default)."""
    hands_per_pairing: int = 4
    """A tournament: how many hands each two players partner (1 to 4: 7 to 28 hands)."""
    language: str = "en"
    """The language of the game's public text (the server's setting, or its Discord locale,
    when the lobby opened)."""

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
    """Public: shown on the table and in every custom_id."""
    seed: int = field(default_factory=lambda: secrets.randbits(63))
    """Secret: the deal and every shuffle follow from it (with the seats and settings, which
    are public), so it is never shown; the replay export reveals it once the game ended."""
    seats: list[Seat] = field(default_factory=list)
    options: Options = field(default_factory=Options)
    game: Game | None = None
    serial: int = 0
    """Counts turn moves; menus and table buttons carry it so a stale one is recognised."""
    timeouts: dict[str, int] = field(default_factory=dict)
    deadline: float | None = None
    """Epoch seconds when the current decision's time runs out (None: no timer running).
    Saved as the time that was left, so an outage never counts against the player."""
    deadline_serial: int = -1
    """The serial the deadline was set for: a later decision gets a fresh one."""
    remaining: float | None = None
    """Seconds that were left on the timer when the session was loaded (restart)."""
    unranked: bool = False
    """The game ended because players left: it is not recorded on the leaderboard."""
    last_human: float = 0.0
    lobby_message_id: int | None = None
    table_message_id: int | None = None
    cpu_counter: int = 0
    recorded: bool = False
    paused: str | None = None
    """Why the game is on hold (the bot can't post in the channel), or None."""
    unseen: dict[str, list[str]] = field(default_factory=dict)
    """Cards each player was made to draw and has not been shown yet (codes)."""
    lap_changed: dict[str, int] = field(default_factory=dict)
    """Players whose hand a Victory Lap replaced and who have not looked since: how many
    seats the hands moved (told once, privately, like ``unseen``)."""
    log_seq: int = 0
    """The sequence number of the last entry in the game's move log (0: the header)."""
    end_asked: int | None = None
    """The open ``/uno end`` question: when it expires (milliseconds since the epoch, as in
    its buttons' custom_id), or None. Only a Confirm carrying it ends the game; Cancel
    clears it (final: a Confirm on the cancelled question, or on a copy a client still
    shows, ends nothing) and a new question replaces it."""
    notified_serial: int = -1
    """The serial whose turn was last announced with a mention (one mention per turn)."""
    last_acted: dict[str, float] = field(default_factory=dict)
    """When each player last moved (monotonic seconds; not saved): a player who acted
    recently is watching and is not mentioned."""
    parent_id: int | None = None
    """For a game in a thread: the channel the thread belongs to (None: not a thread)."""
    replies: bool = False
    """The game lives in interaction replies: the bot is not a member of its channel (a
    group DM, a server that only a user install reaches), so nothing is posted there by
    the channel's routes (``cogs/uno/_places.py``)."""
    match: Match | None = None
    """A rotating-partners match: its schedule and totals; ``game`` is its current hand."""
    tables: list[int] = field(default_factory=list)
    """A tournament's standings session (in the channel): its tables' threads."""
    tournament_of: int | None = None
    """A tournament's table (in a thread): the channel of its standings session."""
    table: int = 0
    """A tournament's table: its number (0, 1)."""
    hand_round: int = 0
    """A tournament's table: the round of the hand it plays (or last played)."""
    stand_ins: list[str] = field(default_factory=list)
    """Players whose seat a computer player of the normal level keeps warm (they left, or
    missed their turn too often): their hand and towers stay; they take it back with
    /uno join (RULES.md R-BOT-WARM)."""
    tally: dict[str, list[int]] = field(default_factory=dict)
    """A match's figures per player over the finished hands: [towers grabbed, best hand]."""
    news: list[str] = field(default_factory=list)
    """Lines a saved change produced besides its move's (a match's hand result, the next
    hand's deal), for its announcement (not saved)."""
    again: bool = False
    """The finished game offers Play again (its seats and settings were kept when its
    result was recorded: ``results.offer_again``); not saved."""
    announced_round: tuple[str, int] | None = None
    """The game and round the last table showed (not saved): a new round (or a match's new
    hand) gets a new table."""
    notes: Notes = field(default_factory=Notes)
    """What the game's events showed (engine/players/seatview.py: who is known or likely not to
    hold a colour, a challenged hand), for the hard computer players' views. Kept in
    memory only: after a restart it starts again from the next move."""
    notes_of: str = ""
    """The game id the notes are about (a match's next hand starts them again)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    saved: str | None = None
    """The JSON last written to the database: what a failed write rolls back to."""

    # ------------------------------------------------------------------ seats
    @property
    def started(self) -> bool:
        return self.game is not None or bool(self.tables)

    def seat(self, player: str) -> Seat | None:
        # (a plain loop: asked for every name and computer mark shown, several times a
        # move; next() over a generator took about nine times as long: 1.1 against 0.13 us)
        for seat in self.seats:
            if seat.id == player:
                return seat
        return None

    def is_seated(self, player: str) -> bool:
        if self.game is not None:
            return player in self.game.players
        return self.seat(player) is not None

    def is_cpu(self, player: str) -> bool:
        """Whether a computer player acts for ``player``: a computer player's seat, or a
        person's kept warm (``stand_ins``)."""
        seat = self.seat(player)
        return seat is not None and (seat.cpu or player in self.stand_ins)

    def is_standing_in(self, player: str) -> bool:
        """Whether a computer player keeps ``player``'s (a person's) seat warm."""
        return player in self.stand_ins

    def name(self, player: str) -> str:
        seat = self.seat(player)
        return seat.name if seat else player

    def humans(self) -> list[str]:
        live = self.game.players if self.game is not None else [s.id for s in self.seats]
        return [p for p in live if not self.is_cpu(p)]

    def level(self, player: str) -> str | None:
        """A computer player's level (None for a person; "normal" for the computer player
        keeping a person's seat warm)."""
        seat = self.seat(player)
        if seat is None:
            return None
        if seat.cpu:
            return seat.level
        return "normal" if player in self.stand_ins else None

    def _game_notes(self) -> Notes:
        if self.notes_of != self.game_id:
            self.notes, self.notes_of = Notes(), self.game_id
        return self.notes

    def observe(self, events: list[Event]) -> None:
        """Note what the events of a move showed the table (for ``view_of``)."""
        self._game_notes().observe(events)

    def view_of(self, player: str) -> SeatView:
        """What ``player`` can know of the game now (a hard computer player's search is
        given this and nothing else)."""
        assert self.game is not None
        return seat_view(self.game, player, self._game_notes())

    def add_cpu(self, level: str = "normal") -> Seat:
        self.cpu_counter += 1
        seat = Seat(f"{CPU_PREFIX}{self.cpu_counter}", f"CPU {self.cpu_counter}", cpu=True,
                    level=level)
        self.seats.append(seat)
        return seat

    def start_game(self) -> Game:
        """The game the lobby asked for (raises the engine's error if its line-up can't
        play): seats in joining order; partners seated across; or a match's first hand."""
        names = {s.id: s.name for s in self.seats}
        settings = self.options.engine_settings()
        if self.options.mode == "rotating":
            self.match = Match.rotating([s.id for s in self.seats],
                                        rng=random.Random(self.seed))
            return self.next_hand()
        teams = self.deal_teams() if self.options.mode == "partners" else None
        players = ([p for column in zip(*teams, strict=True) for p in column]
                   if teams is not None else [s.id for s in self.seats])
        game = Game.new(players, edition=self.options.edition, settings=settings,
                        seed=self.seed, names=names, teams=teams)
        self.game = game
        return game

    def next_hand(self) -> Game:
        """The match's next hand as the session's game (a new game id: its own table,
        buttons and replay file); its seed follows from the session's and the hand's."""
        assert self.match is not None
        hand = self.match.next_hands()[0]
        settings = Settings(target=self.options.target, grab2_points=self.options.grab2_points)
        self.game = self.match.new_game(
            hand, edition=self.options.edition, settings=settings,
            seed=self.hand_seed(), names={s.id: s.name for s in self.seats})
        if hand.round > 0:
            self.game_id = uuid.uuid4().hex[:12]
        return self.game

    def hand_seed(self) -> int:
        """The seed of the match's current hand (the session's seed for a single game)."""
        if self.match is None or self.match.current_round is None:
            return self.seed
        return self.seed + 1_000_003 * self.match.current_round

    def team_count(self) -> int:
        return max(1, len(self.seats) // TEAM_SIZE)

    def deal_teams(self) -> list[list[str]]:
        """Partners: the teams chosen in the lobby, completed at random (the session's
        seed) with everyone who chose none; team i's first member sits in seat i."""
        count = self.team_count()
        teams: list[list[str]] = [[] for _ in range(count)]
        free: list[str] = []
        for seat in self.seats:
            if seat.team is not None and seat.team < count and len(teams[seat.team]) < TEAM_SIZE:
                teams[seat.team].append(seat.id)
            else:
                free.append(seat.id)
        random.Random(self.seed).shuffle(free)
        for team in teams:
            while len(team) < TEAM_SIZE and free:
                team.append(free.pop())
        return teams

    def lobby_teams(self) -> dict[str, int]:
        """Partners, in the lobby: the team each seat will play on (0, 1, 2), as the start
        would deal them (``deal_teams``) once the seats make teams (4 or 6 players, every
        chosen team among them); until then the teams chosen so far."""
        chosen = {s.id: s.team for s in self.seats if s.team is not None}
        count = len(self.seats) // TEAM_SIZE
        if (len(self.seats) not in PARTNER_PLAYERS
                or any(team >= count for team in chosen.values())):
            return chosen
        return {pid: i for i, team in enumerate(self.deal_teams()) for pid in team}

    # ------------------------------------------------------------------ persistence
    def log_entry(self, seq: int, entry: dict[str, Any], now: int | None = None) -> LogEntry:
        """Entry ``seq`` of the move log of the current game (0: its header)."""
        return LogEntry(game_id=self.game_id, guild_id=self.guild_id,
                        channel_id=self.channel_id, seq=seq,
                        entry=compact_json(entry),
                        created_at=int(time.time()) if now is None else now)

    def row(self, text: str) -> SavedGame:
        """The database row of this session saved as ``text`` (its JSON)."""
        return SavedGame(channel_id=self.channel_id, guild_id=self.guild_id,
                         game_id=self.game_id, state=text, updated_at=int(time.time()))

    def to_dict(self, now: float | None = None) -> dict[str, Any]:
        now = time.time() if now is None else now
        remaining = None
        if self.deadline is not None:
            remaining = round(max(0.0, self.deadline - now), 3)
        elif self.remaining is not None:
            remaining = self.remaining
        return {
            "version": SESSION_VERSION,
            "channel_id": self.channel_id,
            "guild_id": self.guild_id,
            "host_id": self.host_id,
            "game_id": self.game_id,
            "seed": self.seed,
            "seats": [[s.id, s.name, s.cpu, s.team, s.level] for s in self.seats],
            "options": self.options.to_dict(),
            "game": self.game.to_dict() if self.game is not None else None,
            "serial": self.serial,
            "timeouts": self.timeouts,
            "remaining": remaining,
            "deadline_serial": self.deadline_serial,
            "last_human": self.last_human,
            "lobby_message_id": self.lobby_message_id,
            "table_message_id": self.table_message_id,
            "cpu_counter": self.cpu_counter,
            "unranked": self.unranked,
            "paused": self.paused,
            "unseen": self.unseen,
            "lap_changed": self.lap_changed,
            "log_seq": self.log_seq,
            "end_asked": self.end_asked,
            "notified_serial": self.notified_serial,
            "parent_id": self.parent_id,
            "replies": self.replies,
            "match": self.match.to_dict() if self.match is not None else None,
            "tally": self.tally,
            "tables": self.tables,
            "tournament_of": self.tournament_of,
            "table": self.table,
            "hand_round": self.hand_round,
            "stand_ins": self.stand_ins,
        }

    def to_json(self, now: float | None = None) -> str:
        return compact_json(self.to_dict(now))

    @classmethod
    def from_json(cls, text: str) -> Session:
        """Read a saved session of this or any older version; SavedFormatError if it can't."""
        try:
            d = json.loads(text)
        except ValueError as exc:
            raise SavedFormatError(f"not JSON ({exc})") from None
        if not isinstance(d, dict):
            raise SavedFormatError("not a JSON object")
        d = upgrade(d)
        try:
            return cls._from_current(d)
        except Exception as exc:  # any damage, whatever it raises, is a format error
            raise SavedFormatError(f"damaged record ({type(exc).__name__}: {exc})") from None

    @classmethod
    def _from_current(cls, d: dict[str, Any]) -> Session:
        session = cls(
            channel_id=int(d["channel_id"]),
            guild_id=int(d["guild_id"]),
            host_id=str(d["host_id"]),
            game_id=str(d["game_id"]),
            seed=int(d["seed"]),
            seats=[Seat(str(i), str(n), bool(c), None if t is None else int(t),
                        _level(lv)) for i, n, c, t, lv in d["seats"]],
            options=Options.from_dict(d["options"]),
            game=Game.from_dict(d["game"]) if d["game"] is not None else None,
            serial=int(d["serial"]),
            timeouts={str(k): int(v) for k, v in d["timeouts"].items()},
            remaining=None if d["remaining"] is None else float(d["remaining"]),
            deadline_serial=int(d["deadline_serial"]),
            last_human=float(d["last_human"]),
            lobby_message_id=d["lobby_message_id"],
            table_message_id=d["table_message_id"],
            cpu_counter=int(d["cpu_counter"]),
            unranked=bool(d["unranked"]),
            paused=d["paused"],
            unseen={str(k): [str(c) for c in v] for k, v in d["unseen"].items()},
            # Added with the Victory Lap; a record saved before it has none (no bump of
            # the version: an absent key means nobody is owed the note).
            lap_changed={str(k): int(v) for k, v in (d.get("lap_changed") or {}).items()},
            log_seq=int(d["log_seq"]),
            # Added with Cancel made final; a record saved before it has no open question
            # (no bump of the version: absent means None).
            end_asked=None if d.get("end_asked") is None else int(d["end_asked"]),
            notified_serial=int(d["notified_serial"]),
            parent_id=None if d["parent_id"] is None else int(d["parent_id"]),
            # Added with user installs; a record saved before lives in its channel (no
            # bump of the version: absent means False).
            replies=bool(d.get("replies", False)),
            match=Match.from_dict(d["match"]) if d["match"] is not None else None,
            tally={str(k): [int(v[0]), int(v[1])] for k, v in d["tally"].items()},
            tables=[int(t) for t in d["tables"]],
            tournament_of=None if d["tournament_of"] is None else int(d["tournament_of"]),
            table=int(d["table"]),
            hand_round=int(d["hand_round"]),
            # Added with seats kept warm; a record saved before has none (no bump of the
            # version: absent means nobody's seat is kept warm).
            stand_ins=[str(p) for p in d.get("stand_ins") or []],
        )
        return session

    def load(self, text: str) -> None:
        """Put this session back to a saved state (a failed write rolls back with it);
        the lock and the identity of the object stay."""
        other = Session.from_json(text)
        for name in self.__slots__:
            if name not in _KEPT_ON_LOAD:
                setattr(self, name, getattr(other, name))
        self.saved = text


_KEPT_ON_LOAD = frozenset({
    "lock", "saved", "notes", "notes_of",
    # The timer and the messages belong to the scheduler and the outbox, which set them
    # outside any change: a change that is undone never touched them.
    "deadline", "deadline_serial", "remaining", "notified_serial", "table_message_id",
    "lobby_message_id", "last_human", "last_acted", "announced_round", "news"})


def _v1_to_v2(d: dict[str, Any]) -> dict[str, Any]:
    """Version 1 (the first release) kept an absolute deadline; version 2 keeps the time
    that was left, a pause reason, unseen drawn cards and the move log's position. A v1
    turn gets a fresh timer (its outage can't be measured), and its game has no move log."""
    d = dict(d)
    d.pop("deadline", None)
    d["remaining"] = None
    d.setdefault("deadline_serial", -1)
    d.setdefault("unranked", False)
    d["paused"] = None
    d["unseen"] = {}
    d["log_seq"] = -1  # no header: the log starts with this release's moves
    d["notified_serial"] = int(d.get("serial", 0))
    d["version"] = 2
    return d


def _v2_to_v3(d: dict[str, Any]) -> dict[str, Any]:
    """Version 3 keeps a secret seed; versions 1 and 2 used the public game id as the seed.
    A game in progress keeps its random state in the engine's snapshot, so its seed only
    names the start of its replay file: it stays what it was."""
    d = dict(d)
    d["seed"] = int(str(d["game_id"]), 16)
    d["version"] = 3
    return d


def _v3_to_v4(d: dict[str, Any]) -> dict[str, Any]:
    """Version 4 knows whether the game lives in a thread (and of which channel), the team
    each seat chose and a rotating-partners match; every earlier game lives in its channel,
    everyone for themselves."""
    d = dict(d)
    d["parent_id"] = None
    d["match"] = None
    d["tally"] = {}
    d["tables"], d["tournament_of"], d["table"], d["hand_round"] = [], None, 0, 0
    d["seats"] = [[*seat[:3], None] for seat in d["seats"]]
    d["version"] = 4
    return d


def _v4_to_v5(d: dict[str, Any]) -> dict[str, Any]:
    """Version 5 keeps each computer player's level; every one saved before plays as it
    did, at the normal level."""
    d = dict(d)
    d["seats"] = [[*seat[:4], "normal"] for seat in d["seats"]]
    d["version"] = 5
    return d


def _level(value: Any) -> str:
    if value not in LEVELS:
        raise ValueError(f"unknown level {value!r}")
    return str(value)


_UPGRADES: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5}


def upgrade(d: dict[str, Any]) -> dict[str, Any]:
    """Bring a saved session of any earlier version up to SESSION_VERSION."""
    version = d.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise SavedFormatError(f"no version number ({version!r})")
    if version > SESSION_VERSION:
        raise SavedFormatError(
            f"saved by a newer release (version {version}; this one reads up to "
            f"{SESSION_VERSION})")
    while version < SESSION_VERSION:
        step = _UPGRADES.get(version)
        if step is None:
            raise SavedFormatError(f"no upgrade from version {version}")
        try:
            d = step(d)
        except Exception as exc:
            raise SavedFormatError(f"upgrade from version {version} failed ({exc})") from None
        version = int(d["version"])
    return d
