"""Card codes, decks, Power Icons, players and settings (RULES.md sections 1-3 and 15)."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    CLASSIC,
    EDITIONS,
    POWER_GRAB,
    Card,
    Color,
    Game,
    IllegalMoveError,
    Kind,
    ParseError,
    Settings,
    SettingsError,
    Tower,
)
from engine.errors import EngineError


def one_sentence(msg: str) -> bool:
    body = msg.rstrip(".!?")
    return (msg[:1].isupper() or msg[:1] in "'\"") and msg.endswith((".", "!", "?")) and \
        ". " not in body


@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_every_card_code_round_trips(edition: str) -> None:
    """R-CODES, R-CODES-PARSE: parse(str(card)) == card for every card of each edition,
    case-insensitively and ignoring spaces (RULINGS, Card codes)."""
    for card in set(EDITIONS[edition].deck):
        code = str(card)
        assert Card.parse(code) == card
        assert Card.parse(f"  {code.lower()} ") == card
        assert repr(card) == f"Card.parse({code!r})"


def test_code_examples_from_the_table() -> None:
    """R-CODES: the examples of the code table read as the cards they name
    (RULINGS, Card codes)."""
    assert Card.parse("R7") == Card(Kind.NUMBER, Color.RED, 7)
    assert Card.parse("B0") == Card(Kind.NUMBER, Color.BLUE, 0)
    assert Card.parse("R1U") == Card(Kind.NUMBER, Color.RED, 1, Tower.U)
    assert Card.parse("G2N").icon is Tower.N
    assert Card.parse("Y3O").icon is Tower.O
    assert Card.parse("B8!").icon is Tower.BANG
    assert Card.parse("R+1") == Card(Kind.DRAW_ONE, Color.RED)
    assert Card.parse("Y+2") == Card(Kind.DRAW_TWO, Color.YELLOW)
    assert Card.parse("BS") == Card(Kind.SKIP, Color.BLUE)
    assert Card.parse("GR") == Card(Kind.REVERSE, Color.GREEN)
    assert Card.parse("YG") == Card(Kind.GRAB_TWO, Color.YELLOW)
    assert Card.parse("W") == Card(Kind.WILD)
    assert Card.parse("W+4") == Card(Kind.WILD_DRAW_FOUR)
    assert Card.parse("WG") == Card(Kind.WILD_GRAB)
    assert Card.parse("WV") == Card(Kind.VICTORY_LAP)


@pytest.mark.parametrize(
    "code", ["", "R", "R10", "X5", "R5X", "R5UU", "W+2", "WX", "RW", "R+3", "5R", "RR7", "U"]
)
def test_bad_codes_are_refused(code: str) -> None:
    """R-CODES-PARSE: anything that is not a card code is refused with one sentence."""
    with pytest.raises(ParseError) as info:
        Card.parse(code)
    assert one_sentence(str(info.value))
    assert "not a card code" in str(info.value)


@pytest.mark.parametrize("code", ["R²", "B①", "Y¹U", "G٣", "R７", "b²!", "Y𝟕"])
def test_codes_with_other_digits_are_refused(code: str) -> None:
    """R-CODES-PARSE: a number card's digit is 0-9; other characters Python counts as
    digits (superscripts, circled, other scripts' digits) are refused like any other
    non-code, never an error of another kind."""
    with pytest.raises(ParseError) as info:
        Card.parse(code)
    assert one_sentence(str(info.value))
    assert "not a card code" in str(info.value)


@settings(max_examples=500, deadline=None)
@given(st.one_of(
    st.text(max_size=6),
    st.text(alphabet=st.sampled_from("RBGYWrbgyw+0123456789UNO!SG ²①٣"), max_size=5),
))
def test_parse_returns_a_card_or_refuses(text: str) -> None:
    """R-CODES-PARSE: any text reads as a card whose code reads back as that card, or is
    refused with ParseError; nothing else."""
    try:
        card = Card.parse(text)
    except ParseError:
        return
    assert Card.parse(str(card)) is card


def test_colour_and_tower_parsing() -> None:
    """R-CODES: colours by letter or name, towers U N O ! (RULINGS, Card codes)."""
    assert Color.parse("r") is Color.RED
    assert Color.parse("Yellow") is Color.YELLOW
    assert Tower.parse("!") is Tower.BANG
    assert Tower.parse("o") is Tower.O
    with pytest.raises(ParseError):
        Color.parse("purple")
    with pytest.raises(ParseError):
        Tower.parse("X")


def test_power_grab_deck_composition() -> None:
    """R-DECK-PG: 112 cards; per colour two each of 1-9, two +1, two +2, two Skip, one
    Reverse, one Grab-2-Towers; four Wild Grab-A-Tower, four Wild Draw Four
    (sheet 000, Contents; RULINGS, Power Grab deck)."""
    deck = POWER_GRAB.deck
    assert len(deck) == 112
    kinds = Counter(c.kind for c in deck)
    assert kinds == {
        Kind.NUMBER: 72, Kind.DRAW_ONE: 8, Kind.DRAW_TWO: 8, Kind.SKIP: 8,
        Kind.REVERSE: 4, Kind.GRAB_TWO: 4, Kind.WILD_GRAB: 4, Kind.WILD_DRAW_FOUR: 4,
    }
    for color in Color:
        numbers = Counter(c.number for c in deck if c.color is color and c.kind is Kind.NUMBER)
        assert numbers == {n: 2 for n in range(1, 10)}
        by_kind = Counter(c.kind for c in deck if c.color is color and c.kind is not Kind.NUMBER)
        assert by_kind == {Kind.DRAW_ONE: 2, Kind.DRAW_TWO: 2, Kind.SKIP: 2,
                           Kind.REVERSE: 1, Kind.GRAB_TWO: 1}


def test_power_icon_assignment() -> None:
    """R-DECK-ICONS: each icon twice per colour; first copy of 1/5 U, 2/6 N, 3/7 O, 4/8 !;
    second copies and 9s none (sheet 000, Power Icons & Power Towers; RULINGS, Power Grab
    deck)."""
    expected = {1: Tower.U, 5: Tower.U, 2: Tower.N, 6: Tower.N,
                3: Tower.O, 7: Tower.O, 4: Tower.BANG, 8: Tower.BANG}
    deck = Counter(POWER_GRAB.deck)
    for color in Color:
        icons = Counter(c.icon for c in deck.elements() if c.color is color and c.icon)
        assert icons == {t: 2 for t in Tower}
        for n in range(1, 10):
            plain = Card(Kind.NUMBER, color, n)
            assert deck[plain] == (2 if n == 9 else 1)
            if n in expected:
                assert deck[Card(Kind.NUMBER, color, n, expected[n])] == 1
                for other in set(Tower) - {expected[n]}:
                    assert deck[Card(Kind.NUMBER, color, n, other)] == 0
    assert str(Card(Kind.NUMBER, Color.BLUE, 8, Tower.BANG)) == "B8!"


def test_classic_deck_composition() -> None:
    """R-DECK-CLASSIC: 108 cards, one 0 and two each of 1-9 per colour, two +2/Reverse/Skip
    per colour, four Wild and four Wild Draw Four, no icons (RULINGS, Classic edition)."""
    deck = CLASSIC.deck
    assert len(deck) == 108
    assert not any(c.icon for c in deck)
    kinds = Counter(c.kind for c in deck)
    assert kinds == {Kind.NUMBER: 76, Kind.DRAW_TWO: 8, Kind.REVERSE: 8, Kind.SKIP: 8,
                     Kind.WILD: 4, Kind.WILD_DRAW_FOUR: 4}
    for color in Color:
        numbers = Counter(c.number for c in deck if c.color is color and c.kind is Kind.NUMBER)
        assert numbers == {0: 1, **{n: 2 for n in range(1, 10)}}
    assert not CLASSIC.towers and POWER_GRAB.towers


@pytest.mark.parametrize(("edition", "lo", "hi"), [("power-grab", 2, 6), ("classic", 2, 10)])
def test_player_counts(edition: str, lo: int, hi: int) -> None:
    """R-PLAYERS: Power Grab seats 2-6, classic 2-10 (RULINGS, Power Grab deck)."""
    for n in (lo, hi):
        Game.new([f"p{i}" for i in range(n)], edition=edition)
    for n in (lo - 1, hi + 1):
        with pytest.raises(IllegalMoveError) as info:
            Game.new([f"p{i}" for i in range(n)], edition=edition)
        assert f"needs {lo} to {hi} players" in str(info.value)
    with pytest.raises(IllegalMoveError, match="only one seat"):
        Game.new(["ann", "ann"], edition=edition)


def test_settings_defaults() -> None:
    """R-SETTINGS: defaults target 500, standard scoring, Grab-2 20 points, seats in
    joining order (RULINGS, Scoring; RULINGS, Deal and round)."""
    s = Settings()
    assert s.to_dict() == {"target": 500, "scoring": "standard", "grab2_points": 20,
                           "shuffle_seats": False}
    assert Settings.from_dict(s.to_dict()) == s


def test_saved_settings_hold_every_field_in_order() -> None:
    """``Settings.to_dict`` names its fields by hand (it is part of every save): a field
    added to Settings and not to it would be lost at the next restart."""
    s = Settings(target=750, scoring="alternative", grab2_points=50, shuffle_seats=True)
    assert list(s.to_dict().items()) == list(asdict(s).items())
    assert Settings.from_dict(s.to_dict()) == s


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"target": 99}, ["target", "100", "5000"]),
        ({"target": 5001}, ["target", "100", "5000"]),
        ({"target": "500"}, ["target", "100", "5000"]),
        ({"target": True}, ["target", "100", "5000"]),
        ({"scoring": "lowball"}, ["scoring", "standard", "alternative"]),
        ({"grab2_points": 30}, ["Grab-2-Towers", "20", "50"]),
        ({"shuffle_seats": "yes"}, ["seat shuffle", "true", "false"]),
    ],
)
def test_settings_validation(kwargs: dict[str, object], words: list[str]) -> None:
    """R-SETTINGS: a value out of range is refused in one sentence naming the setting and
    the allowed range (RULINGS, Scoring)."""
    with pytest.raises(SettingsError) as info:
        Settings(**kwargs)  # type: ignore[arg-type]
    msg = str(info.value)
    assert one_sentence(msg), msg
    for w in words:
        assert w in msg


def test_settings_edges_and_unknown() -> None:
    """R-SETTINGS: 100 and 5000 are allowed; unknown settings are named."""
    assert Settings(target=100).target == 100
    assert Settings(target=5000, scoring="alternative", grab2_points=50, shuffle_seats=True)
    with pytest.raises(SettingsError, match="'colour'"):
        Settings.from_dict({"colour": 1})


def test_engine_errors_are_value_errors() -> None:
    """R-ERRORS: the error tree is rooted at EngineError, a ValueError."""
    assert issubclass(EngineError, ValueError)
    assert issubclass(ParseError, EngineError)


def test_cards_sort_in_hand_order() -> None:
    """R-CODES: cards sort by colour (red, blue, green, yellow, wilds last), then kind,
    number and icon, so a hand can be shown in order (engine)."""
    hand = [Card.parse(x) for x in ["W+4", "Y2", "B5U", "B5", "R+1", "R9", "WG", "G7O", "R1"]]
    assert [str(x) for x in sorted(hand)] == \
        ["R1", "R9", "R+1", "B5", "B5U", "G7O", "Y2", "W+4", "WG"]
    assert Card.parse("R1") < Card.parse("B1") <= Card.parse("B1")
    assert Card.parse("W+4") > Card.parse("Y9") >= Card.parse("Y9")


def test_setup_without_draw_pile_uses_the_rest_of_the_deck() -> None:
    """R-REPLAY-SETUP: with no draw pile given, the cards not placed are shuffled by the
    seed to make it (this used to crash sorting cards)."""
    hands = {"a": [Card.parse("R1")], "b": [Card.parse("B1")]}
    g, _ = Game.from_setup(["a", "b"], hands=hands, discard=[Card.parse("R7")], seed=3)
    assert len(g.draw_pile) == 112 - 3
    assert g.all_cards() == Counter(POWER_GRAB.deck)
    g2, _ = Game.from_setup(["a", "b"], hands=hands, discard=[Card.parse("R7")], seed=3)
    assert g2.draw_pile == g.draw_pile
