"""R-BOT-BUSY with a host clock that is off: a click's age is measured against the quickest
clicks of the last minutes, so a clock seconds ahead or behind Discord's neither makes every
click "late" nor hides a late one."""

from __future__ import annotations

from cogs.uno._reply import BUSY_AFTER, _Skew


def test_a_clock_five_seconds_ahead_is_measured_and_taken_off() -> None:
    skew = _Skew()
    now = 600.0
    for raw in (5.08, 5.03, 5.12):
        skew.note(raw, now)
    assert skew.offset() == 5.03
    late = skew.note(5.03 + 1.9, now + 1)
    assert (5.03 + 1.9) - late >= BUSY_AFTER, "a click 1.9 s late still reads late"
    assert 5.08 - skew.offset() < BUSY_AFTER, "a quick click reads quick"


def test_a_clock_behind_gives_a_negative_offset() -> None:
    skew = _Skew()
    skew.note(-2.96, 60.0)
    skew.note(-2.90, 61.0)
    assert skew.offset() == -2.96
    assert -2.90 - skew.offset() < 0.1


def test_old_minutes_are_forgotten() -> None:
    skew = _Skew()
    skew.note(0.02, 0.0)  # minute 0: the clock was right
    for minute in range(1, 12):
        skew.note(3.0, minute * 60.0)  # then it jumped 3 s ahead
    assert skew.offset() == 3.0, "after ten minutes only the new offset counts"
    assert len(skew.minima) == _Skew.MINUTES
