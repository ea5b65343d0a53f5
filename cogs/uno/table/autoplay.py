"""What happens when no human clicks: the turn timer and the computer players.

Both make their moves through the tables' change pipeline (``Tables.change``), like any
button; a move that can't be saved is undone and tried again with a
growing delay, so neither a timer nor a chain of computer turns ever stalls a game. The
scheduler runs their tasks; this module decides what they do.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from cogs.uno.table.contracts import SaveFailed
from cogs.uno.table.seats import keep_warm
from cogs.uno.table.session import Session
from cogs.uno.table.tables import Tables, logged
from cogs.uno.table.thinking import Thinkers
from engine import Decision, Game, Move, Pass
from engine.events import Event
from engine.players import EasyPlayer, HeuristicPlayer, SeatView, Strategy
from engine.players.search import SEARCHED
from engine.replay import leave_to_json
from runtime.i18n import _, ngettext

log = logging.getLogger(__name__)

MAX_TIMEOUTS = 3
"""Timeouts in a row after which a player leaves the game when nobody else plays on (with
another person playing, a computer player keeps their seat warm after the game's
``missed_turns``)."""
RESTART_GRACE = 30.0
"""At least this long (seconds, times the time scale) to act after a restart."""
RETRY_DELAYS = (1.0, 2.0, 5.0, 10.0, 30.0)
"""Seconds before a computer move or a timeout that could not be saved is tried again."""


@dataclass(slots=True)
class Applied:
    """Moves applied one by one outside ``Change.apply``: the moves, all their events, and
    each move's log entry (``logged``: with its public outcome)."""

    moves: list[Move] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)

    def apply(self, game: Game, move: Move) -> None:
        events = game.apply(move)
        self.moves.append(move)
        self.events += events
        self.entries.append(logged(move, events))

    def extend(self, other: Applied) -> None:
        self.moves += other.moves
        self.events += other.events
        self.entries += other.entries


def timeout_moves(game: Game) -> Applied:
    """Apply what the player to move does when their time runs out (draw and keep, accept,
    name a colour, keep a card), move by move so each can be logged."""
    player = game.turn
    applied = Applied()
    for move in game.timeout_moves():
        applied.apply(game, move)
        if game.pending is Decision.DRAWN and game.turn == player:
            applied.apply(game, Pass(player))
    return applied


def strategy(level: str | None, seed: int) -> Strategy:
    """The computer player of ``level`` for what is decided here and now: the easy player,
    or the normal one (a hard player's reactions, the decisions it does not search, and
    the moves it makes when no search could be made)."""
    return EasyPlayer(seed) if level == "easy" else HeuristicPlayer(seed)


