"""The table as one PNG, composed from cached cards and towers (the hand: ``_hand``).

``TableScene`` (``_view``) is what the public table shows and nothing more: it has no
field that can hold a hand's cards (only the top card, and counts). The picture sent is
composed in its palette's indexes (``_indexed``); ``table_canvas`` composes the same
table in RGBA (the exact picture, the palette's sample).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Protocol

from PIL import Image

from engine.cards import Card, Color, Tower

from . import _draw
from ._cache import ArtCache, PixelLRU
from ._draw import RGB, Palette, Pen, palette
from ._indexed import IndexedCanvas, NotIndexable, TextPiece, indexed_base
from ._png import CLEAR, CLEAR_MASK, PALETTE_CARDS, default_cache, palette_of, png_bytes
from ._pngwrite import palette_png
from ._scene import SeatScene, TableScene, TableWords

__all__ = ["ROW_H", "SEATS_X", "TABLE_W", "SeatScene", "TableScene", "TableWords",
           "table_canvas", "table_image"]

log = logging.getLogger(__name__)

# -- the table ---------------------------------------------------------------------------------

# The table is drawn for a phone as much as for a desktop: shown 390 pixels wide (a phone
# of 390 × 844), a picture TABLE_W wide is scaled by 390 / TABLE_W, so its seats' names and
# counts (NAME_H units tall, a font of 1.36 × that: 23 px) read at 14 px there (they read
# at 7 before: 16 px in a picture 880 wide, the seats beside the cards). Its
# cards and towers sit in a band on top; the seats, one row each, fill the width below.
TABLE_W: Final = 640
TOP_W: Final = _draw.CARD_W
"""The top card: the size the hand uses, so both share the cached cards."""
PILE_W: Final = 96
TOWER_SMALL: Final = 66
ROW_H: Final = 46
SEATS_X: Final = 48
"""Where the seats' rows start (the direction's rail is left of them)."""
NAME_H: Final = 17
"""The height of a seat's name and card count (units: pixels of the picture)."""
LABEL_H: Final = 11
"""The height of the fixed labels (Top card, Draw pile, Towers, Players, Direction)."""


@dataclass(frozen=True, slots=True)
class _Look:
    felt: tuple[int, int, int]
    row: tuple[int, int, int]
    text: tuple[int, int, int]
    dim: tuple[int, int, int]


_LOOKS: Final = {
    False: _Look(felt=(26, 86, 62), row=(18, 64, 46), text=(250, 250, 247), dim=(196, 222, 208)),
    True: _Look(felt=(0, 0, 0), row=(40, 40, 40), text=(255, 255, 255), dim=(255, 255, 255)),
}
@lru_cache(maxsize=4096)
def _fit(s: str, height: float, max_w: float) -> str:
    """``s`` in the font's characters, shortened with an ellipsis to fit ``max_w`` units
    when written ``height`` units tall."""
    s = _draw.printable(s)
    f = _draw.font(round(2 * height * 1.36))
    if f.getlength(s) <= 2 * max_w:
        return s
    while s and f.getlength(s + "…") > 2 * max_w:
        s = s[:-1]
    return s + "…"


def _seat_name(view: TableScene, i: int) -> str:
    """A seat's name as the font can show it ("Player 3" when nothing of it can be)."""
    return _shown_name(view.seats[i].name, view.words.player, i + 1)


@lru_cache(maxsize=8192)
def _shown_name(name: str, player: str, n: int) -> str:
    shown = _draw.printable(name)
    if any(c.isalnum() for c in shown):
        return shown
    return _draw.printable(player.format(n=n))


def _left_text(pen: Pen, x: float, cy: float, s: str, height: float,
               fill: tuple[int, int, int] | int) -> float:
    """Text starting at ``x``, centred on ``cy``; returns where it ends (units)."""
    f = _draw.font(round(pen.px(height) * 1.36))
    _x0, y0, _x1, y1 = f.getbbox("H0")
    pen.d.text((pen.px(x), pen.px(cy) - y0 - (y1 - y0) / 2), s, font=f, fill=fill)
    return x + f.getlength(s) / pen.u


def _height(view: TableScene) -> int:
    """The cards' band, then a row per seat."""
    return _ROWS_TOP + max(1, len(view.seats)) * (ROW_H + 6) - 6 + 20


