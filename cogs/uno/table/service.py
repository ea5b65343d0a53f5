"""The table service: the verbs of the Discord layer on top of the tables and their change
pipeline (:mod:`cogs.uno.table.tables`): a player's move, leaving and kicking, ending,
pauses when the bot can't post, restoring every saved game after a restart, the idle sweep
and a clean shutdown. Its parts: the lobbies, the tournaments and the autoplay (the turn
timer and the computer players), each changing tables only through the pipeline.

The service knows ids, not Discord objects; it never awaits Discord (the outbox posts, in
the background) and holds a game's lock only around the change and its database write.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from cogs.uno.table.again import Again
from cogs.uno.table.autoplay import Autoplay
from cogs.uno.table.contracts import (
    Actor,
    Announcer,
    EngineRefusal,
    Moved,
    Refusal,
    SaveFailed,
    Stale,
    Store,
)
from cogs.uno.table.lobbies import Lobbies
from cogs.uno.table.results import record
from cogs.uno.table.scheduler import Scheduler
from cogs.uno.table.seats import Seats, keep_warm
from cogs.uno.table.session import SavedFormatError, Session
from cogs.uno.table.tables import Change, Tables
from cogs.uno.table.thinking import Thinkers
from cogs.uno.table.tournaments import Tournaments
from data import SavedGame
from engine import CallUno, Catch, EngineError, Game, Move
from engine.replay import leave_to_json
from runtime.i18n import _


def shard_key(saved: SavedGame) -> int:
    """The guild id whose shard serves a saved game: its server's, or, for a game of a
    group DM (no server: it is keyed by its channel, and lives in replies), 0, since
    Discord sends the interactions of DMs to shard 0."""
    if saved.guild_id == saved.channel_id:
        try:
            if json.loads(saved.state).get("replies"):
                return 0
        except (ValueError, AttributeError):
            pass  # (set aside when it is read for good)
    return saved.guild_id

log = logging.getLogger(__name__)

IDLE_LIMIT = 30 * 60
"""A game (or lobby) with no human action for this long ends."""
LOG_DAYS = 30
"""A finished game's move log (and so its replay export) is kept this many days."""
STOP_SAVES = 10.0
"""A stop saves the games' time left for at most this many seconds (compose's grace before
SIGKILL is 20 s); a game past it keeps what was saved with its last move (every move is
saved before it is announced): its player then gets the time they had at that save."""
END_QUESTION = 30.0
"""Seconds within which /uno end's question can be confirmed (never scaled: a person
answers it)."""


