"""A closed V2 table (``TablePost.closed``, cogs/uno/_table_post.py) keeps its text and
picture without its buttons, however often its edit is composed. The outbox composes a
write once per route it tries: an edit through a click's webhook whose token has run out
is composed again for the channel route. The second compose once found the quiet form
already taken and rebuilt the table from the game, dropping the lines it showed (a
round's result), or, with the game over, sent a V2 message with no components (Discord:
400, 50006). The second was seen in a full CI run (e2e test_panel, a token at its
end); the first fits a failure of e2e test_levels (a round's result gone)."""

from __future__ import annotations

from cogs.uno._table_post import TablePost, TableStyle
from loopback.server import LoopbackDiscord
from support.tables import written_table


async def test_a_closed_table_composed_twice_keeps_its_lines_both_times() -> None:
    async with LoopbackDiscord() as server:
        channel = server.add_guild("Closed").new_channel("closed")
        line = "🏆 Alice wins round 1 and scores 12 points!"
        post, session, _body = await written_table(channel, [line])
        # the game ends before the close goes out: nothing to rebuild it from
        session.game = None
        close = post.closed(501, session)
        for attempt in ("the click's webhook", "the channel route"):
            closed = await close()
            assert closed is not None and closed["view"] is not None, attempt
            shown = str(closed["view"].to_components())
            assert line in shown, (attempt, shown)
            assert "custom_id" not in shown, attempt


async def test_a_v2_table_from_before_a_restart_closed_after_its_game_says_it_is_closed(
        ) -> None:
    """A V2 table this process never wrote (posted before a restart: no quiet form) whose
    game is over when it closes: Discord refuses a V2 message edited to no components, so
    the table says it is closed, with no button (it was ``{"view": None}``, a 400)."""
    async with LoopbackDiscord() as server:
        channel = server.add_guild("Restarted").new_channel("restarted")
        _post, session, _body = await written_table(channel, ["alice plays 🟥 red 3."])
        restarted = TablePost(TableStyle())  # a new process: nothing of that table kept
        session.game = None
        close = restarted.closed(501, session)
        for attempt in ("the click's webhook", "the channel route"):
            closed = await close()
            assert closed is not None and closed["view"] is not None, attempt
            components = closed["view"].to_components()
            shown = str(components)
            assert components and "This table is closed" in shown, (attempt, shown)
            assert "custom_id" not in shown, attempt
