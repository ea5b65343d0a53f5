"""The replay command (engine/tools/replay.py, ``python -m engine.tools.replay``): it
prints a scenario's replay (tests/engine/scenarios/) one JSON line at a time, reads standard
input, and reports a malformed file in one line with exit status 2, a refused move as a
``rejected`` line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.replay import ReplayFormatError, replay
from engine.tools.replay import main

HERE = Path(__file__).resolve().parents[1] / "scenarios"
ROOT = Path(__file__).resolve().parents[3]


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine.tools.replay", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT)


def test_cli_prints_jsonl() -> None:
    """R-REPLAY-FORMAT: the replay CLI prints one JSON object per line, ending with the
    state."""
    path = HERE / "two_players.json"
    res = run_cli(str(path))
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines == path.with_suffix(".expected.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["event"] == "state"


def test_cli_reads_stdin() -> None:
    """R-REPLAY-FORMAT: ``-`` reads the scenario from standard input."""
    path = HERE / "reshuffle.json"
    res = run_cli("-", stdin=path.read_text())
    assert res.returncode == 0
    assert res.stdout.splitlines() == path.with_suffix(".expected.jsonl").read_text().splitlines()


BASE: dict[str, Any] = {
    "edition": "power-grab",
    "players": ["ann", "ben"],
    "setup": {"hands": {"ann": ["R1", "R2"], "ben": ["B1"]}, "discard": ["R7"]},
    "moves": [{"player": "ann", "play": "R1"}, {"player": "ben", "draw": True},
              {"player": "ann", "play": "R2"}, {"player": "ben", "draw": True}],
}


def with_(path: list[Any], value: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(BASE))
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps(with_(["colour"], "red")), "top level: unknown key 'colour'"),
        (json.dumps(with_(["moves", 3], {"player": "ben", "play": "R10"})),
         "moves[3]: 'R10' is not a card code"),
        (json.dumps(with_(["moves", 1], {"player": "ben", "jump": True})),
         "moves[1]: Unknown key 'jump'"),
        (json.dumps(with_(["setup", "hands", "zed"], ["R5"])),
         "setup.hands: 'zed' is not one of the players"),
        (json.dumps(with_(["setup", "turn"], "zed")), "setup.turn: 'zed' is not one of"),
        (json.dumps(with_(["moves", 2], {"player": "zed", "draw": True})),
         "moves[2].player: 'zed' is not one of the players"),
        (json.dumps(with_(["moves", 2], {"player": "ben", "catch": "zed"})),
         "moves[2].catch: 'zed' is not one of the players"),
        (json.dumps(with_(["moves", 0], {"player": "ann", "play": "R1", "draw": True})),
         "moves[0]: A move has one action"),
        (json.dumps(with_(["moves", 0], "R1")), "moves[0]: A move must be an object"),
        (json.dumps(with_(["moves", 0], {"player": "ann", "play": "R1", "towers": ["X"]})),
         "moves[0]: 'X' is not a tower"),
        (json.dumps(with_(["setup", "towers"], {"Q": "ann"})), "setup.towers: 'Q' is not a"),
        (json.dumps(with_(["setup", "direction"], 2)), "setup.direction: expected 1 or -1"),
        (json.dumps(with_(["seed"], "x")), "seed: expected a whole number"),
        (json.dumps({"players": ["a", "b"], "moves": []}), "top level: missing 'edition'"),
        (json.dumps(with_(["setup", "draw"], ["R5", "Q9"])), "setup.draw[1]:"),
        (json.dumps(with_(["setup", "discard"], ["W"])), "setup: W is not a card of"),
        (json.dumps(with_(["rules"], {"target": 50})), "rules: The target must be from 100"),
        (json.dumps(with_(["edition"], "uno-flip")), "edition: must be"),
        (json.dumps(with_(["players"], ["ann", "ann"])), "players: expected a list of distinct"),
        ("[]", "top level: expected a JSON object"),
    ],
)
def test_cli_malformed_exits_2_with_one_line(text: str, where: str, tmp_path: Path) -> None:
    """R-REPLAY-FORMAT: a malformed scenario exits 2 with one line naming where the problem
    is."""
    f = tmp_path / "bad.json"
    f.write_text(text)
    res = run_cli(str(f))
    assert res.returncode == 2
    assert res.stdout == ""
    err = res.stderr.strip()
    assert "\n" not in err
    assert err.startswith(f"{f}: ") and where in err, err


@pytest.mark.parametrize("draw", [["W+4"], ["W+4", "W+4", "W+4", "W+4"]])
def test_cli_setup_with_only_wild_draw_fours_to_turn_up_exits_2(draw: list[str],
                                                                tmp_path: Path) -> None:
    """R-FIRST-W4, R-REPLAY-FORMAT: a setup whose draw pile holds only Wild Draw Fours (each
    goes back and is reshuffled) can never open: exit 2 with one line, not an endless
    loop."""
    f = tmp_path / "w4.json"
    f.write_text(json.dumps({"edition": "power-grab", "players": ["ann", "ben"],
                             "setup": {"hands": {"ann": ["R1"], "ben": ["B1"]},
                                       "draw": draw},
                             "moves": []}))
    res = subprocess.run([sys.executable, "-m", "engine.tools.replay", str(f)], capture_output=True,
                         text=True, cwd=ROOT, timeout=60)
    assert res.returncode == 2 and res.stdout == ""
    err = res.stderr.strip()
    assert err == f"{f}: setup: The draw pile holds only Wild Draw Fours: no card can be " \
                  "turned up to start.", err


def test_cli_usage_and_missing_file(tmp_path: Path) -> None:
    """R-REPLAY-FORMAT: no argument or an unreadable file: exit 2 with one line."""
    assert main([]) == 2
    res = run_cli(str(tmp_path / "nope.json"))
    assert res.returncode == 2 and "cannot read the file" in res.stderr


def test_replay_refused_moves_are_reported_not_fatal() -> None:
    """R-REPLAY-FORMAT: a move the rules refuse is reported as a ``rejected`` line and play
    goes on."""
    data = with_(["moves", 0], {"player": "ben", "draw": True})
    out = list(replay(data))
    rej = [e for e in out if e["event"] == "rejected"]
    assert rej[0] == {"event": "rejected", "player": "ben", "reason": "It's ann's turn.",
                      "move": 0}
    with pytest.raises(ReplayFormatError):
        list(replay({"edition": "power-grab", "players": ["a", "b"]}))
