"""The engine benchmark's simulator rows run (bench/bench_engine.py; its rlcard rows need
requirements-bench.txt and are run by hand): a row that broke would only show when someone
next measured."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_bench() -> ModuleType:
    path = ROOT / "bench" / "bench_engine.py"
    spec = importlib.util.spec_from_file_location("bench_engine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_simulator_rows_play_whole_hands() -> None:
    bench = load_bench()
    for batch in (bench.fastsim_rounds("classic", 1, "random"),
                  bench.fastsim_rounds("power-grab", 1, "greedy"),
                  bench.fastsim_rounds("victory-lap", 1, "uniform"),
                  bench.fastsim_clones(1)):
        rounds, moves, aborted = batch(time.perf_counter() + 0.05)
        assert rounds >= 1 and aborted == 0
        assert 10 <= moves / rounds <= 2000  # whole hands: tens of moves, not one or none


@pytest.mark.slow
def test_rows_take_turns_and_report_each() -> None:
    """``measure_all`` times every row in turns and reports each one's figures."""
    bench = load_bench()
    plan = [("a", "fastsim classic", "rounds", bench.fastsim_rounds("classic", 2, "random"), 0.5),
            ("b", "fastsim clones", "rounds", bench.fastsim_clones(2), 0.5)]
    results = bench.measure_all(plan, 0.6, 2)
    assert list(results) == ["a", "b"]
    for r in results.values():
        assert r["units"] >= 2 and len(r["per_s_runs"]) == 2
        assert r["per_s"] > 0 and r["per_cpu_s"] > 0 and r["moves_per_unit"] > 10
