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


def test_the_retired_family_takes_only_the_ids_no_other_family_takes() -> None:
    from cogs.uno._families import REGISTERED, RetiredComponent

    live = ["uno:t:hand:ab12:3", "uno:l:join:ab12", "uno:p:ab12:3:0", "uno:pg:ab12:3:1",
            "uno:dpu:ab12:3", "uno:c:ab12:3:WG:1:R:UN", "uno:tw:ab12:3:R7:0:-",
            "uno:k:ab12:3", "uno:oc:ab12:3:B", "uno:lap:ab12:3:pass:G", "uno:rules:2",
            "uno:lb:wins:1", "uno:pc:ab12:3:R7", "uno:pc:ab12:3:W+4:u",
            "uno:tb:ab12:3:WG:0:G:N", "uno:kb:ab12:3:B3:u"]
    for custom_id in live:
        takers = [f for f in REGISTERED if f.matches(custom_id)]
        assert takers and RetiredComponent not in takers, custom_id
    for custom_id in ("uno:t:hand:ab12:3x", "uno:zz:1", "uno:l:fly:ab12", "uno:"):
        assert RetiredComponent.matches(custom_id), custom_id
    assert not RetiredComponent.matches("other:t:hand:ab12")


async def test_a_sent_view_and_its_items_are_freed_by_the_collector() -> None:
    """A view and its items refer to each other (discord.py's own design): once sent and
    dropped, the garbage collector frees them; nothing of ours keeps them."""
    import gc
    import weakref

    layout = discord.ui.LayoutView(timeout=None)
    container = discord.ui.Container[discord.ui.LayoutView]()
    container.add_item(discord.ui.ActionRow(TableButton("draw", "ab12", 3, "Draw")))
    layout.add_item(container)
    finished(layout)
    assert layout.to_components()[0]["components"][0]["components"][0]["custom_id"] \
        == "uno:t:draw:ab12:3", "it renders"
    views = [weakref.ref(layout)]
    del layout, container
    for _ in range(50):
        views.append(weakref.ref(view_of(TableButton("hand", "ab12", 3, "My hand"))))
    gc.collect()
    assert all(ref() is None for ref in views)
