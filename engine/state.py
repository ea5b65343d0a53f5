"""What a game holds: the decision it waits for, the table, the figures it keeps.

Plain data, no rules: ``Game`` (engine/game.py) owns one ``State`` as ``game.s`` and moves
it on. ``state_to_dict`` / ``state_from_dict`` are the table's part of ``Game.to_dict`` /
``Game.from_dict`` (the saved format, ``STATE_VERSION``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card, Color, Tower

STATE_VERSION = 3


class Decision(enum.Enum):
    """What the game waits for, and from whom (``Game.turn``)."""

    PLAY = "play"
    """The turn player plays a card or draws."""
    DRAWN = "drawn"
    """The turn player drew a playable card: play it or keep it (pass)."""
    COLOR = "color"
    """The first player names the colour of a wild card turned up to open the round."""
    CHALLENGE = "challenge"
    """The Wild Draw Four victim accepts or challenges."""
    KEEP = "keep"
    """Instant UNO: the player chooses the one card to keep."""
    LAP = "lap"
    """Victory Lap: the card's player keeps the hand in front of them or passes it on."""
    OVER = "over"
    """The game has ended."""


@dataclass(slots=True)
class PlayerStats:
    """Figures kept per player for the leaderboard and the simulator."""

    rounds_won: int = 0
    towers_grabbed: int = 0
    best_round: int = 0
    instant_unos: int = 0
    blocks: int = 0
    challenges_won: int = 0
    caught: int = 0
    w4_challenged: int = 0
    """Wild Draw Fours of this player that were challenged (public: the table sees it)."""
    bluffs_caught: int = 0
    """... and of those, the ones found guilty (a bluff is seen only when challenged)."""
    team_rounds_won: int = 0
    """Partner play: rounds this player's team won (they or a partner went out)."""
    team_games_won: int = 0
    """Partner play: games this player's team won."""


@dataclass(slots=True)
class Counters:
    """Game-wide figures for the simulator."""

    moves: int = 0
    turns: int = 0
    grabs: int = 0
    blocks: int = 0
    instant_unos: int = 0
    challenges: int = 0
    catches: int = 0
    rounds: int = 0


@dataclass(slots=True)
class W4Record:
    """A Wild Draw Four waiting for its victim to accept or challenge it."""

    player: str
    victim: str
    guilty: bool
    color: Color | None
    """The colour in play before the Wild Draw Four (what the challenge is about)."""
    hand: tuple[Card, ...] = ()
    """The player's hand just after the Wild Draw Four (what a challenger is shown)."""


@dataclass(slots=True)
class LapRecord:
    """A Victory Lap under way: whose card it was and how far the hands have moved."""

    player: str
    """The player of the Victory Lap card (the only one who looks at a hand)."""
    step: int
    """How many seats every hand has moved, in the direction of play (1 for the first
    move; the number of players when the player's own hand is back)."""


@dataclass(slots=True)
class State:
    """The table: hands, piles, towers, whose turn and what is pending."""

    hands: dict[str, list[Card]]
    draw: list[Card]  # top of the pile is the END of the list
    discard: list[Card]  # bottom ... top
    color: Color | None
    towers: dict[Tower, str | None]
    turn: str
    direction: int
    dealer: str
    scores: dict[str, int]
    pending: Decision = Decision.PLAY
    drawn: Card | None = None
    color_only: bool = False
    w4: W4Record | None = None
    after_keep: str | None = None
    lap: LapRecord | None = None
    called: set[str] = field(default_factory=set)
    catchable: str | None = None
    winners: list[str] = field(default_factory=list)
    team_scores: list[int] = field(default_factory=list)
    """Partner play: one running total per team, in the order the teams were given
    (``Game.teams``); empty without teams."""
    waiting: list[str] = field(default_factory=list)
    """People who asked for a seat while the game runs, in the order they asked: they sit
    down when the next round is dealt (``Game.ask_seat``, R-JOIN-NEXT)."""


def stats_to_dict(obj: PlayerStats | Counters) -> dict[str, int]:
    return {name: getattr(obj, name) for name in obj.__slots__}


def state_to_dict(s: State) -> dict[str, Any]:
    """The table's keys of ``Game.to_dict``, in their saved order."""
    return {
        "hands": {p: [c.code for c in h] for p, h in s.hands.items()},
        "draw": [c.code for c in s.draw],
        "discard": [c.code for c in s.discard],
        "color": s.color.value if s.color else None,
        "towers": {t.value: h for t, h in s.towers.items()},
        "turn": s.turn,
        "direction": s.direction,
        "dealer": s.dealer,
        "scores": dict(s.scores),
        "pending": s.pending.value,
        "drawn": s.drawn.code if s.drawn else None,
        "color_only": s.color_only,
        "w4": (
            {"player": s.w4.player, "victim": s.w4.victim, "guilty": s.w4.guilty,
             "color": s.w4.color.value if s.w4.color else None,
             "hand": [c.code for c in s.w4.hand]}
            if s.w4 else None
        ),
        "after_keep": s.after_keep,
        "lap": {"player": s.lap.player, "step": s.lap.step} if s.lap else None,
        "called": sorted(s.called),
        "catchable": s.catchable,
        "winners": list(s.winners),
        "team_scores": list(s.team_scores),
        "waiting": list(s.waiting),
    }


def state_from_dict(d: Mapping[str, Any]) -> State:
    """The table saved by ``state_to_dict``. Raises ``KeyError``, ``TypeError``,
    ``ValueError`` or ``ParseError`` when malformed (``Game.from_dict`` reports them)."""
    parse = Card.parse
    hands = {p: [parse(c) for c in h] for p, h in d["hands"].items()}
    draw = [parse(c) for c in d["draw"]]
    discard = [parse(c) for c in d["discard"]]
    color = Color(d["color"]) if d["color"] else None
    towers = {Tower(t): h for t, h in d["towers"].items()}
    turn = d["turn"]
    direction = int(d["direction"])
    dealer = d["dealer"]
    scores = {p: int(v) for p, v in d["scores"].items()}
    pending = Decision(d["pending"])
    drawn = parse(d["drawn"]) if d["drawn"] else None
    color_only = bool(d["color_only"])
    w4 = d["w4"]
    w4_record = (
        W4Record(w4["player"], w4["victim"], bool(w4["guilty"]),
                 Color(w4["color"]) if w4["color"] else None,
                 # saved before the hand was kept: the player's hand now is the best guess
                 tuple(parse(c) for c in w4["hand"]) if "hand" in w4
                 else tuple(hands.get(w4["player"], ())))
        if w4 else None
    )
    after_keep = d["after_keep"]
    lap = d.get("lap")  # absent from games saved before the Victory Lap edition
    lap_record = LapRecord(str(lap["player"]), int(lap["step"])) if lap else None
    called = set(d["called"])
    catchable = d["catchable"]
    winners = list(d["winners"])
    # saved-game version 3 added team_scores (partner play); versions 1 and 2 had no teams
    team_scores = [int(v) for v in d.get("team_scores", [])]
    # added with seats taken at the next round; absent: nobody waits
    waiting = [str(p) for p in d.get("waiting", [])]
    return State(
        hands=hands,
        draw=draw,
        discard=discard,
        color=color,
        towers=towers,
        turn=turn,
        direction=direction,
        dealer=dealer,
        scores=scores,
        pending=pending,
        drawn=drawn,
        color_only=color_only,
        w4=w4_record,
        after_keep=after_keep,
        lap=lap_record,
        called=called,
        catchable=catchable,
        winners=winners,
        team_scores=team_scores,
        waiting=waiting,
    )
