"""The simulator's figures for the levels (engine/simulate.py, issue 19): the Wilson
interval of a win share, hands paired by deal (``--hands``), the margin's interval."""

from __future__ import annotations

import pytest

from engine.simulate import paired_mean, simulate, wilson


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
