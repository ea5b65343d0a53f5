"""The capacity benchmark runs end to end (a few tables, a few seconds), so it cannot rot:
it opens tables through the UI, its people move, and it reports what it promises."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_short_benchmark_run_reports_moves_and_no_errors() -> None:
    out = subprocess.run(
        [sys.executable, "bench/bench_tables.py", "--tables", "3", "--rate", "4",
         "--seconds", "4", "--restart", "--json", "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=180, check=True)
    result = json.loads(out.stdout)
    assert result["moves/s"] > 0 and result["counts"]["moves"] > 0, result
    assert result["ack p99 ms"] < 3000, result
    assert result["errors"]["loopback problems"] == {}, result["errors"]
    assert result["errors"]["never acknowledged"] == 0
    assert result["gc"]["collections"]["0"] >= 0 and "max pause ms" in result["gc"]
    assert "webhook" in result["bot requests per move"], result["bot requests per move"]
    restart = result["restart"]
    assert restart["tables answering"] == 3 and restart["tables not answering"] == 0