def table_image(view: TableScene, *, cache: ArtCache | None = None,
                exact: bool = False) -> bytes:
    """The table as one PNG: top card and colour, draw pile, towers and their holders,
    seats with card counts, whose turn it is and the direction of play."""
    if exact:
        return png_bytes(table_canvas(view, cache=cache), exact=True)
    art = cache if cache is not None else default_cache()
    palette = _table_palette(view.contrast, art)
    try:
        out = _indexed_table(view, art, palette)
    except NotIndexable as exc:  # (never seen: the layout keeps to the conditions)
        log.warning("Table picture composed in RGBA: %s", exc)
        # the transparent pixels are the base's corners: pieces go inside the frame
        return png_bytes(table_canvas(view, cache=art), palette=palette,
                         clear=_clear(*_base_key(view)))
    return palette_png(out.rows(), out.canvas.width - 1, out.canvas.height, palette, CLEAR)


def _indexed_table(view: TableScene, art: ArtCache, palette: Image.Image) -> IndexedCanvas:
    """The picture ``png_bytes(table_canvas(view), palette=...)`` makes, composed in the
    palette's indexes from pieces mapped once (``_indexed``): the same pixels, several
    times faster; its rows are the PNG's scanlines (``_pngwrite``)."""
    key = _base_key(view)
    look = (view.contrast, id(palette))

    def make_base() -> Image.Image:
        base, corners = indexed_base(_base(*key), _clear(*key), palette)
        _CORNERS[key] = corners
        return base
    base = art.derived(("indexed-base", look, key), make_base)
    corners = _CORNERS.get(key)
    if corners is None:  # (made by another ArtCache, or dropped)
        if len(_CORNERS) >= 256:  # a few shapes of table per language: never in practice
            _CORNERS.clear()
        corners = _CORNERS[key] = indexed_base(_base(*key), _clear(*key), palette)[1]
    felt = _LOOKS[view.contrast].felt
    out = IndexedCanvas(base, corners, palette, felt, lambda box: _plain(key, box), art,
                        look, _MASKS.mask)
    _lay_out(view, art, out)
    return out


_CORNERS: dict[tuple[bool, int, bool, int, int, TableWords], list[tuple[int, int, int, int]]
               ] = {}
"""Each base's transparent corners (a few boxes per shape of table)."""


@lru_cache(maxsize=256)
def _plain(key: tuple[bool, int, bool, int, int, TableWords],
           box: tuple[int, int, int, int]) -> bool:
    """Whether the base ``key`` is opaque felt all over ``box``."""
    felt = _LOOKS[key[0]].felt
    extrema = _base(*key).crop(box).getextrema()
    return extrema == ((felt[0], felt[0]), (felt[1], felt[1]), (felt[2], felt[2]), (255, 255))


_PALETTES: dict[bool, Image.Image] = {}
"""Kept for the process's life: the indexed pieces' keys hold a palette's id."""


def _table_palette(contrast: bool, art: ArtCache) -> Image.Image:
    """The colours of table pictures in one look, made once (from ``art``'s cards)."""
    palette = _PALETTES.get(contrast)
    if palette is None:
        palette = _PALETTES[contrast] = _make_palette(contrast, art)
    return palette


def _make_palette(contrast: bool, art: ArtCache) -> Image.Image:
    """A sample table and cards on the felt reduced to 255 colours, and a 256th never
    matched (transparent pixels)."""
    felt = _LOOKS[contrast].felt
    seats = (SeatScene("Ann", 7), SeatScene("Ben", 1, uno=True), SeatScene("Cy", 12, cpu=True))
    sample = table_canvas(TableScene(
        top=Card.parse("W+4"), seats=seats, turn=1, color=Color.YELLOW, has_towers=True,
        towers=((Tower.U, 0), (Tower.N, None), (Tower.O, 2), (Tower.BANG, 1)),
        draw_count=50, title="UNO", contrast=contrast), cache=art)
    cards = [art.card(Card.parse(code), contrast=contrast, width=TOP_W)
             for code in PALETTE_CARDS.split()]
    ref = Image.new("RGBA", (sample.width + len(cards) * TOP_W, sample.height), (*felt, 255))
    ref.alpha_composite(sample)
    for i, card in enumerate(cards):
        ref.alpha_composite(card, (sample.width + i * TOP_W, 0))
    return palette_of(ref.convert("RGB"))


