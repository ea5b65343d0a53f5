"""Play again: a finished game's result offers a lobby in the same channel with the same
seats (the people still at its table, already joined, and its computer players) and the
same settings (edition, target, scoring, mode and teams, timer, language...), whose host is
who pressed it. It works once; a press while a lobby or game runs in the channel changes
nothing.

The offer is kept when the game's result is recorded (``results.offer_again``, in the
database, so the button works after a restart) and taken here with a compare and set, so of
two presses at once one opens the lobby.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import Any

from cogs.uno.table.contracts import Actor, Refusal
from cogs.uno.table.lobbies import Lobbies
from cogs.uno.table.session import LEVELS, Seat, Session
from cogs.uno.table.tables import Tables

log = logging.getLogger(__name__)


def offered_seat(row: list[Any]) -> Seat:
    """A seat as the offer keeps it: id, name, cpu, team and the computer player's level
    (an offer saved before the levels were kept has four fields: its computer players come
    back normal, as they played)."""
    i, n, c, t = row[:4]
    level = row[4] if len(row) > 4 and row[4] in LEVELS else "normal"
    return Seat(str(i), str(n), bool(c), None if t is None else int(t), str(level))


class Again:
    """The Play again buttons of one table service."""

    def __init__(self, tables: Tables, lobbies: Lobbies) -> None:
        self.tables = tables
        self.lobbies = lobbies

    async def press(self, channel_id: int | None, guild_id: int | None, actor: Actor,
                    gid: str) -> Session:
        """``actor`` presses Play again on the result of game ``gid``: the new lobby, saved
        (its message is the caller's to post), or a Refusal that changed nothing."""
        store = self.tables.store
        found = await store.load_rematch(guild_id or 0, gid)
        if found is None or found[0].channel_id != channel_id:
            raise Refusal("That game can't be played again any more: open a new one with "
                          "/uno new.")
        offer, used = found
        state = json.loads(offer.state)
        seats = [offered_seat(row) for row in state["seats"]]
        if not any(s.id == actor.id and not s.cpu for s in seats):
            raise Refusal("Only the players of that game can start it again.")
        if used:
            raise Refusal("Play again was already pressed for that game.")
        if (channel_id or 0) in self.tables.sessions:
            raise Refusal("A game is already open in this channel: join it, or ask the "
                          "host to end it.")
        if not await store.use_rematch(offer.guild_id, gid):
            raise Refusal("Play again was already pressed for that game.")
        for seat in seats:
            if seat.id == actor.id:
                seat.name = actor.name  # as they are called now
        try:
            session = await self.lobbies.open(offer.channel_id, offer.guild_id, actor,
                                              parent_id=state.get("parent_id"),
                                              choices=state["options"], seats=seats)
        except BaseException:
            # nothing opened: the button works again
            with contextlib.suppress(Exception):
                await store.use_rematch(offer.guild_id, gid, used=False)
            raise
        log.info("Game %s in channel %s is played again by %s", gid, channel_id, actor.id)
        return session
