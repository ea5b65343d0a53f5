"""Slash commands in the user's language: discord.py's ``app_commands.Translator`` fed from
the same gettext catalogues as every message (``runtime.i18n``).

Command, group and option names are looked up in the msgctxt ``"command name"`` (their
translations obey Discord's naming rules: lowercase, no spaces, at most 32 characters; the
tests check it); descriptions and choice names are ordinary msgids. The strings come into
``messages.pot`` through ``cogs/uno/_catalogue.py`` (Babel's extraction method), which
reads them from the cogs' command objects, so there is nothing to mark in the code.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from runtime.i18n import COMMAND_NAME, DEFAULT_LOCALE, TRANSLATIONS, language_of

NAMES = (Where.command_name, Where.group_name, Where.parameter_name)


class CatalogueTranslator(app_commands.Translator):
    """Names, descriptions and choices of the slash commands from the gettext catalogues."""

    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        return translate_command_string(string.message, locale, context.location)


def translate_command_string(text: str, locale: discord.Locale | str,
                             where: Where) -> str | None:
    """The translation, or None where there is none (Discord then shows the English)."""
    language = language_of(locale)
    if language == DEFAULT_LOCALE or not text:
        return None
    catalogue = TRANSLATIONS[language]
    translated = (catalogue.pgettext(COMMAND_NAME, text) if where in NAMES
                  else catalogue.gettext(text))
    return translated if translated != text else None
