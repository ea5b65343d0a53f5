"""Counting what discord.py builds while a test runs (the bot's lean gateway and click
paths are meant to build none of it)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from discord.message import Message


@contextmanager
def counting_messages() -> Iterator[list[int]]:
    """Every ``discord.Message`` built meanwhile (its id)."""
    built: list[int] = []
    init = Message.__init__

    def counted(self: Message, **kwargs: object) -> None:
        init(self, **kwargs)  # type: ignore[arg-type]
        built.append(self.id)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Message, "__init__", counted)
        yield built
