"""The views we send are finished (stopped) before they go: discord.py keeps none of them."""

from __future__ import annotations

import discord
import pytest

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
    from cogs.uno import REGISTERED
    from cogs.uno._components import RetiredComponent

    RetiredComponent.leave_to(REGISTERED)
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


def test_an_answered_response_no_longer_points_back_at_its_interaction() -> None:
    from types import SimpleNamespace

    from cogs.uno._reply import unlink_response

    answered = SimpleNamespace(is_done=lambda: True, _parent="the interaction")
    unlink_response(SimpleNamespace(response=answered))  # type: ignore[arg-type]
    assert answered._parent is None
    waiting = SimpleNamespace(is_done=lambda: False, _parent="the interaction")
    unlink_response(SimpleNamespace(response=waiting))  # type: ignore[arg-type]
    assert waiting._parent == "the interaction", "an unanswered one still needs it"


async def test_a_finished_view_and_its_items_do_not_refer_to_each_other() -> None:
    import gc

    view = view_of(TableButton("hand", "ab12", 3, "My hand"),
                   PlaySelect("ab12", 3, 0, [discord.SelectOption(label="R7", value="R7")]))
    assert all(item.view is None and item.parent is None for item in view.walk_children())
    layout = discord.ui.LayoutView(timeout=None)
    container = discord.ui.Container[discord.ui.LayoutView]()
    container.add_item(discord.ui.ActionRow(TableButton("draw", "ab12", 3, "Draw")))
    layout.add_item(container)
    finished(layout)
    assert all(item.view is None and item.parent is None for item in layout.walk_children())
    assert layout.to_components()[0]["components"][0]["components"][0]["custom_id"] \
        == "uno:t:draw:ab12:3", "it still renders"
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        for _ in range(50):
            view_of(TableButton("hand", "ab12", 3, "My hand"))
        assert len(gc.get_objects()) - before < 50, "freed by reference counting alone"
    finally:
        gc.enable()


async def test_interactions_in_flight_are_counted_while_answered(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    import cogs.uno._reply as reply_module

    seen: list[int] = []

    async def work(reply: object) -> None:
        seen.append(reply_module.in_flight())
        raise RuntimeError("a failing one is counted out too")

    answered = SimpleNamespace(is_done=lambda: True, _parent="it")
    interaction = SimpleNamespace(response=answered, id=1, data={"custom_id": "uno:x"},
                                  command=None, locale=discord.Locale.british_english)
    before = reply_module.in_flight()

    async def fake_answer(interaction: object, work: object, **_kw: object) -> None:
        await work(None)  # type: ignore[operator]

    monkeypatch.setattr(reply_module, "_answer", fake_answer)
    with pytest.raises(RuntimeError):
        await reply_module.answer(interaction, work)  # type: ignore[arg-type]
    assert seen == [before + 1] and reply_module.in_flight() == before
    assert answered._parent is None, "and its response is unlinked"
