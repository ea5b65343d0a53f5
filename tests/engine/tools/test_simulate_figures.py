"""The simulator's figures for the levels (engine/tools/simulate.py, issue 19): the Wilson
interval of a win share, hands paired by deal (``--hands``), the margin's interval."""

from __future__ import annotations

import json

import pytest

from engine.tools.simulate import main, paired_mean, simulate, simulate_jobs, wilson


def test_wilson_interval() -> None:
    lo, hi = wilson(5, 6)
    assert (round(lo, 3), round(hi, 3)) == (0.436, 0.97)
    lo, hi = wilson(0, 380)
    assert lo == 0.0 and hi == pytest.approx(0.01, abs=5e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_paired_mean_averages_each_deal_first() -> None:
    out = paired_mean([1.0, 3.0, 5.0, 7.0], 2)  # deals: 2 and 6
    assert out["mean"] == 4.0 and out["deals"] == 2
    assert out["ci95"] == [round(4 - 1.96 * (8 / 2) ** 0.5, 2), round(4 + 1.96 * (8 / 2) ** 0.5, 2)]


def test_hands_play_each_deal_in_every_seating() -> None:
    summary = simulate(6, 3, "classic", 5, ["normal", "random", "random"], rotate=True,
                       hands=True)
    assert summary.games == summary.rounds == 6  # one hand a game
    assert summary.deals == 3
    assert len(summary.margins["normal"]) == 6
    assert summary.to_dict()["margin_by_strategy"]["normal"]["deals"] == 2


@pytest.mark.parametrize("teams, hands", [(False, False), (True, False), (False, True)])
def test_games_split_across_processes_give_the_figures_of_one_run(teams: bool,
                                                                   hands: bool) -> None:
    """``--jobs``: three runs of consecutive games, in three processes, add up to the one
    run's figures, game for game (lists in the games' order, so paired by deal alike)."""
    strategies = ["normal", "easy"] if teams else ["normal", "easy", "random", "random"]
    args = (7, 4, "power-grab", 13, strategies)
    one = simulate(*args, teams=teams, rotate=not teams, hands=hands)
    split = simulate_jobs(3, *args, teams=teams, rotate=not teams, hands=hands)
    assert split.margins == one.margins and split.wins_by_seat == one.wins_by_seat
    assert split.to_dict() == one.to_dict()
    assert split.games == 7


def test_the_command_splits_the_games_and_refuses_no_jobs(
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--games", "5", "--players", "3", "--strategies", "normal,easy,random",
            "--rotate", "--seed", "4", "--json"]
    assert main(argv) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*argv, "--jobs", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == one
    assert main([*argv, "--jobs", "0"]) == 2
    assert capsys.readouterr().err.strip() == "--jobs must be at least 1."
