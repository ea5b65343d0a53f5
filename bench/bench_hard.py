"""The hard computer player against the normal one at two players, game by game, so two
versions of the code can be compared on the same games (paired).

    python bench/bench_hard.py --seeds 6001-6060 --out after.jsonl     # play, one line a game
    python bench/bench_hard.py --compare before.jsonl after.jsonl      # the figures

Run it from the repository root (it puts the root on ``sys.path`` itself). To measure
another version, unpack it elsewhere (``git archive main | tar -x -C /tmp/base``), copy this
file into its ``bench/`` and run it there: the code it imports is the tree it stands in.

Each seed S plays the two games of
``python -m engine.tools.simulate --players 2 --strategies hard,normal --rotate --games 2
--seed S`` (Power Grab, games to 500, hard in each seat once, the search's default budget),
one at a time (``simulate(..., first=g)``: the very games of that command). Each game is one
JSON line: its seed and number, the hard player's share of the win (1, 0, or 0.5 in a tie),
and the CPU and wall seconds of each of its searched decisions. ``--out`` is appended to line
by line, so a run stopped early keeps the games it finished.

``--compare A B`` reads two such files, keeps the games both have, and prints each one's
win rate with its 95 % Wilson interval, the paired difference B - A (game by game, with its
95 % interval) and how many games changed hands, and the think time per searched decision
(CPU ms: mean, p50, p95, max; wall ms: p50, p95).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def play(seeds: range, out: Path) -> None:
    from engine.tools.simulate import simulate

    with out.open("a", encoding="utf-8") as f:
        for seed in seeds:
            for g in (0, 1):
                start = time.perf_counter()
                summary = simulate(1, 2, "power-grab", seed, ["hard", "normal"],
                                   rotate=True, first=g)
                line = {"seed": seed, "game": g,
                        "hard": summary.wins_by_strategy.get("hard", 0.0),
                        "think": [round(t, 5) for t in summary.think],
                        "wall": [round(t, 5) for t in summary.waits],
                        "seconds": round(time.perf_counter() - start, 2)}
                f.write(json.dumps(line) + "\n")
                f.flush()
                print(seed, g, line["hard"], line["seconds"], flush=True)


def _read(path: Path) -> dict[tuple[int, int], dict[str, Any]]:
    games: dict[tuple[int, int], dict[str, Any]] = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        if text.strip():
            d = json.loads(text)
            games[(d["seed"], d["game"])] = d
    return games


def _wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, mid - half), min(1.0, mid + half)


def _at(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def compare(a_path: Path, b_path: Path) -> dict[str, Any]:
    a, b = _read(a_path), _read(b_path)
    keys = sorted(set(a) & set(b))
    n = len(keys)
    report: dict[str, Any] = {"games": n, "seeds": [keys[0][0], keys[-1][0]] if keys else []}
    for name, run in ((str(a_path), a), (str(b_path), b)):
        wins = sum(run[k]["hard"] for k in keys)
        think = sorted(t for k in keys for t in run[k]["think"])
        wall = sorted(t for k in keys for t in run[k]["wall"])
        lo, hi = _wilson(wins, n)
        report[name] = {
            "hard_wins": wins, "win_rate": round(wins / n, 3),
            "ci95": [round(lo, 3), round(hi, 3)],
            "decisions": len(think),
            "cpu_ms": {"mean": round(sum(think) / len(think) * 1000, 1),
                       "p50": round(_at(think, 0.5), 1), "p95": round(_at(think, 0.95), 1),
                       "max": round(think[-1] * 1000, 1)},
            "wall_ms": {"p50": round(_at(wall, 0.5), 1), "p95": round(_at(wall, 0.95), 1)},
        }
    diffs = [b[k]["hard"] - a[k]["hard"] for k in keys]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n)
    report["paired_difference"] = {
        "mean": round(mean, 3), "ci95": [round(mean - half, 3), round(mean + half, 3)],
        "games_changed": sum(1 for d in diffs if d),
        "hard_gained": sum(1 for d in diffs if d > 0),
        "hard_lost": sum(1 for d in diffs if d < 0)}
    return report


def _seeds(text: str) -> range:
    first, _, last = text.partition("-")
    return range(int(first), int(last or first) + 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=_seeds, help="FIRST-LAST: the seeds to play")
    ap.add_argument("--out", type=Path, help="the file the games are appended to")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args(argv)
    if args.compare:
        print(json.dumps(compare(*args.compare), indent=2))
        return 0
    if args.seeds is None or args.out is None:
        ap.error("--seeds and --out, or --compare")
    play(args.seeds, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
