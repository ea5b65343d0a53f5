"""A picture composed directly in a palette's indexes (one byte a pixel), from pieces mapped
to the palette once: the same pixels as composing in RGBA and mapping the whole picture
to the palette afterwards (``png_bytes(..., palette=...)``), for a fraction of the work.

Mapping to a fixed palette without dithering is a function of each pixel's colour alone,
so a piece mapped on its own gives the indexes the whole picture would give there:

* an opaque piece (a seat row's background, the colour chip, a tag) is mapped once;
* a written text (a coverage mask, its letters in ``fg`` on a box of ``bg``) takes its
  indexes from a table of 256 entries per pair of colours: a coverage value gives one
  colour (Pillow's own blend of ``fg`` over ``bg``), and so one index;
* a card, a tower (with transparent rounded corners) is composited once over the felt
  it lands on, then mapped.

What the equivalence needs, and ``IndexedCanvas`` checks at every picture, raising
``NotIndexable`` otherwise (the caller then composes in RGBA as before): a composited
image lands on plain felt of the base and on nothing pasted before it, and no piece
reaches the base's transparent corners.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Final

from PIL import Image

from ._cache import ArtCache, PixelLRU
from ._png import CLEAR

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]
TextPiece = tuple[Image.Image, float, RGB, RGB]
"""A text's coverage mask, its length in pixels, its letters' and its box's colours."""


class NotIndexable(Exception):
    """This picture breaks one of the conditions above: compose it in RGBA."""


def indexes(img: Image.Image, palette: Image.Image) -> Image.Image:
    """``img``'s colours (its alpha ignored) as ``palette``'s indexes, an "L" image."""
    mapped = img.convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)
    return Image.frombytes("L", mapped.size, mapped.tobytes())


_LUTS: dict[tuple[int, RGB, RGB], tuple[Image.Image, list[int]]] = {}
_LUTS_LOCK: Final = threading.Lock()


def text_lut(palette: Image.Image, fg: RGB, bg: RGB) -> list[int]:
    """Coverage (0–255) to the palette's index of ``fg`` blended over ``bg`` (by
    Pillow's paste through a mask, as the RGBA picture writes its texts)."""
    key = (id(palette), fg, bg)
    found = _LUTS.get(key)
    if found is not None and found[0] is palette:
        return found[1]
    ramp = Image.new("RGBA", (256, 1), (*bg, 255))
    ramp.paste((*fg, 255), (0, 0, 256, 1), Image.frombytes("L", (256, 1), bytes(range(256))))
    lut = list(indexes(ramp, palette).tobytes())
    with _LUTS_LOCK:
        if len(_LUTS) > 256:  # a few pairs of colours per look: never in practice
            _LUTS.clear()
        _LUTS[key] = (palette, lut)
    return lut


Texts = PixelLRU
"""Written texts in palette indexes (with their lengths)."""


TEXT_PIXELS: Final = 32 * 1024 * 1024
"""Pixels (bytes) of written texts kept: a seat name is some 3.5 KB in each of its two
colourings (its row dark, or light on its turn), written large enough to read on a phone;
a table of four holds some 8 texts (names, counts), about 29 KB (300 tables of real games,
12 states each: 8.6 MiB), so 1,000 tables some 29 MiB."""
TEXTS: Final = Texts(TEXT_PIXELS)


