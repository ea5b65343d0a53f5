"""The public table as show/table.py builds it: the words of its picture, its buttons."""

from __future__ import annotations

import discord
import pytest

from cogs.uno.show.table import TableModel, table_buttons, table_words
from cogs.uno.table.contracts import Actor
from cogs.uno.table.session import Session
from engine import Card, Color, Decision, Play
from support.games import scenario_session
from support.service import ALICE, BOB, GUILD


@pytest.mark.parametrize(("language", "counts"), [
    ("en", {0: "0 cards", 1: "1 card", 2: "2 cards", 57: "57 cards"}),
    ("fr", {0: "0 carte", 1: "1 carte", 2: "2 cartes", 57: "57 cartes"}),
])
def test_the_pictures_counts_say_how_many_cards(language: str,
                                                counts: dict[int, str]) -> None:
    """The draw pile and each seat's hand say their own count (the draw pile said "2
    cards", "2 cartes", whatever it held: issue 29)."""
    table_words.cache_clear()
    words = table_words(language)
    assert {n: words.count(n) for n in counts} == counts


def challenged(answering: Actor | str) -> Session:
    """Alice has just played a Wild Draw Four on ``answering`` (a person or a computer
    player), who must accept it or challenge it."""
    session = scenario_session(1, [ALICE, answering], guild_id=GUILD,
                               hands={ALICE: "W+4 R3", answering: "B1 B2 G5"},
                               discard="R9", draw="Y1 Y2 Y3 Y4 Y5 Y6", turn=ALICE)
    game = session.game
    assert game is not None
    game.apply(Play("111", Card.parse("W+4"), color=Color.BLUE))
    assert game.pending is Decision.CHALLENGE
    return session


def labels(model: TableModel) -> list[str]:
    return [str(item.item.label) for row in table_buttons(model) for item in row
            if isinstance(item, discord.ui.DynamicItem)
            and isinstance(item.item, discord.ui.Button)]


def test_accept_and_challenge_only_when_a_person_answers() -> None:
    """The public table offers Accept +4 and Challenge while a person must answer the
    Wild Draw Four, not while a computer player does (issue 29: everyone saw them)."""
    person = TableModel.of(challenged(BOB))
    assert person is not None and person.challenge
    assert labels(person) == ["My hand", "Draw", "UNO!", "Catch", "Accept +4", "Challenge"]
    cpu = TableModel.of(challenged("cpu1"))
    assert cpu is not None and not cpu.challenge
    assert labels(cpu) == ["My hand", "Draw", "UNO!", "Catch"]
