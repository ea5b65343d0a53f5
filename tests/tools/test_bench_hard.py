"""The hard-against-normal benchmark's comparison (bench/bench_hard.py ``--compare``): two
runs' games paired by seed and game, each run's win rate with its interval, the paired
difference and the think time. Playing the games is left to the benchmark (seconds each)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_hard", ROOT / "bench" / "bench_hard.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _write(path: Path, wins: list[float], think: float) -> None:
    path.write_text("".join(
        json.dumps({"seed": 1 + i // 2, "game": i % 2, "hard": w, "think": [think, think],
                    "wall": [think], "seconds": 1.0}) + "\n" for i, w in enumerate(wins)),
        encoding="utf-8")


def test_two_runs_are_compared_game_by_game(tmp_path: Path) -> None:
    before, after = tmp_path / "before.jsonl", tmp_path / "after.jsonl"
    _write(before, [1, 0, 1, 1, 0, 1], 0.02)
    _write(after, [1, 1, 1, 0, 0.5], 0.03)  # one game fewer: only the games both have
    report = bench.compare(before, after)
    assert report["games"] == 5 and report["seeds"] == [1, 3]
    assert report[str(before)]["hard_wins"] == 3 and report[str(after)]["hard_wins"] == 3.5
    low, high = report[str(after)]["ci95"]
    assert low < 0.7 < high
    assert report[str(after)]["cpu_ms"]["p50"] == 30.0
    assert report[str(before)]["decisions"] == 10
    diff = report["paired_difference"]
    assert diff["mean"] == 0.1 and diff["games_changed"] == 3
    assert (diff["hard_gained"], diff["hard_lost"]) == (2, 1)