# A table is its base (the frame, the fixed labels, the direction: cached per shape of
# table) with small pieces pasted on it (texts, the colour chip, seat rows' parts: each
# drawn twice as large on its own opaque background, scaled down and cached) and the
# cached cards and towers composited on top. Drawing a table is then mostly copying
# pixels; a piece's position is rounded to a whole pixel.

_TOP_Y: Final = 62
"""The top of the cards and towers (their labels above them)."""
_ROWS_TOP: Final = _TOP_Y + _draw.card_height(TOP_W) + 80
"""The top of the first seat's row: under the top card and the colour chip, and the
label "Players"."""


def _piece(width: float, height: float, bg: RGB, draw: Callable[[Pen], object]
           ) -> Image.Image:
    """``draw`` on an opaque ``bg`` rectangle at twice the size, scaled down."""
    img = Image.new("RGBA", (math.ceil(width) * 2, math.ceil(height) * 2), (*bg, 255))
    draw(Pen(img, 2))
    return img.reduce(2)


class _Masks(PixelLRU):
    """Text masks (one byte a pixel, any colour: a mask serves every colour) by
    (text, height)."""

    def mask(self, s: str, height: float) -> tuple[Image.Image, float]:
        return self.get((s, height), lambda: _draw_mask(s, height))

    def cache_clear(self) -> None:
        """Emptied as the ``lru_cache`` pieces beside it are."""
        self.clear()


TEXT_MASK_PIXELS: Final = 16 * 1024 * 1024
"""Pixels (bytes) of text masks kept: a seat name is about 3.5 KB, so some 4,500 names
(1,000 tables of four)."""
_MASKS: Final = _Masks(TEXT_MASK_PIXELS)


def _draw_mask(s: str, height: float) -> tuple[Image.Image, float]:
    """``s``'s coverage ``height`` units tall (drawn at twice the size, scaled down; a
    pixel of margin on the left), and its length in units."""
    length = _draw.font(round(2 * height * 1.36)).getlength(s) / 2
    h = round(2 * height)
    img = Image.new("L", (math.ceil(length + 3) * 2, h * 2), 0)
    _left_text(Pen(img, 2), 1, h / 2, s, height, 255)
    return img.reduce(2), length


def _put(canvas: Image.Image, text: TextPiece, x: float,
         cy: float) -> float:
    """Paste a text piece starting at ``x``, centred on ``cy`` (its box in ``bg``,
    its letters in ``fg``); where it ends."""
    mask, length, fg, bg = text
    x0, y0 = round(x) - 1, round(cy) - mask.height // 2
    box = (x0, y0, x0 + mask.width, y0 + mask.height)
    canvas.paste((*bg, 255), box)
    canvas.paste((*fg, 255), box, mask)
    return x + length


@lru_cache(maxsize=8)
def _base(contrast: bool, height: int, has_towers: bool, seats: int, direction: int,
          words: TableWords) -> Image.Image:
    """The frame with the labels that don't change during a game and the direction."""
    pal = palette(contrast)
    look = _LOOKS[contrast]
    chrome = Image.new("RGBA", (TABLE_W * 2, height * 2), (0, 0, 0, 0))
    pen = Pen(chrome, 2)
    pen.rrect(0.5, 0.5, TABLE_W - 0.5, height - 0.5, 18, look.felt, pal.ink, 1.5)
    _left_text(pen, 20, 50, _fit(words.top_card, LABEL_H, TOP_W + 16), LABEL_H, look.dim)
    _left_text(pen, _PILE_X, 50, _fit(words.draw_pile, LABEL_H, _RIGHT_X - _PILE_X - 12),
               LABEL_H, look.dim)
    if has_towers:
        _left_text(pen, _RIGHT_X, 50, _fit(words.towers, LABEL_H, TABLE_W - 20 - _RIGHT_X),
                   LABEL_H, look.dim)
    _direction(pen, _RIGHT_X, _direction_y(has_towers), direction, look, words)
    _left_text(pen, 20, _ROWS_TOP - 16, _fit(words.players, LABEL_H, 300), LABEL_H, look.dim)
    if seats > 1:
        _direction_rail(pen, SEATS_X - 22, _ROWS_TOP, _ROWS_TOP + seats * (ROW_H + 6) - 6,
                        direction, pal)
    return chrome.reduce(2)


