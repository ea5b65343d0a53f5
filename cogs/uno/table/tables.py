"""The tables of one process and the one way a table changes.

:class:`Tables` holds every lobby and game (a :class:`Session` per channel) and the pipeline
that every change goes through, whoever asks for it (a click, a slash command, the turn
timer, a computer player, a tournament's next round):

    check → apply → save durably → (the caller answers) → announce

written once, in :meth:`Tables.change`::

    async with tables.change(session, mover=pid) as change:   # the game's lock
        ...checks: a Refusal here changes nothing...
        change.apply(move)          # the engine move, its log entry, its lines
        await change.save()         # snapshot + log in one transaction (or the result)
    # the lock is released; what was saved is announced (never what was not)

A change that cannot be saved is not a change: the session goes back to its saved state and
:class:`SaveFailed` says nothing changed. Any other error (a bug) undoes the change too, so
memory never holds what the database doesn't. The lock is never held across a Discord call.

:class:`~cogs.uno.table.service.TableService` builds on this class (moves, leaving, pauses,
restarts) and gives it what comes after a change (``arming``: the turn timer and the
computer players; ``hand_over``: a tournament's hands; ``followers`` are the Discord
layer's); the lobbies, tournaments and autoplay use only its public names.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cogs.uno.table.contracts import (
    Actor,
    Announcer,
    Refusal,
    SaveFailed,
    Store,
    permission_names,
)
from cogs.uno.table.results import next_hand, offer_again, record
from cogs.uno.table.scheduler import Scheduler
from cogs.uno.table.session import Session
from cogs.uno.table.words.events import event_lines
from cogs.uno.table.words.standings import winner_names
from data import DatabaseVanishedError, LogEntry
from engine import Game, Kind, Move
from engine.events import (
    ChallengeResolved,
    Drew,
    Event,
    InstantUno,
    LapKept,
    Played,
    RoundStarted,
)
from engine.replay import move_to_json
from runtime.i18n import _, speaking
from runtime.logs import about
from runtime.metrics import NO_COUNTS, Counts

log = logging.getLogger(__name__)

HandOver = Callable[[Session, Game, list[LogEntry]], Awaitable[None]]
"""Saves a tournament table whose hand just ended (the table, its finished game, the log
entries to save with it; the caller holds the table's lock)."""

PING_AWAY = 45.0
"""Seconds without a move after which a player is mentioned when their turn comes."""
FINISHED_KEPT = 120.0
"""Seconds a channel remembers its game that just finished (it left memory when its result
was recorded): whoever asks for it meanwhile, while its result is on its way to the channel
say, hears that it is over and who won, not that there is no game."""


SEEN = "seen"
"""The key of a logged move's public outcome (``logged``): not part of the replay format,
left out of the replay file (``/uno log export``)."""


def logged(move: Move, events: Sequence[Event]) -> dict[str, Any]:
    """A move's log entry: its replay-format object and, under ``SEEN``, what the table was
    told of its outcome that the move alone does not say, for ``/uno log``: a challenge's
    verdict (``guilty``, who drew how many) and an instant UNO (how many cards went to the
    discard pile). Never a card of a hand (the challenged hand, the kept card)."""
    entry = move_to_json(move)
    seen: dict[str, Any] = {}
    for i, e in enumerate(events):
        if isinstance(e, ChallengeResolved):
            drew = next((d for d in events[i + 1:] if isinstance(d, Drew)), None)
            seen["challenge"] = {"guilty": e.guilty, "against": e.against,
                                 "drawer": drew.player if drew is not None else None,
                                 "drew": drew.count if drew is not None else 0}
        elif isinstance(e, InstantUno):
            seen["instant_uno"] = e.discarded
    if seen:
        entry[SEEN] = seen
    return entry


@dataclass(slots=True)
class Change:
    """One change of one session, made under its lock (:meth:`Tables.change`): the moves it
    applied (for the move log), the lines it will announce, and whether it was saved."""

    tables: Tables
    session: Session
    mover: str | None = None
    """Who acted (None: the bot, a timer): not mentioned when their turn comes."""
    lines: list[str] = field(default_factory=list)
    moves: list[dict[str, Any]] = field(default_factory=list)
    """The replay-format objects of what was applied, logged with the save."""
    header: dict[str, Any] | None = None
    """A new move log's first entry (a game or a hand starts)."""
    saved: bool = False
    discarded: bool = False
    announce: bool = True
    """Whether the saved change is announced (a lobby shows itself)."""

    def apply(self, game: Game, move: Move) -> list[Event]:
        """Apply ``move`` (checked by the engine: an EngineError changes nothing), note it
        for the move log and the announcement; the events it made."""
        events = game.apply(move)
        self.moves.append(logged(move, events))
        self.took(events)
        return events

    def took(self, events: Sequence[Event]) -> None:
        """Events of moves applied otherwise (a timeout's, a leave's): noted and told."""
        self.tables.note_forced_draws(self.session, events, self.mover)
        self.session.observe(list(events))
        self.lines += event_lines(self.session, list(events))

    async def save(self) -> None:
        """Save the session as it is now, with the log entries of the moves applied (or,
        if its game just ended, record the result: the session then leaves memory)."""
        await self.tables.commit(self.session, self.moves, header=self.header)
        self.moves = []
        self.header = None
        self.saved = True

    async def discard(self) -> None:
        """The lobby or game ends without a result: deleted, then forgotten."""
        await self.tables.discard(self.session)
        self.discarded = True


class Tables:
    """Every session of this process, its lookups and checks, and the change pipeline."""

    def __init__(self, store: Store, outbox: Announcer, scheduler: Scheduler, *,
                 time_scale: float = 1.0, cpu_delay: float = 1.5) -> None:
        self.store = store
        self.outbox = outbox
        self.scheduler = scheduler
        self.scale = time_scale
        self.cpu_delay = cpu_delay
        self.sessions: dict[int, Session] = {}
        self.finished: dict[int, tuple[float, Session]] = {}
        """Games that finished with a result, by channel, with when (``time.monotonic``),
        oldest first, for ``FINISHED_KEPT`` seconds (``session``)."""
        self.closing = False
        self.followers: list[Callable[[Session], None]] = []
        """Told of every saved change once it is announced, the session as saved (the
        players' live hand panels follow the game this way)."""
        self.arming: list[Callable[[Session], None]] = []
        """Called after each saved change of a game that goes on, before it is announced:
        what comes next without a click (the owner's turn timer and computer players)."""
        self.metrics: Counts = NO_COUNTS
        """What is counted for /metrics (the bot's, runtime/metrics.py): moves, saves."""
        self.hand_over: HandOver | None = None
        """Saves a tournament table whose hand ended (the owner's tournaments: the hand is
        recorded in its match and saved with the standings); a tournament table cannot be
        saved without it."""

    # ================================================================ lookups and checks
    def session(self, channel_id: int | None) -> Session:
        session = self.sessions.get(channel_id or 0)
        if session is None:
            ended = self.just_finished(channel_id)
            if ended is not None:
                raise self.game_over(ended)
            raise Refusal("There is no game in this channel: start one with /uno new.")
        return session

    def just_finished(self, channel_id: int | None) -> Session | None:
        """The channel's game if it finished with a result in the last ``FINISHED_KEPT``
        seconds and nothing opened there since."""
        found = self.finished.get(channel_id or 0)
        if found is None or time.monotonic() - found[0] > FINISHED_KEPT:
            return None
        return found[1]

    def game(self, channel_id: int | None, actor: Actor, gid: str | None = None
             ) -> tuple[Session, Game]:
        """The running game of the channel, for one of its players."""
        session = self.session(channel_id)
        if gid is not None and session.game_id != gid:
            raise Refusal("That game has ended: use the newest message.")
        game = session.game
        if session.tables:
            raise Refusal("The tournament plays in its threads: {threads}.",
                          threads=", ".join(f"<#{t}>" for t in session.tables))
        if game is None:
            raise Refusal("The game hasn't started yet.")
        if game.is_over and session.tournament_of is not None:
            raise Refusal("This hand is over: the next one starts when the other table "
                          "finishes its hand.")
        if game.is_over:
            raise self.game_over(session)
        self.need_player(session, actor)
        return session, game

    @staticmethod
    def game_over(session: Session) -> Refusal:
        """What an action on ``session``'s finished game is answered: that it is over and,
        when it has winners, who won."""
        game = session.game
        if (game is not None and game.is_over and session.tournament_of is None
                and (game.winners or session.match is not None)):
            return Refusal("The game is over: {names} won.",
                           names=functools.partial(winner_names, session))
        return Refusal("The game is over.")

    @staticmethod
    def need_player(session: Session, actor: Actor) -> str:
        if not session.is_seated(actor.id):
            raise Refusal("You're not playing in this game.")
        return actor.id

    @staticmethod
    def need_host(session: Session, actor: Actor) -> None:
        if actor.id != session.host_id and not actor.admin:
            raise Refusal("Only the host or a member with Manage Server can do that.")

    @staticmethod
    def need_permissions(actor: Actor) -> None:
        if actor.missing:
            names = permission_names(actor.missing)
            raise Refusal("I can't post in this channel (missing: {perms}): ask a server "
                          "admin to give me these permissions here, then try again.",
                          perms=names)

    def is_live(self, session: Session) -> bool:
        """Whether ``session`` is still its channel's lobby or game."""
        return self.sessions.get(session.channel_id) is session

    # ================================================================ the pipeline
    @contextlib.asynccontextmanager
    async def reading(self, session: Session) -> AsyncIterator[None]:
        """Read a session as it was last saved: a change holds the lock until it is saved
        or undone, so a reader that waits for the lock never sees a change that may not
        happen (a hand, the table). Held only while reading, never across Discord I/O."""
        async with session.lock:
            yield

    @contextlib.asynccontextmanager
    async def change(self, session: Session, *, mover: str | None = None,
                     announce: bool = True) -> AsyncIterator[Change]:
        """Change ``session`` under its lock (see the module's docstring). Once the lock is
        released, a change that was saved or discarded is announced (``after``), unless
        ``announce`` is off (a lobby shows itself)."""
        change = Change(self, session, mover, announce=announce)
        try:
            async with self.changing(session):
                yield change
        finally:
            # (also when the body failed after its save: what was saved is announced)
            if change.announce and (change.saved or change.discarded):
                self.after(session, change.lines, mover=change.mover)

    @contextlib.asynccontextmanager
    async def changing(self, session: Session) -> AsyncIterator[None]:
        """Hold the session's lock for a change. A refusal comes before any change; a save
        that failed has undone its change already; any other error (a bug) undoes it here,
        so memory never holds a change the database doesn't. (:meth:`change` is this with
        the change's bookkeeping; this alone is for what saves in its own way: a
        tournament's start, three sessions in one transaction, and a paused game's resume
        found by a read; docs/architecture.md, "The pipeline".)"""
        async with session.lock:
            if self.closing:
                raise Refusal("The bot is restarting: try again in a moment.")
            try:
                # public text in its language; every log line meanwhile names the game
                with speaking(session.options.language), about(game=session.game_id):
                    yield
            except Refusal:
                raise
            except Exception:
                if session.saved is not None:
                    session.load(session.saved)
                raise

    def _entries(self, session: Session, moves: Sequence[dict[str, Any]]) -> list[LogEntry]:
        """Log entries for ``moves`` (replay-format objects), numbered after the last one."""
        if session.log_seq < 0 or not moves:
            return []
        now = int(time.time())
        entries = []
        for move in moves:
            session.log_seq += 1
            entries.append(session.log_entry(session.log_seq, move, now))
        return entries

    async def commit(self, session: Session, moves: Sequence[dict[str, Any]] = (),
                     *, header: dict[str, Any] | None = None) -> None:
        """Write the session as it is now in memory (the caller holds its lock), with the
        log entries of ``moves``; if its game just ended, record the result instead, and the
        session leaves memory. On any failure the session goes back to what was saved
        before and SaveFailed is raised: the change did not happen."""
        previous_seq = session.log_seq
        entries: list[LogEntry] = []
        if header is not None:
            session.log_seq = 0
            entries.append(session.log_entry(0, header))
        entries += self._entries(session, moves)
        game = session.game
        try:
            if game is not None and game.is_over and session.tournament_of is not None:
                if self.hand_over is None:
                    raise RuntimeError("a tournament table, but no hand_over to save it")
                await self.hand_over(session, game, entries)
                self.counted(moves)
                return
            if game is not None and game.is_over and session.match is not None:
                entries += next_hand(session, game)
                game = session.game
            if game is not None and game.is_over:
                await record(self.store, session, game, entries)
                self.counted(moves)
                self.release(session)
                await offer_again(self.store, session)
                return
            text = session.to_json()
            await self.store.save_game(session.row(text), entries)
        except Exception as exc:
            self.metrics.saved(False)
            # A vanished database file is reported once by the database itself.
            reason = type(exc).__name__ if isinstance(exc, DatabaseVanishedError) else exc
            log.warning("Saving the game in channel %s failed (%s); the change is undone",
                        session.channel_id, reason)
            session.log_seq = previous_seq
            if session.saved is not None:
                session.load(session.saved)
            raise SaveFailed("The game couldn't be saved, so nothing changed: try again in "
                             "a moment.") from exc
        session.saved = text
        self.counted(moves)

    def counted(self, moves: Sequence[dict[str, Any]]) -> None:
        """A save written, with ``moves`` (for /metrics)."""
        self.metrics.saved(True)
        if moves:
            self.metrics.moved(len(moves))

    def release(self, session: Session) -> None:
        """The session leaves memory (its record is already gone or recorded)."""
        self.scheduler.cancel(session.channel_id)
        if self.is_live(session):
            del self.sessions[session.channel_id]
            # (a game that finished before it is forgotten: this one came after it)
            self.finished.pop(session.channel_id, None)
            game = session.game
            if game is not None and game.is_over and session.recorded:
                self._remember(session)

    def _remember(self, session: Session) -> None:
        """``session``'s game finished with a result: its channel remembers it a while."""
        now = time.monotonic()
        self.finished[session.channel_id] = (now, session)
        while self.finished:
            oldest = next(iter(self.finished.values()))
            if now - oldest[0] <= FINISHED_KEPT:
                break
            del self.finished[oldest[1].channel_id]

    async def discard(self, session: Session) -> None:
        """A game or lobby ends without a result (cancelled, ended, abandoned): deleted,
        then released; the caller holds the lock. If the database can't delete it, nothing
        changes (SaveFailed)."""
        try:
            await self.store.delete_game(session.channel_id)
        except Exception as exc:
            log.warning("Deleting the game in channel %s failed (%s)", session.channel_id, exc)
            if session.saved is not None:
                session.load(session.saved)
            raise SaveFailed("The game couldn't be saved, so nothing changed: try again in "
                             "a moment.") from exc
        self.release(session)
        self.tell_followers(session)  # (a game ended early: the panels say it is over)
        if not session.started:
            self.outbox.close_message(session, session.lobby_message_id)

    def tell_followers(self, session: Session) -> None:
        """``session`` as saved, after a change or its end, to each follower."""
        for follow in self.followers:
            try:
                follow(session)
            except Exception:
                log.exception("Following a change in channel %s failed", session.channel_id)

    def after(self, session: Session, lines: Sequence[str], *, mover: str | None) -> None:
        """After a saved change: arm what comes next and announce it."""
        self.tell_followers(session)
        game = session.game
        if game is None or not self.is_live(session):
            # a game that ended with a result: its final scores, their picture, Play again
            ended = (game is not None and game.is_over and session.recorded
                     and session.tournament_of is None)
            self.outbox.announce(session, [*lines, *session.news], table=False, result=ended)
            session.news.clear()
            return
        for arm in self.arming:
            arm(session)
        mention = None
        now = time.monotonic()
        if mover is not None:
            session.last_acted[mover] = now
        for pid in game.players:
            # a player's clock starts when the game does (or this process restored it): a
            # first turn is not "away", so it mentions nobody
            session.last_acted.setdefault(pid, now)
        if (not game.is_over and session.options.mention_turn
                and not session.is_cpu(game.turn) and game.turn.isdigit()
                and game.turn != mover and session.notified_serial != session.serial
                and now - session.last_acted.get(game.turn, -1e9) >= PING_AWAY * self.scale):
            # One mention per turn, and only for a player who has not acted for a while:
            # someone playing along sees the table change; a mention is for who stepped away.
            mention = game.turn
            session.notified_serial = session.serial
        # A new round (or hand) gets a new table, so the last one's result stays in the
        # channel.
        shown = (session.game_id, game.round_number)
        fresh = session.announced_round not in (None, shown)
        session.announced_round = shown
        lines = [*lines, *session.news]
        session.news.clear()
        self.outbox.announce(session, lines, mention=mention, fresh=fresh, lasting=fresh)

    # ================================================================ what players were told
    @staticmethod
    def note_forced_draws(session: Session, events: Sequence[Event], mover: str | None
                          ) -> None:
        """Cards a player was made to draw (a draw card, a catch, a challenge) are shown to
        them privately at their next interaction."""
        for e in events:
            if isinstance(e, RoundStarted):
                session.unseen.clear()  # new hands: what was drawn before is gone
                session.lap_changed.clear()
            elif isinstance(e, Played) and e.card.kind is Kind.VICTORY_LAP:
                # The hands travel: cards drawn unseen now lie in someone else's hand.
                session.unseen.clear()
            elif isinstance(e, LapKept) and session.game is not None:
                Tables.note_lap_kept(session, e, len(session.game.players))
            elif isinstance(e, Drew) and e.count and e.player != mover:
                session.unseen.setdefault(e.player, []).extend(c.code for c in e.cards)

    @staticmethod
    def note_lap_kept(session: Session, e: LapKept, seated: int) -> None:
        """A Victory Lap was kept among ``seated`` players: every other player still seated
        is told once that their hand changed (unless the hands went all the way round)."""
        session.unseen.clear()
        game = session.game
        if game is None or not e.step % max(1, seated):
            return
        for p in game.players:
            if p != e.player and not session.is_cpu(p):
                session.lap_changed[p] = e.step

    # ================================================================ leaving
    async def take_out(self, change: Change, player: str) -> bool:
        """``player`` leaves the running game in memory (leave, kick, timeouts; the caller
        holds the lock): what it means is added to the change's lines. True if the game
        was discarded because it can't go on."""
        session = change.session
        game = session.game
        assert game is not None
        seated = len(game.players)
        gone = game.remove_player(player)  # a lap under way is kept first (R-LEAVE)
        for e in gone:
            if isinstance(e, LapKept):
                self.note_lap_kept(session, e, seated)
        change.lines += event_lines(session, gone)
        session.unseen.pop(player, None)
        if player in session.stand_ins:  # (a seat kept warm, given up or taken away)
            session.stand_ins.remove(player)
        if session.match is not None:
            # A match's partnerships are fixed for all its hands: it can't go on without
            # every player.
            change.lines.append(_("A rotating partners match needs all four players: it "
                                  "ends here and does not count on the leaderboard."))
            await change.discard()
            return True
        if game.is_over:
            # Won because everyone else left: a walkover is not a win on the leaderboard
            # (and a host can't earn one by kicking).
            session.unranked = True
            change.lines.append(_("The game ends because the other players left; it does "
                                  "not count on the leaderboard."))
        elif not session.humans():
            change.lines.append(_("No human players are left: the game ends."))
            await change.discard()
            return True
        elif player == session.host_id:
            change.lines += self._pass_host(session)
        return False

    @staticmethod
    def _pass_host(session: Session) -> list[str]:
        humans = [p for p in session.humans() if p != session.host_id]
        if not humans:
            return []
        session.host_id = humans[0]
        return [_("{name} is the host now.", name=session.name(humans[0]))]

