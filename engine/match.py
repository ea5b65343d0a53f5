"""Partner matches: hands of partner play in a schedule, with individual totals.

Two kinds (RULES.md, "Partner matches"; sheet 004, "Playing with Partners" and
"Multi-Table Tournaments"):

* ``Match.rotating(players)``: four players, three hands, each player partnering each
  other player once (``hands_per_pairing`` times through, default once);
* ``Match.tournament(players)``: eight players at two tables of four, a round being one
  hand at each table played at the same time; every two players are partners in
  ``hands_per_pairing`` hands (default 4: 28 hands each) and opponents in twice as many.

Each hand is a separate ``Game`` of one round (``Match.new_game``); its result is recorded
with ``record_game`` (or ``record``). Every player adds what their partnership scored in
each hand; the highest total wins the match, ties broken by the most hands won (hands in
which the player's partnership went out), and players still tied share the win.

Pure and deterministic like the rest of the engine: ``to_dict`` / ``from_dict`` round-trip.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from engine.editions import Edition
from engine.errors import EngineError, IllegalMoveError, ParseError, SettingsError
from engine.events import Event
from engine.game import Game
from engine.settings import Settings

MATCH_VERSION: Final = 1
KINDS: Final = ("rotating", "tournament")
HANDS_PER_PAIRING: Final = (1, 4)
"""The range of ``hands_per_pairing``: how many times each two players partner."""

INF: Final = 7
"""The point at infinity of the whist design below (the other points are 0..6, mod 7)."""
WH8_BASE: Final[tuple[tuple[tuple[int, int], tuple[int, int]], ...]] = (
    ((INF, 0), (1, 3)),
    ((2, 6), (4, 5)),
)
"""The first round of a whist tournament Wh(8) on Z7 plus a point at infinity: two tables,
each two partnerships. Adding k (mod 7, infinity fixed) to every point gives round k; the
partner pairs of the base round cover the differences 1, 2 and 3 once each and the opponent
pairs twice each, so over the 7 rounds every two points are partners exactly once and
opponents exactly twice."""


def _shift(x: int, k: int) -> int:
    return x if x == INF else (x + k) % 7


def whist_rounds() -> list[list[tuple[tuple[int, int], tuple[int, int]]]]:
    """The 7 rounds of the Wh(8) design on the points 0..7 (7 is infinity): each round two
    tables, each table two partnerships."""
    return [
        [((_shift(a, k), _shift(b, k)), (_shift(c, k), _shift(d, k)))
         for (a, b), (c, d) in WH8_BASE]
        for k in range(7)
    ]


def _seats(team_a: tuple[str, str], team_b: tuple[str, str], flip: bool) -> tuple[str, ...]:
    """A table of four with partners across (seats 0 and 2, 1 and 3); ``flip`` seats the
    second partnership the other way round, so everyone gets a different left neighbour."""
    (a1, a2), (b1, b2) = team_a, team_b
    return (a1, b2, a2, b1) if flip else (a1, b1, a2, b2)


@dataclass(frozen=True, slots=True)
class Hand:
    """One hand of a match: the table ``table`` of round ``round`` (both from 0)."""

    round: int
    table: int
    seats: tuple[str, ...]
    """Four players in seat order; partners sit across (seats 0 and 2, 1 and 3)."""

    @property
    def teams(self) -> tuple[tuple[str, str], tuple[str, str]]:
        """The two partnerships, in the order a ``Game`` of this hand is given them."""
        s = self.seats
        return (s[0], s[2]), (s[1], s[3])

    @property
    def players(self) -> tuple[str, ...]:
        return self.seats


@dataclass(frozen=True, slots=True)
class HandResult:
    """What a finished hand scored: ``points`` per partnership (in ``Hand.teams`` order)
    and which partnership went out (None if unknown or nobody did)."""

    round: int
    table: int
    points: tuple[int, int]
    won_by: int | None


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings: place 1 is the best (tied players share a place)."""

    player: str
    total: int
    hands_won: int
    hands_played: int
    place: int