def _base_key(view: TableScene) -> tuple[bool, int, bool, int, int, TableWords]:
    """``_base``'s arguments for ``view``."""
    height = _height(view)
    return (view.contrast, height, view.has_towers, len(view.seats), view.direction,
            view.words)


@lru_cache(maxsize=8)
def _clear(contrast: bool, height: int, has_towers: bool, seats: int, direction: int,
           words: TableWords) -> Image.Image:
    """The pixels of a table picture that are made transparent: its base's corners."""
    base = _base(contrast, height, has_towers, seats, direction, words)
    return base.getchannel("A").point(CLEAR_MASK)


_PILE_X: Final = 20 + TOP_W + 24
_RIGHT_X: Final = _PILE_X + PILE_W + 40
"""Where the towers and the direction start, right of the draw pile."""


def _chip_y() -> int:
    return _TOP_Y + _draw.card_height(TOP_W) + 10


def _direction_y(has_towers: bool) -> int:
    """The direction's label: under the towers, or where they would be."""
    return _TOP_Y + _draw.tower_height(TOWER_SMALL) + 30 if has_towers else 50


class _Out(Protocol):
    """Where a table is composed: an RGBA image (``_Canvas``) or palette indexes
    (``IndexedCanvas``)."""

    def text(self, s: str, height: float, fg: RGB, bg: RGB, x: float, cy: float,
             centre: float | None = None) -> float:
        """``s`` written ``height`` units tall in ``fg`` on a box of ``bg``, starting at
        ``x`` (or centred in ``centre`` pixels from ``x``) and centred on ``cy``; where it
        ends."""
        ...

    def paste(self, make: Callable[..., Image.Image], args: tuple[Hashable, ...],
              at: tuple[int, int]) -> None: ...

    def over(self, key: Hashable, make: Callable[[], Image.Image], at: tuple[int, int]
             ) -> None: ...


class _Canvas:
    """An RGBA table: texts pasted, pieces pasted, cards and towers composited."""

    def __init__(self, img: Image.Image) -> None:
        self.img = img

    def text(self, s: str, height: float, fg: RGB, bg: RGB, x: float, cy: float,
             centre: float | None = None) -> float:
        mask, length = _MASKS.mask(s, height)
        if centre is not None:
            x += (centre - length) / 2
        return _put(self.img, (mask, length, fg, bg), x, cy)

    def paste(self, make: Callable[..., Image.Image], args: tuple[Hashable, ...],
              at: tuple[int, int]) -> None:
        self.img.paste(make(*args), at)

    def over(self, key: Hashable, make: Callable[[], Image.Image], at: tuple[int, int]
             ) -> None:
        self.img.alpha_composite(make(), at)


def table_canvas(view: TableScene, *, cache: ArtCache | None = None) -> Image.Image:
    art = cache if cache is not None else default_cache()
    canvas = _base(*_base_key(view)).copy()
    _lay_out(view, art, _Canvas(canvas))
    return canvas


def _lay_out(view: TableScene, art: ArtCache, out: _Out) -> None:
    """The table's pieces on its base, in order (a later piece covers an earlier one)."""
    look = _LOOKS[view.contrast]
    words = view.words
    contrast = view.contrast
    if view.title:
        out.text(_fit(view.title, 14, TABLE_W - 40), 14, look.text, look.felt, 20, 24)
    # the top card, the colour in play, the draw pile
    if view.color is not None:
        out.paste(_chip, (view.color, contrast, words), (20, _chip_y()))
    pile_h = _draw.card_height(PILE_W)
    out.text(_fit(words.count(view.draw_count), 13, _RIGHT_X - _PILE_X - 12), 13,
             look.text, look.felt, _PILE_X, _TOP_Y + pile_h + 18)
    top = view.top
    if top is not None:
        out.over(("card", top.code, contrast, TOP_W),
                 lambda: art.card(top, contrast=contrast, width=TOP_W), (20, _TOP_Y))
    out.over(("back", contrast, PILE_W), lambda: art.back(contrast=contrast, width=PILE_W),
             (_PILE_X, _TOP_Y))
    # the towers, held (in colour) or in the tray (pale); who holds each: a badge in
    # their seat's row (a name under a tower would be too small to read on a phone)
    if view.has_towers:
        holders = dict(view.towers)
        for i, tower in enumerate(Tower):
            x = _RIGHT_X + i * (TOWER_SMALL + 12)
            held = holders.get(tower) is not None
            out.over(("tower", tower, held, contrast, TOWER_SMALL),
                     lambda t=tower, h=held: art.tower(t, held=h, contrast=contrast,  # type: ignore[misc]
                                                       width=TOWER_SMALL),
                     (x, _TOP_Y))
    # the seats
    for i, seat in enumerate(view.seats):
        _seat_row(out, seat, i, _ROWS_TOP + i * (ROW_H + 6), view)