def _meets(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class IndexedCanvas:
    """Pieces pasted, in the order given, on a copy of ``base`` (the base's indexes, its
    transparent corners already ``CLEAR``, after a first column of zeros: each row is a
    PNG scanline with its filter byte); ``rows()``: those scanlines (``_pngwrite``)."""

    def __init__(self, base: Image.Image, corners: list[Box], palette: Image.Image,
                 felt: RGB, plain: Callable[[Box], bool], art: ArtCache,
                 look: Hashable, draw_mask: Callable[[str, float], tuple[Image.Image, float]]
                 ) -> None:
        self.canvas = base.copy()
        self.corners = corners
        self.palette = palette
        self.felt = felt
        self.plain = plain
        """Whether the base is opaque felt over a box (read once per base and box)."""
        self.art = art
        self.look = look
        self.draw_mask = draw_mask
        """A text's coverage mask and its length (for a text not in ``TEXTS``): the table's
        mask cache, so a name's two colourings (its row dark, or lit on its turn) share one
        use of the font."""
        self.boxes: list[Box] = []
        """Where pieces went so far."""
        self.top = max((c[3] for c in corners if c[1] == 0), default=0)
        self.bottom = min((c[1] for c in corners if c[1] > 0), default=base.height)
        """Between these rows no corner is transparent."""

    def _place(self, piece: Image.Image, at: tuple[int, int], *,
               composited: bool = False) -> None:
        box = (at[0], at[1], at[0] + piece.width, at[1] + piece.height)
        if box[0] < 0:
            raise NotIndexable("a piece starts left of the picture")
        if not self.top <= box[1] <= box[3] <= self.bottom:
            for corner in self.corners:
                if _meets(box, corner):
                    raise NotIndexable("a piece reaches a transparent corner")
        if composited and (not self.plain(box) or any(_meets(box, b) for b in self.boxes)):
            raise NotIndexable("an image is composited over something other than felt")
        self.boxes.append(box)
        self.canvas.paste(piece, (at[0] + 1, at[1]))

    def text(self, s: str, height: float, fg: RGB, bg: RGB, x: float, cy: float,
             centre: float | None = None) -> float:
        """As ``_put`` in RGBA: the box in ``bg``, the letters in ``fg``."""
        def make() -> tuple[Image.Image, float]:
            mask, length = self.draw_mask(s, height)
            return mask.point(text_lut(self.palette, fg, bg)), length
        piece, length = TEXTS.get((s, height, fg, bg, self.look), make)
        if centre is not None:
            x += (centre - length) / 2
        self._place(piece, (round(x) - 1, round(cy) - piece.height // 2))
        return x + length

    def paste(self, make: Callable[..., Image.Image], args: tuple[Hashable, ...],
              at: tuple[int, int]) -> None:
        """An opaque piece, ``make(*args)``."""
        piece = self.art.derived(("indexed", self.look, make.__name__, args),
                                 lambda: indexes(make(*args), self.palette))
        self._place(piece, at)

    def over(self, key: Hashable, make: Callable[[], Image.Image], at: tuple[int, int]
             ) -> None:
        """An image with transparent parts (``make()``, known by ``key``) over the felt."""
        def flat() -> Image.Image:
            img = make()
            felt = Image.new("RGBA", img.size, (*self.felt, 255))
            felt.alpha_composite(img)
            return indexes(felt, self.palette)
        self._place(self.art.derived(("indexed-over", self.look, key), flat), at,
                    composited=True)

    def rows(self) -> bytes:
        """The picture's PNG scanlines (filter byte 0, the indexes)."""
        return self.canvas.tobytes()


def indexed_base(base: Image.Image, clear: Image.Image, palette: Image.Image
                 ) -> tuple[Image.Image, list[Box]]:
    """A base's indexes with its transparent pixels ``CLEAR``, after a column of zeros
    (the scanlines' filter bytes), and the boxes holding those pixels (one per corner)."""
    picture = indexes(base, palette)
    picture.paste(CLEAR, mask=clear)
    idx = Image.new("L", (picture.width + 1, picture.height), 0)
    idx.paste(picture, (1, 0))
    w, h = clear.size
    corners = []
    for x0, y0 in ((0, 0), (w // 2, 0), (0, h // 2), (w // 2, h // 2)):
        box = clear.crop((x0, y0, x0 + w // 2 + w % 2, y0 + h // 2 + h % 2)).getbbox()
        if box is not None:
            corners.append((box[0] + x0, box[1] + y0, box[2] + x0, box[3] + y0))
    return idx, corners
