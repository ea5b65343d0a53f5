"""The art cache: every image is drawn once per (what, contrast, size).

In memory it is an LRU of PIL images bounded by a number of entries (``bytes`` reports
what they hold). On disk, optionally, it keeps PNGs under ``<dir>/art-<ART_VERSION>/``:
a design change bumps ``ART_VERSION`` and the old files are simply never read again. A
directory that is missing and cannot be made, or cannot be written, only costs the disk
layer: the cache logs it once and carries on in memory.

Images handed out are shared: treat them as read-only (``.copy()`` one to change it).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Final

from PIL import Image

from engine.cards import Card, Tower

from . import _draw

log = logging.getLogger(__name__)

ART_VERSION: Final = "1"
"""Bump when the drawing changes: disk files of other versions are ignored."""
DEFAULT_MAX_ITEMS: Final = 512
"""Every card, tower and back of every edition, both looks, at two sizes, fits."""
DERIVED_BYTES: Final = 32 * 1024 * 1024
"""Pixel bytes of derived images kept (``ArtCache.derived``): a table's base in palette
indexes is 389 KB, a top card 22 KB; every card of both looks and some 60 bases fit."""

class PixelLRU:
    """A thread-safe LRU of pictures (each with a length: a text's advance) bounded by the
    pixels they hold (one byte each: masks and palette indexes).

    Table pictures run in threads, and their texts (seat names, card counts, the pile's count) are
    as many as the tables' players: 1,000 tables hold some 8,000 of them, which a cache
    bounded by a count of pieces (512) could not keep (every picture then drew its names
    again: 6 ms of a V2 table's move at 300 tables)."""

    def __init__(self, max_pixels: int) -> None:
        self.max_pixels = max_pixels
        self.pixels = 0
        self.hits = 0
        self.misses = 0
        self._items: OrderedDict[Hashable, tuple[Image.Image, float]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], tuple[Image.Image, float]]
            ) -> tuple[Image.Image, float]:
        """The picture kept for ``key``, or ``make()``'s, kept (made outside the lock)."""
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return found
            self.misses += 1
        made = make()
        with self._lock:
            if key not in self._items:
                self._items[key] = made
                self.pixels += made[0].width * made[0].height
                while self.pixels > self.max_pixels and len(self._items) > 1:
                    _k, (old, _l) = self._items.popitem(last=False)
                    self.pixels -= old.width * old.height
        return made

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.pixels = 0


Key = tuple[str, str, bool, int]
"""(kind of image, what, high contrast, width in pixels)."""


def _file_name(key: Key) -> str:
    kind, what, contrast, width = key
    safe = what.replace("+", "p").replace("!", "x")
    return f"{kind}-{safe}-{'hc' if contrast else 'n'}-{width}.png"


class ArtCache:
    """Draws each image once and keeps it in memory (LRU) and, optionally, on disk.

    ``draws`` counts images actually drawn, ``disk_hits`` images read back from disk: the
    tests prove the fast paths with them rather than with timings.
    """

    def __init__(self, cache_dir: str | os.PathLike[str] | None = None, *,
                 max_items: int = DEFAULT_MAX_ITEMS) -> None:
        if max_items < 1:
            raise ValueError("max_items must be at least 1")
        self.max_items = max_items
        self._mem: OrderedDict[Key, Image.Image] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._dir: Path | None = (Path(cache_dir) / f"art-{ART_VERSION}"
                                  if cache_dir is not None else None)
        self._disk_warned = False
        self.draws = 0
        self.disk_hits = 0
        self.disk_writes = 0
        self._derived: OrderedDict[Hashable, Image.Image] = OrderedDict()
        self.derived_bytes = 0
        """Pixel memory held by the derived images (at most ``DERIVED_BYTES``)."""

    # -- what callers use ----------------------------------------------------------------------

    def card(self, card: Card, *, contrast: bool = False,
             width: int = _draw.CARD_W) -> Image.Image:
        """``card``'s image (RGBA, ``width`` × 1.5 ``width``)."""
        return self._get(("card", card.code, contrast, width),
                         lambda: _draw.draw_card(card, contrast=contrast, width=width))

    def tower(self, tower: Tower, *, held: bool, contrast: bool = False,
              width: int = _draw.TOWER_W) -> Image.Image:
        """A Power Tower, held (in its colour, with a pennant) or in the tray (pale)."""
        what = f"{tower.value}{'-held' if held else '-tray'}"
        return self._get(("tower", what, contrast, width),
                         lambda: _draw.draw_tower(tower, held=held, contrast=contrast,
                                                  width=width))

    def back(self, *, contrast: bool = False, width: int = _draw.CARD_W) -> Image.Image:
        """The card back."""
        return self._get(("back", "back", contrast, width),
                         lambda: _draw.draw_back(contrast=contrast, width=width))

    def derived(self, key: Hashable, make: Callable[[], Image.Image]) -> Image.Image:
        """An image made from this cache's images (``make()``, known by ``key``: a table's
        pieces in a palette's indexes), made once and kept in memory, least recently used
        dropped past ``DERIVED_BYTES``."""
        with self._lock:
            img = self._derived.get(key)
            if img is not None:
                self._derived.move_to_end(key)
                return img
        img = make()
        with self._lock:
            old = self._derived.get(key)
            if old is not None:  # another thread made it meanwhile: keep one
                return old
            self._derived[key] = img
            self.derived_bytes += _size(img)
            while self.derived_bytes > DERIVED_BYTES and len(self._derived) > 1:
                _k, dropped = self._derived.popitem(last=False)
                self.derived_bytes -= _size(dropped)
        return img

    @property
    def bytes(self) -> int:
        """Pixel memory held by the in-memory cache."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._mem)

    @property
    def disk_dir(self) -> Path | None:
        """Where PNGs go (None: memory only, or the disk failed)."""
        return self._dir

    def clear(self) -> None:
        """Forget the in-memory images (the disk files stay)."""
        with self._lock:
            self._mem.clear()
            self._bytes = 0
            self._derived.clear()
            self.derived_bytes = 0

    # -- the machinery -------------------------------------------------------------------------

    def _get(self, key: Key, draw: Callable[[], Image.Image]) -> Image.Image:
        with self._lock:
            img = self._mem.get(key)
            if img is not None:
                self._mem.move_to_end(key)
                return img
        img = self._load(key)
        if img is None:
            img = draw()
            with self._lock:
                self.draws += 1
            self._store(key, img)
        with self._lock:
            old = self._mem.get(key)
            if old is not None:  # another thread drew it meanwhile: keep one
                return old
            self._mem[key] = img
            self._bytes += _size(img)
            while len(self._mem) > self.max_items:
                _k, dropped = self._mem.popitem(last=False)
                self._bytes -= _size(dropped)
        return img

    def _load(self, key: Key) -> Image.Image | None:
        if self._dir is None:
            return None
        path = self._dir / _file_name(key)
        try:
            with Image.open(path) as f:
                img: Image.Image = f.convert("RGBA") if f.mode != "RGBA" else f.copy()
        except FileNotFoundError:
            return None
        except (OSError, ValueError, SyntaxError):
            log.warning("Card art: unreadable cache file %s is drawn again.", path)
            return None
        if img.width != key[3]:
            return None
        with self._lock:
            self.disk_hits += 1
        return img

    def _store(self, key: Key, img: Image.Image) -> None:
        if self._dir is None:
            return
        path = self._dir / _file_name(key)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            self._dir.mkdir(parents=True, exist_ok=True)
            img.save(tmp, format="PNG", compress_level=6)
            os.replace(tmp, path)
        except OSError as exc:
            self._disk_failed(exc)
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            return
        with self._lock:
            self.disk_writes += 1

    def _disk_failed(self, exc: OSError) -> None:
        with self._lock:
            if not self._disk_warned:
                self._disk_warned = True
                log.warning("Card art: cannot use the disk cache %s (%s); keeping images in "
                            "memory only.", self._dir, exc)
            self._dir = None


def _size(img: Image.Image) -> int:
    return img.width * img.height * len(img.getbands())
