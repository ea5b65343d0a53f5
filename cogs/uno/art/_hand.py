"""A hand as one PNG: its cards in order, the playable ones raised, framed and pointed at."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Final

from PIL import Image

from engine.cards import Card

from . import _draw
from ._cache import ArtCache
from ._draw import SS, Pen, palette
from ._png import PALETTE_CARDS, default_cache, palette_of, png_bytes

HAND_PER_ROW: Final = 10
"""Cards per row of a hand image; more wrap onto further rows."""
HAND_GAP: Final = 14
HAND_PAD: Final = 12
HAND_RAISE: Final = 18
"""How far a playable card is raised (pixels)."""


@lru_cache(maxsize=8)
def _frame(width: int, contrast: bool) -> Image.Image:
    """The frame behind a playable card: a white band with a dark outline around it."""
    pal = palette(contrast)
    height = _draw.card_height(width)
    m = 5
    img = Image.new("RGBA", ((width + 2 * m) * SS, (height + 2 * m) * SS), (0, 0, 0, 0))
    pen = Pen(img, SS)
    pen.rrect(0.5, 0.5, width + 2 * m - 0.5, height + 2 * m - 0.5, width * 0.1 + m,
              pal.paper, pal.ink, 1.5 if not contrast else 2.5)
    return img.resize((width + 2 * m, height + 2 * m), Image.Resampling.LANCZOS)


@lru_cache(maxsize=8)
def _pointer(contrast: bool) -> Image.Image:
    """The arrow under a playable card (pointing up at it)."""
    pal = palette(contrast)
    w, h = 28, 14
    img = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    pen = Pen(img, SS)
    pen.poly([(w / 2, 1), (w - 1.5, h - 1), (1.5, h - 1)], pal.paper, pal.ink,
             1.5 if not contrast else 2.5)
    return img.resize((w, h), Image.Resampling.LANCZOS)


def hand_image(cards: Iterable[Card], playable: Collection[Card] | None = None, *,
               contrast: bool = False, cache: ArtCache | None = None,
               width: int = _draw.CARD_W, per_row: int = HAND_PER_ROW,
               exact: bool = False) -> bytes:
    """A hand as one PNG, in the order given, ``per_row`` cards a row.

    With ``playable`` given, each playable card is raised, framed and has an arrow under it
    (marked by position and shape, not by colour); the others stay down. The picture's
    pixels take a palette made once per look (as the table's: finding a palette per
    picture was three quarters of a hand's CPU); ``exact`` keeps every RGBA pixel.
    """
    art = cache if cache is not None else default_cache()
    canvas = hand_canvas(cards, playable, contrast=contrast, cache=art, width=width,
                         per_row=per_row)
    return png_bytes(canvas, exact=exact,
                     palette=None if exact else _hand_palette(contrast, art))


def hand_canvas(cards: Iterable[Card], playable: Collection[Card] | None = None, *,
                contrast: bool = False, cache: ArtCache | None = None,
                width: int = _draw.CARD_W, per_row: int = HAND_PER_ROW) -> Image.Image:
    """The hand as ``hand_image`` draws it, an RGBA image before its PNG."""
    art = cache if cache is not None else default_cache()
    hand = list(cards)
    per_row = max(1, per_row)
    height = _draw.card_height(width)
    marks = playable is not None
    ok = set(playable) if playable is not None else set()
    frame_m = 5
    top_room = HAND_RAISE + frame_m if marks else 0
    row_h = height + top_room + (16 if marks else 0)
    rows = max(1, -(-len(hand) // per_row))
    cols = max(1, min(per_row, len(hand)))
    canvas = Image.new("RGBA", (2 * HAND_PAD + cols * width + (cols - 1) * HAND_GAP,
                                2 * HAND_PAD + rows * row_h + (rows - 1) * HAND_GAP),
                       (0, 0, 0, 0))
    for i, card in enumerate(hand):
        r, c = divmod(i, per_row)
        x = HAND_PAD + c * (width + HAND_GAP)
        y = HAND_PAD + r * (row_h + HAND_GAP) + top_room
        if card in ok:
            y -= HAND_RAISE
            canvas.alpha_composite(_frame(width, contrast), (x - frame_m, y - frame_m))
            pointer = _pointer(contrast)
            canvas.alpha_composite(pointer, (x + (width - pointer.width) // 2,
                                             y + height + frame_m + 3))
        face = art.card(card, contrast=contrast, width=width)
        if card in ok:  # on its frame
            canvas.alpha_composite(face, (x, y))
        else:  # on nothing (transparent): the same pixels, one copy
            canvas.paste(face, (x, y))
    return canvas


_HAND_PALETTES: dict[bool, Image.Image] = {}


def _hand_palette(contrast: bool, art: ArtCache) -> Image.Image:
    """The colours of hand pictures in one look, made once (from ``art``'s cards): every
    colour and kind of card, raised and framed with its arrow, and down."""
    palette = _HAND_PALETTES.get(contrast)
    if palette is None:
        cards = [Card.parse(code) for code in PALETTE_CARDS.split()]
        sample = hand_canvas(cards, cards[::2], contrast=contrast, cache=art,
                             per_row=len(cards))
        palette = _HAND_PALETTES[contrast] = palette_of(sample.convert("RGB"))
    return palette
