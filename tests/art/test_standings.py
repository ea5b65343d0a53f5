"""The standings picture of a finished game: deterministic, as tall as its rows, holding
names and totals only (never a card), its words in the game's language."""

from __future__ import annotations

import dataclasses
import io
import typing

from PIL import Image

from cogs.uno.art import StandingRow, StandingsScene, StandingsWords, standings_image
from engine.cards import Card

ROWS = (StandingRow(1, "Alice", 520, winner=True), StandingRow(2, "Bob", 310),
        StandingRow(3, "CPU 1", 120, cpu=True), StandingRow(4, "Дмитрий", 0))


def test_the_standings_are_one_png_the_same_every_time() -> None:
    view = StandingsScene(rows=ROWS, subtitle="UNO Power Grab - target 500")
    png = standings_image(view)
    assert png.startswith(b"\x89PNG") and png == standings_image(view)
    four = Image.open(io.BytesIO(png))
    two = Image.open(io.BytesIO(standings_image(dataclasses.replace(view, rows=ROWS[:2]))))
    assert four.width == two.width and four.height > two.height, "a row per player"


def test_its_words_are_the_games() -> None:
    english = StandingsScene(rows=ROWS[:2])
    french = dataclasses.replace(english, words=StandingsWords(
        title="Scores finaux", winner="GAGNANT", points="{n} pts"))
    assert standings_image(english) != standings_image(french)


def test_a_standings_view_holds_no_card() -> None:
    for cls in (StandingsScene, StandingRow, StandingsWords):
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            assert Card not in typing.get_args(hints[f.name]) and hints[f.name] is not Card
