"""Scenario files (tests/engine/scenarios/*.json) replayed against their reviewed expected output
(NAME.expected.jsonl). The replay command: tests/engine/tools/test_replay_cli.py.

Regenerate the expected files deliberately with ``UPDATE_SCENARIOS=1 pytest
tests/engine/test_scenarios.py`` and review the diff by eye before committing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from engine.replay import replay

HERE = Path(__file__).parent / "scenarios"
SCENARIOS = sorted(HERE.glob("*.json"))


def test_there_are_enough_scenarios() -> None:
    """At least eight scenarios cover the headline rules."""
    assert len(SCENARIOS) >= 8


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_matches_expected(path: Path) -> None:
    """Each scenario replays to exactly its reviewed expected JSONL (see RULES.md ids in the
    scenario names: R-WD4-CHALLENGE, R-INSTANT-UNO, R-UNO-WINDOW, R-TWO-AGAIN, R-BLOCK,
    R-FIRST-GRAB2, R-FIRST-REVERSE, R-FIRST-W4, R-FIRST-WILD, R-LAST-DRAW, R-SCORE-ALT,
    R-RESHUFFLE, R-DEALER-DRAW)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    got = [json.dumps(line, ensure_ascii=False) for line in replay(data)]
    expected_path = path.with_suffix(".expected.jsonl")
    if os.environ.get("UPDATE_SCENARIOS"):
        expected_path.write_text("\n".join(got) + "\n", encoding="utf-8")
    expected = expected_path.read_text(encoding="utf-8").splitlines()
    assert got == expected


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.with_suffix(".expected.jsonl").read_text().splitlines()]


def test_scenario_wd4_challenge_outcomes() -> None:
    """R-WD4-CHALLENGE: the guilty bluff draws 4 for ann; the innocent one costs ben 6."""
    out = lines_of(HERE / "wd4_challenge.json")
    challenges = [e for e in out if e["event"] == "challenge"]
    assert [c["guilty"] for c in challenges] == [True, False]
    assert any(e["event"] == "rejected" and e["player"] == "cat" for e in out)


def test_scenario_instant_uno_catch() -> None:
    """R-INSTANT-UNO-CALL: after a keep without a call, cat catches ann."""
    out = lines_of(HERE / "instant_uno.json")
    kinds = [e["event"] for e in out]
    assert "instant_uno" in kinds and "caught" in kinds
    assert out[-1]["towers"] == {"U": None, "N": None, "O": None, "!": None}


def test_scenario_catch_window() -> None:
    """R-UNO-WINDOW: the forced draw left the window open for one more move only."""
    out = lines_of(HERE / "uno_catch_window.json")
    rejected = [e for e in out if e["event"] == "rejected"]
    assert [e["event"] for e in out[:6]] == ["played", "drew", "skipped", "turn", "caught",
                                             "drew"]
    assert rejected[0]["move"] == 4 and "Too late" in rejected[0]["reason"]


def test_scenario_dealer_tie() -> None:
    """R-DEALER-DRAW: seed 3 ties cat and dan twice; only they redraw until cat is highest."""
    out = lines_of(HERE / "dealer_tie.json")
    draws = [e["player"] for e in out if e["event"] == "dealer_draw"]
    assert draws == ["ann", "ben", "cat", "dan", "cat", "dan", "cat", "dan"]
    assert next(e for e in out if e["event"] == "dealer")["player"] == "cat"


def test_scenario_game_won() -> None:
    """R-LAST-DRAW, R-GAME-END: the Draw Two's cards are scored and the game is over."""
    out = lines_of(HERE / "last_card_scoring.json")
    won = next(e for e in out if e["event"] == "round_won")
    assert won["points"] == 7 + 50 + 50 + 3 + 20 + 5
    assert out[-1]["over"] is True and out[-1]["winners"] == ["ann"]


def test_scenario_victory_lap_kept_at_step_one() -> None:
    """R-VL-LAP, R-VL-ONLY, R-VL-COLOR (sheet 004, Victory Lap Card; RULINGS, Victory Lap
    edition): ann keeps cat's hand at step 1, every hand having moved one seat; moves by
    others and ann's own play during the lap are refused; the colour named with the play
    stands."""
    out = lines_of(HERE / "victory_lap_kept_first.json")
    assert [e["reason"] for e in out if e["event"] == "rejected"][:3] == [
        "ann must keep or pass a hand in the Victory Lap first.",
        "ann must keep or pass a hand in the Victory Lap first.",
        "Keep or pass the hand in front of you first.",
    ]
    assert {"event": "lap_kept", "player": "ann", "step": 1} in out
    assert out[-1]["hands"] == {"ann": ["G1", "G2"], "ben": ["R1", "R3"],
                                "cat": ["B1", "B2", "B3", "B4", "B5"]}


