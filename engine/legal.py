"""Legal-move generation: every move a player may make now, and what a play needs chosen.

``Game.legal_moves(p)`` returns a ``LegalMoves``: iterating it enumerates the moves
(``enumerate_moves``), ``in`` asks ``validate`` (engine/validation.py, the one judge of a
move). Whether a single move is allowed is decided there; this module only lists them.
``Game.play_needs`` is ``play_needs``: the choices a play of one card asks for.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

from engine.basegame import BaseGame, is_seated, need_player
from engine.cards import Card, Color, Kind, Tower
from engine.errors import EngineError, GameOverError
from engine.moves import (
    Accept,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Draw,
    Keep,
    Lap,
    Move,
    Pass,
    Play,
)
from engine.state import Decision
from engine.turns import not_your_turn
from engine.validation import check_card, may_call, validate

_PLAY_VARIANTS: dict[tuple[str, Card, bool], list[Move]] = {}
"""Plays of cards that grab no tower, shared by every game (moves are immutable values).
Bounded by players x distinct cards x 2; cleared when it grows past a limit."""
_PLAY_VARIANTS_LIMIT = 200_000


@dataclass(frozen=True, slots=True)
class PlayNeeds:
    """The choices a play of one card needs (``Game.play_needs``)."""

    color: bool
    """A colour must be named (any wild)."""
    towers: int
    """How many different towers must be chosen (0, 1 or 2; fewer when fewer are free)."""
    free: tuple[Tower, ...] = ()
    """The towers that may be chosen (empty when ``towers`` is 0)."""
    color_later: bool = False
    """The colour may instead be named on the keep (a Victory Lap that is not the last
    card: a lap follows)."""


class LegalMoves:
    """The moves ``player`` may make now: iterate it, or test a move with ``in``."""

    __slots__ = ("_game", "_player")

    def __init__(self, game: BaseGame, player: str) -> None:
        self._game = game
        self._player = player

    def __contains__(self, move: object) -> bool:
        if not isinstance(move, Play | Draw | Pass | CallUno | Catch | Challenge | Accept
                          | Keep | ChooseColor | Lap):
            return False
        if move.player != self._player:
            return False
        try:
            validate(self._game, move)
        except EngineError:
            return False
        return True

    def __iter__(self) -> Iterator[Move]:
        return iter(enumerate_moves(self._game, self._player))

    def __len__(self) -> int:
        return len(enumerate_moves(self._game, self._player))

    def __bool__(self) -> bool:
        return len(self) > 0

    def __repr__(self) -> str:
        return f"<LegalMoves for {self._player}: {list(self)!r}>"


def enumerate_moves(game: BaseGame, p: str) -> list[Move]:
    """Every move ``p`` may make now, in a fixed order: UNO call, catch, then the turn's
    moves (plays with each choice of colour, towers and UNO, then draw / pass / ...)."""
    s = game.s
    if s.pending is Decision.OVER or not is_seated(game, p):
        return []
    out: list[Move] = []
    if s.pending is Decision.LAP:
        # While the hands travel only the card's player keeps or passes (R-VL-LAP).
        return lap_moves(game, p)
    if may_call(game, p):
        out.append(CallUno(p))
    if s.catchable is not None and s.catchable != p:
        out.append(Catch(p, s.catchable))
    if s.turn != p:
        return out
    hand = s.hands[p]
    if s.pending is Decision.PLAY:
        uno_too = len(hand) == 2
        for card in game.playable_cards(p):
            out += play_variants(game, p, card, uno_too)
        out.append(Draw(p))
    elif s.pending is Decision.DRAWN:
        assert s.drawn is not None
        out += play_variants(game, p, s.drawn, len(hand) == 2)
        out.append(Pass(p))
    elif s.pending is Decision.COLOR:
        out += [ChooseColor(p, c) for c in Color]
    elif s.pending is Decision.CHALLENGE:
        out += [Accept(p), Challenge(p)]
    elif s.pending is Decision.KEEP:
        for c in dict.fromkeys(hand):
            out += [Keep(p, c), Keep(p, c, True)]
    return out


def play_needs(game: BaseGame, player: str, card: Card) -> PlayNeeds:
    """What ``player`` must choose to play ``card`` now (``Game.play_needs``), or the
    ``EngineError`` that playing it would raise whatever the choices."""
    s = game.s
    if s.pending is Decision.OVER:
        raise GameOverError("The game is over.")
    need_player(game, player)
    if s.turn != player:
        raise not_your_turn(game, player)
    check_card(game, player, card)
    need, free = game.tower_choices(player, card)
    later = card.kind is Kind.VICTORY_LAP and len(s.hands[player]) > 1
    return PlayNeeds(color=card.is_wild, towers=need, free=tuple(free) if need else (),
                     color_later=later)


def lap_moves(game: BaseGame, p: str) -> list[Move]:
    """The Victory Lap moves of ``p``: keep (naming the colour if the card named none) and
    pass (naming it too when the pass brings their own hand back, which ends the lap; no
    pass in a lap saved with the own hand already back)."""
    s = game.s
    lap = s.lap
    if lap is None or lap.player != p or s.turn != p:
        return []
    out: list[Move] = []
    if s.color is None:
        out += [Lap(p, True, c) for c in Color]
    else:
        out.append(Lap(p, True))
    n = len(game.players)
    if lap.step + 1 == n and s.color is None:
        # R-VL-OWN-HAND: this pass ends the lap, so it names the colour (R-VL-COLOR).
        out += [Lap(p, False, c) for c in Color]
    elif lap.step < n:
        out.append(Lap(p, False))
    return out


def play_variants(game: BaseGame, p: str, card: Card, uno_too: bool) -> list[Move]:
    """The plays of ``card`` by ``p``: one per colour (wild) x set of towers (grab) x
    calling UNO with it or not (``uno_too``: when it leaves one card)."""
    grabs = game.edition.towers and (card.kind is Kind.GRAB_TWO
                                     or card.kind is Kind.WILD_GRAB)
    if not grabs and card.kind is not Kind.VICTORY_LAP:
        # Moves are values: the same card offers the same plays every time (a Victory Lap
        # also depends on whether it is the last card: not cached).
        key = (p, card, uno_too)
        cached = _PLAY_VARIANTS.get(key)
        if cached is None:
            if len(_PLAY_VARIANTS) > _PLAY_VARIANTS_LIMIT:
                _PLAY_VARIANTS.clear()
            cached = _PLAY_VARIANTS[key] = _make_variants(game, p, card, uno_too)
        return cached
    return _make_variants(game, p, card, uno_too)


def _make_variants(game: BaseGame, p: str, card: Card, uno_too: bool) -> list[Move]:
    colors: list[Color | None] = list(Color) if card.is_wild else [None]
    if card.kind is Kind.VICTORY_LAP and len(game.s.hands[p]) > 1:
        colors.append(None)  # a lap follows: the colour may be named on the keep instead
    need, free = game.tower_choices(p, card)
    tower_sets: list[tuple[Tower, ...]] = (
        [tuple(c) for c in combinations(free, need)] if need else [()]
    )
    out: list[Move] = []
    for c in colors:
        for ts in tower_sets:
            out.append(Play(p, card, c, ts))
            if uno_too:
                out.append(Play(p, card, c, ts, True))
    return out
