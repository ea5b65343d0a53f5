"""What the capacity benchmark's people read in a hand panel (bench/hands.py) follows the
panel's edits: ``decides`` and ``dead`` are remembered per version of the message (the
generator asks them of eight tables every tick) and read again once the bot edits it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from loopback.server import LoopbackDiscord

_spec = importlib.util.spec_from_file_location(
    "bench_hands", Path(__file__).resolve().parents[2] / "bench" / "hands.py")
assert _spec is not None and _spec.loader is not None
hands = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(hands)


def panel(words: str, *buttons: tuple[str, str, bool]) -> dict[str, Any]:
    row = {"type": 1, "components": [
        {"type": 2, "style": 2, "label": label, "custom_id": cid, "disabled": disabled}
        for label, cid, disabled in buttons]}
    return {"content": words, "components": [row]}


async def test_a_panel_read_again_after_each_edit() -> None:
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        msg = d.store_message(channel, panel("**Your hand**", ("R5", "uno:pc:1:1:r5", True)))
        assert not hands.decides(msg) and not hands.dead(msg)
        d.edit_message(msg, panel("**Your hand**", ("R5", "uno:pc:1:2:r5", False)))
        assert hands.decides(msg) and not hands.dead(msg)  # their turn: the card enabled
        d.edit_message(msg, panel("This hand stopped following the game.",
                                  ("Reopen", "uno:re", False)))
        assert hands.decides(msg) and not hands.dead(msg)  # Reopen: it still offers that
        d.edit_message(msg, panel("This hand stopped following the game."))
        assert not hands.decides(msg) and hands.dead(msg)
        d.delete_message(msg)
        assert hands.dead(msg)
