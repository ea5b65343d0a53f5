"""Drawing one card, tower or card back (pure: Pillow only, no I/O, deterministic).

Everything is drawn at ``SS`` times the asked size in *design units* (a card is 120 × 180
units whatever its size in pixels) and scaled down with LANCZOS, which anti-aliases it.
The design is our own and deliberately flat: a rounded white card, a colour field, a white
disc with the big number or symbol, a corner index with the colour's marker (a shape and a
letter, so no information is carried by colour alone) and, on Power Icon cards, a
tower-shaped badge with the icon's letter.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from engine.cards import BLOCKED_BY, Card, Color, Kind, Tower

SS: Final = 4
"""Supersampling factor: drawn this many times larger, then scaled down."""
CARD_W: Final = 120
"""Default card width in pixels (the height is 1.5 times the width)."""
TOWER_W: Final = 100
"""Default tower width in pixels (the height is 1.3 times the width)."""
DESIGN_W: Final = 120.0
DESIGN_H: Final = 180.0

RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Palette:
    """The colours and line weights of one look (normal or high contrast)."""

    colors: dict[Color, RGB]
    wild: RGB
    back: RGB
    ink: RGB
    """Outlines and dark text."""
    paper: RGB
    """The card's border and the central disc."""
    line: float
    """Outline width in design units."""
    symbol_on_disc: RGB | None
    """The symbol's colour on the central disc (None: the card's own colour)."""


NORMAL: Final = Palette(
    colors={Color.RED: (214, 58, 49), Color.BLUE: (36, 104, 201),
            Color.GREEN: (47, 148, 82), Color.YELLOW: (240, 188, 32)},
    wild=(38, 38, 46), back=(34, 36, 52), ink=(24, 24, 30), paper=(250, 250, 247),
    line=1.6, symbol_on_disc=None,
)
CONTRAST: Final = Palette(
    colors={Color.RED: (200, 0, 0), Color.BLUE: (0, 48, 190),
            Color.GREEN: (0, 120, 56), Color.YELLOW: (255, 214, 0)},
    wild=(0, 0, 0), back=(0, 0, 0), ink=(0, 0, 0), paper=(255, 255, 255),
    line=3.2, symbol_on_disc=(0, 0, 0),
)

#: The colour-blind marker: each colour has a shape and a letter.
COLOR_SHAPE: Final[dict[Color, str]] = {
    Color.RED: "circle", Color.BLUE: "square", Color.GREEN: "triangle", Color.YELLOW: "diamond",
}
#: Each tower's colour (RULES.md and engine.cards.Tower: U red, N blue, O green, ! yellow).
TOWER_COLOR: Final[dict[Tower, Color]] = {
    Tower.U: Color.RED, Tower.N: Color.BLUE, Tower.O: Color.GREEN, Tower.BANG: Color.YELLOW,
}
_QUADRANTS: Final = (Color.RED, Color.BLUE, Color.YELLOW, Color.GREEN)
"""Wild disc quadrants, clockwise from the top right."""


def palette(contrast: bool) -> Palette:
    return CONTRAST if contrast else NORMAL


