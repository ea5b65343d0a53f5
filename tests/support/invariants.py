"""Invariants every game keeps, checked by the engine's property tests and the end-to-end
ones: cards are conserved, towers are held by players, and no public view or event names a
card it should hide."""

from __future__ import annotations

from collections import Counter
from typing import Any

from engine import EDITIONS, Game, Tower

CODES = {str(card) for e in EDITIONS.values() for card in e.deck}
PUBLIC_CARD_FIELDS = {"played": "card", "opened": "card", "returned": "card",
                      "blocked": "card", "dealer_draw": "card"}


def card_codes_in(value: Any) -> list[str]:
    """Every string anywhere in ``value`` that is a card code."""
    if isinstance(value, str):
        return [value] if value in CODES else []
    if isinstance(value, dict):
        return [x for v in value.values() for x in card_codes_in(v)]
    if isinstance(value, list | tuple):
        return [x for v in value for x in card_codes_in(v)]
    return []


def check_invariants(game: Game) -> None:
    deck = Counter(game.edition.deck)
    assert game.all_cards() == deck, "cards are conserved"
    assert len(game.draw_pile) + len(game.discard_pile) + sum(game.hand_counts().values()) \
        == len(game.edition.deck)
    assert set(game.towers) == set(Tower)
    for holder in game.towers.values():
        assert holder is None or holder in game.players
    if not game.edition.towers:
        assert all(h is None for h in game.towers.values())
    if all(h is not None and h == game.turn for h in game.towers.values()):
        # all four towers: the keep is pending, or that player just went out
        assert game.pending.value in ("keep", "over")
    view = game.public_view()
    view.pop("top")
    assert card_codes_in(view) == []


def check_public(events: list[Any]) -> None:
    for e in events:
        d = e.public_dict()
        field = PUBLIC_CARD_FIELDS.get(e.kind)
        if field is not None:
            d.pop(field)
        assert card_codes_in(d) == [], (e.kind, d)
