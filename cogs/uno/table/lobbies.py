"""The lobbies: open, join, teams, computer players, settings, start.

Every change here goes through the tables' pipeline (:meth:`Tables.change`: the lobby's
lock, one save), like the tournaments' and the autoplay's, but is not announced: a lobby has
no table and shows itself on its own message (the caller's to edit or refresh), but for
Start, whose game is announced.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from functools import partial
from typing import Any

from cogs.uno.table.contracts import Actor, EngineRefusal, Refusal, SaveFailed
from cogs.uno.table.seats import fixed_seats
from cogs.uno.table.session import (
    CPU_PREFIX,
    MAX_CPUS_WITH_ONE_HUMAN,
    MAX_PLAYERS_PARTNERS,
    MODES,
    TEAM_SIZE,
    TOURNAMENT_PLAYERS,
    Options,
    Seat,
    Session,
)
from cogs.uno.table.tables import Change, Tables
from cogs.uno.table.words.cards import edition_title
from cogs.uno.table.words.events import event_lines
from data import GuildSettings
from engine import EngineError, get_edition
from engine.replay import replay_header
from runtime.i18n import Locale, server_language


class Lobbies:
    """The lobbies of one table service."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def open(self, channel_id: int, guild_id: int, actor: Actor, *,
                   parent_id: int | None = None, choices: dict[str, Any] | None = None,
                   seats: list[Seat] | None = None, replies: bool = False) -> Session:
        """A new lobby in the channel (or in a thread of channel ``parent_id``), saved before
        anyone is told it exists; ``seats``: already taken (Play again), the actor's among
        them, else the actor's alone."""
        if self.tables.closing:
            raise Refusal("The bot is restarting: try again in a moment.")
        self.tables.need_permissions(actor)
        if channel_id in self.tables.sessions:
            raise Refusal("A game is already open in this channel: join it, or ask the "
                          "host to end it.")
        defaults = await self.tables.store.get_guild_settings(guild_id)
        # Checked again after the await, and taken in the same step: two /uno new at once
        # make one lobby.
        if channel_id in self.tables.sessions:
            raise Refusal("A game is already open in this channel: join it, or ask the "
                          "host to end it.")
        options = options_from(defaults, actor.guild_locale)
        if choices:
            options = Options.from_dict({**options.to_dict(), **choices})
        session = Session(channel_id=channel_id, guild_id=guild_id, host_id=actor.id,
                          options=options, parent_id=parent_id, replies=replies)
        session.seats = seats or [Seat(actor.id, actor.name)]
        session.cpu_counter = max((int(seat.id.removeprefix(CPU_PREFIX)) for seat in session.seats
                                   if seat.cpu and seat.id.removeprefix(CPU_PREFIX).isdigit()),
                                  default=0)  # the next one added gets a new id
        session.last_human = time.time()
        self.tables.sessions[channel_id] = session
        self.tables.outbox.reopen(channel_id)
        async with self.tables.change(session, mover=actor.id, announce=False) as change:
            try:
                await change.save()
            except SaveFailed:
                self.tables.release(session)
                raise
        return session

    # ------------------------------------------------------------------ the verbs
    # Each is one change of the open lobby by ``actor`` (``gid``: the lobby the button was
    # on), saved and not announced: the lobby shows itself (its message is the caller's).

    async def join(self, channel_id: int | None, actor: Actor, gid: str | None = None
                   ) -> Session:
        """``actor`` takes a seat."""
        async with self._lobby_change(channel_id, actor, gid, joining=True) as change:
            self._join(change.session, actor)
            await self._save(change)
        return change.session

    async def leave(self, channel_id: int | None, actor: Actor, gid: str | None = None
                    ) -> Session:
        """``actor`` leaves their seat; the last person to leave closes the lobby."""
        async with self._lobby_change(channel_id, actor, gid) as change:
            await self.unseat(change, actor.id)
        return change.session

    async def add_cpu(self, channel_id: int | None, actor: Actor, level: str = "normal",
                      gid: str | None = None) -> Session:
        """A computer player of ``level`` (easy, normal, hard) takes a seat."""
        async with self._lobby_change(channel_id, actor, gid) as change:
            self._add_cpu(change.session, actor, level)
            await self._save(change)
        return change.session

    async def remove_cpu(self, channel_id: int | None, actor: Actor, gid: str | None = None
                         ) -> Session:
        """The last computer player seated leaves (host or Manage Server)."""
        async with self._lobby_change(channel_id, actor, gid) as change:
            session = change.session
            self.tables.need_host(session, actor)
            cpus = [seat for seat in session.seats if seat.cpu]
            if not cpus:
                raise Refusal("There is no computer player to remove.")
            session.seats.remove(cpus[-1])
            await self._save(change)
        return session

    async def cancel(self, channel_id: int | None, actor: Actor, gid: str | None = None
                     ) -> Session:
        """The lobby closes, its game never played (host or Manage Server)."""
        async with self._lobby_change(channel_id, actor, gid) as change:
            self.tables.need_host(change.session, actor)
            await change.discard()
        return change.session

    async def choose_team(self, channel_id: int | None, actor: Actor, team: int,
                          gid: str | None = None) -> Session:
        """Partners: ``actor`` takes a place on ``team`` (0, 1, 2), joining if needed."""
        async with self._lobby_change(channel_id, actor, gid) as change:
            self._choose_team(change.session, actor, team)
            await self._save(change)
        return change.session

    async def shuffle_teams(self, channel_id: int | None, actor: Actor,
                            gid: str | None = None) -> Session:
        """Partners: every chosen team is forgotten, the teams are dealt at the start (host
        or Manage Server)."""
        async with self._lobby_change(channel_id, actor, gid) as change:
            session = change.session
            self.tables.need_host(session, actor)
            for seat in session.seats:
                seat.team = None
            await self._save(change)
        return session

    @contextlib.asynccontextmanager
    async def _lobby_change(self, channel_id: int | None, actor: Actor, gid: str | None,
                            *, joining: bool = False) -> AsyncIterator[Change]:
        """A change of the channel's lobby by ``actor``, through the tables' pipeline; under
        its lock, the lobby is still open first."""
        session = self.of(channel_id, actor, gid)
        async with self.tables.change(session, mover=actor.id, announce=False) as change:
            self.still_open(session, actor, joining=joining)
            yield change

    @staticmethod
    async def _save(change: Change) -> None:
        """Save a lobby that a person changed (it is not idle)."""
        change.session.last_human = time.time()
        await change.save()

    def of(self, channel_id: int | None, actor: Actor, gid: str | None) -> Session:
        session = self.tables.session(channel_id)
        if gid is not None and session.game_id != gid:
            raise Refusal("That lobby has closed.")
        return session

    def still_open(self, session: Session, actor: Actor, *, joining: bool = False) -> None:
        """Checked under the lock: the lobby is still open and not started."""
        if not self.tables.is_live(session):
            raise Refusal("That lobby has closed.")
        if session.started:
            if joining:
                raise fixed_seats(session) or Refusal(
                    "The game has already started: /uno join asks for a seat at its next "
                    "round.")
            raise Refusal("The game has already started.")

    def _join(self, session: Session, actor: Actor) -> None:
        if session.seat(actor.id) is not None:
            raise Refusal("You're already in this game.")
        if len(session.seats) >= self._capacity(session):
            raise Refusal("The table is full.")
        session.seats.append(Seat(actor.id, actor.name))

    @staticmethod
    def _capacity(session: Session) -> int:
        if session.options.mode == "tournament":
            return TOURNAMENT_PLAYERS
        return get_edition(session.options.edition).max_players

    def _choose_team(self, session: Session, actor: Actor, team: int) -> None:
        """Partners: the actor takes a place on ``team`` (joining the lobby if needed)."""
        if session.options.mode != "partners":
            raise Refusal("This game has no teams: the host can choose partner play with "
                          "/uno settings mode:partners.")
        if team >= MAX_PLAYERS_PARTNERS // TEAM_SIZE:
            raise Refusal("This button is no longer in use.")
        others = [s for s in session.seats if s.team == team and s.id != actor.id]
        if len(others) >= TEAM_SIZE:
            raise Refusal("Team {n} is full: choose another team.", n=team + 1)
        if session.seat(actor.id) is None:
            self._join(session, actor)
        seat = session.seat(actor.id)
        assert seat is not None
        seat.team = team

    def _add_cpu(self, session: Session, actor: Actor, level: str = "normal") -> Seat:
        if session.seat(actor.id) is None and not actor.admin:
            raise Refusal("Join the game first to add computer players.")
        if len(session.seats) >= self._capacity(session):
            raise Refusal("The table is full.")
        most = (TOURNAMENT_PLAYERS - 1 if session.options.mode == "tournament"
                else MAX_CPUS_WITH_ONE_HUMAN)
        if sum(1 for s in session.seats if s.cpu) >= most:
            raise Refusal("A game can have at most {n} computer players.", n=most)
        return session.add_cpu(level)

    async def unseat(self, change: Change, player: str) -> None:
        """``player`` leaves the lobby of ``change`` (leave, kick), saved; an empty lobby
        closes."""
        session = change.session
        seat = session.seat(player)
        if seat is None:
            raise Refusal("You're not in this game.")
        session.seats.remove(seat)
        if not session.humans():
            await change.discard()
            return
        if player == session.host_id:
            session.host_id = session.humans()[0]
        await self._save(change)

    async def start(self, channel_id: int | None, actor: Actor, gid: str | None = None
                    ) -> Session:
        """Start the lobby's game (host or Manage Server), saved before it is announced."""
        session = self.of(channel_id, actor, gid)
        async with self.tables.change(session) as change:
            self.still_open(session, actor)
            self.tables.need_host(session, actor)
            self.tables.need_permissions(actor)
            if session.options.mode == "tournament":
                raise Refusal("This is a tournament sign-up: its Start button opens the "
                              "tables.")
            edition = get_edition(session.options.edition)
            if len(session.seats) < edition.min_players:
                raise Refusal("At least {n} players are needed: invite someone or add a "
                              "computer player.", n=edition.min_players)
            if len(session.seats) > edition.max_players:
                raise Refusal("{edition} takes at most {n} players.",
                              edition=partial(edition_title, edition.name),
                              n=edition.max_players)
            self._check_mode(session)
            session.paused = None
            try:
                game = session.start_game()
            except EngineError as exc:
                session.match = None
                raise EngineRefusal(exc) from None
            # The replay file's start: the seats before start() may shuffle them.
            header = {**replay_header(game, session.seed, {s.id: s.name for s in session.seats}),
                      "game_id": session.game_id}
            change.header = header
            change.lines += event_lines(session, game.start())
            session.serial += 1
            session.last_human = time.time()
            await change.save()
            self.tables.outbox.close_message(session, session.lobby_message_id)
        return session

    @staticmethod
    def _check_mode(session: Session) -> None:
        """What partner play and the rotating match need from the lobby (sheet 004)."""
        n = len(session.seats)
        mode = session.options.mode
        if mode == "partners" and n not in (4, 6):
            raise Refusal("Partner play needs 4 or 6 players (partners sit across the "
                          "table), not {n}.", n=n)
        if mode == "partners" and any(s.team is not None and s.team >= n // TEAM_SIZE
                                      for s in session.seats):
            raise Refusal("Team 3 is for six players: its players choose Team 1 or 2, or "
                          "two more players join.")
        if mode == "rotating" and n != 4:
            raise Refusal("A rotating partners match needs exactly 4 players, not {n}.", n=n)

    async def configure(self, channel_id: int, actor: Actor, changes: dict[str, Any]
                        ) -> Session:
        """Change the lobby's settings (host or Manage Server) and show them on it."""
        session = self.tables.session(channel_id)
        if session.started:
            raise Refusal("Settings can't change once the game has started.")
        async with self.tables.change(session, mover=actor.id, announce=False) as change:
            self.tables.need_host(session, actor)
            if session.started or not self.tables.is_live(session):
                raise Refusal("Settings can't change once the game has started.")
            new = Options.from_dict({**session.options.to_dict(), **changes})
            if (session.options.mode == "tournament") != (new.mode == "tournament"):
                raise Refusal("A tournament sign-up stays a tournament: cancel it and open "
                              "a lobby with /uno new instead.")
            if new.mode not in (*MODES, "tournament"):
                raise Refusal("The mode must be solo, partners or rotating.")
            if new.mode == "rotating" and (new.scoring != "standard" or new.shuffle_seats):
                raise Refusal("A rotating partners match uses standard scoring and seats "
                              "its players itself: set scoring:standard and "
                              "shuffle_seats:False.")
            try:
                new.engine_settings()
            except EngineError as exc:
                raise EngineRefusal(exc) from None
            if len(session.seats) > get_edition(new.edition).max_players:
                raise Refusal("Too many seats for that edition.")
            session.options = new
            await change.save()
        self.tables.outbox.refresh_lobby(session)
        return session

    async def set_message(self, session: Session, *, lobby: int | None,
                          shown: str | None) -> None:
        """Remember the lobby's message (it is edited when the lobby changes). ``shown``:
        the saved lobby the message was drawn from (``session.saved`` then); a change saved
        since (a setting changed while the message was on its way) is shown on it now."""
        async with self.tables.change(session, announce=False) as change:
            if not self.tables.is_live(session) or session.started:
                return
            behind = session.saved != shown
            old = session.lobby_message_id
            session.lobby_message_id = lobby
            try:
                await change.save()
            except SaveFailed:
                return
        if old is not None and old != lobby:
            self.tables.outbox.close_message(session, old)
        if behind:
            self.tables.outbox.refresh_lobby(session)


def options_from(settings: GuildSettings, guild_locale: Locale = None) -> Options:
    """A new game's options from the server's settings; its language is the server's choice,
    or else the server's Discord locale."""
    return Options(language=server_language(settings.language, guild_locale),
                   edition=settings.edition, target=settings.target, scoring=settings.scoring,
                   grab2_points=settings.grab2_points, turn_timer=settings.turn_timer,
                   mention_turn=settings.mention_turn, shuffle_seats=settings.shuffle_seats,
                   missed_turns=settings.missed_turns)
