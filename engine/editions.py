"""Editions are data: a deck, a player range, whether towers exist, and card points.

The Victory Lap edition is its deck here plus one card effect (the lap: a branch of
engine/effects.py's ``_card_effect`` that calls engine/lap.py), not a second engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from engine.cards import Card, Color, Kind, Tower
from engine.errors import SettingsError
from engine.settings import Settings

#: Power Icon assignment (RULES.md, "Deck"): the first copy of each number carries it.
POWER_ICONS: Final[dict[int, Tower]] = {
    1: Tower.U, 5: Tower.U,
    2: Tower.N, 6: Tower.N,
    3: Tower.O, 7: Tower.O,
    4: Tower.BANG, 8: Tower.BANG,
}


def power_grab_deck() -> tuple[Card, ...]:
    """The 112-card UNO Power Grab deck."""
    cards: list[Card] = []
    for color in Color:
        for n in range(1, 10):
            cards.append(Card.of(Kind.NUMBER, color, n, POWER_ICONS.get(n)))
            cards.append(Card.of(Kind.NUMBER, color, n))
        for kind in (Kind.DRAW_ONE, Kind.DRAW_TWO, Kind.SKIP):
            cards += [Card.of(kind, color), Card.of(kind, color)]
        cards.append(Card.of(Kind.REVERSE, color))
        cards.append(Card.of(Kind.GRAB_TWO, color))
    cards += [Card.of(Kind.WILD_GRAB)] * 4 + [Card.of(Kind.WILD_DRAW_FOUR)] * 4
    return tuple(cards)


def classic_deck() -> tuple[Card, ...]:
    """The standard 108-card UNO deck."""
    cards: list[Card] = []
    for color in Color:
        cards.append(Card.of(Kind.NUMBER, color, 0))
        for n in range(1, 10):
            cards += [Card.of(Kind.NUMBER, color, n)] * 2
        for kind in (Kind.DRAW_TWO, Kind.REVERSE, Kind.SKIP):
            cards += [Card.of(kind, color)] * 2
    cards += [Card.of(Kind.WILD)] * 4 + [Card.of(Kind.WILD_DRAW_FOUR)] * 4
    return tuple(cards)


def victory_lap_deck() -> tuple[Card, ...]:
    """The 112-card Victory Lap deck: the classic deck plus four Victory Lap cards."""
    return classic_deck() + (Card.of(Kind.VICTORY_LAP),) * 4


@dataclass(frozen=True, slots=True)
class Edition:
    """What differs between editions."""

    name: str
    title: str
    deck: tuple[Card, ...]
    min_players: int
    max_players: int
    towers: bool
    """Whether Power Towers exist (grabs, blocks, instant UNO)."""

    def points(self, card: Card, settings: Settings) -> int:
        """What a card left in a hand scores (RULES.md, "Scoring")."""
        if card.kind is Kind.NUMBER:
            assert card.number is not None
            return card.number
        if card.is_wild:
            return 50
        if card.kind is Kind.GRAB_TWO:
            return settings.grab2_points
        return 20

    @property
    def card_set(self) -> frozenset[Card]:
        return frozenset(self.deck)


POWER_GRAB: Final = Edition(
    name="power-grab",
    title="UNO Power Grab",
    deck=power_grab_deck(),
    min_players=2,
    max_players=6,
    towers=True,
)
CLASSIC: Final = Edition(
    name="classic",
    title="Classic UNO",
    deck=classic_deck(),
    min_players=2,
    max_players=10,
    towers=False,
)

VICTORY_LAP: Final = Edition(
    name="victory-lap",
    title="UNO Victory Lap",
    deck=victory_lap_deck(),
    min_players=2,
    max_players=10,
    towers=False,
)

EDITIONS: Final[dict[str, Edition]] = {
    e.name: e for e in (POWER_GRAB, CLASSIC, VICTORY_LAP)
}


def get_edition(name: str) -> Edition:
    try:
        return EDITIONS[name]
    except KeyError:
        names = ", ".join(sorted(EDITIONS))
        raise SettingsError(f"Unknown edition '{name}': choose one of {names}.") from None
