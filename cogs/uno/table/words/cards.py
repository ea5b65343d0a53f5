"""What a card is called, in a language: its colour (its square and its name), its kind,
its label for people ("🟥 red 7") and its name in a sentence ("red 7"), a count of cards, a
hand as text led by the cards' faces, and an edition's title.

The faces are text here (``<:uno_R7:id>`` in a message): ``cogs.uno.show.faces`` hands them
over as the card emojis become known.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import Card, Color, Kind, get_edition
from runtime.i18n import Locale, _, language_for, ngettext

COLOR_EMOJI = {Color.RED: "🟥", Color.BLUE: "🟦", Color.GREEN: "🟩", Color.YELLOW: "🟨"}
WILD_EMOJI = "🌈"

_faces: dict[str, str] = {}
"""Card code -> its card-face emoji in message text (``<:uno_R7:id>``), once uploaded."""


def show_faces(faces: dict[str, str]) -> None:
    """Card faces (code -> emoji text) known from now on (``show.faces.register``)."""
    _faces.update(faces)


def forget_faces() -> None:
    _faces.clear()


def card_face(card: Card) -> str:
    """``<:uno_R7:id>`` for a message's text, or "" if the card has no emoji (yet)."""
    return _faces.get(card.code, "")


def color_name(color: Color | None, locale: Locale = None) -> str:
    language = language_for(locale)
    names = _COLOR_NAMES.get(language)
    if names is None:
        names = _COLOR_NAMES[language] = {
            None: _("none", language),
            Color.RED: _("red", language), Color.BLUE: _("blue", language),
            Color.GREEN: _("green", language), Color.YELLOW: _("yellow", language),
        }
    return names[color]


_COLOR_NAMES: dict[str, dict[Color | None, str]] = {}
"""A language's colour names, rendered once (the catalogues never change while running)."""


def edition_title(name: str, locale: Locale = None) -> str:
    """An edition's title ("Classic UNO") in the reader's language."""
    titles = {"power-grab": _("UNO Power Grab", locale), "classic": _("Classic UNO", locale),
              "victory-lap": _("UNO Victory Lap", locale)}
    return titles.get(name) or get_edition(name).title


def kind_name(kind: Kind, locale: Locale = None) -> str:
    language = language_for(locale)
    names = _KIND_NAMES.get(language)
    if names is None:
        names = _KIND_NAMES[language] = {
            Kind.DRAW_ONE: _("Draw One", language),
            Kind.DRAW_TWO: _("Draw Two", language),
            Kind.SKIP: _("Skip", language),
            Kind.REVERSE: _("Reverse", language),
            Kind.GRAB_TWO: _("Grab-2-Towers", language),
            Kind.WILD: _("Wild", language),
            Kind.WILD_DRAW_FOUR: _("Wild Draw Four", language),
            Kind.WILD_GRAB: _("Wild Grab-A-Tower", language),
            Kind.VICTORY_LAP: _("Victory Lap", language),
        }
    return names.get(kind, "")


_KIND_NAMES: dict[str, dict[Kind, str]] = {}
"""A language's names of the action cards' kinds, rendered once."""
_LABELS: dict[tuple[str, Card], str] = {}
_NAMES: dict[tuple[str, Card], str] = {}
"""``card_label`` and ``card_name`` per (language, card), rendered once each: a hand panel
labels every card twice (its text and its buttons), and a move builds one or two panels.
Bounded: two languages, about a hundred distinct cards."""


def card_label(card: Card, locale: Locale = None) -> str:
    """A card for people: "🟥 red 7", "🟦 blue 3 [O]", "🟩 green Draw Two", "🌈 Wild Draw
    Four". The coloured square is led by nothing else, so its colour is named beside it: a
    colour-blind reader sees red and green as the same olive square (issue 17, Words)."""
    key = (language_for(locale), card)
    label = _LABELS.get(key)
    if label is None:
        label = _LABELS[key] = _card_label(card, key[0])
    return label


def _card_label(card: Card, language: str) -> str:
    if card.is_wild:
        return f"{WILD_EMOJI} {kind_name(card.kind, language)}"
    assert card.color is not None
    emoji = COLOR_EMOJI[card.color]
    color = color_name(card.color, language)
    if card.kind is Kind.NUMBER:
        icon = f" [{card.icon.value}]" if card.icon else ""
        return f"{emoji} " + _("{color} {number}{icon}", language, color=color,
                               number=card.number, icon=icon)
    return f"{emoji} " + _("{color} {kind}", language, color=color,
                           kind=kind_name(card.kind, language))


def card_name(card: Card, locale: Locale = None) -> str:
    """A card in a sentence: "red 7", "blue 3 (O)", "green Draw Two", "Wild Draw Four"."""
    key = (language_for(locale), card)
    name = _NAMES.get(key)
    if name is None:
        name = _NAMES[key] = _card_name(card, key[0])
    return name


def _card_name(card: Card, language: str) -> str:
    if card.is_wild:
        return kind_name(card.kind, language)
    assert card.color is not None
    if card.kind is Kind.NUMBER:
        icon = f" ({card.icon.value})" if card.icon else ""
        return _("{color} {number}{icon}", language, color=color_name(card.color, language),
                 number=card.number, icon=icon)
    return _("{color} {kind}", language, color=color_name(card.color, language),
             kind=kind_name(card.kind, language))


def card_count(n: int, locale: Locale = None) -> str:
    return ngettext("{n} card", "{n} cards", n, locale)


HAND_TEXT_BUDGET = 1000
"""Characters a hand's text may take with the cards' application emojis; a longer hand is
listed without them (a message holds 2,000)."""


def hand_text(cards: Sequence[Card], locale: Locale = None) -> str:
    """The cards for their holder: "🟥 7 `R7`, ..."; each led by its card-face emoji
    (``<:uno_R7:id>``) when the emojis are uploaded and the list stays short enough."""
    plain = [f"{card_label(c, locale)} `{c.code}`" for c in cards]
    if not plain:
        return _("(no cards)", locale)
    faces = [card_face(c) for c in cards]
    pictured = ", ".join(f"{face} {text}" if face else text for face, text in zip(faces, plain,
                                                                                   strict=True))
    if any(faces) and len(pictured) <= HAND_TEXT_BUDGET:
        return pictured
    return ", ".join(plain)
