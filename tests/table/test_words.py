"""The bot's words (cogs/uno/table/words.py) for positions built exactly: what the channel is
told. Each test names the RULINGS or RULES.md section it checks."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from cogs.uno.table.session import Options, Seat, Session
from cogs.uno.table.words import card_label, card_name, color_name, event_lines, kind_name
from engine import Card, Color, Game, Kind, Play, Settings
from runtime.i18n import LANGUAGE_OF_MAX, language_of, speaking

FOUR = ["Ann", "Ben", "Cy", "Dee"]
TEAMS = [["Ann", "Cy"], ["Ben", "Dee"]]


def cards(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


def session_of(game: Game, **options: Any) -> Session:
    seats = [Seat(p, p) for p in game.players]
    return Session(channel_id=1, guild_id=2, host_id=game.players[0], seats=seats,
                   options=Options(**options), game=game, serial=1)


def partner_game(scoring: str, scores: dict[str, int] | None = None) -> Game:
    game, _ = Game.from_setup(
        FOUR, edition="classic", teams=TEAMS, settings=Settings(target=500, scoring=scoring),
        hands={"Ann": cards("R5 G9"), "Ben": cards("R3 BS"), "Cy": cards("R7"),
               "Dee": cards("Y+2 W")},
        draw=cards("G1 G2 G3 G4"), discard=cards("R6"), turn="Cy", dealer="Ben",
        scores=scores)
    return game


def test_partners_under_alternative_scoring_say_what_each_team_is_charged() -> None:
    """R-TEAM-ALT (RULINGS, Alternative scoring with partners): the round's line says what
    each team was charged (the partner's cards count for the team of the player who went
    out) instead of "score 0 points", and the teams are listed lowest first."""
    game = partner_game("alternative", {"Ann": 100, "Ben": 10})
    session = session_of(game, scoring="alternative")
    lines = event_lines(session, game.apply(Play("Cy", Card.parse("R7"))), "en")
    text = "\n".join(lines)
    assert "Cy goes out: Ann & Cy win round 1. Each team adds the cards left in its " \
           "hands: Ann & Cy +14, Ben & Dee +93." in text, text
    assert "score 0 points" not in text
    table = next(line for line in lines if line.startswith("```"))
    rows = table.strip("`").split("\n")[1:-1]
    assert [r.split()[0] for r in rows] == ["Ben", "Ann"], rows  # 103 before 114
    assert rows[0].endswith("103") and rows[1].endswith("114")


def test_partners_under_standard_scoring_keep_the_highest_first() -> None:
    """R-TEAM-SCORE (sheet 004, Playing with Partners): the team that goes out scores the
    opposing hands; the highest total is listed first."""
    game = partner_game("standard", {"Ben": 200})
    session = session_of(game)
    lines = event_lines(session, game.apply(Play("Cy", Card.parse("R7"))), "en")
    assert "🏆 Cy goes out: Ann & Cy win round 1 and score 93 points!" in lines
    rows = next(line for line in lines if line.startswith("```")).strip("`").split("\n")[1:-1]
    assert [r.split()[0] for r in rows] == ["Ben", "Ann"], rows  # 200 before 93


def test_alternative_scoring_alone_lists_the_lowest_first() -> None:
    """R-SCORE-ALT (RULINGS, Scoring: alternative, the lowest total wins): the round's line
    says everyone adds their own hand, and the score table leads with the lowest total."""
    game, _ = Game.from_setup(
        ["Ann", "Ben", "Cy"], edition="classic",
        settings=Settings(target=500, scoring="alternative"),
        hands={"Ann": cards("R7"), "Ben": cards("R3 BS"), "Cy": cards("G1")},
        draw=cards("G2 G3 G4"), discard=cards("R6"), turn="Ann", dealer="Cy")
    session = session_of(game, scoring="alternative")
    lines = event_lines(session, game.apply(Play("Ann", Card.parse("R7"))), "en")
    assert "🏆 Ann wins round 1. Everyone adds the cards left in their hand; the lowest " \
           "total wins." in lines, lines
    rows = next(line for line in lines if line.startswith("```")).strip("`").split("\n")[1:-1]
    assert [r.split()[0] for r in rows] == ["Ann", "Cy", "Ben"], rows


SQUARE_NAMES = {"en": {"🟥": "red", "🟦": "blue", "🟩": "green", "🟨": "yellow"},
                "fr": {"🟥": "rouge", "🟦": "bleu", "🟩": "vert", "🟨": "jaune"}}


def squares_named(text: str, language: str) -> list[str]:
    """Each coloured square of ``text`` with what follows it up to the next separator; the
    ones whose colour is not named there are the faults."""
    import re

    faults = []
    for m in re.finditer(r"([🟥🟦🟩🟨])([^,.!`\n(]*)", text):
        if SQUARE_NAMES[language][m.group(1)] not in m.group(2).split():
            faults.append(m.group(0))
    return faults


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_coloured_square_has_its_colour_named(language: str) -> None:
    """Issue 17, Words: a colour-blind reader sees red and green as the same olive square, so
    every coloured square in text has its colour's name beside it: every card of the deck's
    label, and the public lines and private hand texts of a whole game of computer players,
    in English and French."""
    from cogs.uno.show.hand import hand_menu
    from cogs.uno.table.words import card_label, hand_text
    from engine.editions import get_edition
    from engine.players import HeuristicPlayer

    for card in set(get_edition("power-grab").deck) | set(get_edition("victory-lap").deck):
        label = card_label(card, language)
        assert not squares_named(label, language), label
    game = Game.new(["Ann", "Ben", "Cy"], edition="power-grab", seed=5,
                    settings=Settings(target=100))
    session = session_of(game, language=language)
    text = "\n".join(event_lines(session, game.start(), language))
    bots = {p: HeuristicPlayer(i) for i, p in enumerate(game.players)}
    squares = 0
    for _ in range(400):
        if game.is_over:
            break
        player = game.turn
        move = bots[player].choose(game, player)
        assert move is not None
        text += "\n" + "\n".join(event_lines(session, game.apply(move), language))
        for p in game.players:
            text += "\n" + hand_menu(session, game, p, language)[0]
            text += "\n" + hand_text(game.hand(p), language)
    squares = sum(text.count(sq) for sq in SQUARE_NAMES[language])
    assert squares > 100, "the game showed coloured cards"
    assert not squares_named(text, language)


def test_a_colour_named_as_a_lap_ends_is_the_victory_laps() -> None:
    """R-VL-COLOR, R-VL-OWN-HAND (RULINGS, Victory Lap edition: the colour may be named on
    the keep): the channel hears the colour named for the Victory Lap, not a starting
    colour, whether a keep or the pass that brought the own hand back names it."""
    from engine import Color, Lap

    for keep in (True, False):
        game, _ = Game.from_setup(
            ["Ann", "Ben"], edition="victory-lap",
            hands={"Ann": cards("WV R1 R2"), "Ben": cards("G1 G2")},
            draw=cards("Y1 Y2 Y3"), discard=cards("R7"), turn="Ann")
        session = session_of(game)
        game.apply(Play("Ann", Card.parse("WV")))
        lines = event_lines(session, game.apply(Lap("Ann", keep, Color.BLUE)), "en")
        assert "🏁 Ann names blue for the Victory Lap." in lines, lines
        assert not any("starting colour" in line for line in lines)


def test_a_cards_words_are_in_the_language_asked_whatever_was_asked_before() -> None:
    """Card labels and names are rendered once per language and card (words.py remembers
    them, i18n.language_of remembers each locale's language): asking in one language, then
    in the other, in any of the forms a locale comes in (a code, a Discord locale, the
    public language of ``speaking``), each answer is in the language asked."""
    r7, ys = Card.parse("R7"), Card.parse("YS")
    for _round in range(2):  # the first round renders, the second reads what was kept
        assert card_label(r7, "fr") == "🟥 7 rouge"
        assert card_label(r7, "en") == "🟥 red 7"
        assert card_label(r7, discord.Locale.french) == "🟥 7 rouge"
        assert card_label(r7, "fr-FR") == "🟥 7 rouge"
        assert card_label(r7, discord.Locale.american_english) == "🟥 red 7"
        assert card_name(ys, "fr") == "Passer jaune"
        assert card_name(ys, None) == "yellow Skip"
        with speaking("fr"):
            assert card_label(ys) == "🟨 Passer jaune"
            assert color_name(None) == "aucune"
            assert kind_name(Kind.WILD_DRAW_FOUR) == "carte blanche +4"
        assert card_label(ys) == "🟨 yellow Skip"
        assert color_name(Color.BLUE, "pt-BR") == "blue", "no catalogue: English"


def test_the_locales_remembered_are_bounded() -> None:
    """A locale given as any text is remembered with its language, up to LANGUAGE_OF_MAX
    of them: past that it is still answered, just not kept."""
    for i in range(LANGUAGE_OF_MAX + 50):
        assert language_of(f"xx-{i}") == "en"
    for _round in range(2):
        assert language_of("fr_CA") == "fr", "met after the limit: worked out each time"
        assert language_of(" FR ") == "fr"
        assert language_of(None) == "en"