@dataclass(frozen=True, slots=True)
class HandScored(Event):
    """A hand of a match was recorded."""

    kind: ClassVar[str] = "hand_scored"
    round: int
    table: int
    teams: tuple[tuple[str, ...], ...]
    points: tuple[int, ...]
    totals: dict[str, int]


@dataclass(frozen=True, slots=True)
class MatchWon(Event):
    """The last hand of a match was recorded."""

    kind: ClassVar[str] = "match_won"
    players: tuple[str, ...]
    totals: dict[str, int]


class Match:
    """A schedule of partner hands and the individual totals it produces."""

    def __init__(self, kind: str, players: Sequence[str],
                 schedule: Sequence[Sequence[Sequence[str]]], hands_per_pairing: int) -> None:
        if kind not in KINDS:
            raise SettingsError("A match is 'rotating' or 'tournament', not '{kind}'.", kind=kind)
        self.kind = kind
        self.players: tuple[str, ...] = tuple(players)
        self.hands_per_pairing = hands_per_pairing
        rounds: list[tuple[Hand, ...]] = []
        for r, tables in enumerate(schedule):
            hands = []
            for t, seats in enumerate(tables):
                seats = tuple(seats)
                if len(seats) != 4 or len(set(seats)) != 4 or any(
                        p not in self.players for p in seats):
                    raise SettingsError("A table of a match seats four of its players.")
                hands.append(Hand(r, t, seats))
            rounds.append(tuple(hands))
        self.schedule: tuple[tuple[Hand, ...], ...] = tuple(rounds)
        """Rounds in order; each round one hand per table, played at the same time."""
        self.results: dict[tuple[int, int], HandResult] = {}

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _check(players: Sequence[str], n: int, what: str, hands_per_pairing: int) -> list[str]:
        players = list(players)
        if len(players) != n:
            raise SettingsError("A {what} needs {n} players, not {got}.", what=what, n=n,
                                got=len(players))
        if len(set(players)) != n or not all(isinstance(p, str) and p for p in players):
            raise SettingsError("A {what} needs {n} different players.", what=what, n=n)
        lo, hi = HANDS_PER_PAIRING
        if (isinstance(hands_per_pairing, bool) or not isinstance(hands_per_pairing, int)
                or not lo <= hands_per_pairing <= hi):
            raise SettingsError("Hands per pairing must be from {lo} to {hi}.", lo=lo, hi=hi)
        return players

    @classmethod
    def rotating(cls, players: Sequence[str], *, hands_per_pairing: int = 1,
                 rng: random.Random | None = None) -> Match:
        """Four players; hand by hand each partners each other (three hands a pass)."""
        ps = cls._check(players, 4, "rotating partners match", hands_per_pairing)
        if rng is not None:
            rng.shuffle(ps)
        a, b, c, d = ps
        pairings = [((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))]
        schedule = [[_seats(x, y, flip=rep % 2 == 1)] for rep in range(hands_per_pairing)
                    for x, y in pairings]
        return cls("rotating", ps, schedule, hands_per_pairing)

    @classmethod
    def tournament(cls, players: Sequence[str], *, hands_per_pairing: int = 4,
                   rng: random.Random | None = None) -> Match:
        """Eight players at two tables: the whist design Wh(8) played ``hands_per_pairing``
        times (7 rounds each), its seats varied from one pass to the next."""
        ps = cls._check(players, 8, "tournament", hands_per_pairing)
        if rng is not None:
            rng.shuffle(ps)
        schedule: list[list[tuple[str, ...]]] = []
        for rep in range(hands_per_pairing):
            for tables in whist_rounds():
                seated = [
                    _seats((ps[a1], ps[a2]), (ps[b1], ps[b2]), flip=rep % 2 == 1)
                    for (a1, a2), (b1, b2) in tables
                ]
                if rep >= 2:  # the later passes swap the tables and who is listed first
                    seated = [s[1:] + s[:1] for s in reversed(seated)]
                schedule.append(seated)
        return cls("tournament", ps, schedule, hands_per_pairing)

    # ------------------------------------------------------------------ queries
    def hands(self) -> list[Hand]:
        """Every hand of the schedule, round by round."""
        return [h for rnd in self.schedule for h in rnd]

    @property
    def hand_count(self) -> int:
        return sum(len(r) for r in self.schedule)

    def is_recorded(self, hand: Hand) -> bool:
        return (hand.round, hand.table) in self.results

    @property
    def current_round(self) -> int | None:
        """The first round with a hand not yet recorded (None when the match is over)."""
        for r, rnd in enumerate(self.schedule):
            if any(not self.is_recorded(h) for h in rnd):
                return r
        return None

    def next_hands(self) -> list[Hand]:
        """The hands to play now: those of the current round not yet recorded (in a
        tournament, both tables at once). Empty when the match is over."""
        r = self.current_round
        if r is None:
            return []
        return [h for h in self.schedule[r] if not self.is_recorded(h)]

    @property
    def is_over(self) -> bool:
        return len(self.results) == self.hand_count

    def hand(self, round: int, table: int = 0) -> Hand:
        try:
            if round < 0 or table < 0:
                raise IndexError
            return self.schedule[round][table]
        except IndexError:
            raise IllegalMoveError("This match has no table {table} in round {round}.",
                                   table=table + 1, round=round + 1) from None

    def totals(self) -> dict[str, int]:
        """Each player's individual total: what their partnerships scored, hand by hand."""
        out = {p: 0 for p in self.players}
        for res in self.results.values():
            for team, pts in zip(self.hand(res.round, res.table).teams, res.points,
                                 strict=True):
                for p in team:
                    out[p] += pts
        return out

    def hands_won(self) -> dict[str, int]:
        """How many recorded hands each player's partnership went out in."""
        out = {p: 0 for p in self.players}
        for res in self.results.values():
            if res.won_by is not None:
                for p in self.hand(res.round, res.table).teams[res.won_by]:
                    out[p] += 1
        return out

    def hands_played(self) -> dict[str, int]:
        out = {p: 0 for p in self.players}
        for res in self.results.values():
            for p in self.hand(res.round, res.table).seats:
                out[p] += 1
        return out

    def standings(self) -> list[Standing]:
        """Players from best to worst: highest total, then most hands won; equal on both
        shares a place (listed in schedule order)."""
        totals, won, played = self.totals(), self.hands_won(), self.hands_played()
        order = sorted(self.players, key=lambda p: (-totals[p], -won[p]))
        out: list[Standing] = []
        for i, p in enumerate(order):
            prev = out[-1] if out else None
            same = prev is not None and (prev.total, prev.hands_won) == (totals[p], won[p])
            place = prev.place if same and prev is not None else i + 1
            out.append(Standing(p, totals[p], won[p], played[p], place))
        return out

    @property
    def winners(self) -> list[str]:
        """Who won (everyone in first place) once every hand is recorded; else empty."""
        if not self.is_over:
            return []
        return [s.player for s in self.standings() if s.place == 1]

    # ------------------------------------------------------------------ recording
    def new_game(self, hand: Hand, *, edition: str | Edition = "power-grab",
                 settings: Settings | None = None, seed: int | None = None,
                 rng: random.Random | None = None,
                 names: Mapping[str, str] | None = None) -> Game:
        """A ``Game`` of one round for ``hand``: its seats and partnerships (not started)."""
        if settings is not None and settings.scoring != "standard":
            raise SettingsError("A partners match is scored the standard way: the team "
                                "that goes out scores the opposing hands.")
        if settings is not None and settings.shuffle_seats:
            raise SettingsError("A match seats its players itself: turn off the seat "
                                "shuffle.")
        return Game(hand.seats, edition=edition, settings=settings, seed=seed, rng=rng,
                    names=names, teams=hand.teams, max_rounds=1)

    def record_game(self, hand: Hand, game: Game) -> list[Event]:
        """Record ``hand`` from its finished one-round ``Game`` (``new_game``)."""
        if not game.is_over:
            raise IllegalMoveError("This hand is not finished yet.")
        want = [set(t) for t in hand.teams]
        got = [set(t) for t in game.teams]
        if got != want:
            raise IllegalMoveError("This game is not the hand of round {round}, table "
                                   "{table}.", round=hand.round + 1, table=hand.table + 1)
        won_by = None
        for i, team in enumerate(game.teams):
            if any(q in game.stats and game.stats[q].team_rounds_won for q in team):
                won_by = i
        scores = game.team_scores
        return self.record(hand, (scores[0], scores[1]), won_by=won_by)

    def record(self, hand: Hand, points: Sequence[int], *, won_by: int | None = None
               ) -> list[Event]:
        """Record what ``hand`` scored: ``points`` per partnership in ``hand.teams`` order,
        ``won_by`` the index of the partnership that went out. Returns ``hand_scored``,
        then ``match_won`` after the last hand."""
        known = self.hand(hand.round, hand.table)
        if known != hand:
            raise IllegalMoveError("This hand is not in the match's schedule.")
        if self.is_recorded(hand):
            raise IllegalMoveError("Round {round}, table {table} is already recorded.",
                                   round=hand.round + 1, table=hand.table + 1)
        r = self.current_round
        if r is not None and hand.round != r:
            raise IllegalMoveError("Round {round} is still being played.", round=r + 1)
        pts = tuple(points)
        if len(pts) != 2 or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in pts):
            raise IllegalMoveError("A hand's result is two scores of at least 0.")
        if won_by not in (None, 0, 1):
            raise IllegalMoveError("The team that went out is 0 or 1.")
        self.results[(hand.round, hand.table)] = HandResult(hand.round, hand.table,
                                                             (pts[0], pts[1]), won_by)
        totals = self.totals()
        events: list[Event] = [HandScored(hand.round, hand.table, hand.teams, pts, totals)]
        if self.is_over:
            events.append(MatchWon(tuple(self.winners), totals))
        return events

    # ------------------------------------------------------------------ pairings
    def pair_counts(self) -> tuple[dict[frozenset[str], int], dict[frozenset[str], int]]:
        """How often every two players are partners, and opponents, over the schedule."""
        partners: dict[frozenset[str], int] = {}
        opponents: dict[frozenset[str], int] = {}
        for h in self.hands():
            t0, t1 = h.teams
            for team in (t0, t1):
                k = frozenset(team)
                partners[k] = partners.get(k, 0) + 1
            for a in t0:
                for b in t1:
                    k = frozenset((a, b))
                    opponents[k] = opponents.get(k, 0) + 1
        return partners, opponents

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        return {
            "version": MATCH_VERSION,
            "kind": self.kind,
            "players": list(self.players),
            "hands_per_pairing": self.hands_per_pairing,
            "schedule": [[list(h.seats) for h in rnd] for rnd in self.schedule],
            "results": [
                {"round": r.round, "table": r.table, "points": list(r.points),
                 "won_by": r.won_by}
                for r in sorted(self.results.values(), key=lambda r: (r.round, r.table))
            ],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Match:
        """Rebuild a match saved with ``to_dict`` (raises ``ParseError`` if malformed)."""
        try:
            if d.get("version") != MATCH_VERSION:
                raise ParseError("This saved match comes from an unknown version.")
            match = cls(d["kind"], d["players"], d["schedule"], int(d["hands_per_pairing"]))
            for raw in d["results"]:
                hand = match.hand(int(raw["round"]), int(raw["table"]))
                match.results[(hand.round, hand.table)] = HandResult(
                    hand.round, hand.table, (int(raw["points"][0]), int(raw["points"][1])),
                    None if raw["won_by"] is None else int(raw["won_by"]))
        except ParseError:
            raise
        except EngineError as exc:
            raise ParseError(f"This saved match is damaged ({exc}).") from None
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ParseError(f"This saved match is damaged ({exc!r}).") from None
        return match


__all__ = ["HANDS_PER_PAIRING", "KINDS", "Hand", "HandResult", "HandScored", "Match",
           "MatchWon", "Standing", "whist_rounds"]
