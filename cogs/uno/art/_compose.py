"""A hand and a table as one PNG each, composed from cached cards and towers.

``TableView`` is what the public table shows and nothing more: it has no field that can
hold a hand's cards (only the top card, and counts).
"""

from __future__ import annotations

import io
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from PIL import Image

from engine.cards import Card, Color, Tower
from engine.editions import EDITIONS

from . import _draw
from ._cache import ArtCache
from ._draw import SS, Palette, Pen, palette

HAND_PER_ROW: Final = 10
"""Cards per row of a hand image; more wrap onto further rows."""
HAND_GAP: Final = 14
HAND_PAD: Final = 12
HAND_RAISE: Final = 18
"""How far a playable card is raised (pixels)."""
PNG_LEVEL: Final = 3
"""zlib level for the PNGs sent: a little larger than the default, much faster."""


def png_bytes(img: Image.Image, *, exact: bool = False) -> bytes:
    """``img`` as PNG bytes (no metadata: the same image always gives the same bytes).

    By default the image is reduced to 256 colours (fast octree, no dithering): flat card
    art loses nothing visible, and the PNG is about 4 times smaller and twice as fast to
    make. ``exact`` keeps every RGBA pixel.
    """
    if not exact:
        img = img.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=PNG_LEVEL)
    return buf.getvalue()


# -- the hand ----------------------------------------------------------------------------------

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
    (marked by position and shape, not by colour); the others stay down.
    """
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
        canvas.alpha_composite(art.card(card, contrast=contrast, width=width), (x, y))
    return png_bytes(canvas, exact=exact)


# -- the table ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat as the table shows it: a name and counts, never cards."""

    name: str
    cards: int
    uno: bool = False
    """Has called UNO."""
    cpu: bool = False
    """A computer player."""


@dataclass(frozen=True, slots=True)
class TableView:
    """What the public table shows (no hand: the top card, counts, towers, turn).

    ``turn`` and the towers' holders are indexes into ``seats``; ``direction`` is +1 when
    play goes down the list of seats, −1 when it goes up.
    """

    top: Card | None
    seats: tuple[SeatView, ...]
    turn: int | None = None
    direction: int = 1
    color: Color | None = None
    """The colour in play (the one named, when the top card is a wild)."""
    has_towers: bool = False
    towers: tuple[tuple[Tower, int | None], ...] = ()
    """Each tower and the seat that holds it (None: in the tray)."""
    draw_count: int = 0
    title: str = ""
    contrast: bool = False

    def __post_init__(self) -> None:
        if self.turn is not None and not 0 <= self.turn < len(self.seats):
            raise ValueError("turn must be the index of a seat")
        if self.direction not in (1, -1):
            raise ValueError("direction must be 1 or -1")
        for _t, holder in self.towers:
            if holder is not None and not 0 <= holder < len(self.seats):
                raise ValueError("a tower's holder must be the index of a seat")

    @classmethod
    def from_public_view(cls, view: Mapping[str, Any], *, title: str = "",
                         cpu: Collection[str] = (), contrast: bool = False) -> TableView:
        """From ``Game.public_view()`` (which holds no hand either)."""
        players = list(view["players"])
        index = {p["id"]: i for i, p in enumerate(players)}
        seats = tuple(SeatView(name=str(p["name"]), cards=int(p["cards"]),
                               uno=bool(p["uno"]) and int(p["cards"]) == 1,
                               cpu=p["id"] in cpu) for p in players)
        edition = EDITIONS.get(str(view.get("edition")))
        has_towers = edition.towers if edition is not None else bool(view.get("towers"))
        towers = tuple((Tower(code), index.get(holder) if holder is not None else None)
                       for code, holder in dict(view.get("towers") or {}).items()
                       ) if has_towers else ()
        top = Card.parse(view["top"]) if view.get("top") else None
        color = Color.parse(view["color"]) if view.get("color") else None
        return cls(top=top, seats=seats, turn=index.get(view.get("turn")),
                   direction=1 if int(view.get("direction", 1)) >= 0 else -1, color=color,
                   has_towers=has_towers, towers=towers,
                   draw_count=int(view.get("draw_count", 0)), title=title, contrast=contrast)


TABLE_W: Final = 880
TOP_W: Final = _draw.CARD_W
"""The top card: the size the hand uses, so both share the cached cards."""
PILE_W: Final = 96
TOWER_SMALL: Final = 66
ROW_H: Final = 38
SEATS_X: Final = 330


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
_COLOR_NAMES: Final = {Color.RED: "red", Color.BLUE: "blue", Color.GREEN: "green",
                       Color.YELLOW: "yellow"}


