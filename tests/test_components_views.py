"""The views we send are finished (stopped) before they go: discord.py keeps none of them."""

from __future__ import annotations

import discord

from cogs.uno._components import PlaySelect, TableButton, finished, view_of


async def test_a_view_of_ours_is_stopped_so_discord_py_does_not_keep_it() -> None:
    view = view_of(TableButton("hand", "ab12", 3, "My hand"),
                   PlaySelect("ab12", 3, 0, [discord.SelectOption(label="R7", value="R7")]))
    # discord.py stores a view (and, in an ephemeral answer, starts a 15-minute timeout task
    # holding it) only if "not view.is_finished()"
    assert view.is_finished()
    assert view.timeout is None
    rows = view.to_components()
    ids = [c["custom_id"] for row in rows for c in row["components"]]
    assert ids == ["uno:t:hand:ab12:3", "uno:p:ab12:3:0"], "it still renders"


async def test_a_layout_view_can_be_finished_too() -> None:
    layout = discord.ui.LayoutView(timeout=None)
    layout.add_item(discord.ui.ActionRow(TableButton("draw", "ab12", 3, "Draw")))
    assert not layout.is_finished()
    assert finished(layout) is layout and layout.is_finished()
