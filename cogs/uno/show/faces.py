"""Card faces as the menus show them: each card's application emoji (``card_emoji``, a
``discord.PartialEmoji`` for a button or a select option), known once ``cogs.uno._emojis``
found or uploaded it (``register``). ``register`` hands the words the same faces as text
(``<:uno_R7:id>``, ``table.words.cards.card_face``), for the hands' text. No I/O here."""

from __future__ import annotations

import discord

from cogs.uno.table.words.cards import forget_faces, show_faces
from engine import Card

PREFIX = "uno_"
_CODE_CHARS = str.maketrans({"+": "P", "!": "X"})
_registry: dict[str, discord.PartialEmoji] = {}


def emoji_name(card: Card) -> str:
    """The emoji's name for ``card``: its code made of ``[A-Za-z0-9_]`` ("uno_WP4")."""
    return PREFIX + card.code.translate(_CODE_CHARS)


def card_emoji(card: Card) -> discord.PartialEmoji | None:
    """The card's application emoji, if it is uploaded and known."""
    return _registry.get(card.code)


def register(emojis: dict[str, discord.PartialEmoji]) -> None:
    """Make ``emojis`` (card code -> emoji) known to the menus and the hands' text."""
    _registry.update(emojis)
    show_faces({code: str(emoji) for code, emoji in emojis.items()})


def forget() -> None:
    _registry.clear()
    forget_faces()
