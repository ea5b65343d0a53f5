"""The final standings of a game as one PNG: a title, then one row per player (or team),
winners first, each with its place, its name, a bar as long as its points and the points.

``StandingsScene`` holds names and totals only, never a card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from PIL import Image

from . import _draw
from ._draw import RGB, SS, Pen
from ._png import png_bytes


@dataclass(frozen=True, slots=True)
class StandingRow:
    """One line of the standings: a player, or a team (its members' names joined)."""

    place: int
    name: str
    points: int
    winner: bool = False
    cpu: bool = False


@dataclass(frozen=True, slots=True)
class StandingsWords:
    """The words the picture shows, in the game's language (the bot passes its
    translations). ``points`` takes ``{n}``; ``player`` (a name the font cannot show)
    takes ``{n}``."""

    title: str = "Final scores"
    winner: str = "WINNER"
    points: str = "{n} pts"
    cpu: str = "CPU"
    player: str = "Player {n}"


@dataclass(frozen=True, slots=True)
class StandingsScene:
    """What the standings picture shows: rows in order (winners first)."""

    rows: tuple[StandingRow, ...]
    subtitle: str = ""
    """A line under the title (the edition, the rounds played)."""
    contrast: bool = False
    words: StandingsWords = StandingsWords()


WIDTH: Final = 640
HEAD: Final = 92
ROW: Final = 54
GAP: Final = 8
MEDALS: Final[dict[int, RGB]] = {1: (232, 184, 36), 2: (192, 198, 204), 3: (205, 127, 50)}
_FELT: Final = {False: (26, 86, 62), True: (0, 0, 0)}
_ROW_BG: Final = {False: (18, 64, 46), True: (40, 40, 40)}
_WIN_BG: Final = {False: (64, 96, 40), True: (70, 60, 0)}
_TEXT: Final = (250, 250, 247)
_DIM: Final = {False: (196, 222, 208), True: (255, 255, 255)}
_BAR: Final = {False: (120, 180, 150), True: (255, 255, 255)}


def standings_height(view: StandingsScene) -> int:
    return HEAD + max(1, len(view.rows)) * (ROW + GAP) + 12


def _fit(s: str, px: int, max_px: float) -> str:
    """``s`` in the font's characters, shortened with an ellipsis to fit ``max_px``."""
    f = _draw.font(px)
    if f.getlength(s) <= max_px:
        return s
    while s and f.getlength(s + "…") > max_px:
        s = s[:-1]
    return s + "…"


def _left(pen: Pen, x: float, cy: float, s: str, height: float, fill: RGB,
          max_w: float) -> float:
    """Text from ``x`` centred on ``cy``, cut to ``max_w`` units; where it ends (units)."""
    px = round(pen.px(height) * 1.36)
    s = _fit(s, px, pen.px(max_w))
    f = _draw.font(px)
    _x0, y0, _x1, y1 = f.getbbox("H0")
    pen.d.text((pen.px(x), pen.px(cy) - y0 - (y1 - y0) / 2), s, font=f, fill=fill)
    return x + f.getlength(s) / pen.u


def _name(view: StandingsScene, i: int) -> str:
    name = _draw.printable(view.rows[i].name)
    if any(c.isalnum() for c in name):
        return name
    return _draw.printable(view.words.player.format(n=i + 1))


def standings_canvas(view: StandingsScene) -> Image.Image:
    """The standings drawn (RGBA, ``WIDTH`` wide)."""
    c = view.contrast
    pal = _draw.palette(c)
    height = standings_height(view)
    img = Image.new("RGBA", (WIDTH * SS, height * SS), (0, 0, 0, 0))
    pen = Pen(img, SS)
    pen.rrect(0, 0, WIDTH, height, 18, _FELT[c], outline=pal.ink if c else None,
              width=3 if c else 0)
    words = view.words
    pen.text(WIDTH / 2, 32, _draw.printable(words.title), 22, _TEXT, max_w=WIDTH - 40)
    if view.subtitle:
        pen.text(WIDTH / 2, 66, _draw.printable(view.subtitle), 12, _DIM[c], max_w=WIDTH - 40)
    top = max((abs(r.points) for r in view.rows), default=0) or 1
    for i, row in enumerate(view.rows):
        y = HEAD + i * (ROW + GAP)
        cy = y + ROW / 2
        pen.rrect(16, y, WIDTH - 16, y + ROW, 12, _WIN_BG[c] if row.winner else _ROW_BG[c])
        medal = MEDALS.get(row.place, _DIM[c] if c else (120, 150, 135))
        pen.circle(48, cy, 17, medal, outline=pal.ink, width=1.6)
        pen.text(48, cy, str(row.place), 15, pal.ink)
        _left(pen, 80, cy - (8 if row.winner or row.cpu else 0), _name(view, i), 17, _TEXT,
              300)
        tags = [t for t, on in ((words.winner, row.winner), (words.cpu, row.cpu)) if on]
        tx = 80.0
        for tag in tags:
            tag = _draw.printable(tag)
            w = _draw.font(round(pen.px(9) * 1.36)).getlength(tag) / pen.u + 14
            fill = MEDALS[1] if tag == _draw.printable(words.winner) else _DIM[c]
            pen.rrect(tx, cy + 5, tx + w, cy + 21, 8, fill)
            pen.text(tx + w / 2, cy + 13, tag, 9, pal.ink)
            tx += w + 6
        # the bar: as long as the points, against the most points scored
        bar_x0, bar_x1 = 400, WIDTH - 110
        length = (bar_x1 - bar_x0) * abs(row.points) / top
        pen.rrect(bar_x0, cy - 7, bar_x1, cy + 7, 7, _ROW_BG[c] if not row.winner
                  else _WIN_BG[c], outline=_DIM[c], width=1)
        if length >= 2:
            pen.rrect(bar_x0, cy - 7, bar_x0 + length, cy + 7, 7,
                      MEDALS[1] if row.winner else _BAR[c])
        pen.text(WIDTH - 62, cy, _draw.printable(words.points.format(n=row.points)), 14,
                 _TEXT, max_w=90)
    return img.resize((WIDTH, height), Image.Resampling.LANCZOS)


def standings_image(view: StandingsScene) -> bytes:
    """The final standings as one PNG (the same view always gives the same bytes)."""
    return png_bytes(standings_canvas(view))