@lru_cache(maxsize=32)
def _chip(color: Color, contrast: bool, words: TableWords) -> Image.Image:
    """The colour in play: a chip of the colour, its marker and its name."""
    pal = palette(contrast)
    h = 32
    label = _draw.printable(words.colour.format(color=words.color_name(color)))
    length = _draw.font(round(2 * 11 * 1.36)).getlength(label) / 2
    w = min(max(TOP_W, math.ceil(h + 6 + length + 8)), _RIGHT_X - 20 - 8)
    label = _fit(label, 11, w - h - 12)
    ink = pal.ink if color is Color.YELLOW else pal.paper

    def draw(pen: Pen) -> None:
        pen.rrect(0, 0, w, h, 8, pal.colors[color], pal.ink, pal.line * 0.7)
        _draw.color_marker(pen, color, h / 2 + 2, h / 2, h * 0.34, pal)
        _left_text(pen, h + 6, h / 2, label, 11, ink)
    return _piece(w, h, _LOOKS[contrast].felt, draw)


def _direction(pen: Pen, x: float, y: float, direction: int, look: _Look,
               words: TableWords) -> None:
    """A circular arrow and a sentence: which way play goes down the list of seats."""
    _left_text(pen, x, y, _fit(words.direction, LABEL_H, TABLE_W - 20 - x), LABEL_H, look.dim)
    cx, cy, r = x + 16, y + 30, 13.0
    pen.d.arc(pen.box(cx - r, cy - r, cx + r, cy + r), 40, 320, fill=look.text,
              width=pen.w(3.5))
    # the arrowhead at the arc's end, pointing along it
    if direction > 0:  # clockwise: head at the top end, pointing right-down
        tip = [(cx + r * 0.77 + 5, cy - r * 0.64 + 5), (cx + r * 0.77 - 6, cy - r * 0.64 + 2),
               (cx + r * 0.77 + 2, cy - r * 0.64 - 8)]
    else:
        tip = [(cx + r * 0.77 + 5, cy + r * 0.64 - 5), (cx + r * 0.77 - 6, cy + r * 0.64 - 2),
               (cx + r * 0.77 + 2, cy + r * 0.64 + 8)]
    pen.poly(tip, look.text)
    room = TABLE_W - 20 - (x + 38)
    _left_text(pen, x + 38, cy - 8, _fit(words.play_goes, LABEL_H, room), LABEL_H, look.text)
    _left_text(pen, x + 38, cy + 8, _fit(words.down if direction > 0 else words.up, LABEL_H,
                                         room), LABEL_H, look.text)


def _direction_rail(pen: Pen, x: float, y0: float, y1: float, direction: int,
                    pal: Palette) -> None:
    """A long arrow beside the seats, pointing the way play goes."""
    cx = x + 8
    t = 4.0
    head = 9.0
    if direction > 0:
        pts = [(cx - t / 2, y0 + 4), (cx + t / 2, y0 + 4), (cx + t / 2, y1 - head * 1.4),
               (cx + head, y1 - head * 1.4), (cx, y1), (cx - head, y1 - head * 1.4),
               (cx - t / 2, y1 - head * 1.4)]
    else:
        pts = [(cx - t / 2, y1 - 4), (cx + t / 2, y1 - 4), (cx + t / 2, y0 + head * 1.4),
               (cx + head, y0 + head * 1.4), (cx, y0), (cx - head, y0 + head * 1.4),
               (cx - t / 2, y0 + head * 1.4)]
    pen.poly(pts, pal.paper, pal.ink, 1.2)


_ROW_X0: Final = SEATS_X
_ROW_X1: Final = TABLE_W - 20


def _row_colors(turn: bool, contrast: bool) -> tuple[RGB, RGB]:
    """A seat row's background and text colours (the turn's row is light)."""
    pal, look = palette(contrast), _LOOKS[contrast]
    return (pal.paper, pal.ink) if turn else (look.row, look.text)


