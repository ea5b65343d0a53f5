"""The simulator's numbers (engine/players/fastsim.py, issue 19): cards, colours, towers, kinds,
decisions and moves as small integers, the tables the rules read instead of ``Card``
attributes, and the conversions to and from the engine's ``Move`` values.

A card is its index in ``CARDS`` (every distinct card of every edition, 96); a colour
0-3 in ``Color``'s order (``NO_COLOR``, 4, for a wild's own colour and no colour in
play); a tower 0-3 in ``Tower``'s order; a seat an index into the game's players.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from engine.cards import BLOCKED_BY, DRAW_COUNT, Card, Color, Kind, Tower
from engine.editions import EDITIONS, Edition
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
from engine.settings import Settings
from engine.state import Decision

# ---------------------------------------------------------------------------- the cards
CARDS: Final[tuple[Card, ...]] = tuple(sorted({c for e in EDITIONS.values() for c in e.deck},
                                              key=lambda c: c.sort_key))
"""Every distinct card of every edition (96); a card's number is its index here."""
CARD_ID: Final[dict[Card, int]] = {c: i for i, c in enumerate(CARDS)}
COLORS: Final[tuple[Color, ...]] = tuple(Color)
"""Colour numbers 0-3 (red, blue, green, yellow); ``NO_COLOR`` (4) for a wild's own
colour and for no colour in play."""
NO_COLOR: Final = 4
TOWERS: Final[tuple[Tower, ...]] = tuple(Tower)
"""Tower numbers 0-3 (U, N, O, !)."""
COLOR_ID: Final = {c: i for i, c in enumerate(COLORS)}
TOWER_ID: Final = {t: i for i, t in enumerate(TOWERS)}

K_NUMBER, K_DRAW1, K_DRAW2, K_SKIP, K_REVERSE, K_GRAB2 = 0, 1, 2, 3, 4, 5
K_WILD, K_W4, K_WILD_GRAB, K_LAP = 6, 7, 8, 9
_KINDS: Final = (Kind.NUMBER, Kind.DRAW_ONE, Kind.DRAW_TWO, Kind.SKIP, Kind.REVERSE,
                 Kind.GRAB_TWO, Kind.WILD, Kind.WILD_DRAW_FOUR, Kind.WILD_GRAB,
                 Kind.VICTORY_LAP)
KIND: Final[tuple[int, ...]] = tuple(_KINDS.index(c.kind) for c in CARDS)
COLOR_OF: Final[tuple[int, ...]] = tuple(
    NO_COLOR if c.color is None else COLOR_ID[c.color] for c in CARDS)
WILD: Final[tuple[bool, ...]] = tuple(c.is_wild for c in CARDS)
ICON: Final[tuple[int, ...]] = tuple(-1 if c.icon is None else TOWER_ID[c.icon] for c in CARDS)
BLOCK: Final[tuple[int, ...]] = tuple(
    TOWER_ID[BLOCKED_BY[k]] if k in BLOCKED_BY else -1 for k in _KINDS)
"""By kind: the tower that blocks it (-1: none)."""
GRABS: Final = frozenset({K_GRAB2, K_WILD_GRAB})
"""The kinds that grab towers of the player's choice (in Power Grab)."""
DRAWS: Final[tuple[int, ...]] = tuple(DRAW_COUNT.get(k, 0) for k in _KINDS)
"""By kind: how many cards it makes the next player draw."""
NO_FACE: Final = 15
FACE: Final[tuple[int, ...]] = tuple(
    NO_FACE if c.is_wild else (c.number if c.number is not None else 9 + KIND[i])
    for i, c in enumerate(CARDS))
"""What a card matches by symbol: its number (0-9) or its kind (10-14); 15 for wilds."""
MATCH: Final[tuple[tuple[bool, ...], ...]] = tuple(
    tuple(WILD[c] or COLOR_OF[c] == color or (face != NO_FACE and FACE[c] == face)
          for c in range(len(CARDS)))
    for color in range(NO_COLOR + 1) for face in range(NO_FACE + 1))
"""``MATCH[color * 16 + face][card]``: whether ``card`` may be played on a top card of that
face (16: only the colour counts) in that colour (``Game.can_play_on_top``)."""


def card_points(settings: Settings) -> tuple[int, ...]:
    """What each card left in a hand scores (``Edition.points``: the same in every
    edition, but for the house rule on Grab-2-Towers)."""
    table = _POINTS.get(settings.grab2_points)
    if table is None:
        ed = next(iter(EDITIONS.values()))
        table = _POINTS[settings.grab2_points] = tuple(ed.points(c, settings) for c in CARDS)
    return table


def deck_of(edition: Edition) -> list[int]:
    """The edition's deck as card numbers, in ``edition.deck``'s order (a new list)."""
    deck = _DECKS.get(edition.name)
    if deck is None:
        deck = _DECKS[edition.name] = tuple(CARD_ID[c] for c in edition.deck)
    return list(deck)


_POINTS: dict[int, tuple[int, ...]] = {}
_DECKS: dict[str, tuple[int, ...]] = {}


