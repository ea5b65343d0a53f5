"""The public table as show/table.py builds it: the words of its picture."""

from __future__ import annotations

import pytest

from cogs.uno.show.table import table_words


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