@lru_cache(maxsize=8)
def _row_back(turn: bool, contrast: bool) -> Image.Image:
    """A seat row's background; the turn's row is outlined and has a pointer."""
    pal = palette(contrast)
    w, h = _ROW_X1 - _ROW_X0, ROW_H

    def draw(pen: Pen) -> None:
        if turn:
            pen.rrect(0, 0, w, h, 9, pal.paper, pal.ink, 2.5)
            pen.poly([(8, 12), (22, h / 2), (8, h - 12)], pal.ink)
        else:
            pen.rrect(0, 0, w, h, 9, _LOOKS[contrast].row)
    return _piece(w, h, _LOOKS[contrast].felt, draw)


@lru_cache(maxsize=8)
def _count_card(turn: bool, contrast: bool) -> Image.Image:
    """The small card beside a seat's count."""
    pal = palette(contrast)
    bg, _fg = _row_colors(turn, contrast)
    return _piece(17, 25, bg, lambda pen: pen.rrect(
        0, 0, 17, 25, 3, pal.back if not turn else pal.ink,
        pal.paper if not turn else pal.ink, 1.2))


@lru_cache(maxsize=16)
def _badge(tower: Tower, turn: bool, contrast: bool) -> Image.Image:
    """A held tower beside a seat: its outline in its colour and its letter."""
    pal = palette(contrast)
    bg, _fg = _row_colors(turn, contrast)

    def draw(pen: Pen) -> None:
        col = pal.colors[_draw.TOWER_COLOR[tower]]
        pen.poly(_draw.tower_outline(13, 26, 22, 24), col, pal.ink, 1.2)
        pen.text(13, 16, tower.value, 10, pal.paper, pal.ink, 1.6)
    return _piece(26, 28, bg, draw)


@lru_cache(maxsize=16)
def _tag(s: str, turn: bool, contrast: bool, filled: bool) -> Image.Image:
    """A small boxed word ("CPU", or "UNO!" filled in yellow)."""
    pal = palette(contrast)
    bg, fg = _row_colors(turn, contrast)
    w = _draw.font(round(2 * _TAG_TEXT * 1.36)).getlength(s) / 2 + 14

    def draw(pen: Pen) -> None:
        if filled:
            pen.rrect(0, 0, w, _TAG_H, 5, pal.colors[Color.YELLOW], pal.ink, 1.2)
            _left_text(pen, 7, _TAG_H / 2, s, _TAG_TEXT, pal.ink)
        else:
            pen.rrect(0, 0, w, _TAG_H, 5, None, fg, 1.2)
            _left_text(pen, 7, _TAG_H / 2, s, _TAG_TEXT, fg)
    return _piece(w, _TAG_H, bg, draw)


_TAG_H: Final = 24
_TAG_TEXT: Final = 12


def _seat_row(out: _Out, seat: SeatScene, i: int, y: int, view: TableScene) -> None:
    turn = view.turn == i
    contrast = view.contrast
    bg, fg = _row_colors(turn, contrast)
    out.paste(_row_back, (turn, contrast), (_ROW_X0, y))
    cy = y + ROW_H // 2
    name = _fit(_seat_name(view, i), NAME_H, 170 if seat.cpu else 240)
    end = out.text(name, NAME_H, fg, bg, _ROW_X0 + 30, cy)
    if seat.cpu:
        out.paste(_tag, (_fit(view.words.cpu, _TAG_TEXT, 48), turn, contrast, False),
                  (round(end + 8), cy - _TAG_H // 2))
    # the card count: a small card and the number
    cx = _ROW_X0 + 296
    out.paste(_count_card, (turn, contrast), (cx, cy - 12))
    out.text(f"x {seat.cards}", NAME_H, fg, bg, cx + 24, cy)
    # towers held
    tx = cx + 84
    held = [t for t, h in view.towers if h == i] if view.has_towers else []
    for t in held:
        out.paste(_badge, (t, turn, contrast), (tx - 2, cy - 14))
        tx += 27
    if seat.uno:
        out.paste(_tag, (_fit(view.words.uno, _TAG_TEXT, 48), turn, contrast, True),
                  (_ROW_X1 - 70, cy - _TAG_H // 2))


# -- the shared cache --------------------------------------------------------------------------
