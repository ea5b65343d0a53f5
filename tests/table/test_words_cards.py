"""What a card is called (cogs/uno/table/words/cards.py): every coloured square named, in
the language asked."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from cogs.uno.table.session import Options, Seat, Session
from cogs.uno.table.words.cards import (
    card_label,
    card_name,
    color_name,
    forget_faces,
    hand_text,
    kind_name,
    show_faces,
)
from cogs.uno.table.words.events import event_lines
from engine import Card, Color, Game, Kind, Settings
from runtime.i18n import LANGUAGE_OF_MAX, language_of, speaking


def session_of(game: Game, **options: Any) -> Session:
    seats = [Seat(p, p) for p in game.players]
    return Session(channel_id=1, guild_id=2, host_id=game.players[0], seats=seats,
                   options=Options(**options), game=game, serial=1)


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


def test_a_cards_words_are_in_the_language_asked_whatever_was_asked_before() -> None:
    """Card labels and names are rendered once per language and card (cards.py remembers
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


def test_hand_text_with_and_without_faces() -> None:
    """A hand's text leads each card with its face once the emojis are known, unless the
    faces would make it too long (a message holds 2,000 characters): then plain text."""
    cards = [Card.parse("R7"), Card.parse("W+4")]
    try:
        assert hand_text(cards) == "🟥 red 7 `R7`, 🌈 Wild Draw Four `W+4`"
        show_faces({"R7": "<:uno_R7:42>"})
        assert hand_text(cards) == "<:uno_R7:42> 🟥 red 7 `R7`, 🌈 Wild Draw Four `W+4`"
        show_faces({"R7": "<:uno_R7:1574173702730285202>"})
        assert "<:uno_R7:1574173702730285202> 🟥 red 7 `R7`" in hand_text(cards)
        assert "<:" not in hand_text([Card.parse("R7")] * 30)
    finally:
        forget_faces()
