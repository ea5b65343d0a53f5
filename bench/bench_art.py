"""Card art benchmark: drawing cards, composing hands and tables, the cache's memory.

    python bench/bench_art.py                 # a table of figures (~15 s)
    python bench/bench_art.py --repeats 50 --json

Run it from the repository root (it puts the root on ``sys.path`` itself).

Rows:

* ``card cold``: every distinct card of every edition (96) drawn into an empty memory-only
  cache, normal and high contrast; the median and the mean per card.
* ``card warm (memory)``: the same cards asked again (a dictionary lookup).
* ``card warm (disk)``: a new cache over the PNGs the first one wrote (as a restarted bot
  would): read and decoded per card.
* ``hand N``: ``hand_image`` of N cards (some playable) from a warm cache, PNG bytes out; the
  ``cold`` row starts from an empty cache (draws the cards first). PNGs are 256-colour
  (``png_bytes``' default); the ``exact`` rows keep every RGBA pixel.
* ``table``: ``table_image`` of a 4-seat Power Grab table (top card, colour, draw pile,
  four towers) and of a 10-seat classic table, warm cache, PNG bytes out.
* memory: the pixel bytes the in-memory cache holds for every card, tower and back in both
  looks at the sizes the hand and table use.

Each timed row is the median of ``--repeats`` runs (time.perf_counter); CPU ms beside it
(time.process_time) is steadier on a shared machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import PIL  # noqa: E402

from cogs.uno.art import (  # noqa: E402
    ArtCache,
    SeatScene,
    TableScene,
    all_cards,
    hand_image,
    table_image,
)
from engine.cards import Card, Color, Tower  # noqa: E402


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, float, int]:
    """Median wall ms, median CPU ms and the size of the result (if bytes) over runs."""
    walls, cpus = [], []
    size = 0
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        walls.append((time.perf_counter() - w0) * 1000)
        cpus.append((time.process_time() - c0) * 1000)
        if isinstance(out, bytes):
            size = len(out)
    return statistics.median(walls), statistics.median(cpus), size


def per_card(cache: ArtCache, cards: list[Card], contrast: bool) -> list[float]:
    out = []
    for card in cards:
        t = time.perf_counter()
        cache.card(card, contrast=contrast)
        out.append((time.perf_counter() - t) * 1000)
    return out


def tables() -> tuple[TableScene, TableScene]:
    pg = TableScene(
        top=Card.parse("W+4"), color=Color.GREEN, turn=1, direction=-1, has_towers=True,
        seats=(SeatScene("Alice", 7), SeatScene("Ben", 1, uno=True),
               SeatScene("Chloe", 12, cpu=True), SeatScene("Dan", 4)),
        towers=((Tower.U, 0), (Tower.N, None), (Tower.O, 2), (Tower.BANG, 0)),
        draw_count=54, title="UNO Power Grab: round 2",
    )
    classic = TableScene(
        top=Card.parse("B7"), turn=6, direction=1,
        seats=tuple(SeatScene(f"Player {i + 1}", 3 + i) for i in range(10)),
        draw_count=20, title="Classic UNO: round 1",
    )
    return pg, classic


def run(repeats: int) -> dict[str, Any]:
    cards = all_cards()
    rows: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for contrast in (False, True):
            look = "contrast" if contrast else "normal"
            cache = ArtCache()  # memory only: drawing, not writing
            cold = per_card(cache, cards, contrast)
            warm = per_card(cache, cards, contrast)
            rows[f"card cold ({look})"] = {"median_ms": statistics.median(cold),
                                           "mean_ms": statistics.mean(cold)}
            rows[f"card warm memory ({look})"] = {"median_ms": statistics.median(warm),
                                                  "mean_ms": statistics.mean(warm)}
        writer = ArtCache(tmp)
        for contrast in (False, True):
            per_card(writer, cards, contrast)
        disk = ArtCache(tmp)
        from_disk = per_card(disk, cards, False)
        assert disk.draws == 0 and disk.disk_hits == len(cards)
        rows["card warm disk (normal)"] = {"median_ms": statistics.median(from_disk),
                                           "mean_ms": statistics.mean(from_disk)}
        png_bytes = sum(p.stat().st_size for p in Path(tmp).rglob("*.png"))
    cache = ArtCache()
    hand7 = [Card.parse(c) for c in ("R1U", "R7", "B+2", "G6", "YR", "Y4!", "W+4")]
    play7 = {hand7[0], hand7[1], hand7[6]}
    hand25 = [cards[(i * 7) % len(cards)] for i in range(25)]
    play25 = set(hand25[::4])
    pg, classic = tables()

    def cold_hand() -> bytes:
        return hand_image(hand7, play7, cache=ArtCache())

    def cold_table() -> bytes:
        return table_image(pg, cache=ArtCache())

    jobs: dict[str, Callable[[], object]] = {
        "hand 7 cards (cold cache)": cold_hand,
        "hand 7 cards": lambda: hand_image(hand7, play7, cache=cache),
        "hand 7 cards, contrast": lambda: hand_image(hand7, play7, contrast=True, cache=cache),
        "hand 25 cards": lambda: hand_image(hand25, play25, cache=cache),
        "hand 7 cards, exact RGBA PNG": lambda: hand_image(hand7, play7, cache=cache,
                                                           exact=True),
        "hand 25 cards, exact RGBA PNG": lambda: hand_image(hand25, play25, cache=cache,
                                                            exact=True),
        "table 4 seats, towers (cold cache)": cold_table,
        "table 4 seats, towers": lambda: table_image(pg, cache=cache),
        "table 10 seats, classic": lambda: table_image(classic, cache=cache),
        "table 4 seats, towers, exact RGBA PNG": lambda: table_image(pg, cache=cache,
                                                                     exact=True),
    }
    for job in jobs.values():  # warm the shared cache and the fonts
        job()
    for name, job in jobs.items():
        wall, cpu, size = timed(job, max(3, repeats // 4) if "cold" in name else repeats)
        rows[name] = {"median_ms": wall, "cpu_ms": cpu, "png_bytes": size}
    full = ArtCache()
    for contrast in (False, True):
        for card in cards:
            full.card(card, contrast=contrast)
        for tower in Tower:
            for held in (True, False):
                full.tower(tower, held=held, contrast=contrast, width=66)
        full.back(contrast=contrast, width=96)
    return {
        "when": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(), "pillow": PIL.__version__,
        "machine": f"{platform.system()} {platform.machine()}",
        "repeats": repeats, "rows": rows,
        "memory": {"images": len(full), "bytes": full.bytes,
                   "cards_120px_both_looks_bytes": 2 * len(cards) * 120 * 180 * 4,
                   "disk_png_bytes_normal_and_contrast_120px": png_bytes},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Card art benchmark.")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--json", action="store_true", help="also print a JSON object")
    args = parser.parse_args(argv)
    result = run(args.repeats)
    print(f"{result['when']}, Python {result['python']}, Pillow {result['pillow']}, "
          f"{result['machine']}, median of {args.repeats} runs")
    print(f"{'measurement':<40} {'ms':>8} {'cpu ms':>8} {'PNG KB':>8}")
    for name, row in result["rows"].items():
        cpu = f"{row['cpu_ms']:8.2f}" if "cpu_ms" in row else f"{'':>8}"
        size = f"{row['png_bytes'] / 1024:8.1f}" if row.get("png_bytes") else f"{'':>8}"
        ms = row["median_ms"]
        print(f"{name:<40} {ms:8.3f} {cpu} {size}"
              + (f"   (mean {row['mean_ms']:.3f})" if "mean_ms" in row else ""))
    mem = result["memory"]
    print(f"cache memory: {mem['images']} images (every card, tower and back, both looks, "
          f"at the hand's and table's sizes) = {mem['bytes'] / 2**20:.1f} MiB; "
          f"every card at 120 px, both looks = "
          f"{mem['cards_120px_both_looks_bytes'] / 2**20:.1f} MiB; on disk "
          f"{mem['disk_png_bytes_normal_and_contrast_120px'] / 2**20:.2f} MiB of PNG")
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