@lru_cache(maxsize=64)
def font(px: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font at ``px`` pixels, basic layout (the same on every machine)."""
    base = ImageFont.load_default(size=max(1, px))
    assert isinstance(base, ImageFont.FreeTypeFont)
    return base.font_variant(size=max(1, px), layout_engine=ImageFont.Layout.BASIC)


_FOLD: Final = {"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
                "đ": "d", "Đ": "D", "ł": "l", "Ł": "L", "þ": "th", "×": "x", "’": "'",
                "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"}


def printable(s: str) -> str:
    """``s`` in the characters the bundled font has (ASCII): accents dropped ("Chloé" →
    "Chloe"), anything else shown as "?" (the text messages keep the real name)."""
    out = []
    for ch in unicodedata.normalize("NFKD", s):
        if unicodedata.combining(ch):
            continue
        if " " <= ch <= "~" or ch == "…":
            out.append(ch)
        else:
            out.append(_FOLD.get(ch, "?"))
    return re.sub(r"\?{2,}", "?", "".join(out))


class Pen:
    """Draws in design units on a supersampled RGBA image."""

    def __init__(self, img: Image.Image, unit: float) -> None:
        self.img = img
        self.d = ImageDraw.Draw(img)
        self.u = unit

    def px(self, v: float) -> float:
        return v * self.u

    def pts(self, points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(x * self.u, y * self.u) for x, y in points]

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        return (x0 * self.u, y0 * self.u, x1 * self.u, y1 * self.u)

    def w(self, v: float) -> int:
        return max(1, round(v * self.u))

    def rrect(self, x0: float, y0: float, x1: float, y1: float, r: float, fill: RGB | RGBA | None,
              outline: RGB | None = None, width: float = 0) -> None:
        self.d.rounded_rectangle(self.box(x0, y0, x1, y1), radius=self.px(r), fill=fill,
                                 outline=outline, width=self.w(width) if outline else 0)

    def circle(self, cx: float, cy: float, r: float, fill: RGB | None,
               outline: RGB | None = None, width: float = 0) -> None:
        self.d.ellipse(self.box(cx - r, cy - r, cx + r, cy + r), fill=fill, outline=outline,
                       width=self.w(width) if outline else 0)

    def poly(self, points: Sequence[tuple[float, float]], fill: RGB | None,
             outline: RGB | None = None, width: float = 0) -> None:
        self.d.polygon(self.pts(points), fill=fill, outline=outline,
                       width=self.w(width) if outline else 0)

    def line(self, points: Sequence[tuple[float, float]], fill: RGB, width: float) -> None:
        self.d.line(self.pts(points), fill=fill, width=self.w(width), joint="curve")

    def text(self, cx: float, cy: float, s: str, height: float, fill: RGB,
             stroke: RGB | None = None, stroke_w: float = 0, max_w: float | None = None) -> None:
        """``s`` with its ink box centred on (cx, cy), ``height`` units tall for capitals."""
        px = round(self.px(height) * 1.36)
        if max_w is not None:
            bx0, _by0, bx1, _by1 = font(px).getbbox(s)
            if bx1 - bx0 > self.px(max_w):
                px = max(1, int(px * self.px(max_w) / (bx1 - bx0)))
        f = font(px)
        _x0, y0, _x1, y1 = f.getbbox("H0")
        cap = y1 - y0
        sw = self.w(stroke_w) if stroke else 0
        bx0, _by0, bx1, _by1 = f.getbbox(s)
        x = self.px(cx) - (bx0 + bx1) / 2
        y = self.px(cy) - y0 - cap / 2
        self.d.text((x, y), s, font=f, fill=fill, stroke_width=sw,
                    stroke_fill=stroke if stroke else None)


# -- small building blocks, all in design units -----------------------------------------------

def shape_points(shape: str, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    if shape == "square":
        k = r * 0.86
        return [(cx - k, cy - k), (cx + k, cy - k), (cx + k, cy + k), (cx - k, cy + k)]
    if shape == "triangle":
        return [(cx, cy - r * 1.05), (cx + r * 1.05, cy + r * 0.8), (cx - r * 1.05, cy + r * 0.8)]
    if shape == "diamond":
        return [(cx, cy - r * 1.1), (cx + r * 1.1, cy), (cx, cy + r * 1.1), (cx - r * 1.1, cy)]
    raise ValueError(shape)


def color_marker(pen: Pen, color: Color, cx: float, cy: float, r: float, pal: Palette,
                 *, letter: bool = True) -> None:
    """The colour-blind marker: a white shape with a dark outline and the colour's letter."""
    shape = COLOR_SHAPE[color]
    width = min(pal.line * 0.8, max(1.0, r * 0.13))
    if shape == "circle":
        pen.circle(cx, cy, r, pal.paper, pal.ink, width)
    else:
        pen.poly(shape_points(shape, cx, cy, r), pal.paper, pal.ink, width)
    if letter:
        dy = r * 0.22 if shape == "triangle" else 0.0
        pen.text(cx, cy + dy, color.value, r * (0.85 if shape == "triangle" else 1.0), pal.ink)


def tower_outline(cx: float, base: float, w: float, h: float) -> list[tuple[float, float]]:
    """A tower silhouette: a body with three merlons on top; ``base`` is its bottom."""
    x0, x1 = cx - w / 2, cx + w / 2
    top = base - h
    m = h * 0.16  # merlon height
    step = w / 5
    return [
        (x0, base), (x0, top), (x0 + step, top), (x0 + step, top + m), (x0 + 2 * step, top + m),
        (x0 + 2 * step, top), (x0 + 3 * step, top), (x0 + 3 * step, top + m),
        (x0 + 4 * step, top + m), (x0 + 4 * step, top), (x1, top), (x1, base),
    ]


def draw_tower_shape(pen: Pen, cx: float, base: float, w: float, h: float, fill: RGB,
                     pal: Palette, *, door: bool = True) -> None:
    pen.poly(tower_outline(cx, base, w, h), fill, pal.ink, pal.line)
    if door:
        dw, dh = w * 0.28, h * 0.26
        pen.rrect(cx - dw / 2, base - dh, cx + dw / 2, base + dw / 2, dw / 2, pal.ink)


def draw_skip(pen: Pen, cx: float, cy: float, r: float, fill: RGB, pal: Palette) -> None:
    """A ring with a slash (the "no entry" sign)."""
    ring, t = r * 0.78, r * 0.24
    out = 0.0 if fill == pal.ink else min(pal.line * 1.2, r * 0.1)
    a = math.radians(45)
    dx, dy = ring * math.cos(a), ring * math.sin(a)
    pen.circle(cx, cy, ring + t / 2 + out, None, pal.ink, t + 2 * out)
    pen.line([(cx - dx, cy + dy), (cx + dx, cy - dy)], pal.ink, t + 2 * out)
    pen.circle(cx, cy, ring + t / 2, None, fill, t)
    pen.line([(cx - dx * 0.98, cy + dy * 0.98), (cx + dx * 0.98, cy - dy * 0.98)], fill, t)


def _arrow(cx: float, cy: float, length: float, t: float, right: bool) -> list[tuple[float, float]]:
    head = t * 1.9
    hl = length * 0.38
    x0, x1 = cx - length / 2, cx + length / 2
    if right:
        return [(x0, cy - t / 2), (x1 - hl, cy - t / 2), (x1 - hl, cy - head), (x1, cy),
                (x1 - hl, cy + head), (x1 - hl, cy + t / 2), (x0, cy + t / 2)]
    return [(x1, cy - t / 2), (x0 + hl, cy - t / 2), (x0 + hl, cy - head), (x0, cy),
            (x0 + hl, cy + head), (x0 + hl, cy + t / 2), (x1, cy + t / 2)]


def draw_reverse(pen: Pen, cx: float, cy: float, r: float, fill: RGB, pal: Palette) -> None:
    """Two arrows in opposite directions, one above the other."""
    t = r * 0.22
    pen.poly(_arrow(cx + r * 0.08, cy - r * 0.38, r * 1.5, t, True), fill, pal.ink, pal.line)
    pen.poly(_arrow(cx - r * 0.08, cy + r * 0.38, r * 1.5, t, False), fill, pal.ink, pal.line)


def draw_two_towers(pen: Pen, cx: float, cy: float, r: float, fill: RGB, pal: Palette) -> None:
    """Grab-2-Towers: two towers side by side."""
    w, h = r * 0.72, r * 1.35
    base = cy + h / 2
    draw_tower_shape(pen, cx - r * 0.42, base - r * 0.12, w, h, fill, pal)
    draw_tower_shape(pen, cx + r * 0.42, base + r * 0.02, w, h, fill, pal)


def draw_flag(pen: Pen, cx: float, cy: float, r: float, pal: Palette) -> None:
    """Victory Lap: a chequered flag on a pole."""
    x0, y0 = cx - r * 0.62, cy - r * 0.78
    cols, rows = 4, 3
    cell = r * 0.34
    pen.line([(x0, y0 - r * 0.05), (x0, cy + r * 0.9)], pal.ink, max(pal.line * 1.6, r * 0.1))
    pen.rrect(x0, y0, x0 + cols * cell, y0 + rows * cell, 0, pal.paper, pal.ink, pal.line)
    for i in range(cols):
        for j in range(rows):
            if (i + j) % 2 == 0:
                pen.rrect(x0 + i * cell, y0 + j * cell, x0 + (i + 1) * cell,
                          y0 + (j + 1) * cell, 0, pal.ink)
    pen.rrect(x0, y0, x0 + cols * cell, y0 + rows * cell, 0, None, pal.ink, pal.line)


def draw_quadrants(pen: Pen, cx: float, cy: float, r: float, pal: Palette,
                   *, markers: bool = True) -> None:
    """The wild disc: the four colours, each quadrant with its colour's shape."""
    box = pen.box(cx - r, cy - r, cx + r, cy + r)
    for i, color in enumerate(_QUADRANTS):
        pen.d.pieslice(box, -90 + 90 * i, 90 * i, fill=pal.colors[color])
        if markers:
            a = math.radians(-45 + 90 * i)
            mx, my = cx + math.cos(a) * r * 0.6, cy + math.sin(a) * r * 0.6
            color_marker(pen, color, mx, my, r * 0.15, pal, letter=False)
    pen.circle(cx, cy, r, None, pal.ink, pal.line)


def draw_badge(pen: Pen, icon: Tower, cx: float, base: float, pal: Palette) -> None:
    """The Power Icon badge: a dark tower with the icon's letter in white."""
    w, h = 40.0, 44.0
    pen.poly(tower_outline(cx, base, w + 5, h + 4), pal.paper)
    pen.poly(tower_outline(cx, base - 2, w, h), pal.ink)
    pen.text(cx, base - 2 - h * 0.42, icon.value, 24, pal.paper)


# -- the central symbol and the corner index ---------------------------------------------------

def _symbol_text(card: Card) -> str | None:
    if card.kind is Kind.NUMBER:
        return str(card.number)
    return {Kind.DRAW_ONE: "+1", Kind.DRAW_TWO: "+2", Kind.WILD_DRAW_FOUR: "+4",
            Kind.WILD: "W"}.get(card.kind)


def draw_symbol(pen: Pen, card: Card, cx: float, cy: float, r: float, fill: RGB,
                pal: Palette, *, big: bool) -> None:
    """The card's symbol in a circle of radius ``r`` centred on (cx, cy)."""
    kind = card.kind
    pal = replace(pal, line=min(pal.line, r * 0.09))  # small symbols: thinner lines
    stroke_w = pal.line * (1.2 if big else 1.0)
    if kind is Kind.SKIP:
        draw_skip(pen, cx, cy, r, fill, pal)
    elif kind is Kind.REVERSE:
        draw_reverse(pen, cx, cy, r, fill, pal)
    elif kind in (Kind.GRAB_TWO,):
        draw_two_towers(pen, cx, cy, r, fill, pal)
    elif kind is Kind.WILD_GRAB:
        draw_tower_shape(pen, cx, cy + r * 0.75, r * 0.95, r * 1.5, fill, pal)
    elif kind is Kind.VICTORY_LAP:
        draw_flag(pen, cx, cy, r, pal)
    else:
        text = _symbol_text(card)
        assert text is not None
        height = r * (1.25 if len(text) == 1 else 0.95)
        if fill == pal.ink:  # dark on the disc (high contrast): a thin stroke makes it bold
            stroke_w = 0.9 if big else 0.4
        pen.text(cx, cy, text, height, fill, pal.ink, stroke_w, max_w=r * 1.8)
        if card.number in (6, 9):  # underline: a 6 upside down is not a 9
            uy = cy + height * 0.62
            pen.rrect(cx - r * 0.3, uy, cx + r * 0.3, uy + r * 0.12, r * 0.05, fill,
                      pal.ink, stroke_w * 0.6)


def _corner_layer(card: Card, size: tuple[int, int], unit: float, pal: Palette) -> Image.Image:
    layer = Image.new("RGBA", size, (0, 0, 0, 0))
    pen = Pen(layer, unit)
    cx, cy = 21.0, 21.0
    field = pal.wild if card.color is None else pal.colors[card.color]
    draw_symbol(pen, card, cx, cy, 12.5, pal.ink if _light(field) else pal.paper, pal, big=False)
    if card.color is not None:
        color_marker(pen, card.color, cx, 48.0, 11.0, pal)
    else:
        draw_quadrants(pen, cx, 48.0, 10.5, pal, markers=False)
    return layer


# -- whole images ------------------------------------------------------------------------------

def _canvas(width: int, height: int) -> tuple[Image.Image, Pen]:
    img = Image.new("RGBA", (width * SS, height * SS), (0, 0, 0, 0))
    return img, Pen(img, width * SS / DESIGN_W)


def _finish(img: Image.Image, width: int, height: int) -> Image.Image:
    return img.resize((width, height), Image.Resampling.LANCZOS)


def card_height(width: int) -> int:
    return round(width * DESIGN_H / DESIGN_W)


def draw_card(card: Card, *, contrast: bool = False, width: int = CARD_W) -> Image.Image:
    """Draw ``card`` (``width`` pixels wide, 1.5 × as tall), RGBA with rounded corners."""
    pal = palette(contrast)
    height = card_height(width)
    img, pen = _canvas(width, height)
    field = pal.wild if card.color is None else pal.colors[card.color]
    pen.rrect(0.5, 0.5, 119.5, 179.5, 11, pal.paper, pal.ink, pal.line)
    pen.rrect(6, 6, 114, 174, 8, field, pal.ink if contrast else None, pal.line * 0.6)
    corners = _corner_layer(card, img.size, pen.u, pal)
    img.alpha_composite(corners)
    img.alpha_composite(corners.rotate(180))
    cy = 80.0 if card.icon is not None else 90.0
    r = 37.0
    if card.is_wild:
        draw_quadrants(pen, 60, cy, r, pal, markers=card.kind is Kind.WILD)
        if card.kind is Kind.VICTORY_LAP:
            pen.circle(60, cy, r * 0.72, pal.paper, pal.ink, pal.line)
            draw_symbol(pen, card, 62, cy, r * 0.62, pal.paper, pal, big=True)
        elif card.kind is Kind.WILD_GRAB:
            draw_symbol(pen, card, 60, cy, r * 0.85, pal.paper, pal, big=True)
        elif card.kind is Kind.WILD_DRAW_FOUR:
            draw_symbol(pen, card, 60, cy, r * 0.95, pal.paper, pal, big=True)
    else:
        assert card.color is not None
        pen.circle(60, cy, r, pal.paper, pal.ink, pal.line)
        fill = pal.symbol_on_disc or pal.colors[card.color]
        draw_symbol(pen, card, 60, cy, r * 0.8, fill, pal, big=True)
    if card.icon is not None:
        draw_badge(pen, card.icon, 60, 168, pal)
    return _finish(img, width, height)


def tower_height(width: int) -> int:
    return round(width * 1.3)


def _blocked_card(tower: Tower) -> Card:
    kind = next(k for k, t in BLOCKED_BY.items() if t is tower)
    return Card.of(kind) if kind.is_wild else Card.of(kind, TOWER_COLOR[tower])


def draw_tower(tower: Tower, *, held: bool, contrast: bool = False,
               width: int = TOWER_W) -> Image.Image:
    """A Power Tower: its letter on a tower, and under it a shield with what it blocks.

    A held tower is in its colour with a pennant on top; a tower in the tray is pale.
    """
    pal = palette(contrast)
    height = tower_height(width)
    img = Image.new("RGBA", (width * SS, height * SS), (0, 0, 0, 0))
    pen = Pen(img, width * SS / DESIGN_W)  # design box: 120 × 156 units
    color = pal.colors[TOWER_COLOR[tower]]
    fill = color if held else _mix(color, pal.paper, 0.72)
    if held:  # pennant
        pen.line([(60, 26), (60, 6)], pal.ink, pal.line * 1.4)
        pen.poly([(60, 6), (80, 11), (60, 17)], pal.paper, pal.ink, pal.line)
    draw_tower_shape(pen, 60, 104, 74, 80, fill, pal)
    letter_fill = pal.paper if held else pal.ink
    pen.text(60, 60, tower.value, 30, letter_fill, pal.ink if held else None, pal.line * 1.2)
    # the shield: what this tower blocks
    shield = [(22, 112), (98, 112), (98, 134), (60, 154), (22, 134)]
    pen.poly(shield, pal.paper, pal.ink, pal.line)
    blocked = _blocked_card(tower)
    sym_fill = pal.ink
    if blocked.kind is Kind.WILD_DRAW_FOUR:
        draw_quadrants(pen, 40, 127, 10, pal, markers=False)
        pen.text(73, 126, "+4", 16, sym_fill)
    elif blocked.kind is Kind.SKIP:
        draw_skip(pen, 60, 128, 14, sym_fill, pal)
    else:
        pen.text(60, 126, "+1" if blocked.kind is Kind.DRAW_ONE else "+2", 17, sym_fill)
    if not held:
        pen.poly(tower_outline(60, 104, 74, 80), None, pal.ink, pal.line)
    return _finish(img, width, height)


def draw_back(*, contrast: bool = False, width: int = CARD_W) -> Image.Image:
    """The card back: a dark field and the four colours' diamonds, each with its letter."""
    pal = palette(contrast)
    height = card_height(width)
    img, pen = _canvas(width, height)
    pen.rrect(0.5, 0.5, 119.5, 179.5, 11, pal.paper, pal.ink, pal.line)
    pen.rrect(6, 6, 114, 174, 8, pal.back)
    pen.rrect(12, 12, 108, 168, 6, None, pal.paper, pal.line * 0.8)
    spots = {Color.RED: (60, 58), Color.BLUE: (88, 90), Color.GREEN: (60, 122),
             Color.YELLOW: (32, 90)}
    for color, (x, y) in spots.items():
        pen.poly(shape_points("diamond", x, y, 22), pal.colors[color], pal.ink, pal.line)
        color_marker(pen, color, x, y, 8, pal)
    return _finish(img, width, height)


def _light(c: RGB) -> bool:
    """Light enough that dark ink reads better on it than white (yellow)."""
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] > 150


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t),
            round(a[2] + (b[2] - a[2]) * t))


DrawFn = Callable[[], Image.Image]
