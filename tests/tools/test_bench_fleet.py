"""The fleet's capacity benchmark runs end to end (two bot processes on PostgreSQL beside
one on SQLite, a few tables, a few seconds), so it cannot rot: both processes serve moves,
and it reports each process's CPU, PostgreSQL's, and the REST requests per second."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support import postgres

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_two_processes_on_postgresql_beside_one_on_sqlite() -> None:
    _folder, why = postgres.find_binaries()
    if why:
        pytest.skip(why)
    out = subprocess.run(
        [sys.executable, "bench/bench_fleet.py", "--configs", "sqlite:1,pg:2", "--tables", "4",
         "--rate", "4", "--seconds", "5", "--think-min-ms", "50", "--think-max-ms", "100",
         "--json", "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=240, check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    compared = result["compared"]
    assert list(compared) == ["sqlite:1", "pg:2"], compared
    for name, row in compared.items():
        assert row["moves/s"] > 0 and row["REST requests/s"] > 0, (name, row)
        assert row["loopback problems"] == {}, (name, row)
        assert row["ratio to sqlite:1"]["moves/s"] > 0, row
    fleet = result["runs"]["pg:2"]
    assert fleet["bot processes"] == 2 and fleet["database"].startswith("PostgreSQL"), fleet
    # the guilds are spread over the shards: each process serves moves (its CPU grows
    # with them); PostgreSQL's CPU is reported (at this small load its backends' share can
    # read 0.0 %: the kernel counts CPU in 10 ms ticks, and a backend that ended during the
    # run takes its ticks with it)
    cpu = fleet["CPU % by process"]
    assert set(cpu) == {"bot shard 0", "bot shard 1", "postgres"}, cpu
    assert cpu["bot shard 0"] > 1 and cpu["bot shard 1"] > 1 and cpu["postgres"] >= 0, cpu
    assert fleet["guilds"] >= 2, fleet
    assert compared["sqlite:1"]["CPU ms/move by process"].keys() == {"bot"}