# ---------------------------------------------------------------------------- the moves
# A move is one int. A play is its card number (0-127) plus the colour named (bits 7-9:
# colour ^ 4, so 0 is none), the towers grabbed (bits 10-13, one bit a tower) and the UNO
# call (bit 14): a plain play is the card number itself. Other moves carry a tag from bit 15.
TAG: Final = 1 << 15
UNO_BIT: Final = 1 << 14
DRAW: Final = 1 * TAG
PASS: Final = 2 * TAG
CALL: Final = 3 * TAG
"""+ the caller's seat."""
CATCH: Final = 4 * TAG
"""+ the catcher's seat + the target's seat << 4."""
CHALLENGE: Final = 5 * TAG
ACCEPT: Final = 6 * TAG
KEEP: Final = 7 * TAG
"""+ the card kept (+ ``UNO_BIT``)."""
CHOOSE: Final = 8 * TAG
"""+ the colour (naming the colour of a wild that opened the hand)."""
LAP_KEEP: Final = 9 * TAG
"""+ the colour named ^ 4 << 7 (0: none)."""
LAP_PASS: Final = 10 * TAG


def play_move(card: int, color: int = NO_COLOR, towers: int = 0, uno: bool = False) -> int:
    """The play of ``card`` naming ``color`` (a wild), grabbing ``towers`` (a bit mask)."""
    return card | (color ^ 4) << 7 | towers << 10 | (UNO_BIT if uno else 0)


# ---------------------------------------------------------------------------- decisions
# What the hand waits for from ``turn`` (``Decision``'s order).
PLAY, DRAWN, COLOR, CHALLENGED, KEEPING, LAP, OVER = 0, 1, 2, 3, 4, 5, 6
DECISIONS: Final[tuple[Decision, ...]] = (
    Decision.PLAY, Decision.DRAWN, Decision.COLOR, Decision.CHALLENGE, Decision.KEEP,
    Decision.LAP, Decision.OVER)
"""``DECISIONS[pending]``: the engine's ``Decision`` for a simulator's decision number."""
DECISION_ID: Final = {d: i for i, d in enumerate(DECISIONS)}


def move_of(m: int, players: Sequence[str], turn: int) -> Move:
    """Move ``m`` as the engine's ``Move``: the move of seat ``turn`` (a call or a catch
    names its own seat)."""
    p = players[turn]
    if m < TAG:
        card = CARDS[m & 127]
        col = ((m >> 7) & 7) ^ 4
        towers = tuple(TOWERS[i] for i in range(4) if m >> (10 + i) & 1)
        return Play(p, card, None if col == NO_COLOR else COLORS[col], towers,
                    m & UNO_BIT != 0)
    tag = m & ~(TAG - 1)
    if tag == CALL:
        return CallUno(players[m & 15])
    if tag == CATCH:
        return Catch(players[m & 15], players[m >> 4 & 15])
    if tag == KEEP:
        return Keep(p, CARDS[m & 127], m & UNO_BIT != 0)
    if tag == CHOOSE:
        return ChooseColor(p, COLORS[m & 7])
    if tag == LAP_KEEP:
        col = ((m >> 7) & 7) ^ 4
        return Lap(p, True, None if col == NO_COLOR else COLORS[col])
    if tag == LAP_PASS:
        col = ((m >> 7) & 7) ^ 4
        return Lap(p, False, None if col == NO_COLOR else COLORS[col])
    simple: dict[int, Move] = {DRAW: Draw(p), PASS: Pass(p), ACCEPT: Accept(p),
                               CHALLENGE: Challenge(p)}
    return simple[tag]


def encode_move(move: Move, players: Sequence[str]) -> int:
    """The engine's ``move`` as a simulator move (the inverse of ``move_of``)."""
    if isinstance(move, Play):
        col = NO_COLOR if move.color is None else COLOR_ID[move.color]
        towers = sum(1 << TOWER_ID[t] for t in move.towers)
        return play_move(CARD_ID[move.card], col, towers, move.uno)
    if isinstance(move, CallUno):
        return CALL | players.index(move.player)
    if isinstance(move, Catch):
        return CATCH | players.index(move.player) | players.index(move.target) << 4
    if isinstance(move, Keep):
        return KEEP | CARD_ID[move.card] | (UNO_BIT if move.uno else 0)
    if isinstance(move, ChooseColor):
        return CHOOSE | COLOR_ID[move.color]
    if isinstance(move, Lap):
        col = NO_COLOR if move.color is None else COLOR_ID[move.color]
        return (LAP_KEEP if move.keep else LAP_PASS) | (col ^ 4) << 7
    simple = {Draw: DRAW, Pass: PASS, Accept: ACCEPT, Challenge: CHALLENGE}
    return simple[type(move)]


def is_turn_move(m: int) -> bool:
    """Whether ``m`` is a move of the turn's decision (not an UNO call or a catch)."""
    tag = m & ~(TAG - 1)
    return tag != CALL and tag != CATCH
