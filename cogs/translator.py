"""Slash commands in the user's language: discord.py's ``app_commands.Translator`` fed from
the same gettext catalogues as every message (``cogs.i18n``).

Command, group and option names are looked up in the msgctxt ``"command name"`` (their
translations obey Discord's naming rules: lowercase, no spaces, at most 32 characters; the
tests check it); descriptions and choice names are ordinary msgids. ``extract_commands`` is
the Babel extraction method (``babel.cfg``) that puts those strings into ``messages.pot``:
it reads them from the cogs' command objects, so there is nothing to mark in the code.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from cogs.i18n import COMMAND_NAME, DEFAULT_LOCALE, TRANSLATIONS, language_of

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


def command_strings() -> Iterator[tuple[str | None, str]]:
    """Every (msgctxt, msgid) of the slash commands: names in ``COMMAND_NAME``, the rest
    without a context. Numeric choice names are left out (they read the same)."""
    from cogs.uno import COMMAND_COGS
    from cogs.uno._cog import UnoCog

    yield COMMAND_NAME, str(UnoCog.__cog_group_name__)
    group_description = UnoCog.__cog_group_description__
    if isinstance(group_description, str) and group_description != "…":
        yield None, group_description
    for cog in COMMAND_COGS:
        for command in cog.__cog_app_commands__:
            yield COMMAND_NAME, command.name
            yield None, command.description
            if not isinstance(command, app_commands.Command):
                continue
            for parameter in command.parameters:
                yield COMMAND_NAME, parameter.name
                if parameter.description and parameter.description != "…":
                    yield None, parameter.description
                for choice in parameter.choices:
                    if not choice.name.isdigit():
                        yield None, choice.name


def extract_commands(fileobj: Any, keywords: Any, comment_tags: Any,
                     options: Any) -> Iterator[tuple[int, str, Any, list[str]]]:
    """Babel extraction method (see babel.cfg): the slash commands' strings."""
    for context, text in command_strings():
        if context is None:
            yield 0, "_", (text,), ["slash command description or choice"]
        else:
            yield 0, "pgettext", (context, text), [
                "slash command name: lowercase, no spaces, at most 32 characters"]
