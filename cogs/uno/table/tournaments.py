"""The multi-table tournament (sheet 004, "Multi-Table Tournaments"; RULES.md R-BOT-TOURNAMENT).

Eight players sign up in a channel (``/uno tournament``); the host's Start opens two
threads, and each plays one table. Three sessions make a tournament:

* the **standings** session, in the channel: the sign-up's seats, the engine's ``Match``
  (schedule and results) and the standings message (the sign-up message, edited);
* two **table** sessions, one per thread, each playing the hand its table has in the
  current round as an ordinary one-round game (its own game id, table, buttons, timers
  and move log).

A table whose hand ends records it in the match and saves itself and the standings in one
transaction; when both hands of a round are recorded, each table deals its next hand (a
deterministic deal: a restart deals it again, the same). The last hand's recording is the
tournament's result on the leaderboard and deletes all three saved sessions, in one
transaction. Locks are always taken table first, then standings.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
import uuid
from typing import Any

from cogs.uno.table.contracts import Actor, EngineRefusal, Refusal, SaveFailed
from cogs.uno.table.lobbies import Lobbies
from cogs.uno.table.session import TOURNAMENT_PLAYERS, Seat, Session
from cogs.uno.table.tables import Tables
from cogs.uno.table.words.events import event_lines
from cogs.uno.table.words.standings import team_name
from data import GameResult, LogEntry, PlayerResult
from engine import EngineError, Game, Match, Settings
from engine.match import Hand, HandScored
from engine.replay import replay_header
from runtime.i18n import _

log = logging.getLogger(__name__)

TABLE_SEED = 7919
ROUND_SEED = 1_000_003


class Tournaments:
    """The tournaments of the tables (their sign-ups are lobbies)."""

    def __init__(self, tables: Tables, lobbies: Lobbies) -> None:
        self.tables = tables
        self.lobbies = lobbies
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ lookups
    def standings_of(self, table: Session) -> Session | None:
        if table.tournament_of is None:
            return None
        found = self.tables.sessions.get(table.tournament_of)
        return found if found is not None and found.tables else None

    def tables_of(self, standings: Session) -> list[Session]:
        return [t for tid in standings.tables
                if (t := self.tables.sessions.get(tid)) is not None]

    # ------------------------------------------------------------------ start
    def check_start(self, channel_id: int, actor: Actor, gid: str | None) -> None:
        """What ``start`` will refuse, checked before the threads are made."""
        tables = self.tables
        session = self.lobbies.of(channel_id, actor, gid)
        self.lobbies.still_open(session, actor)
        tables.need_host(session, actor)
        self._need_eight(session, actor)

    @staticmethod
    def _need_eight(session: Session, actor: Actor) -> None:
        if len(session.seats) != TOURNAMENT_PLAYERS:
            raise Refusal("A tournament needs {n} players (people or computer players), "
                          "not {got}.", n=TOURNAMENT_PLAYERS, got=len(session.seats))

    async def start(self, channel_id: int, actor: Actor, gid: str | None,
                    threads: list[int]) -> Session:
        """Start the sign-up's tournament at two tables (threads ``threads``), saved whole
        before anything is announced."""
        pipeline = self.tables
        session = self.lobbies.of(channel_id, actor, gid)
        async with pipeline.changing(session):
            self.lobbies.still_open(session, actor)
            pipeline.need_host(session, actor)
            self._need_eight(session, actor)
            try:
                match = Match.tournament([s.id for s in session.seats],
                                         hands_per_pairing=session.options.hands_per_pairing,
                                         rng=random.Random(session.seed))
            except EngineError as exc:
                raise EngineRefusal(exc) from None
            session.match = match
            session.tables = list(threads)
            session.last_human = time.time()
            tables: list[tuple[Session, list[str]]] = []
            entries: list[LogEntry] = []
            for k, tid in enumerate(threads):
                table = Session(channel_id=tid, guild_id=session.guild_id,
                                host_id=session.host_id, options=session.options,
                                seats=[Seat(s.id, s.name, s.cpu, level=s.level)
                                       for s in session.seats],
                                parent_id=channel_id, tournament_of=channel_id, table=k,
                                seed=session.seed + TABLE_SEED * (k + 1),
                                last_human=time.time())
                lines, header = self._deal(session, table, match.next_hands()[k])
                entries.append(table.log_entry(0, {**header, "game_id": table.game_id}))
                tables.append((table, lines))
            try:
                await pipeline.store.save_games(
                    [s.row(s.to_json())
                     for s in (session, *(t for t, _lines in tables))], entries)
            except Exception as exc:
                log.warning("Saving the new tournament in channel %s failed (%s)",
                            channel_id, exc)
                if session.saved is not None:
                    session.load(session.saved)
                raise SaveFailed("The tournament couldn't be saved, so it didn't start: "
                                 "try again in a moment.") from exc
            session.saved = session.to_json()
            for table, _lines in tables:
                table.saved = table.to_json()
                pipeline.sessions[table.channel_id] = table
        pipeline.outbox.refresh_lobby(session)
        for table, lines in tables:
            pipeline.after(table, lines, mover=None)
        return session

    def _deal(self, standings: Session, table: Session, hand: Hand
              ) -> tuple[list[str], dict[str, Any]]:
        """Deal ``hand`` at ``table`` (in memory): its lines and its log's header."""
        assert standings.match is not None
        o = standings.options
        seed = table.seed + ROUND_SEED * hand.round
        game = standings.match.new_game(
            hand, edition=o.edition, settings=Settings(target=o.target,
                                                       grab2_points=o.grab2_points),
            seed=seed, names={s.id: s.name for s in table.seats})
        if table.game is not None:
            table.game_id = uuid.uuid4().hex[:12]
        table.game = game
        table.hand_round = hand.round
        header = replay_header(game, seed, {s.id: s.name for s in table.seats})
        events = game.start()
        table.serial += 1
        table.unseen.clear()
        table.timeouts = {}
        table.log_seq = 0
        banner = _("**Tournament round {n} of {total}**, table {t}: {a} against {b}.",
                   n=hand.round + 1, total=len(standings.match.schedule), t=hand.table + 1,
                   a=team_name(table, hand.teams[0]), b=team_name(table, hand.teams[1]))
        return [banner, *event_lines(table, events)], header

    # ------------------------------------------------------------------ a hand ends
    async def hand_over(self, table: Session, game: Game, entries: list[LogEntry]) -> None:
        """``table``'s hand just ended (the caller holds its lock and saves through here):
        record it in the match and save the table and the standings together; the last
        hand records the tournament instead. On failure both go back (SaveFailed)."""
        tables = self.tables
        standings = self.standings_of(table)
        if standings is None or standings.match is None:
            raise SaveFailed("This tournament has ended.")
        async with standings.lock:
            match = standings.match
            hand = match.hand(table.hand_round, table.table)
            try:
                events = match.record_game(hand, game)
            except EngineError:
                log.exception("Recording a tournament hand in channel %s failed",
                              table.channel_id)
                raise
            for p in game.players:
                towers, best = standings.tally.get(p, [0, 0])
                standings.tally[p] = [towers + game.stats[p].towers_grabbed,
                                      max(best, game.stats[p].best_round)]
            table.news += self._hand_lines(table, events)
            try:
                if match.is_over:
                    await self._record(standings, entries)
                else:
                    await tables.store.save_games(
                        [table.row(table.to_json()),
                         standings.row(standings.to_json())], entries)
            except Exception:
                # the caller (Tables.commit) puts the table back and says so
                if standings.saved is not None:
                    standings.load(standings.saved)
                raise
            table.saved = table.to_json()
            standings.saved = standings.to_json()
        tables.outbox.refresh_lobby(standings)
        if match.is_over:
            self._finished(standings, table)
        elif match.current_round is not None and match.current_round > table.hand_round:
            for other in self.tables_of(standings):
                self._later(self.advance(other))
        else:
            table.news.append(_("Waiting for the other table to finish its hand."))

    def _hand_lines(self, table: Session, events: list[Any]) -> list[str]:
        lines = []
        for e in events:
            if isinstance(e, HandScored):
                gained = ", ".join(f"{team_name(table, t)} +{p}"
                                   for t, p in zip(e.teams, e.points, strict=True))
                lines.append(_("This hand is over: {gained}. The standings are in the "
                               "channel.", gained=gained))
        return lines

    async def _record(self, standings: Session, entries: list[LogEntry]) -> None:
        """The tournament's result: one game on the leaderboard for every person in it;
        the three saved sessions deleted in the same transaction."""
        tables = self.tables
        match = standings.match
        assert match is not None
        totals, hands_won = match.totals(), match.hands_won()
        humans = [s.id for s in standings.seats if not s.cpu and s.id.isdigit()]
        result = GameResult(
            game_id=standings.game_id, guild_id=standings.guild_id,
            channel_id=standings.channel_id, edition=standings.options.edition,
            finished_at=int(time.time()), rounds=len(match.results), kind="tournament",
            players=tuple(PlayerResult(user_id=int(p), score=totals[p], won=p in match.winners,
                                       rounds_won=hands_won[p],
                                       towers_grabbed=standings.tally.get(p, [0, 0])[0],
                                       best_round=standings.tally.get(p, [0, 0])[1])
                          for p in humans))
        await tables.store.record_game(result, entries, also_delete=standings.tables)
        standings.recorded = True

    def _finished(self, standings: Session, last: Session) -> None:
        """Every session of the tournament leaves; the channel and the threads are told
        (``last``, the table whose hand ended it, with its own announcement)."""
        tables = self.tables
        match = standings.match
        assert match is not None
        names = ", ".join(standings.name(p) for p in match.winners)
        line = _("🏁 The tournament is over: **{names}** won it. The final standings are in "
                 "the channel.", names=names)
        for table in self.tables_of(standings):
            tables.release(table)
            if table is last:
                table.news.append(line)
            else:
                tables.outbox.announce(table, [line], table=False)
        tables.release(standings)
        tables.outbox.notice(standings.channel_id, standings.guild_id, [_(
            "🏆 **{names}** won the tournament!", names=names)])

    # ------------------------------------------------------------------ the next round
    async def advance(self, table: Session) -> None:
        """Deal ``table``'s hand of the current round if it still plays the last one."""
        tables = self.tables
        try:
            async with tables.change(table) as change:
                standings = self.standings_of(table)
                game = table.game
                if (standings is None or standings.match is None or game is None
                        or not game.is_over or not tables.is_live(table)):
                    return
                async with standings.lock:
                    match = standings.match
                    hands = [h for h in match.next_hands() if h.table == table.table]
                    if not hands or hands[0].round <= table.hand_round:
                        return
                    change.lines, header = self._deal(standings, table, hands[0])
                change.header = {**header, "game_id": table.game_id}
                await change.save()
        except SaveFailed:
            log.warning("Dealing the next tournament hand in channel %s failed; trying "
                        "again in a moment", table.channel_id)
            self._later(self._retry(table))
        except Refusal:
            return

    async def _retry(self, table: Session) -> None:
        await asyncio.sleep(5 * self.tables.scale)
        await self.advance(table)

    def _later(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ restart, end
    def restored(self) -> list[Session]:
        """After a restart: tables whose tournament is gone are returned (to be dropped);
        tables whose round is complete deal their next hand."""
        orphans = []
        for session in list(self.tables.sessions.values()):
            if session.tournament_of is None:
                continue
            if self.standings_of(session) is None:
                orphans.append(session)
            elif session.game is not None and session.game.is_over:
                self._later(self.advance(session))
        return orphans

    async def end(self, standings: Session, actor: Actor) -> None:
        """The host (or Manage Server) ends the tournament: every session goes, uncounted."""
        ended = _("{name} ended the tournament. It does not count on the leaderboard.",
                  name=actor.name)
        for table in self.tables_of(standings):
            async with self.tables.change(table) as change:
                await change.discard()
                change.lines.append(ended)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