def _fit(pen: Pen, s: str, px_height: float, max_w: float) -> str:
    """``s`` in the font's characters, shortened with an ellipsis to fit ``max_w`` units."""
    s = _draw.printable(s)
    f = _draw.font(round(pen.px(px_height) * 1.36))
    if f.getlength(s) <= pen.px(max_w):
        return s
    while s and f.getlength(s + "…") > pen.px(max_w):
        s = s[:-1]
    return s + "…"


def _seat_name(view: TableView, i: int) -> str:
    """A seat's name as the font can show it ("Player 3" when nothing of it can be)."""
    name = _draw.printable(view.seats[i].name)
    return name if any(c.isalnum() for c in name) else f"Player {i + 1}"


def _left_text(pen: Pen, x: float, cy: float, s: str, height: float,
               fill: tuple[int, int, int]) -> float:
    """Text starting at ``x``, centred on ``cy``; returns where it ends (units)."""
    f = _draw.font(round(pen.px(height) * 1.36))
    _x0, y0, _x1, y1 = f.getbbox("H0")
    pen.d.text((pen.px(x), pen.px(cy) - y0 - (y1 - y0) / 2), s, font=f, fill=fill)
    return x + f.getlength(s) / pen.u


def _seats_height(view: TableView) -> int:
    return 56 + max(1, len(view.seats)) * (ROW_H + 6)


def _left_height(view: TableView) -> int:
    h = 56 + _draw.card_height(TOP_W) + 54
    if view.has_towers:
        h += 26 + _draw.tower_height(TOWER_SMALL) + 26
    return h


def table_image(view: TableView, *, cache: ArtCache | None = None,
                exact: bool = False) -> bytes:
    """The table as one PNG: top card and colour, draw pile, towers and their holders,
    seats with card counts, whose turn it is and the direction of play."""
    return png_bytes(table_canvas(view, cache=cache), exact=exact)


def table_canvas(view: TableView, *, cache: ArtCache | None = None) -> Image.Image:
    art = cache if cache is not None else default_cache()
    pal = palette(view.contrast)
    look = _LOOKS[view.contrast]
    height = max(_seats_height(view), _left_height(view)) + 14
    chrome = Image.new("RGBA", (TABLE_W * 2, height * 2), (0, 0, 0, 0))
    pen = Pen(chrome, 2)
    pen.rrect(0.5, 0.5, TABLE_W - 0.5, height - 0.5, 18, look.felt, pal.ink, 1.5)
    if view.title:
        _left_text(pen, 20, 24, _fit(pen, view.title, 13, TABLE_W - 40), 13, look.text)
    # the top card and the colour in play
    _left_text(pen, 20, 50, "Top card", 10, look.dim)
    top_y = 62
    chip_y = top_y + _draw.card_height(TOP_W) + 10
    if view.color is not None:
        _color_chip(pen, view.color, 20, chip_y, TOP_W, 32, pal)
    # the draw pile
    pile_x = 20 + TOP_W + 24
    _left_text(pen, pile_x, 50, "Draw pile", 10, look.dim)
    pile_h = _draw.card_height(PILE_W)
    _left_text(pen, pile_x, top_y + pile_h + 16, _count(view.draw_count), 11, look.text)
    # the direction
    _direction(pen, pile_x, top_y + pile_h + 40, view.direction, look, pal)
    # the towers
    tower_y = chip_y + 44
    if view.has_towers:
        _left_text(pen, 20, tower_y + 8, "Towers", 10, look.dim)
        holders = dict(view.towers)
        for i, tower in enumerate(Tower):
            x = 20 + i * (TOWER_SMALL + 12)
            holder = holders.get(tower)
            label = _seat_name(view, holder) if holder is not None else "tray"
            y = tower_y + 22 + _draw.tower_height(TOWER_SMALL) + 10
            label = _fit(pen, label, 9, TOWER_SMALL + 10)
            f = _draw.font(round(pen.px(9) * 1.36))
            w = f.getlength(label) / pen.u
            _left_text(pen, x + (TOWER_SMALL - w) / 2, y, label,
                       9, look.text if holder is not None else look.dim)
    # the seats
    _left_text(pen, SEATS_X, 50, "Players", 10, look.dim)
    rows_top = 62
    for i, seat in enumerate(view.seats):
        _seat_row(pen, seat, i, rows_top + i * (ROW_H + 6), view, look, pal)
    if len(view.seats) > 1:
        _direction_rail(pen, SEATS_X - 22, rows_top,
                        rows_top + len(view.seats) * (ROW_H + 6) - 6, view.direction, pal)
    canvas = chrome.reduce(2)
    if view.top is not None:
        canvas.alpha_composite(art.card(view.top, contrast=view.contrast, width=TOP_W),
                               (20, top_y))
    canvas.alpha_composite(art.back(contrast=view.contrast, width=PILE_W), (pile_x, top_y))
    if view.has_towers:
        holders = dict(view.towers)
        for i, tower in enumerate(Tower):
            img = art.tower(tower, held=holders.get(tower) is not None,
                            contrast=view.contrast, width=TOWER_SMALL)
            canvas.alpha_composite(img, (20 + i * (TOWER_SMALL + 12), tower_y + 20))
    return canvas


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _color_chip(pen: Pen, color: Color, x: float, y: float, w: float, h: float,
                pal: Palette) -> None:
    pen.rrect(x, y, x + w, y + h, 8, pal.colors[color], pal.ink, pal.line * 0.7)
    _draw.color_marker(pen, color, x + h / 2 + 2, y + h / 2, h * 0.34, pal)
    label = f"colour: {_COLOR_NAMES[color]}"
    text = pal.ink if color is Color.YELLOW else pal.paper
    _left_text(pen, x + h + 6, y + h / 2, label, 11, text)