class TableService(Tables):
    """Every table of this process and what can be done to them."""

    def __init__(self, store: Store, outbox: Announcer, scheduler: Scheduler, *,
                 time_scale: float = 1.0, cpu_delay: float = 1.5,
                 search_workers: int = 0) -> None:
        super().__init__(store, outbox, scheduler, time_scale=time_scale,
                         cpu_delay=cpu_delay)
        self.autoplay = Autoplay(self, Thinkers(search_workers))
        self.lobbies = Lobbies(self)
        self.tournaments = Tournaments(self, self.lobbies)
        self.again = Again(self, self.lobbies)
        self.seats = Seats(self)
        self.arming.append(self.autoplay.schedule)
        self.hand_over = self.tournaments.hand_over

    # ================================================================ moves
    async def move(self, channel_id: int | None, actor: Actor,
                   make: Callable[[Session, Game, str], Move], *, gid: str | None = None,
                   serial: int | None = None,
                   then: Callable[[Moved], Any] | None = None) -> Moved:
        """One move by ``actor``: checked, applied, saved, then announced. ``make`` builds
        it from the game under the lock (a Refusal there changes nothing); ``then`` reads
        what the mover is answered, under the same lock, right after the save
        (``Moved.shown``): one lock take for the whole click."""
        session, _game = self.game(channel_id, actor, gid)
        async with self.change(session, mover=actor.id) as change:
            game = session.game
            if not self.is_live(session) or game is None or game.is_over:
                raise self.game_over(session)
            pid = self.need_player(session, actor)
            if session.is_standing_in(pid):
                raise Refusal("A computer player keeps your seat warm: take it back first "
                              "(Back to my seat, or /uno join).")
            await self._check_posting(session, actor)
            if serial is not None and serial != session.serial:
                raise Stale()
            move = make(session, game, pid)
            try:
                events = change.apply(game, move)
            except EngineError as exc:
                raise EngineRefusal(exc) from None
            if not isinstance(move, CallUno | Catch):
                session.serial += 1
            session.timeouts[pid] = 0
            session.last_human = time.time()
            await change.save()
            moved = Moved(session, game, pid, move, events)
            if then is not None:
                try:
                    moved.shown = then(moved)
                except Exception:
                    # the move is saved (and is announced): only its answer is lost
                    log.exception("The answer to a move in channel %s failed",
                                  session.channel_id)
        return moved

    def take_unseen(self, session: Session, player: str) -> list[str]:
        """The forced draws ``player`` has not seen yet and still holds (shown once; saved
        with the next change, so a restart before that shows them again)."""
        codes = session.unseen.pop(player, [])
        game = session.game
        if game is None or player not in game.players:
            return []
        held = Counter(c.code for c in game.hand(player))
        shown = []
        for code in codes:
            if held[code] > 0:
                held[code] -= 1
                shown.append(code)
        return shown

    @staticmethod
    def take_lap_change(session: Session, player: str) -> int | None:
        """How far a Victory Lap moved ``player``'s hand since they last looked (told once;
        saved with the next change, like :meth:`take_unseen`), or None."""
        game = session.game
        if game is not None and game.lap is not None:
            return None  # a new lap is under way: told once it is kept
        return session.lap_changed.pop(player, None)


    @staticmethod
    def _no_leaving(session: Session) -> None:
        if session.tables or session.tournament_of is not None:
            raise Refusal("Nobody leaves a tournament once it has started: the host (or a "
                          "member with Manage Server) can end it with /uno end in its "
                          "channel.")

    # ================================================================ leaving, ending
    async def leave(self, channel_id: int | None, actor: Actor) -> bool:
        """The actor leaves the lobby or the game. True if it was a lobby."""
        session = self.session(channel_id)
        self._no_leaving(session)
        async with self.change(session, mover=actor.id) as change:
            if not self.is_live(session):
                raise Refusal("That game has ended.")
            if session.game is None:
                change.announce = False
                await self.lobbies.unseat(change, actor.id)
                return True
            if actor.id in session.game.waiting:
                change.lines.append(_("{name} no longer waits for a seat.",
                                      name=session.name(actor.id)))
                await self.seats.withdraw(change, actor.id)
                return False
            self.need_player(session, actor)
            if (not session.is_standing_in(actor.id) and session.tournament_of is None
                    and not session.game.is_over and keep_warm(change, actor.id, "left")):
                await change.save()
                return False
            change.lines.append(_("{name} leaves the game.", name=session.name(actor.id)))
            await self._remove(change, actor.id)
        return False

    async def kick(self, channel_id: int | None, actor: Actor, target: str, name: str) -> str:
        session = self.session(channel_id)
        self._no_leaving(session)
        async with self.change(session, mover=target) as change:
            self.need_host(session, actor)
            if not self.is_live(session):
                raise Refusal("That game has ended.")
            if session.game is not None and target in session.game.waiting:
                # the host refuses a seat asked for while the game runs
                change.lines.append(_("{by} turned down {name}'s request for a seat.",
                                      name=session.name(target), by=actor.name))
                name = session.name(target)
                await self.seats.withdraw(change, target)
                return name
            if not session.is_seated(target):
                raise Refusal("{name} is not in this game.", name=name)
            name = session.name(target)
            if session.game is None:
                change.announce = False
                await self.lobbies.unseat(change, target)
                self.outbox.refresh_lobby(session)
                return name
            change.lines.append(_("{name} was removed from the game by {by}.", name=name,
                                  by=actor.name))
            await self._remove(change, target)
        return name

    async def _remove(self, change: Change, player: str) -> None:
        """Take ``player`` out of the running game and save (the caller holds the lock)."""
        change.session.serial += 1
        if not await self.take_out(change, player):
            change.moves.append(leave_to_json(player))
            await change.save()

    async def ask_end(self, channel_id: int | None, actor: Actor, *, now: float | None = None
                      ) -> tuple[Session, int]:
        """/uno end asks first: whether ``actor`` may end the channel's game or lobby (the
        host or Manage Server), and until when (milliseconds since the epoch) the question
        can be confirmed. Nothing ends here; the question is saved as the open one
        (``Session.end_asked``), replacing any before it."""
        session = self.session(channel_id)
        self._ends_here(session)
        self.need_host(session, actor)
        until = int(((time.time() if now is None else now) + END_QUESTION) * 1000)
        async with self.change(session, announce=False) as change:
            self.need_host(session, actor)
            if not self.is_live(session):
                raise Refusal("That game has ended.")
            session.end_asked = until
            await change.save()
        return session, until

    def answer_end(self, channel_id: int | None, actor: Actor, gid: str, until: int, *,
                   now: float | None = None) -> Session:
        """Checks for an answer to /uno end's question (Confirm or Cancel; ``until`` in
        milliseconds, from its buttons): asked in time, about the game that still runs, by
        the host or a member with Manage Server. Whether it is still the open question is
        checked with the answer's change (``end``, ``cancel_end``)."""
        if (time.time() if now is None else now) * 1000 > until:
            raise Refusal("This question has expired and nothing was ended: use /uno end "
                          "again.")
        session = self.session(channel_id)
        if session.game_id != gid:
            raise Refusal("That game has ended: use the newest message.")
        self.need_host(session, actor)
        return session

    @staticmethod
    def _open_question(session: Session, question: int) -> None:
        """``question`` (an expiry, from its buttons) is the channel's open /uno end
        question: not cancelled, not replaced by a newer one."""
        if session.end_asked is None:
            raise Refusal("That question was cancelled: nothing was ended.")
        if session.end_asked != question:
            raise Refusal("A newer /uno end question replaced that one: nothing was ended.")

    async def cancel_end(self, channel_id: int | None, actor: Actor, question: int
                         ) -> Session:
        """Cancel on /uno end's open question: it is closed for good (saved), so no
        Confirm on it, late or from a copy of the message, ends anything."""
        session = self.session(channel_id)
        async with self.change(session, announce=False) as change:
            self.need_host(session, actor)
            if not self.is_live(session):
                raise Refusal("That game has ended.")
            self._open_question(session, question)
            session.end_asked = None
            await change.save()
        return session

    @staticmethod
    def _ends_here(session: Session) -> None:
        if session.tournament_of is not None:
            raise Refusal("A tournament ends from its channel: /uno end in <#{channel}>.",
                          channel=session.tournament_of)

    async def end(self, channel_id: int | None, actor: Actor, *, question: int | None = None
                  ) -> Session:
        """End the game or lobby early (host or Manage Server; /uno end's question was
        confirmed: ``question``, its expiry, must still be the open one); it does not
        count."""
        session = self.session(channel_id)
        self._ends_here(session)
        if session.tables:
            self.need_host(session, actor)
            if question is not None:
                self._open_question(session, question)
            await self.tournaments.end(session, actor)
        async with self.change(session, announce=False) as change:
            self.need_host(session, actor)
            if not self.is_live(session):
                raise Refusal("That game has ended.")
            if question is not None and not session.tables:
                self._open_question(session, question)
            await change.discard()
        if session.tables:
            self.outbox.refresh_lobby(session)
        elif session.started:
            self.outbox.announce(session, [], table=False)
        else:
            self.outbox.close_message(session, session.lobby_message_id)
        return session

    # ================================================================ pauses
    async def _check_posting(self, session: Session, actor: Actor) -> None:
        """Whether the bot can post, as ``actor``'s interaction shows it (its
        ``app_permissions``; the caller holds the lock). A permission missing pauses the
        game at once (its timers stop: nobody runs out of time while the table can't be
        posted) and the action is answered with what is missing, changing nothing else; a
        paused game goes on once an interaction shows the bot can post again, the player
        to act with a full turn."""
        if actor.missing:
            game = session.game
            if session.paused is None and game is not None and not game.is_over:
                await self._pause(session, "an interaction shows a permission missing")
            self.need_permissions(actor)
        if session.paused is None:
            return
        session.paused = None
        session.deadline = None
        session.deadline_serial = -1  # a fresh full time: nobody saw the last prompt
        await self.commit(session)
        self.outbox.reopen(session.channel_id)
        log.info("Game in channel %s resumes: the bot can post again", session.channel_id)
        self.autoplay.schedule(session)
        self.tell_followers(session)  # (the panels no longer say it is paused)
        self.outbox.announce(session, [_("▶️ I can post here again: the game goes on.")])

    async def _pause(self, session: Session, why: str) -> None:
        """The bot can't post in the game's channel: the game pauses, saved (or, if the
        save fails, in memory all the same); the caller holds the lock."""
        log.warning("Can't post in channel %s (%s): its game is paused", session.channel_id,
                    why)
        session.paused = "permissions"
        self.scheduler.cancel(session.channel_id)
        session.deadline = None
        try:
            await self.commit(session)
        except SaveFailed:
            session.paused = "permissions"  # paused in memory all the same
        self.tell_followers(session)  # (the panels say it is paused)

    async def check_pause(self, channel_id: int | None, actor: Actor) -> None:
        """For read-only actions (My hand): pause the game if the interaction shows a
        permission missing, resume a paused one if it shows them back, else say why."""
        session = self.sessions.get(channel_id or 0)
        if session is None or (session.paused is None and not actor.missing):
            return
        async with self.changing(session):
            if self.is_live(session):
                await self._check_posting(session, actor)

    async def channel_lost(self, channel_id: int, gone: bool) -> None:
        """The outbox could not post: a missing permission pauses the game's timers (until
        someone acts and the bot can post again); a deleted channel ends the game."""
        session = self.sessions.get(channel_id)
        if session is None:
            return
        async with self.change(session, announce=False) as change:  # (nothing can be posted)
            if not self.is_live(session):
                return
            if gone:
                log.warning("Channel %s is gone: its game ends", channel_id)
                try:
                    await change.discard()
                except SaveFailed:
                    self.release(session)
                if session.parent_id is not None:
                    self.outbox.notice(session.parent_id, session.guild_id, [_(
                        "🧵 The thread of {host}'s game is gone, so the game ended; it does "
                        "not count on the leaderboard.", host=session.name(session.host_id))])
                return
            if session.paused is not None:
                return
            await self._pause(session, "a write was refused")

    async def table_posted(self, session: Session) -> None:
        """The outbox posted ``session``'s table anew: save its message id now, not at the
        next move, so that after a crash the bot closes this table (takes its buttons off)
        rather than the one before it. Under the lock memory holds nothing unsaved but such
        ids (and the time left), so this saves no change; a failed save is only logged."""
        async with session.lock:
            game = session.game
            if not self.is_live(session) or game is None or game.is_over:
                return
            try:
                await self.commit(session)
            except SaveFailed:
                log.warning("The table of channel %s is not saved yet: a crash before the "
                            "next move would leave its buttons", session.channel_id)

    async def thread_closed(self, thread_id: int, why: str) -> None:
        """The game's thread was deleted or locked ("deleted", "locked"): the game ends
        (it does not count) and its channel is told."""
        session = self.sessions.get(thread_id)
        if session is None:
            return
        async with self.change(session, announce=False) as change:  # (its channel is told)
            if not self.is_live(session):
                return
            log.info("The thread %s of a game was %s: the game ends", thread_id, why)
            try:
                await change.discard()
            except SaveFailed:
                self.release(session)
        if session.parent_id is not None:
            language = session.options.language
            text = (_("🧵 The thread of {host}'s game was deleted, so the game ended; it does "
                      "not count on the leaderboard.", language,
                      host=session.name(session.host_id))
                    if why == "deleted" else
                    _("🧵 The thread of {host}'s game was locked, so the game ended; it does "
                      "not count on the leaderboard.", language,
                      host=session.name(session.host_id)))
            self.outbox.notice(session.parent_id, session.guild_id, [text])

    # ================================================================ life cycle
    async def restore(self, owns: Callable[[int], bool] | None = None, *,
                      prune: bool = True,
                      shards: tuple[int, Sequence[int]] | None = None) -> int:
        """Load every saved game of this process's servers (``owns``: all when None; the
        other processes of a fleet restore theirs; ``shards``, ``(shard_count, shard_ids)``:
        the database reads only those shards' games); upgrade old formats; set aside what
        can't be read. ``prune``: also delete the move logs past ``LOG_DAYS`` (the work of
        one process of a fleet)."""
        if prune:
            try:
                await self.store.prune_logs(int(time.time()) - LOG_DAYS * 86400)
            except Exception as exc:
                log.warning("Pruning old move logs failed (%s); they stay for now", exc)
        restored = 0
        loaded = (await self.store.load_games() if shards is None
                  else await self.store.load_games(shards))
        for saved in loaded:
            if owns is not None and not owns(shard_key(saved)):
                continue
            try:
                session = Session.from_json(saved.state)
            except SavedFormatError as exc:
                await self._set_aside(saved, str(exc))
                continue
            session.saved = saved.state
            # The outage is nobody's idleness: the idle limit counts from now.
            session.last_human = time.time()
            self.sessions[session.channel_id] = session
            restored += 1
            game = session.game
            if game is not None and game.is_over and session.tournament_of is None:
                await self._finish_restored(session)
                continue
            if game is not None and not game.is_over and session.paused is None:
                session.notified_serial = -1  # mention the player again after the restart
                try:
                    self.after(session, [_("🔄 The bot restarted: the game goes on.",
                                            session.options.language)],
                                mover=None)
                except Exception:
                    # One damaged game must not stop the others.
                    log.exception("Resuming the game in channel %s failed",
                                  session.channel_id)
        for orphan in self.tournaments.restored():
            log.warning("The table in channel %s lost its tournament: it ends",
                        orphan.channel_id)
            try:
                await self.discard(orphan)
            except SaveFailed:
                self.release(orphan)
        log.info("Restored %d saved games", restored)
        return restored

    async def _finish_restored(self, session: Session) -> None:
        """A game saved as finished (its recording was cut short): record it now."""
        game = session.game
        assert game is not None
        try:
            await record(self.store, session, game, [])
        except Exception as exc:
            log.warning("Recording the finished game in channel %s failed (%s); it stays "
                        "until /uno end", session.channel_id, exc)
            return
        self.release(session)

    async def _set_aside(self, saved: SavedGame, reason: str) -> None:
        log.error("The saved game in channel %s can't be read (%s); it is set aside, not "
                  "deleted", saved.channel_id, reason)
        try:
            await self.store.set_aside_game(saved.channel_id, reason)
        except Exception:
            log.exception("Setting aside the game of channel %s failed; it stays saved",
                          saved.channel_id)
            return
        self.outbox.notice(saved.channel_id, saved.guild_id, [_(
            "⚠️ The game in this channel could not be restored after an update; it was kept "
            "aside for the bot's maintainers. Start a new one with /uno new.")])

    async def sweep_idle(self) -> None:
        """End games (and lobbies) with no human action for 30 minutes."""
        now = time.time()
        for session in list(self.sessions.values()):
            if now - session.last_human < IDLE_LIMIT * self.scale or session.tables \
                    or session.tournament_of is not None:
                # a tournament's hands go on by the turn timer; its host ends it
                continue
            try:
                async with self.change(session) as change:
                    if not self.is_live(session):
                        continue
                    await change.discard()
                    change.lines.append(_("⌛ No human move for 30 minutes: the game ends.",
                                          session.options.language))
            except SaveFailed:
                continue

    async def close(self) -> None:
        """Stop every timer and save each game once more, so the time each player had left
        survives the restart. A change in progress finishes first (its lock is awaited):
        a task is only ever cancelled while it waits, never in the middle of a save."""
        self.closing = True
        until = time.monotonic() + STOP_SAVES
        late = 0
        for session in list(self.sessions.values()):
            async with session.lock:
                self.scheduler.cancel(session.channel_id)
                if session.game is None or session.game.is_over or not self.is_live(session):
                    continue
                if time.monotonic() > until:
                    late += 1
                    continue
                try:
                    await self.commit(session)
                except SaveFailed:
                    log.warning("Could not save the time left in channel %s",
                                session.channel_id)
        if late:
            log.warning("Stopping: the time left of %d games was not saved (past %.0f s); "
                        "their players get the time they had at their last move", late, STOP_SAVES)
        await self.tournaments.close()
        await self.scheduler.close()
        self.autoplay.thinkers.close()
