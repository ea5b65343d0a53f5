"""Each click runs one component family: discord.py runs every registered family whose
template matches the click's custom_id, so the catch-all for retired ids must take none of
the real families' ids."""

from __future__ import annotations

import pytest

from cogs.uno._components import (
    ColorButton,
    DrawnButton,
    KeepSelect,
    LapButton,
    LobbyButton,
    OpeningColorButton,
    PageButton,
    PlaySelect,
    TableButton,
    TowerSelect,
    UnoItem,
)
from cogs.uno._end_items import AgainButton, EndButton
from cogs.uno._families import REGISTERED, RetiredComponent
from cogs.uno._leaderboard import LeaderboardPage
from cogs.uno._panel_items import CardButton, KeepButton, TowerButton
from cogs.uno._rules import RulesPage


def takers(custom_id: str) -> list[type[UnoItem]]:
    """The families discord.py runs for ``custom_id``: each whose template matches it (the
    template each gave discord.py)."""
    return [f for f in REGISTERED if f.pattern.fullmatch(custom_id)]


@pytest.mark.parametrize("item", [
    LobbyButton("join", "a1b2"), TableButton("hand", "a1b2", 7), TableButton("draw", "a1b2", None),
    PlaySelect("a1b2", 7, 0), PageButton("a1b2", 7, 1), DrawnButton("dpu", "a1b2", 7),
    ColorButton("a1b2", 7, "W+4", True, "R", "UN"), TowerSelect("a1b2", 7, "R+2", False, "-"),
    KeepSelect("a1b2", 7), OpeningColorButton("a1b2", 7, "G"), LapButton("a1b2", 7, "keep", "B"),
    CardButton("a1b2", 7, "R7"), CardButton("a1b2", 7, "W+4", True),
    TowerButton("a1b2", 7, "RG", False, "-", "U!"), KeepButton("a1b2", 7, "G5", True),
    AgainButton("a1b2"), EndButton("yes", "a1b2", 1_790_000_000_123),
    EndButton("no", "a1b2", 1_790_000_000_123), RulesPage(2), LeaderboardPage("wins", 3),
], ids=lambda item: type(item).__name__)
def test_a_real_id_runs_its_family_only(item: UnoItem) -> None:
    custom_id = item.item.custom_id  # type: ignore[attr-defined]
    assert takers(custom_id) == [type(item)], custom_id
    assert item.template == type(item).pattern, "the template discord.py was given"


@pytest.mark.parametrize("custom_id", [
    "uno:old:family", "uno:t:hand:not-hex", "uno:t:fold:a1b2:3", "uno:p:a1b2:x:0", "uno:",
    "uno:pc:a1b2:7:R7:x", "uno:tb:a1b2:7:RG:0:-:", "uno:kb:a1b2:7:Z9",
    "uno:lb:best:1", "uno:rules:x", "uno:again:", "uno:end:maybe:a1b2:1", "uno:end:yes:a1b2:",
])
def test_any_other_uno_id_is_answered_as_retired(custom_id: str) -> None:
    assert takers(custom_id) == [RetiredComponent], custom_id


def test_an_id_of_discords_longest_is_answered_too() -> None:
    """A custom_id may be 100 characters long: a forged or garbled ``uno:`` id of that
    length is answered as retired (the catch-all stopped at 99: "This interaction
    failed", issue 29)."""
    for length in (99, 100):
        custom_id = "uno:" + "x" * (length - 4)
        assert len(custom_id) == length
        assert takers(custom_id) == [RetiredComponent], length
    assert takers("uno:" + "x" * 97) == [], "longer than Discord allows: not ours to answer"


async def test_the_end_question_and_play_again_keep_what_their_ids_say() -> None:
    """A restart loses nothing: the game and the question's expiry are in the ids."""
    end = EndButton("yes", "a1b2", 1_790_000_000_123, "Confirm")
    match = end.template.fullmatch(end.item.custom_id)  # type: ignore[attr-defined]
    assert match is not None
    again = await EndButton.from_custom_id(None, end.item, match)  # type: ignore[arg-type]
    assert (again.action, again.gid, again.until) == ("yes", "a1b2", 1_790_000_000_123)
    play = AgainButton("a1b2", "Play again")
    assert play.item.custom_id == "uno:again:a1b2"  # type: ignore[attr-defined]
