"""The table service: every lobby and game of this process, and the one pipeline that every
change goes through, whoever asks for it (a button, a slash command, the turn timer, a
computer player, a leave or a kick):

    check → apply → save durably → (the caller acknowledges) → announce

A change that cannot be saved is not a change: the session goes back to its saved state and
the caller gets a :class:`Refusal` saying nothing changed. A finished game leaves memory only
once its result is recorded. The service knows ids, not Discord objects; it never awaits
Discord (the outbox posts, in the background) and holds a game's lock only around the
change and its database write.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from cogs.i18n import _, speaking
from cogs.uno._autoplay import Autoplay
from cogs.uno._contracts import (
    Actor,
    Announcer,
    EngineRefusal,
    Moved,
    Refusal,
    SaveFailed,
    Stale,
    Store,
    permission_names,
)
from cogs.uno._lobby import Lobbies
from cogs.uno._render import event_lines, hand_banner, match_lines
from cogs.uno._scheduler import Scheduler
from cogs.uno._session import (
    SavedFormatError,
    Session,
)
from cogs.uno._tournament import Tournaments
from data import (
    DatabaseVanishedError,
    GameResult,
    LogEntry,
    PlayerResult,
    SavedGame,
)
from engine import CallUno, Catch, EngineError, Game, Kind, Move
from engine.events import Drew, Event, LapKept, Played, RoundStarted
from engine.replay import leave_to_json, move_to_json, replay_header

log = logging.getLogger(__name__)

IDLE_LIMIT = 30 * 60
"""A game (or lobby) with no human action for this long ends."""
LOG_DAYS = 30
"""A finished game's move log (and so its replay export) is kept this many days."""
PING_AWAY = 45.0
"""Seconds without a move after which a player is mentioned when their turn comes."""
class TableService:
    def __init__(self, store: Store, outbox: Announcer, scheduler: Scheduler, *,
                 time_scale: float = 1.0, cpu_delay: float = 1.5) -> None:
        self.store = store
        self.outbox = outbox
        self.scheduler = scheduler
        self.scale = time_scale
        self.cpu_delay = cpu_delay
        self.sessions: dict[int, Session] = {}
        self.autoplay = Autoplay(self)
        self.tournaments = Tournaments(self)
        self.lobbies = Lobbies(self)
        self.closing = False

    # ================================================================ lookups and checks
    def session(self, channel_id: int | None) -> Session:
        session = self.sessions.get(channel_id or 0)
        if session is None:
            raise Refusal("There is no game in this channel: start one with /uno new.")
        return session

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
            raise Refusal("The game is over.")
        self.need_player(session, actor)
        return session, game

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
    async def _changing(self, session: Session) -> AsyncIterator[None]:
        """Hold the session's lock for a change. A refusal comes before any change; a save
        that failed has undone its change already; any other error (a bug) undoes it here,
        so memory never holds a change the database doesn't."""
        async with session.lock:
            if self.closing:
                raise Refusal("The bot is restarting: try again in a moment.")
            try:
                with speaking(session.options.language):  # public text in its language
                    yield
            except Refusal:
                raise
            except Exception:
                if session.saved is not None:
                    session.load(session.saved)
                raise

    def _saved_game(self, session: Session, text: str) -> SavedGame:
        return SavedGame(channel_id=session.channel_id, guild_id=session.guild_id,
                         game_id=session.game_id, state=text, updated_at=int(time.time()))

    def _entries(self, session: Session, moves: Sequence[dict[str, Any]]) -> list[LogEntry]:
        """Log entries for ``moves`` (replay-format objects), numbered after the last one."""
        if session.log_seq < 0 or not moves:
            return []
        now = int(time.time())
        entries = []
        for move in moves:
            session.log_seq += 1
            entries.append(LogEntry(game_id=session.game_id, guild_id=session.guild_id,
                                    channel_id=session.channel_id, seq=session.log_seq,
                                    entry=json.dumps(move, separators=(",", ":")),
                                    created_at=now))
        return entries

    async def _commit(self, session: Session, moves: Sequence[dict[str, Any]] = (),
                      *, header: dict[str, Any] | None = None) -> None:
        """Write the session as it is now in memory (the caller holds its lock), with the
        log entries of ``moves``; if its game just ended, record the result instead, and the
        session leaves memory. On any failure the session goes back to what was saved
        before and SaveFailed is raised: the change did not happen."""
        previous_seq = session.log_seq
        entries: list[LogEntry] = []
        if header is not None:
            session.log_seq = 0
            entries.append(LogEntry(game_id=session.game_id, guild_id=session.guild_id,
                                    channel_id=session.channel_id, seq=0,
                                    entry=json.dumps(header, separators=(",", ":")),
                                    created_at=int(time.time())))
        entries += self._entries(session, moves)
        game = session.game
        try:
            if game is not None and game.is_over and session.tournament_of is not None:
                await self.tournaments.hand_over(session, game, entries)
                return
            if game is not None and game.is_over and session.match is not None:
                entries += self._next_hand(session, game)
                game = session.game
            if game is not None and game.is_over:
                await self._record(session, game, entries)
                self._forget(session)
                return
            text = session.to_json()
            await self.store.save_game(self._saved_game(session, text), entries)
        except Exception as exc:
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

    def _next_hand(self, session: Session, game: Game) -> list[LogEntry]:
        """A match's hand just ended (the caller holds the lock and saves): it is scored,
        and unless the match is over the next hand is dealt, as a new game with its own
        move log. Returns the new log's header entry."""
        match = session.match
        assert match is not None
        events = match.record_game(match.next_hands()[0], game)
        for p in game.players:
            towers, best = session.tally.get(p, [0, 0])
            session.tally[p] = [towers + game.stats[p].towers_grabbed,
                                max(best, game.stats[p].best_round)]
        session.news += match_lines(session, events)
        if match.is_over:
            return []
        seed = session.hand_seed()
        new = session.next_hand()
        header = {**replay_header(new, seed, {s.id: s.name for s in session.seats}),
                  "game_id": session.game_id}
        start = new.start()
        session.serial += 1
        session.unseen.clear()
        session.timeouts = {}
        session.log_seq = 0
        session.news += [hand_banner(session), *event_lines(session, start)]
        return [LogEntry(game_id=session.game_id, guild_id=session.guild_id,
                         channel_id=session.channel_id, seq=0,
                         entry=json.dumps(header, separators=(",", ":")),
                         created_at=int(time.time()))]

    async def _record(self, session: Session, game: Game, entries: list[LogEntry]) -> None:
        """The finished game's result on the leaderboard, its saved game deleted, in one
        transaction (or just deleted when it does not count)."""
        humans = [p for p in game.players if not session.is_cpu(p) and p.isdigit()]
        if session.unranked or not humans:
            # Not counted: the log gets its last moves and the saved game goes, together.
            await self.store.end_game(self._saved_game(session, ""), entries)
            session.recorded = True
            return
        # Points on the leaderboard are points scored; under alternative scoring a total is
        # a penalty (lowest wins), so it adds nothing there.
        standard = game.settings.scoring == "standard"
        match = session.match
        if match is not None:
            # A match counts as one game: each player's total, the hands their partnership
            # won, the towers and best hand over all its hands.
            totals, hands_won = match.totals(), match.hands_won()
            players = tuple(
                PlayerResult(user_id=int(p), score=totals[p], won=p in match.winners,
                             rounds_won=hands_won[p],
                             towers_grabbed=session.tally.get(p, [0, 0])[0],
                             best_round=session.tally.get(p, [0, 0])[1])
                for p in humans)
            rounds, kind = len(match.results), "rotating"
        else:
            players = tuple(
                PlayerResult(
                    user_id=int(p), score=game.scores.get(p, 0) if standard else 0,
                    won=p in game.winners, rounds_won=game.stats[p].rounds_won,
                    towers_grabbed=game.stats[p].towers_grabbed,
                    best_round=game.stats[p].best_round, team=game.team_of(p))
                for p in humans)
            rounds, kind = game.round_number, "partners" if game.teams else "solo"
        result = GameResult(
            game_id=session.game_id, guild_id=session.guild_id, channel_id=session.channel_id,
            edition=game.edition.name, finished_at=int(time.time()), rounds=rounds,
            players=players, kind=kind)
        recorded = await self.store.record_game(result, entries)
        log.info("Game %s in channel %s recorded: %s", session.game_id, session.channel_id,
                 recorded)
        session.recorded = True

    def _forget(self, session: Session) -> None:
        """The session leaves memory (its record is already gone or recorded)."""
        self.scheduler.cancel(session.channel_id)
        if self.is_live(session):
            del self.sessions[session.channel_id]

    async def _drop(self, session: Session) -> None:
        """Forget a game or lobby that ends without a result (cancelled, ended, abandoned);
        the caller holds the lock. If the database can't delete it, nothing changes."""
        try:
            await self.store.delete_game(session.channel_id)
        except Exception as exc:
            log.warning("Deleting the game in channel %s failed (%s)", session.channel_id, exc)
            if session.saved is not None:
                session.load(session.saved)
            raise SaveFailed("The game couldn't be saved, so nothing changed: try again in "
                             "a moment.") from exc
        self._forget(session)
        if not session.started:
            self.outbox.close_message(session, session.lobby_message_id)

    def _after(self, session: Session, lines: Sequence[str], *, mover: str | None) -> None:
        """After a saved change: arm what comes next and announce it."""
        game = session.game
        if game is None or not self.is_live(session):
            self.outbox.announce(session, [*lines, *session.news], table=False)
            session.news.clear()
            return
        self.autoplay.schedule(session)
        mention = None
        now = time.monotonic()
        if mover is not None:
            session.last_acted[mover] = now
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

    # ================================================================ moves
    async def move(self, channel_id: int | None, actor: Actor,
                   make: Callable[[Session, Game, str], Move], *, gid: str | None = None,
                   serial: int | None = None) -> Moved:
        """One move by ``actor``: checked, applied, saved, then announced."""
        session, _game = self.game(channel_id, actor, gid)
        async with self._changing(session):
            game = session.game
            if not self.is_live(session) or game is None or game.is_over:
                raise Refusal("The game is over.")
            pid = self.need_player(session, actor)
            await self._resume_if_paused(session, actor)
            if serial is not None and serial != session.serial:
                raise Stale()
            move = make(session, game, pid)
            try:
                events = game.apply(move)
            except EngineError as exc:
                raise EngineRefusal(exc) from None
            if not isinstance(move, CallUno | Catch):
                session.serial += 1
            session.timeouts[pid] = 0
            session.last_human = time.time()
            self._note_forced_draws(session, events, pid)
            await self._commit(session, [move_to_json(move)])
        self._after(session, event_lines(session, events), mover=pid)
        return Moved(session, game, pid, move, events)

    @staticmethod
    def _note_forced_draws(session: Session, events: Sequence[Event], mover: str | None
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
                TableService._note_lap_kept(session, e, len(session.game.players))
            elif isinstance(e, Drew) and e.count and e.player != mover:
                session.unseen.setdefault(e.player, []).extend(c.code for c in e.cards)

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
    def _no_leaving(session: Session, actor: Actor) -> None:
        if session.tables or session.tournament_of is not None:
            raise Refusal("Nobody leaves a tournament once it has started: the host (or a "
                          "member with Manage Server) can end it with /uno end in its "
                          "channel.")

    @staticmethod
    def _note_lap_kept(session: Session, e: LapKept, seated: int) -> None:
        """A Victory Lap was kept among ``seated`` players: every other player still seated
        is told once that their hand changed (unless the hands went all the way round)."""
        session.unseen.clear()
        game = session.game
        if game is None or not e.step % max(1, seated):
            return
        for p in game.players:
            if p != e.player and not session.is_cpu(p):
                session.lap_changed[p] = e.step

    @staticmethod
    def take_lap_change(session: Session, player: str) -> int | None:
        """How far a Victory Lap moved ``player``'s hand since they last looked (told once;
        saved with the next change, like :meth:`take_unseen`), or None."""
        game = session.game
        if game is not None and game.lap is not None:
            return None  # a new lap is under way: told once it is kept
        return session.lap_changed.pop(player, None)

    async def leave(self, channel_id: int | None, actor: Actor) -> bool:
        """The actor leaves the lobby or the game. True if it was a lobby."""
        session = self.session(channel_id)
        self._no_leaving(session, actor)
        async with self._changing(session):
            if not self.is_live(session):
                raise Refusal("That game has ended.")
            if session.game is None:
                await self.lobbies.leave(session, actor.id, actor)
                return True
            self.need_player(session, actor)
            lines = [_("{name} leaves the game.", name=session.name(actor.id))]
            lines += await self._remove(session, actor.id)
        self._after(session, lines, mover=actor.id)
        return False

    async def kick(self, channel_id: int | None, actor: Actor, target: str, name: str) -> str:
        session = self.session(channel_id)
        self._no_leaving(session, actor)
        async with self._changing(session):
            self.need_host(session, actor)
            if not self.is_live(session):
                raise Refusal("That game has ended.")
            if not session.is_seated(target):
                raise Refusal("{name} is not in this game.", name=name)
            name = session.name(target)
            if session.game is None:
                await self.lobbies.leave(session, target, actor)
                self.outbox.refresh_lobby(session)
                return name
            lines = [_("{name} was removed from the game by {by}.", name=name, by=actor.name)]
            lines += await self._remove(session, target)
        self._after(session, lines, mover=target)
        return name

    async def _remove(self, session: Session, player: str) -> list[str]:
        """Take ``player`` out of the running game and save (the caller holds the lock)."""
        session.serial += 1
        lines, dropped = await self._take_out(session, player)
        if not dropped:
            await self._commit(session, [leave_to_json(player)])
        return lines

    async def _take_out(self, session: Session, player: str) -> tuple[list[str], bool]:
        """``player`` leaves the game in memory (leave, kick, timeouts): the lines to
        announce, and whether the game was dropped because no human is left."""
        game = session.game
        assert game is not None
        seated = len(game.players)
        gone = game.remove_player(player)  # a lap under way is kept first (R-LEAVE)
        for e in gone:
            if isinstance(e, LapKept):
                self._note_lap_kept(session, e, seated)
        lines = event_lines(session, gone)
        session.unseen.pop(player, None)
        if session.match is not None:
            # A match's partnerships are fixed for all its hands: it can't go on without
            # every player.
            lines.append(_("A rotating partners match needs all four players: it ends here "
                           "and does not count on the leaderboard."))
            await self._drop(session)
            return lines, True
        if game.is_over:
            # Won because everyone else left: a walkover is not a win on the leaderboard
            # (and a host can't earn one by kicking).
            session.unranked = True
            lines.append(_("The game ends because the other players left; it does not count "
                           "on the leaderboard."))
        elif not session.humans():
            lines.append(_("No human players are left: the game ends."))
            await self._drop(session)
            return lines, True
        elif player == session.host_id:
            lines += self._pass_host(session)
        return lines, False

    def _pass_host(self, session: Session) -> list[str]:
        humans = [p for p in session.humans() if p != session.host_id]
        if not humans:
            return []
        session.host_id = humans[0]
        return [_("{name} is the host now.", name=session.name(humans[0]))]

    async def end(self, channel_id: int | None, actor: Actor) -> Session:
        """End the game or lobby early (host or Manage Server); it does not count."""
        session = self.session(channel_id)
        if session.tournament_of is not None:
            raise Refusal("A tournament ends from its channel: /uno end in <#{channel}>.",
                          channel=session.tournament_of)
        if session.tables:
            self.need_host(session, actor)
            await self.tournaments.end(session, actor)
        async with self._changing(session):
            self.need_host(session, actor)
            if not self.is_live(session):
                raise Refusal("That game has ended.")
            await self._drop(session)
        if session.tables:
            self.outbox.refresh_lobby(session)
        elif session.started:
            self.outbox.announce(session, [], table=False)
        else:
            self.outbox.close_message(session, session.lobby_message_id)
        return session

    # ================================================================ pauses
    async def _resume_if_paused(self, session: Session, actor: Actor) -> None:
        """A paused game (the bot could not post) goes on once the bot can post again;
        until then every action is answered with what is missing."""
        if session.paused is None:
            return
        self.need_permissions(actor)
        session.paused = None
        session.deadline = None
        session.deadline_serial = -1  # a fresh full time: nobody saw the last prompt
        await self._commit(session)
        self.outbox.reopen(session.channel_id)
        log.info("Game in channel %s resumes: the bot can post again", session.channel_id)
        self.autoplay.schedule(session)
        self.outbox.announce(session, [_("▶️ I can post here again: the game goes on.")])

    async def check_pause(self, channel_id: int | None, actor: Actor) -> None:
        """For read-only actions (My hand): resume a paused game if possible, else say why."""
        session = self.sessions.get(channel_id or 0)
        if session is None or session.paused is None:
            return
        async with self._changing(session):
            if self.is_live(session):
                await self._resume_if_paused(session, actor)

    async def channel_lost(self, channel_id: int, gone: bool) -> None:
        """The outbox could not post: a missing permission pauses the game's timers (until
        someone acts and the bot can post again); a deleted channel ends the game."""
        session = self.sessions.get(channel_id)
        if session is None:
            return
        async with self._changing(session):
            if not self.is_live(session):
                return
            if gone:
                log.warning("Channel %s is gone: its game ends", channel_id)
                try:
                    await self._drop(session)
                except SaveFailed:
                    self._forget(session)
                if session.parent_id is not None:
                    self.outbox.notice(session.parent_id, session.guild_id, [_(
                        "🧵 The thread of {host}'s game is gone, so the game ended; it does "
                        "not count on the leaderboard.", host=session.name(session.host_id))])
                return
            if session.paused is not None:
                return
            log.warning("Can't post in channel %s: its game is paused", channel_id)
            session.paused = "permissions"
            self.scheduler.cancel(channel_id)
            session.deadline = None
            try:
                await self._commit(session)
            except SaveFailed:
                session.paused = "permissions"  # paused in memory all the same

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
                await self._commit(session)
            except SaveFailed:
                log.warning("The table of channel %s is not saved yet: a crash before the "
                            "next move would leave its buttons", session.channel_id)

    async def thread_closed(self, thread_id: int, why: str) -> None:
        """The game's thread was deleted or locked ("deleted", "locked"): the game ends
        (it does not count) and its channel is told."""
        session = self.sessions.get(thread_id)
        if session is None:
            return
        async with self._changing(session):
            if not self.is_live(session):
                return
            log.info("The thread %s of a game was %s: the game ends", thread_id, why)
            try:
                await self._drop(session)
            except SaveFailed:
                self._forget(session)
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
    async def restore(self) -> int:
        """Load every saved game; upgrade old formats; set aside what can't be read."""
        try:
            await self.store.prune_logs(int(time.time()) - LOG_DAYS * 86400)
        except Exception as exc:
            log.warning("Pruning old move logs failed (%s); they stay for now", exc)
        restored = 0
        for saved in await self.store.load_games():
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
                    self._after(session, [_("🔄 The bot restarted: the game goes on.",
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
                await self._drop(orphan)
            except SaveFailed:
                self._forget(orphan)
        log.info("Restored %d saved games", restored)
        return restored

    async def _finish_restored(self, session: Session) -> None:
        """A game saved as finished (its recording was cut short): record it now."""
        game = session.game
        assert game is not None
        try:
            await self._record(session, game, [])
        except Exception as exc:
            log.warning("Recording the finished game in channel %s failed (%s); it stays "
                        "until /uno end", session.channel_id, exc)
            return
        self._forget(session)

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
                async with self._changing(session):
                    if not self.is_live(session):
                        continue
                    await self._drop(session)
            except SaveFailed:
                continue
            self.outbox.announce(session, [_("⌛ No human move for 30 minutes: the game "
                                             "ends.", session.options.language)], table=False)

    async def close(self) -> None:
        """Stop every timer and save each game once more, so the time each player had left
        survives the restart. A change in progress finishes first (its lock is awaited):
        a task is only ever cancelled while it waits, never in the middle of a save."""
        self.closing = True
        for session in list(self.sessions.values()):
            async with session.lock:
                self.scheduler.cancel(session.channel_id)
                if session.game is None or session.game.is_over or not self.is_live(session):
                    continue
                try:
                    await self._commit(session)
                except SaveFailed:
                    log.warning("Could not save the time left in channel %s",
                                session.channel_id)
        await self.tournaments.close()
        await self.scheduler.close()
