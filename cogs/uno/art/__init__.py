"""Card art drawn by our own code (Pillow, its bundled font, no copied art).

Pure rendering: no Discord, no I/O except the optional disk cache; the same input always
gives the same pixels and the same PNG bytes.

    card_image(Card.parse("R7"))            # PIL image, 120 × 180, cached
    tower_image(Tower.U, held=True)          # PIL image, 100 × 130
    card_back()
    hand_image(cards, playable)              # PNG bytes
    table_image(TableScene(...))              # PNG bytes
    standings_image(StandingsScene(...))      # PNG bytes: a game's final scores
    configure("/var/cache/uno")              # also keep the drawn PNGs on disk

Images returned by ``card_image``, ``tower_image`` and ``card_back`` are shared by the
cache: treat them as read-only.
"""

from __future__ import annotations

from PIL import Image

from engine.cards import Card, Tower
from engine.editions import EDITIONS

from ._cache import ART_VERSION, ArtCache
from ._compose import SeatScene, TableScene, TableWords, table_canvas, table_image
from ._draw import CARD_W, COLOR_SHAPE, TOWER_COLOR, TOWER_W, card_height, tower_height
from ._hand import hand_image
from ._png import configure, default_cache, png_bytes
from ._standings import StandingRow, StandingsScene, StandingsWords, standings_image

__all__ = [
    "ART_VERSION",
    "CARD_W",
    "COLOR_SHAPE",
    "TOWER_COLOR",
    "TOWER_W",
    "ArtCache",
    "SeatScene",
    "StandingRow",
    "StandingsScene",
    "StandingsWords",
    "TableScene",
    "TableWords",
    "all_cards",
    "card_back",
    "card_height",
    "card_image",
    "configure",
    "default_cache",
    "hand_image",
    "png_bytes",
    "standings_image",
    "table_canvas",
    "table_image",
    "tower_height",
    "tower_image",
]


def card_image(card: Card, *, contrast: bool = False, width: int = CARD_W) -> Image.Image:
    """``card`` drawn once (RGBA, ``width`` × 1.5 ``width``), then served from the cache."""
    return default_cache().card(card, contrast=contrast, width=width)


def tower_image(tower: Tower, held: bool, *, contrast: bool = False,
                width: int = TOWER_W) -> Image.Image:
    """A Power Tower with its letter and, on a shield, the card it blocks; ``held``: in
    its colour with a pennant, else pale (in the tray)."""
    return default_cache().tower(tower, held=held, contrast=contrast, width=width)


def card_back(*, contrast: bool = False, width: int = CARD_W) -> Image.Image:
    """The back of a card (the draw pile)."""
    return default_cache().back(contrast=contrast, width=width)


def all_cards() -> list[Card]:
    """Every distinct card of every edition, in hand order."""
    return sorted({c for e in EDITIONS.values() for c in e.deck})
