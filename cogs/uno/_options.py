"""A slash command's option values checked against what the command declares.

Discord's clients keep options to their declared ranges and choices, but an interaction
sent by other means (a modified client) can carry any value. Every command is answered
through ``_reply.answer``, which calls :func:`check_options` before the command's work:
a value outside what the command declares (its ``app_commands.Range``, its
``app_commands.choices``, its option type) is refused with one sentence naming the option
and what it takes, and nothing runs. The limits are read from the command object itself,
so what Discord is told and what is checked can't drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import discord
from discord import AppCommandOptionType as OptionType
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from cogs.uno.table.contracts import Refusal
from runtime.i18n import Locale
from runtime.translator import translate_command_string


def check_options(interaction: discord.Interaction[Any]) -> None:
    """Raise :class:`Refusal` for the first option whose value the command doesn't declare;
    nothing for other interactions (buttons, menus)."""
    if interaction.type is not discord.InteractionType.application_command:
        return
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return
    namespace = interaction.namespace
    for parameter in command.parameters:
        if parameter.display_name not in namespace:
            continue
        refusal = refusal_of(parameter, namespace[parameter.display_name])
        if refusal is not None:
            raise refusal


def refusal_of(parameter: app_commands.Parameter, value: Any) -> Refusal | None:
    """Why ``value`` is not one ``parameter`` takes (a refusal, translated when answered,
    for its reader), or None if it is."""
    if _fits(parameter, value):
        return None
    option = partial(_option_name, parameter.display_name)
    if parameter.choices:
        return Refusal("The option {option} must be one of: {choices}; nothing was changed.",
                       option=option, choices=partial(_choice_names, parameter.choices))
    low, high = parameter.min_value, parameter.max_value
    if parameter.type is OptionType.integer and low is not None and high is not None:
        return Refusal("The option {option} must be a whole number from {low} to {high}; "
                       "nothing was changed.", option=option, low=low, high=high)
    return Refusal("The option {option} doesn't take the value sent (use one your Discord "
                   "app offers); nothing was changed.", option=option)


def refusal_text(parameter: app_commands.Parameter, value: Any, locale: Locale) -> str | None:
    """:func:`refusal_of` as ``locale`` reads it."""
    refusal = refusal_of(parameter, value)
    return None if refusal is None else refusal.text(locale)


def _option_name(name: str, language: str) -> str:
    return translate_command_string(name, language, Where.parameter_name) or name


def _choice_names(choices: Sequence[app_commands.Choice[Any]], language: str) -> str:
    return ", ".join(translate_command_string(c.name, language, Where.choice_name) or c.name
                     for c in choices)


def _fits(parameter: app_commands.Parameter, value: Any) -> bool:
    kind = parameter.type
    if kind is OptionType.integer:
        typed = isinstance(value, int) and not isinstance(value, bool)
    elif kind is OptionType.number:
        typed = isinstance(value, int | float) and not isinstance(value, bool) \
            and value == value  # not NaN
    elif kind is OptionType.string:
        typed = isinstance(value, str)
    elif kind is OptionType.boolean:
        typed = isinstance(value, bool)
    else:
        return True  # users, channels, roles: resolved by discord.py
    if not typed:
        return False
    if parameter.choices:
        return any(value == c.value for c in parameter.choices)
    measure = len(value) if kind is OptionType.string else value
    low, high = parameter.min_value, parameter.max_value
    return (low is None or measure >= low) and (high is None or measure <= high)