class Autoplay:
    """The turn timers and the computer players of every table."""

    def __init__(self, tables: Tables, thinkers: Thinkers | None = None) -> None:
        self.tables = tables
        self.thinkers = thinkers if thinkers is not None else Thinkers(0)

    @property
    def _retry_scale(self) -> float:
        return min(1.0, max(self.tables.scale, 0.05))

    def _retry_delay(self, attempt: int) -> float:
        return RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)] * self._retry_scale

    def schedule(self, session: Session) -> None:
        """After any change: run the computer players, or arm the human's turn timer."""
        tables = self.tables
        scheduler = tables.scheduler
        game = session.game
        cid = session.channel_id
        if (game is None or game.is_over or not tables.is_live(session) or session.paused
                or tables.closing):
            scheduler.cancel(cid)
            return
        if (session.is_cpu(game.turn) or any(
                session.is_cpu(p) and strategy(session.level(p), 0).react(game, p) is not None
                for p in game.players)) and not scheduler.running(cid, "cpu"):
            scheduler.start(cid, "cpu", self._run_cpus(session))
        if session.is_cpu(game.turn):
            scheduler.cancel(cid, "timer")
            session.deadline = None
            return
        now = time.time()
        if session.deadline is None or session.deadline_serial != session.serial:
            if session.remaining is not None and session.deadline_serial == session.serial:
                # Restored: the time that was left, and never less than a fair grace.
                grace = min(RESTART_GRACE, session.options.turn_timer) * tables.scale
                session.deadline = now + max(session.remaining, grace)
            else:
                # A new decision gets the full time; the same decision keeps its deadline
                # (after an UNO call or a catch).
                session.deadline = now + session.options.turn_timer * tables.scale
            session.deadline_serial = session.serial
        session.remaining = None
        # a timer handle until the deadline, not a task sleeping per table
        scheduler.start_later(cid, "timer", session.deadline - now,
                              functools.partial(self._timer, session, session.serial))

    # ------------------------------------------------------------------ the turn timer
    async def _timer(self, session: Session, serial: int) -> None:
        """The turn's time ran out (the scheduler starts this at the deadline)."""
        attempt = 0
        while True:
            try:
                await self._timeout(session, serial)
                return
            except Exception as exc:
                if not isinstance(exc, SaveFailed):
                    log.exception("The timeout in channel %s failed", session.channel_id)
                delay = self._retry_delay(attempt)
                attempt += 1
                log.warning("Timeout in channel %s not saved; trying again in %.1fs",
                            session.channel_id, delay)
                await asyncio.sleep(delay)

    async def _timeout(self, session: Session, serial: int) -> None:
        tables = self.tables
        async with tables.change(session) as change:
            game = session.game
            if (game is None or game.is_over or session.serial != serial
                    or not tables.is_live(session) or session.paused):
                return
            player = game.turn
            if session.is_cpu(player):
                return
            applied = timeout_moves(game)
            session.serial += 1
            count = session.timeouts.get(player, 0) + 1
            session.timeouts[player] = count
            change.lines.append(_("⏰ {name} ran out of time.", name=session.name(player)))
            change.took(applied.events)  # (forced draws are shown to everyone, the mover too)
            change.moves += applied.entries
            change.mover = player
            playing = (not game.is_over and player in game.players
                       and session.tournament_of is None)  # nobody leaves a tournament
            if (playing and count >= session.options.missed_turns
                    and keep_warm(change, player, "missed")):
                pass  # a computer player keeps the seat warm (R-BOT-WARM)
            elif playing and count >= MAX_TIMEOUTS:
                # nobody else plays on: the seat can't be kept warm (R-BOT-TIMER)
                change.lines.append(ngettext(
                    "{name} timed out {n} time in a row and leaves the game.",
                    "{name} timed out {n} times in a row and leaves the game.", count,
                    name=session.name(player)))
                if await tables.take_out(change, player):
                    return
                change.moves.append(leave_to_json(player))
            await change.save()

    # ------------------------------------------------------------------ computer players
    async def _run_cpus(self, session: Session) -> None:
        """Computer players act, one saved move at a time, until a human must act. A move
        that can't be saved is undone and tried again later: the chain never stalls. A
        hard player searches during its pause (the pause is the longer of the two)."""
        attempt = 0
        delay = self.tables.cpu_delay
        loop = asyncio.get_running_loop()
        while True:
            started = loop.time()
            try:
                plan = await self._plan(session)
                await asyncio.sleep(max(0.0, delay - (loop.time() - started)))
                more = await self._cpu_step(session, plan)
                attempt = 0
                delay = self.tables.cpu_delay
            except Exception as exc:
                if not isinstance(exc, SaveFailed):
                    log.exception("A computer move in channel %s failed", session.channel_id)
                delay = self._retry_delay(attempt)
                attempt += 1
                log.warning("A computer move in channel %s was not saved; trying again in "
                            "%.1fs", session.channel_id, delay)
                continue
            if not more:
                return

    async def _plan(self, session: Session) -> tuple[SeatView, Move] | None:
        """A hard computer player to move searches, outside the game's lock: its seat's
        view is read under the lock, the search runs in a worker process (``Thinkers``).
        None when no search is made (not a hard player's searched decision, or the
        searches are full: it then plays as the normal player)."""
        async with self.tables.reading(session):
            game = session.game
            if (game is None or game.is_over or not session.is_cpu(game.turn)
                    or session.level(game.turn) != "hard" or game.pending not in SEARCHED):
                return None
            view = session.view_of(game.turn)
            seed = view.fingerprint() ^ session.serial
        started = time.perf_counter()
        move = await self.thinkers.think(view, seed)
        if move is not None:
            self.tables.metrics.thought("hard", time.perf_counter() - started)
        return None if move is None else (view, move)

    async def _cpu_step(self, session: Session,
                        plan: tuple[SeatView, Move] | None = None) -> bool:
        """One round of computer actions (reactions, then the move if it is a computer's
        turn). True while a computer still has the turn. ``plan``: a hard player's move
        and the view it was searched from, made only if the table still shows that view
        (else, if anything changed it meanwhile, the search is made again)."""
        tables = self.tables
        more = False
        async with tables.change(session) as change:
            game = session.game
            if (game is None or game.is_over or not tables.is_live(session)
                    or session.paused):
                return False
            applied = Applied()
            for p in list(game.players):
                if not session.is_cpu(p) or game.is_over:
                    continue
                reaction = strategy(session.level(p), session.serial).react(game, p)
                if reaction is not None and reaction in game.legal_moves(p):
                    applied.apply(game, reaction)
            mover = game.turn
            replan = plan is not None and (bool(applied.moves) or game.is_over
                                           or session.view_of(mover) != plan[0])
            if not game.is_over and session.is_cpu(game.turn) and not replan:
                started = time.perf_counter()
                applied.extend(self._cpu_move(session, game,
                                              plan[1] if plan is not None else None))
                if plan is None:  # (a hard player's search was timed in _plan)
                    self.tables.metrics.thought(session.level(mover) or "normal",
                                                time.perf_counter() - started)
                session.serial += 1
            if not applied.moves:
                return replan and not game.is_over
            change.moves += applied.entries
            change.took(applied.events)  # (forced draws are shown to everyone, the mover too)
            change.mover = mover
            await change.save()
            # the session's game now: a match's next hand may have replaced this one
            now = session.game
            more = replan or (now is not None and not now.is_over and session.is_cpu(now.turn))
            # Announced now, while another computer move comes: the timer of the next
            # human is armed when the chain ends.
            change.announce = not more
        if more:
            tables.outbox.announce(session, change.lines)
        return more

    @staticmethod
    def _cpu_move(session: Session, game: Game, searched: Move | None = None) -> Applied:
        """The computer player's move (``searched``: a hard player's, if its search still
        holds); if its strategy fails, it lets its time run out (the engine's timeout
        moves), so the game never waits on a broken player."""
        p = game.turn
        try:
            move = searched if searched is not None and searched in game.legal_moves(p) \
                else strategy(session.level(p), session.serial * 7 + 1).choose(game, p)
            if move is None:
                raise RuntimeError("the computer player had no move")
            applied = Applied()
            applied.apply(game, move)
            return applied
        except Exception:
            log.exception("Computer player %s failed in channel %s; it times out instead",
                          p, session.channel_id)
            return timeout_moves(game)