def _direction(pen: Pen, x: float, y: float, direction: int, look: _Look,
               pal: Palette) -> None:
    """A circular arrow and a sentence: which way play goes down the list of seats."""
    _left_text(pen, x, y, "Direction", 10, look.dim)
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
    words = "down the list" if direction > 0 else "up the list"
    _left_text(pen, x + 38, cy - 7, "play goes", 10, look.text)
    _left_text(pen, x + 38, cy + 7, words, 10, look.text)
    del pal


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


def _seat_row(pen: Pen, seat: SeatView, i: int, y: float, view: TableView, look: _Look,
              pal: Palette) -> None:
    x0, x1 = SEATS_X, TABLE_W - 20
    turn = view.turn == i
    if turn:
        pen.rrect(x0, y, x1, y + ROW_H, 9, pal.paper, pal.ink, 2.5)
        pen.poly([(x0 + 8, y + 9), (x0 + 22, y + ROW_H / 2), (x0 + 8, y + ROW_H - 9)], pal.ink)
        fg = pal.ink
    else:
        pen.rrect(x0, y, x1, y + ROW_H, 9, look.row)
        fg = look.text
    cy = y + ROW_H / 2
    name = _fit(pen, _seat_name(view, i), 12, 150 if seat.cpu else 200)
    end = _left_text(pen, x0 + 30, cy, name, 12, fg)
    if seat.cpu:
        _tag(pen, end + 8, cy, "CPU", fg, pal, filled=False)
    # the card count: a small card and the number
    cx = x0 + 270
    pen.rrect(cx, cy - 11, cx + 15, cy + 11, 3, pal.back if not turn else pal.ink,
              pal.paper if not turn else pal.ink, 1.2)
    _left_text(pen, cx + 21, cy, f"x {seat.cards}", 12, fg)
    # towers held
    tx = cx + 70
    held = [t for t, h in view.towers if h == i] if view.has_towers else []
    for t in held:
        col = pal.colors[_draw.TOWER_COLOR[t]]
        pen.poly(_draw.tower_outline(tx + 11, cy + 12, 22, 24), col, pal.ink, 1.2)
        pen.text(tx + 11, cy + 2, t.value, 10, pal.paper, pal.ink, 1.6)
        tx += 27
    if seat.uno:
        _tag(pen, x1 - 58, cy, "UNO!", fg, pal, filled=True)


def _tag(pen: Pen, x: float, cy: float, s: str, fg: tuple[int, int, int], pal: Palette, *,
         filled: bool) -> None:
    f = _draw.font(round(pen.px(10) * 1.36))
    w = f.getlength(s) / pen.u + 12
    if filled:
        pen.rrect(x, cy - 10, x + w, cy + 10, 5, pal.colors[Color.YELLOW], pal.ink, 1.2)
        _left_text(pen, x + 6, cy, s, 10, pal.ink)
    else:
        pen.rrect(x, cy - 10, x + w, cy + 10, 5, None, fg, 1.2)
        _left_text(pen, x + 6, cy, s, 10, fg)


# -- the shared cache --------------------------------------------------------------------------

_DEFAULT: list[ArtCache] = []


def default_cache() -> ArtCache:
    """The process's cache (memory only until ``configure`` gives it a directory)."""
    if not _DEFAULT:
        _DEFAULT.append(ArtCache())
    return _DEFAULT[0]


def configure(cache_dir: str | None = None, *, max_items: int | None = None) -> ArtCache:
    """Replace the process's cache (for example with one that also keeps PNGs on disk)."""
    kwargs: dict[str, Any] = {}
    if max_items is not None:
        kwargs["max_items"] = max_items
    cache = ArtCache(cache_dir, **kwargs)
    _DEFAULT[:] = [cache]
    return cache
