"""Every slash command's options: a value inside what the command declares is taken, one
outside is refused with a sentence naming the option (``cogs/uno/_options.py``; the bot
level is in test_e2e_flows_lobby.py, through the loopback Discord)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from discord import AppCommandOptionType as OptionType
from discord import app_commands

from cogs.uno._catalogue import COMMAND_COGS
from cogs.uno._options import refusal_text


def parameters() -> Iterator[app_commands.Parameter]:
    for cog in COMMAND_COGS:
        for command in cog.__cog_app_commands__:
            if isinstance(command, app_commands.Command):
                yield from command.parameters


PARAMETERS = list(parameters())


def test_the_declared_limits_are_found() -> None:
    limited = {p.name for p in PARAMETERS if p.choices or p.min_value is not None}
    assert {"target", "turn_timer", "hands_per_pairing", "edition", "scoring", "grab2_points",
            "mode", "language", "color", "order"} <= limited


@pytest.mark.parametrize("parameter", PARAMETERS, ids=lambda p: p.name)
def test_inside_taken_outside_refused(parameter: app_commands.Parameter) -> None:
    def refused(value: object) -> bool:
        text = refusal_text(parameter, value, "en-US")
        assert text is None or f"The option {parameter.name} " in text
        return text is not None

    if parameter.type in (OptionType.user, OptionType.channel, OptionType.role):
        return
    for choice in parameter.choices:
        assert not refused(choice.value)
    if parameter.choices:
        assert refused("not-a-choice" if parameter.type is OptionType.string else 7)
    low, high = parameter.min_value, parameter.max_value
    if low is not None and high is not None:
        assert parameter.type is OptionType.integer
        assert not refused(low) and not refused(high)
        assert refused(low - 1) and refused(high + 1) and refused(10**9) and refused(-1)
        assert refused(str(low)) and refused(True)
    if parameter.type is OptionType.boolean:
        assert not refused(True) and not refused(False)
        assert refused("yes") and refused(1)
    if parameter.type is OptionType.string and not parameter.choices:
        assert not refused("R7") and refused(7)
