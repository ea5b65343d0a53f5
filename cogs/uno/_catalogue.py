"""The slash commands' strings for the translators: ``extract_commands`` is the Babel
extraction method (``babel.cfg``) that puts every command's name, description and choice
into ``messages.pot``, read from the cogs' command objects (nothing to mark in the code)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from discord import app_commands

from cogs.uno._cog import UnoCog
from cogs.uno._leaderboard import LeaderboardCog
from cogs.uno._movelog import LogCog
from cogs.uno._rules import RulesCog
from cogs.uno._settings import SettingsCog
from runtime.i18n import COMMAND_NAME

COMMAND_COGS = (UnoCog, LeaderboardCog, LogCog, RulesCog, SettingsCog)
"""Every cog whose slash commands are in the ``/uno`` group (the first one owns it)."""


def command_strings() -> Iterator[tuple[str | None, str]]:
    """Every (msgctxt, msgid) of the slash commands: names in ``COMMAND_NAME``, the rest
    without a context. Numeric choice names are left out (they read the same)."""
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