def test_scenario_victory_lap_full_circle() -> None:
    """R-VL-OWN-HAND, R-VL-COLOR (sheet 004, Victory Lap Card (note); RULINGS, Victory Lap
    edition: a pass that brings the own hand back ends the lap at once, and a replay file may
    not send a keep for it): ann's second pass brings her own hand back; without a colour it
    is refused (the play named none), with one it ends the lap; the keep sent after it is
    refused and ben plays on."""
    out = lines_of(HERE / "victory_lap_full_circle.json")
    passes = [(e["cards"], e["step"]) for e in out if e["event"] == "lap_passed"]
    assert passes == [(5, 1), (4, 2)]
    i = out.index({"event": "lap_kept", "player": "ann", "step": 3})
    assert out[i - 1] == {"event": "lap_passed", "player": "ann", "cards": 4, "step": 2}
    assert out[i + 1:i + 3] == [{"event": "color_chosen", "player": "ann", "color": "red"},
                                {"event": "turn", "player": "ben", "decision": "play"}]
    assert [e["move"] for e in out if e["event"] == "rejected"] == [2, 4]
    assert out[-1]["hands"]["ann"] == ["R1", "R2"] and out[-1]["pending"] is None


def test_scenario_victory_lap_one_card_uno() -> None:
    """R-VL-UNO (RULINGS, Victory Lap edition): the call made with the play does not count;
    ann keeps one card and is caught; cat, given one card, may call but can't be caught."""
    out = lines_of(HERE / "victory_lap_one_card_uno.json")
    assert next(e for e in out if e["event"] == "uno") == {"event": "uno", "player": "cat"}
    assert {"event": "caught", "player": "ann", "by": "dan"} in out
    assert out[4]["event"] == "rejected" and out[4]["player"] == "dan"


def test_scenario_victory_lap_last_card_and_first_card() -> None:
    """R-VL-LAST (RULINGS, Victory Lap edition): a Victory Lap as the last card ends the
    round with no lap, and a Victory Lap left in a hand scores 50 (sheet 004, Scoring).
    R-FIRST-WILD: a Victory Lap turned up first starts no lap; the first player names the
    colour (RULINGS, Deal and round)."""
    last = lines_of(HERE / "victory_lap_last_card.json")
    assert [e["event"] for e in last[:3]] == ["rejected", "played", "round_won"]
    assert last[2]["points"] == 50 + 2 + 1 + 20
    first = lines_of(HERE / "victory_lap_first_card.json")
    assert first[1] == {"event": "turn", "player": "ann", "decision": "color"}
    assert not any(e["event"].startswith("lap") for e in first)


def test_scenario_victory_lap_two_players_own_hand_back() -> None:
    """R-VL-OWN-HAND with two players (sheet 004, Two-Handed Play: the usual rules otherwise;
    RULINGS, Victory Lap edition): one pass brings ann's own hand back, which ends the lap:
    ben plays next."""
    out = lines_of(HERE / "victory_lap_two_players.json")
    assert out[-3:-1] == [{"event": "lap_kept", "player": "ann", "step": 2},
                          {"event": "turn", "player": "ben", "decision": "play"}]
    assert out[-1]["pending"] is None and out[-1]["turn"] == "ben"


def test_scenario_partner_alternative_scoring() -> None:
    """R-TEAM-ALT (RULINGS, Alternative scoring with partners; replay files for partner
    play): Cy goes out and her partner Ann's cards count for their team; the target is
    reached and the lowest team total wins; the final state carries ``team_scores``."""
    out = lines_of(HERE / "partner_alternative_scoring.json")
    won = next(e for e in out if e["event"] == "round_won")
    assert won["team"] == ["Ann", "Cy"] and won["gained"]["Cy"] == 14
    assert out[-1]["team_scores"] == [104, 103] and out[-1]["winners"] == ["Ben", "Dee"]
