"""Seats while a game runs: a person asks for one and sits down at the next round, and a
person who leaves or misses their turns has their seat kept warm by a computer player
until they take it back (RULES.md R-BOT-JOIN, R-BOT-WARM; issue 31).

Who waits lives in the engine (``Game.ask_seat``: the next deal seats them, saved with the
game); whose seat is kept warm lives in the session (``Session.stand_ins``, saved with it).
Every change goes through the tables' pipeline (:meth:`Tables.change`), like any move.
"""

from __future__ import annotations

import logging
import time

from cogs.uno.table.contracts import Actor, EngineRefusal, Refusal
from cogs.uno.table.session import Seat, Session
from cogs.uno.table.tables import Change, Tables
from engine import EngineError
from engine.replay import wait_to_json
from runtime.i18n import _

log = logging.getLogger(__name__)


def fixed_seats(session: Session) -> Refusal | None:
    """Why ``session``'s game takes nobody new (None: it does): a tournament, partners
    and a rotating match keep their seats to the end (R-JOIN-FIXED)."""
    if session.tables or session.tournament_of is not None:
        return Refusal("A tournament keeps its seats to the end: wait for the next one.")
    game = session.game
    if session.match is not None or (game is not None and game.teams):
        return Refusal("A partner game keeps its seats to the end: wait for the next one.")
    return None


def warm_seat(session: Session, player: str) -> bool:
    """A computer player keeps ``player``'s seat (hand and towers stay) if another person
    plays on as themselves; False when nobody would (the caller takes them out: the last
    person to go ends the game, as before). The caller holds the lock and saves."""
    others = [p for p in session.humans() if p != player]
    if not others or player in session.stand_ins:
        return False
    session.stand_ins.append(player)
    session.timeouts[player] = 0
    return True


class Seats:
    """The seats of one table service's running games."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def ask(self, channel_id: int | None, actor: Actor) -> Session:
        """``actor`` asks for a seat at the next round of the channel's game."""
        tables = self.tables
        session = tables.session(channel_id)
        refusal = fixed_seats(session)
        if refusal is not None:
            raise refusal
        async with tables.change(session, mover=actor.id) as change:
            game = session.game
            if not tables.is_live(session) or game is None or game.is_over:
                raise tables.game_over(session)
            if session.is_standing_in(actor.id):
                raise Refusal("A computer player keeps your seat warm: Back to my seat takes "
                              "it back.")
            try:
                events = game.ask_seat(actor.id, actor.name)
            except EngineError as exc:
                raise EngineRefusal(exc) from None
            seat = session.seat(actor.id)
            if seat is None:
                session.seats.append(Seat(actor.id, actor.name))
            elif not seat.cpu:
                seat.name = actor.name
            change.took(events)
            change.moves.append(wait_to_json(actor.id, True, actor.name))
            session.last_human = time.time()
            await change.save()
        return session

    async def withdraw(self, change: Change, player: str) -> None:
        """``player`` no longer waits (they left, or the host refused them); the caller
        holds the lock, and this saves."""
        session = change.session
        game = session.game
        assert game is not None
        change.took(game.withdraw_seat(player))
        if player not in game.players:
            session.seats = [s for s in session.seats if s.id != player]
        change.moves.append(wait_to_json(player, False))
        await change.save()

    async def back(self, channel_id: int | None, actor: Actor, gid: str | None = None
                   ) -> Session:
        """``actor`` takes their seat back from the computer player keeping it warm
        (``gid``: the game whose button they pressed)."""
        tables = self.tables
        session = tables.session(channel_id)
        if gid is not None and session.game_id != gid:
            raise Refusal("That game has ended: use the newest message.")
        async with tables.change(session, mover=actor.id) as change:
            game = session.game
            if not tables.is_live(session) or game is None or game.is_over:
                raise tables.game_over(session)
            tables.need_player(session, actor)
            if not session.is_standing_in(actor.id):
                raise Refusal("Your seat is yours already: nobody plays it for you.")
            session.stand_ins.remove(actor.id)
            session.timeouts[actor.id] = 0
            session.last_human = time.time()
            # (a decision of theirs gets a fresh timer: the computer player's had none)
            session.deadline = None
            change.lines.append(_("{name} is back and takes their seat again.",
                                  name=session.name(actor.id)))
            await change.save()
        return session



def keep_warm(change: Change, player: str, why: str) -> bool:
    """A computer player keeps ``player``'s seat warm (``why``: "left" or "missed", said to
    the table); False if nobody else plays on (the caller takes them out). A host who
    leaves hands the game to the next person playing. The caller holds the lock and
    saves."""
    session = change.session
    if not warm_seat(session, player):
        return False
    name = session.name(player)
    if why == "left":
        change.lines.append(_("🤖 {name} left: a computer player keeps their seat warm "
                              "(/uno join takes it back).", name=name))
        if player == session.host_id:
            host = next(p for p in session.humans() if p != player)
            session.host_id = host
            change.lines.append(_("{name} is the host now.", name=session.name(host)))
    else:
        change.lines.append(_("🤖 {name} missed their turn too often: a computer player "
                              "keeps their seat warm (/uno join takes it back).",
                              name=name))
    log.info("A computer player keeps a seat warm in channel %s", session.channel_id)
    return True
