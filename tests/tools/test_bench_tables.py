"""The capacity benchmark runs end to end (a few tables, a few seconds), so it cannot rot:
it opens tables through the UI, its people move, and it reports what it promises."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_bench(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "bench/bench_tables.py", *args, "--json", "--quiet"],
        cwd=ROOT, capture_output=True, text=True, timeout=180, check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


@pytest.mark.slow
def test_a_short_benchmark_run_reports_moves_and_no_errors() -> None:
    result = run_bench("--tables", "3", "--rate", "4", "--seconds", "4", "--restart",
                       "--clicks", "bot", "--scrape", "1")
    assert result["clicks"] == "bot" and result["table"] == "embed", result
    assert result["metrics scrapes"] >= 2 and result["metrics KB a scrape"] > 1, result
    assert result["moves/s"] > 0 and result["counts"]["moves"] > 0, result
    assert result["ack p99 ms"] < 3000, result
    assert result["errors"]["loopback problems"] == {}, result["errors"]
    assert result["errors"]["never acknowledged"] == 0
    assert result["gc"]["collections"]["0"] >= 0 and "max pause ms" in result["gc"]
    assert "webhook" in result["bot requests per move"], result["bot requests per move"]
    restart = result["restart"]
    assert restart["tables answering"] == 3 and restart["tables not answering"] == 0


@pytest.mark.slow
def test_people_clicking_as_people_do_open_their_hand_and_answer_what_a_card_asks() -> None:
    """The default clicks (--clicks human) on the default table (V2 with its picture):
    every turn opens the hand (My hand or a slash command) and then plays or draws (or
    answers a Wild Draw Four on the table), and every interaction is accounted for."""
    result = run_bench("--tables", "4", "--rate", "3", "--seconds", "8", "--slash", "0.3",
                       "--think-min-ms", "50", "--think-max-ms", "100")
    assert result["clicks"] == "human" and result["table"] == "v2", result
    moves = result["counts"]["moves"]
    assert moves > 0, result
    kinds = result["interactions by kind"]
    opened = kinds.get("My hand", 0) + kinds.get("/uno hand", 0) + kinds.get("/uno play", 0)
    assert opened + kinds.get("accept", 0) + kinds.get("challenge", 0) >= moves, kinds
    # the live hand's card buttons are played (not only Draw, the one button an older
    # bench knew on it)
    assert kinds.get("play", 0) > 0, kinds
    assert 1.5 <= result["interactions per move"] < 6, result
    # every interaction sent while measuring is classified as Discord would see it (a
    # click decided in the measurement's last instant may reach the loopback just after it
    # closed: at most one a table)
    answers = result["answers"]
    assert 0 <= sum(kinds.values()) - sum(answers.values()) <= 4, (answers, kinds)
    assert answers.get("acknowledged", 0) == sum(answers.values()), answers
    assert set(result["errors as people see them"]) == {
        "answered late (10062)", "never answered", "deferred, never followed up",
        "answered busy"}
    assert result["errors"]["loopback problems"] == {}, result["errors"]


@pytest.mark.slow
def test_a_warm_up_plays_first_and_only_what_follows_is_measured() -> None:
    """--warmup: the same load before measuring, left out of every figure; and --table
    embed chooses the embed table."""
    result = run_bench("--tables", "3", "--rate", "3", "--warmup", "4", "--seconds", "3",
                       "--table", "embed", "--clicks", "panel")
    assert result["table"] == "embed", result
    assert result["warm-up s"] == 4.0, result
    assert all(ms > 0 for ms in result["machine speed ms, before/after"]), result
    assert 2.5 <= result["seconds"] < 4.0, result  # the measured part only
    # moves made while warming up are not counted: at most the measured seconds' worth
    assert 0 < result["counts"]["moves"] <= 3 * 4, result["counts"]


@pytest.mark.slow
def test_people_playing_from_the_live_panel_open_it_once_and_follow_it() -> None:
    """--clicks panel (issue 17): each person opens My hand once (before measuring) and
    plays from that panel as the bot edits it: no My hand while measuring, about one
    interaction a move, the panel edits counted per move, and every table's panel showing
    the turn its table shows once the bot is done."""
    result = run_bench("--tables", "4", "--rate", "3", "--seconds", "8", "--clicks", "panel",
                       "--slash", "0", "--think-min-ms", "50", "--think-max-ms", "100")
    assert result["clicks"] == "panel" and result["table"] == "v2", result
    moves = result["counts"]["moves"]
    assert moves > 0, result
    kinds = result["interactions by kind"]
    assert kinds.get("play", 0) > 0, kinds
    assert not any(k.startswith("My hand") for k in kinds), kinds
    # a plain card is one click (a busy answer on a loaded machine adds one more)
    assert 1.0 <= result["interactions per move"] < 3.0, result
    # the next player's panel is edited by the bot (they never click to see their turn)
    assert 0.5 <= result["panel edits per move"] <= 3.0, result
    assert result["panels behind the table at the end"] == 0, result["errors"]
    assert result["answers"].get("acknowledged", 0) == sum(result["answers"].values())
    assert result["errors"]["loopback problems"] == {}, result["errors"]
    assert result["command"].startswith("python bench/bench_tables.py "), result["command"]
    assert "--clicks panel" in result["command"], result["command"]
