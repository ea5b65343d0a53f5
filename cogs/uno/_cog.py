"""The UNO cog: slash commands and buttons in, engine moves through, messages out.

It owns one lock per game, the turn timers, the computer players' pacing and the order of
Discord calls. Every entry point answers within Discord's 3 seconds; every refusal is one
ephemeral sentence and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands, tasks

from cogs.i18n import Locale, _
from cogs.uno._render import (
    card_count,
    card_label,
    color_name,
    error_text,
    event_lines,
    hand_text,
    lobby_embed,
    pending_text,
    settings_text,
    table_embed,
)
from cogs.uno._rules import rule_pages
from cogs.uno._session import MAX_CPUS_WITH_ONE_HUMAN, Options, Seat, Session
from cogs.uno._views import button, select, view_of
from data import GameResult, GuildSettings, PlayerResult, SavedGame
from engine import (
    Accept,
    CallUno,
    Card,
    Catch,
    Challenge,
    ChooseColor,
    Color,
    Decision,
    Draw,
    EngineError,
    Game,
    HeuristicPlayer,
    Keep,
    Move,
    ParseError,
    Pass,
    Play,
    Tower,
    get_edition,
)
from engine.events import ChallengeResolved, Drew, Event, InstantUno

if TYPE_CHECKING:
    from bot import UnoBot

log = logging.getLogger(__name__)

MAX_MESSAGE = 1900
MIN_POST_GAP = 1.2
"""Seconds between two posts in a channel: Discord allows about five per five seconds."""
WRITES_PER_WINDOW = 5
WRITE_WINDOW = 5.0
"""Discord allows five channel writes (posts and edits alike) per five seconds."""
IDLE_LIMIT = 30 * 60
MAX_TIMEOUTS = 3
PAGE_SIZE = 25
LEADERBOARD_PAGE = 10


class Refusal(Exception):
    """A request that is answered with one ephemeral sentence and changes nothing."""


@dataclass
class _Outbox:
    lines: list[str] = field(default_factory=list)
    task: asyncio.Task[None] | None = None
    last_post: float = 0.0
    writes: deque[float] = field(default_factory=deque)
    """When the last channel writes (posts, edits) completed, oldest first."""


class UnoCog(commands.GroupCog, name="Uno", group_name="uno",
             group_description="Play UNO Power Grab (or classic UNO) in this channel"):
    def __init__(self, bot: UnoBot) -> None:
        self.bot = bot
        self.sessions: dict[int, Session] = {}
        self.timers: dict[int, asyncio.Task[None]] = {}
        self.cpu_tasks: dict[int, asyncio.Task[None]] = {}
        self.outboxes: dict[int, _Outbox] = {}
        self.background: set[asyncio.Task[None]] = set()
        self.pinged: dict[int, tuple[str, int]] = {}
        """The (player, serial) last mentioned per channel: one notification per turn."""
        self.scale = bot.config.time_scale
        self.cpu_delay = bot.config.cpu_delay
        super().__init__()

    # ================================================================== lifecycle
    async def cog_load(self) -> None:
        self.sweeper.change_interval(seconds=max(0.5, 60 * self.scale))
        self.sweeper.start()
        restored = 0
        for saved in await self.bot.db.load_games():
            try:
                session = Session.from_json(saved.state)
                # The outage is nobody's idleness: the idle limit counts from now.
                session.last_human = time.time()
                self.sessions[session.channel_id] = session
                if session.game is not None and not session.game.is_over:
                    self._schedule(session)
                    self._post(session, [_("🔄 The bot restarted: the game goes on.")])
                restored += 1
            except Exception:
                # One damaged record must not take every game down with it.
                log.exception("Saved game in channel %s is damaged; dropping it",
                              saved.channel_id)
                self.sessions.pop(saved.channel_id, None)
                self._cancel_tasks(saved.channel_id)
                await self.bot.db.delete_game(saved.channel_id)
        log.info("Restored %d saved games", restored)

    async def cog_unload(self) -> None:
        self.sweeper.cancel()
        for task in [*self.timers.values(), *self.cpu_tasks.values()]:
            task.cancel()
        for box in self.outboxes.values():
            if box.task is not None:
                box.task.cancel()

    @tasks.loop(seconds=60)
    async def sweeper(self) -> None:
        """End games (and lobbies) with no human move for 30 minutes."""
        now = time.time()
        for session in list(self.sessions.values()):
            if now - session.last_human < IDLE_LIMIT * self.scale:
                continue
            try:
                async with session.lock:
                    if self.sessions.get(session.channel_id) is not session:
                        continue
                    await self._drop(session)
                self._post(session, [_("⌛ No human move for 30 minutes: the game ends.")],
                           table=False)
            except Exception:
                log.exception("Ending the idle game in channel %s failed", session.channel_id)

    # ================================================================== helpers
    def _session(self, interaction: discord.Interaction[Any]) -> Session:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise Refusal(_("UNO games are played in server channels.", interaction.locale))
        session = self.sessions.get(interaction.channel_id)
        if session is None:
            raise Refusal(_("There is no game in this channel: start one with /uno new.",
                            interaction.locale))
        return session

    def _game_session(self, interaction: discord.Interaction[Any], gid: str | None = None
                      ) -> tuple[Session, Game]:
        session = self._session(interaction)
        if gid is not None and session.game_id != gid:
            raise Refusal(_("That game has ended: use the newest message.", interaction.locale))
        if session.game is None:
            raise Refusal(_("The game hasn't started yet.", interaction.locale))
        if session.game.is_over:
            raise Refusal(_("The game is over.", interaction.locale))
        return session, session.game

    @staticmethod
    def _pid(interaction: discord.Interaction[Any]) -> str:
        return str(interaction.user.id)

    @staticmethod
    def _is_admin(interaction: discord.Interaction[Any]) -> bool:
        perms = interaction.permissions
        return bool(perms.manage_guild or perms.administrator)

    def _need_player(self, interaction: discord.Interaction[Any], session: Session) -> str:
        pid = self._pid(interaction)
        if not session.is_seated(pid):
            raise Refusal(_("You're not playing in this game.", interaction.locale))
        return pid

    def _need_host(self, interaction: discord.Interaction[Any], session: Session) -> None:
        if self._pid(interaction) != session.host_id and not self._is_admin(interaction):
            raise Refusal(_("Only the host or a member with Manage Server can do that.",
                            interaction.locale))

    async def _say(self, interaction: discord.Interaction[Any], text: str, *,
                   edit: bool = False, view: discord.ui.View | None = None,
                   embed: discord.Embed | None = None) -> None:
        """Answer privately (or replace the private menu the click came from)."""
        kwargs: dict[str, Any] = {"content": text[:2000]}
        if embed is not None:
            kwargs["embed"] = embed
        if interaction.response.is_done():
            if view is not None:
                kwargs["view"] = view
            await interaction.followup.send(ephemeral=True, **kwargs)
        elif edit:
            await interaction.response.edit_message(view=view, **kwargs)
        else:
            if view is not None:
                kwargs["view"] = view
            await interaction.response.send_message(ephemeral=True, **kwargs)

    async def _save(self, session: Session) -> None:
        await self.bot.db.save_game(SavedGame(
            channel_id=session.channel_id, guild_id=session.guild_id, game_id=session.game_id,
            state=session.to_json(), updated_at=int(time.time())))

    async def _drop(self, session: Session) -> None:
        """Forget a game that ends without a result (cancelled, ended, abandoned)."""
        self._cancel_tasks(session.channel_id)
        self.sessions.pop(session.channel_id, None)
        await self.bot.db.delete_game(session.channel_id)

    def _cancel_tasks(self, channel_id: int) -> None:
        current = asyncio.current_task()
        for tasks_ in (self.timers, self.cpu_tasks):
            task = tasks_.pop(channel_id, None)
            if task is not None and task is not current:
                task.cancel()

    # ================================================================== outbox
    def _post(self, session: Session, lines: Sequence[str], *, table: bool = True) -> None:
        """Queue lines for the channel; posts are gathered and paced."""
        box = self.outboxes.setdefault(session.channel_id, _Outbox())
        box.lines.extend(lines)
        if box.task is None or box.task.done():
            box.task = asyncio.create_task(self._flush(session, box, table))

    async def _flush(self, session: Session, box: _Outbox, table: bool) -> None:
        try:
            wait = box.last_post + MIN_POST_GAP * min(1.0, max(self.scale, 0.05)) - time.time()
            await asyncio.sleep(max(0.05, wait))
            while box.lines:
                lines, box.lines = box.lines, []
                await self._send_lines(session, lines, table)
                box.last_post = time.time()
                if box.lines:
                    await asyncio.sleep(MIN_POST_GAP * min(1.0, max(self.scale, 0.05)))
        except Exception:
            log.exception("Posting to channel %s failed", session.channel_id)

    async def _pace(self, channel_id: int, need: int = 1) -> None:
        """Wait until ``need`` more writes fit in the channel's five-second window."""
        box = self.outboxes.setdefault(channel_id, _Outbox())
        window = WRITE_WINDOW * min(1.0, max(self.scale, 0.05))
        while True:
            now = time.monotonic()
            while box.writes and box.writes[0] <= now - window:
                box.writes.popleft()
            room = WRITES_PER_WINDOW - len(box.writes)
            if room >= need:
                return
            await asyncio.sleep(box.writes[need - room - 1] + window - now + 0.01)

    async def _write(self, channel_id: int, call: Awaitable[Any]) -> Any:
        """One channel write (post or edit), paced to Discord's per-channel limit."""
        await self._pace(channel_id)
        try:
            return await call
        finally:
            box = self.outboxes.setdefault(channel_id, _Outbox())
            box.writes.append(time.monotonic())

    async def _send_lines(self, session: Session, lines: list[str], table: bool) -> None:
        # Room for the usual table post and the edit of the previous one, so the table
        # shows the state as it is when it goes out.
        await self._pace(session.channel_id, 2)
        cid = session.channel_id
        channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        chunks: list[str] = []
        current = ""
        for line in lines:
            line = line[:MAX_MESSAGE]
            if current and len(current) + 1 + len(line) > MAX_MESSAGE:
                chunks.append(current)
                current = line
            else:
                current = f"{current}\n{line}" if current else line
        game = session.game
        live = table and game is not None and not game.is_over and \
            self.sessions.get(session.channel_id) is session
        mention = None
        if live and game is not None and session.options.mention_turn \
                and not session.is_cpu(game.turn):
            mention = game.turn
            current = (current + "\n" if current else "") + self._turn_ping(session, game)
        if current:
            chunks.append(current)
        for chunk in chunks[:-1]:
            await self._write(cid, channel.send(
                chunk, allowed_mentions=discord.AllowedMentions.none()))
        last = chunks[-1] if chunks else None
        if not live:
            if last:
                await self._write(cid, channel.send(
                    last, allowed_mentions=discord.AllowedMentions.none()))
            if session.table_message_id is not None and game is not None:
                # The game is over (or gone): its last table loses its buttons.
                stale = session.table_message_id
                session.table_message_id = None
                with contextlib.suppress(discord.HTTPException):
                    await self._write(cid, channel.get_partial_message(stale).edit(view=None))
            return
        previous = session.table_message_id
        ping = mention is not None and mention.isdigit() and \
            self.pinged.get(cid) != (mention, session.serial)
        if ping and mention is not None:
            self.pinged[cid] = (mention, session.serial)
        message = await self._write(cid, channel.send(
            last, embed=table_embed(session), view=self._table_view(session),
            allowed_mentions=discord.AllowedMentions(
                users=[discord.Object(int(mention))] if ping and mention else [],
                everyone=False, roles=False)))
        session.table_message_id = message.id
        if previous is not None:
            with contextlib.suppress(discord.HTTPException):
                await self._write(cid, channel.get_partial_message(previous).edit(view=None))

    def _turn_ping(self, session: Session, game: Game) -> str:
        who = f"<@{game.turn}>" if game.turn.isdigit() else session.name(game.turn)
        if game.pending is Decision.CHALLENGE:
            return _("{who}: accept or challenge the Wild Draw Four.", who=who)
        if game.pending is Decision.KEEP:
            return _("{who}: choose the card to keep (My hand).", who=who)
        if game.pending is Decision.COLOR:
            return _("{who}: name the starting colour (My hand).", who=who)
        return _("{who}, it's your turn.", who=who)

    def _table_view(self, session: Session) -> discord.ui.View:
        gid = session.game_id
        game = session.game
        items = [
            button(_("My hand"), f"uno:t:hand:{gid}", style=discord.ButtonStyle.primary,
                   emoji="🃏"),
            button(_("Draw"), f"uno:t:draw:{gid}"),
            button(_("UNO!"), f"uno:t:uno:{gid}", style=discord.ButtonStyle.success),
            button(_("Catch"), f"uno:t:catch:{gid}", style=discord.ButtonStyle.danger),
        ]
        if game is not None and game.pending is Decision.CHALLENGE:
            items += [
                button(_("Accept +4"), f"uno:t:accept:{gid}", row=1),
                button(_("Challenge"), f"uno:t:challenge:{gid}",
                       style=discord.ButtonStyle.danger, row=1),
            ]
        return view_of(*items)

    # ================================================================== scheduling
    def _schedule(self, session: Session) -> None:
        """After any change: run computer players or arm the human's turn timer."""
        game = session.game
        cid = session.channel_id
        if game is None or game.is_over or self.sessions.get(cid) is not session:
            self._cancel_tasks(cid)
            return
        cpu_wants = session.is_cpu(game.turn) or any(
            session.is_cpu(p) and HeuristicPlayer(0).react(game, p) is not None
            for p in game.players)
        if cpu_wants:
            task = self.cpu_tasks.get(cid)
            if task is None or task.done():
                self.cpu_tasks[cid] = asyncio.create_task(self._run_cpus(session))
        if session.is_cpu(game.turn):
            timer = self.timers.pop(cid, None)
            if timer is not None and timer is not asyncio.current_task():
                timer.cancel()
            session.deadline = None
            return
        if session.deadline is None or session.deadline_serial != session.serial:
            # A new decision gets the full time; the same decision keeps its deadline
            # (after an UNO call or a catch, or a restart).
            session.deadline = time.time() + session.options.turn_timer * self.scale
            session.deadline_serial = session.serial
        old = self.timers.pop(cid, None)
        if old is not None and old is not asyncio.current_task():
            old.cancel()
        self.timers[cid] = asyncio.create_task(
            self._timer(session, session.serial, session.deadline))

    async def _timer(self, session: Session, serial: int, deadline: float) -> None:
        await asyncio.sleep(max(0.0, deadline - time.time()))
        async with session.lock:
            game = session.game
            if (game is None or game.is_over or session.serial != serial
                    or self.sessions.get(session.channel_id) is not session):
                return
            player = game.turn
            if session.is_cpu(player):
                return
            events = game.apply_timeout()
            session.serial += 1
            count = session.timeouts.get(player, 0) + 1
            session.timeouts[player] = count
            lines = [_("⏰ {name} ran out of time.", name=session.name(player))]
            lines += event_lines(session, events)
            if count >= MAX_TIMEOUTS and not game.is_over and player in game.players:
                lines.append(_("{name} timed out {n} times in a row and leaves the game.",
                               name=session.name(player), n=count))
                lines += await self._remove(session, player)
            await self._after_change(session, lines)

    async def _run_cpus(self, session: Session) -> None:
        try:
            while True:
                await asyncio.sleep(self.cpu_delay)
                async with session.lock:
                    game = session.game
                    if (game is None or game.is_over
                            or self.sessions.get(session.channel_id) is not session):
                        return
                    events: list[Event] = []
                    for p in list(game.players):
                        if not session.is_cpu(p) or game.is_over:
                            continue
                        reaction = HeuristicPlayer(session.serial).react(game, p)
                        if reaction is not None and reaction in game.legal_moves(p):
                            events += game.apply(reaction)
                    acted = bool(events)
                    if not game.is_over and session.is_cpu(game.turn):
                        events += self._cpu_move(session, game)
                        session.serial += 1
                        acted = True
                    if not acted:
                        return
                    lines = event_lines(session, events)
                    more = not game.is_over and session.is_cpu(game.turn)
                    await self._after_change(session, lines, reschedule=not more)
                    if not more:
                        return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("Computer player failed in channel %s", session.channel_id)

    def _cpu_move(self, session: Session, game: Game) -> list[Event]:
        """The computer player's move; if its strategy fails, it lets its time run out
        (the engine's timeout move), so the game never waits on a broken player."""
        p = game.turn
        try:
            move = HeuristicPlayer(session.serial * 7 + 1).choose(game, p)
            if move is None:
                raise RuntimeError("the heuristic player had no move")
            return game.apply(move)
        except Exception:
            log.exception("Computer player %s failed in channel %s; it times out instead",
                          p, session.channel_id)
            return game.apply_timeout()

    async def _persist(self, session: Session) -> None:
        """Save the game, or record it on the leaderboard if it just ended. A game that was
        dropped meanwhile (ended, cancelled, abandoned) is neither saved nor recorded."""
        game = session.game
        assert game is not None
        if self.sessions.get(session.channel_id) is not session:
            return
        if game.is_over:
            await self._finish(session)
        else:
            await self._save(session)

    async def _after_change(self, session: Session, lines: list[str], *,
                            reschedule: bool = True) -> None:
        """Schedule what comes next (so the saved deadline is the current one), save, and
        announce; the game moves on even if saving or a message fails."""
        game = session.game
        assert game is not None
        if reschedule and not game.is_over:
            self._schedule(session)
        try:
            await self._persist(session)
        finally:
            self._post(session, lines)

    async def _finish(self, session: Session) -> None:
        game = session.game
        assert game is not None and game.is_over
        self._cancel_tasks(session.channel_id)
        self.sessions.pop(session.channel_id, None)
        if session.recorded:
            return
        if session.unranked:
            await self.bot.db.delete_game(session.channel_id)
            session.recorded = True
            return
        humans = [p for p in game.players if not session.is_cpu(p) and p.isdigit()]
        # Points on the leaderboard are points scored; under alternative scoring a total is
        # a penalty (lowest wins), so it adds nothing there.
        standard = game.settings.scoring == "standard"
        result = GameResult(
            game_id=session.game_id,
            guild_id=session.guild_id,
            channel_id=session.channel_id,
            edition=game.edition.name,
            finished_at=int(time.time()),
            rounds=game.round_number,
            players=tuple(
                PlayerResult(
                    user_id=int(p),
                    score=game.scores.get(p, 0) if standard else 0,
                    won=p in game.winners,
                    rounds_won=game.stats[p].rounds_won,
                    towers_grabbed=game.stats[p].towers_grabbed,
                    best_round=game.stats[p].best_round,
                )
                for p in humans
            ),
        )
        if result.players:
            recorded = await self.bot.db.record_game(result)
            log.info("Game %s in channel %s recorded: %s", session.game_id,
                     session.channel_id, recorded)
        else:
            await self.bot.db.delete_game(session.channel_id)
        session.recorded = True

    async def _remove(self, session: Session, player: str) -> list[str]:
        """Take ``player`` out of a running game (timeouts, leave, kick)."""
        game = session.game
        assert game is not None
        events = game.remove_player(player)
        session.serial += 1
        lines = event_lines(session, events)
        if game.is_over:
            # Won because everyone else left: a walkover is not a win on the leaderboard
            # (and a host can't earn one by kicking).
            session.unranked = True
            lines.append(_("The game ends because the other players left; it does not count "
                           "on the leaderboard."))
        elif not session.humans():
            lines.append(_("No human players are left: the game ends."))
            await self._drop(session)
        elif player == session.host_id:
            lines += self._pass_host(session)
        return lines

    def _pass_host(self, session: Session) -> list[str]:
        humans = [p for p in session.humans() if p != session.host_id]
        if not humans:
            return []
        session.host_id = humans[0]
        return [_("{name} is the host now.", name=session.name(humans[0]))]

    # ================================================================== moves
    async def _move(self, interaction: discord.Interaction[Any],
                    make: Callable[[Session, Game, str], Move], *, gid: str | None = None,
                    serial: int | None = None, edit: bool = False) -> None:
        """Apply one move for the clicking/commanding user, under the game's lock."""
        session, game = self._game_session(interaction, gid)
        locale = interaction.locale
        async with session.lock:
            if (self.sessions.get(session.channel_id) is not session
                    or session.game is not game or game.is_over):
                raise Refusal(_("The game is over.", locale))
            pid = self._need_player(interaction, session)
            if serial is not None and serial != session.serial:
                raise Refusal(_("This menu is out of date: press My hand for a fresh one.",
                                locale))
            move = make(session, game, pid)
            try:
                events = game.apply(move)
            except EngineError as exc:
                raise Refusal(error_text(exc, locale)) from None
            if not isinstance(move, CallUno | Catch):
                session.serial += 1
            session.timeouts[pid] = 0
            session.last_human = time.time()
            await self._after_change(session, event_lines(session, events))
            text, view = self._private_after(session, game, pid, move, events, locale)
            await self._say(interaction, text, edit=edit, view=view)

    def _private_after(self, session: Session, game: Game, pid: str, move: Move,
                       events: list[Event], locale: Locale) -> tuple[str, discord.ui.View | None]:
        """What only the mover sees after their move (drawn cards, a challenged hand)."""
        notes: list[str] = []
        for e in events:
            if isinstance(e, Drew) and e.player == pid and e.count:
                notes.append(_("You drew {cards}.", locale, cards=hand_text(e.cards, locale)))
            elif isinstance(e, ChallengeResolved) and e.by == pid:
                notes.append(_("{name}'s hand: {cards}", locale, name=session.name(e.against),
                               cards=hand_text(e.hand, locale)))
            elif isinstance(e, InstantUno) and e.player == pid:
                notes.append(_("You kept {card}. Don't forget to call UNO!", locale,
                               card=card_label(e.kept, locale)))
        if not notes:
            notes.append(_("Done.", locale))
        if game.is_over:
            return "\n".join(notes), None
        if game.turn == pid:
            text, view = self._hand_message(session, game, pid, locale)
            return "\n".join(notes) + "\n\n" + text, view
        if len(game.hand(pid)) == 1 and not game.has_called(pid):
            return "\n".join(notes), view_of(
                button(_("UNO!"), f"uno:t:uno:{session.game_id}",
                       style=discord.ButtonStyle.success))
        return "\n".join(notes), None

    # ================================================================== the hand menu
    def _hand_message(self, session: Session, game: Game, pid: str, locale: Locale,
                      page: int = 0) -> tuple[str, discord.ui.View | None]:
        hand = game.hand(pid)
        gid, serial = session.game_id, session.serial
        lines = [_("**Your hand** ({n}): {cards}", locale, n=card_count(len(hand), locale),
                   cards=hand_text(sorted(hand), locale))]
        towers = game.towers_of(pid)
        if towers:
            lines.append(_("Your towers: {towers}", locale,
                           towers=" ".join(f"`{t.value}`" for t in towers)))
        lines.append(_("Top card: {card}{color}", locale, card=card_label(game.top, locale),
                       color=_(" (colour: {c})", locale, c=color_name(game.color, locale))
                       if game.top.is_wild else ""))
        items: list[discord.ui.Item[Any]] = []
        if game.turn != pid:
            lines.append(pending_text(session, game, locale))
        elif game.pending is Decision.PLAY:
            playable = game.playable_cards(pid)
            options: list[discord.SelectOption] = []
            for c in sorted(playable):
                options.append(discord.SelectOption(label=f"{card_label(c, locale)} ({c.code})",
                                                    value=c.code))
                if len(hand) == 2:
                    options.append(discord.SelectOption(
                        label=_("{card} and call UNO!", locale,
                                card=f"{card_label(c, locale)} ({c.code})"),
                        value=f"{c.code}|u"))
            pages = max(1, -(-len(options) // PAGE_SIZE))
            page = min(max(page, 0), pages - 1)
            chunk = options[page * PAGE_SIZE:(page + 1) * PAGE_SIZE]
            if chunk:
                lines.append(_("Your turn: pick a card to play, or draw.", locale))
                items.append(select(f"uno:p:{gid}:{serial}:{page}", chunk,
                                    _("Play a card…", locale)))
            else:
                lines.append(_("Your turn: no card matches, so draw one.", locale))
            items.append(button(_("Draw"), f"uno:d:{gid}:{serial}", row=1))
            if pages > 1:
                items.append(button(_("More cards ({p}/{n})", locale, p=(page + 1) % pages + 1,
                                      n=pages), f"uno:pg:{gid}:{serial}:{(page + 1) % pages}",
                                    row=1))
            if len(hand) == 2 and not game.has_called(pid):
                items.append(button(_("UNO!"), f"uno:t:uno:{gid}",
                                    style=discord.ButtonStyle.success, row=1))
        elif game.pending is Decision.DRAWN:
            drawn = game.drawn_card
            assert drawn is not None
            lines.append(_("You drew {card}: play it or keep it.", locale,
                           card=card_label(drawn, locale)))
            items += [
                button(_("Play it"), f"uno:dp:{gid}:{serial}",
                       style=discord.ButtonStyle.primary),
                button(_("Keep it"), f"uno:dk:{gid}:{serial}"),
            ]
            if len(hand) == 2 and not game.has_called(pid):
                items.append(button(_("Play it and call UNO!"), f"uno:dpu:{gid}:{serial}",
                                    style=discord.ButtonStyle.success))
            if len(hand) == 2 and not game.has_called(pid):
                items.append(button(_("UNO!"), f"uno:t:uno:{gid}",
                                    style=discord.ButtonStyle.success))
        elif game.pending is Decision.COLOR:
            lines.append(_("The first card is wild: name the starting colour.", locale))
            items += [button(color_name(c, locale).title(), f"uno:oc:{gid}:{serial}:{c.value}",
                             emoji=_COLOR_EMOJI[c]) for c in Color]
        elif game.pending is Decision.CHALLENGE:
            lines.append(_("{name} played a Wild Draw Four on you: accept it (draw 4) or "
                           "challenge it.", locale,
                           name=session.name(game.challenge_against or "")))
            items += [
                button(_("Accept +4"), f"uno:t:accept:{gid}"),
                button(_("Challenge"), f"uno:t:challenge:{gid}",
                       style=discord.ButtonStyle.danger),
            ]
        elif game.pending is Decision.KEEP:
            lines.append(_("Instant UNO! Choose the one card to keep; the rest go to the "
                           "discard pile.", locale))
            distinct = sorted(dict.fromkeys(hand))[:PAGE_SIZE]
            options = []
            for c in distinct:
                label = f"{card_label(c, locale)} ({c.code})"
                options.append(discord.SelectOption(label=label, value=c.code))
                options.append(discord.SelectOption(
                    label=_("{card} and call UNO!", locale, card=label), value=f"{c.code}|u"))
            items.append(select(f"uno:k:{gid}:{serial}", options[:PAGE_SIZE],
                                _("Card to keep…", locale)))
        if not items and len(hand) == 1 and not game.has_called(pid):
            items.append(button(_("UNO!"), f"uno:t:uno:{gid}", style=discord.ButtonStyle.success))
        return "\n".join(lines), (view_of(*items) if items else None)

    async def _show_hand(self, interaction: discord.Interaction[Any], gid: str | None = None,
                         page: int = 0, *, edit: bool = False) -> None:
        session, game = self._game_session(interaction, gid)
        pid = self._need_player(interaction, session)
        text, view = self._hand_message(session, game, pid, interaction.locale, page)
        await self._say(interaction, text, view=view, edit=edit)

    def _choice_step(self, session: Session, game: Game, pid: str, card: Card, uno: bool,
                     color: Color | None, locale: Locale) -> tuple[str, discord.ui.View] | None:
        """The next question a card needs (colour, towers), or None when complete."""
        gid, serial = session.game_id, session.serial
        u = "1" if uno else "0"
        if card.is_wild and color is None:
            return (_("{card}: pick the colour.", locale, card=card_label(card, locale)),
                    view_of(*[button(color_name(c, locale).title(),
                                     f"uno:c:{gid}:{serial}:{card.code}:{u}:{c.value}",
                                     emoji=_COLOR_EMOJI[c]) for c in Color]))
        need, free = game.tower_choices(pid, card)
        if need:
            col = color.value if color else "-"
            options = [discord.SelectOption(
                label=_("Tower {t}", locale, t=t.value),
                description=_("held by {name}", locale, name=session.name(h))
                if (h := game.towers[t]) else _("in the tray", locale),
                value=t.value) for t in free]
            word = _("one tower", locale) if need == 1 else _("{n} towers", locale, n=need)
            return (_("{card}: pick {word} to grab.", locale, card=card_label(card, locale),
                      word=word),
                    view_of(select(f"uno:tw:{gid}:{serial}:{card.code}:{u}:{col}", options,
                                   _("Towers to grab…", locale), min_values=need,
                                   max_values=need)))
        return None

    async def _play_or_ask(self, interaction: discord.Interaction[Any], gid: str, serial: int,
                           card: Card, uno: bool, color: Color | None,
                           towers: tuple[Tower, ...] | None, *, edit: bool = True) -> None:
        session, game = self._game_session(interaction, gid)
        pid = self._need_player(interaction, session)
        if serial != session.serial:
            raise Refusal(_("This menu is out of date: press My hand for a fresh one.",
                            interaction.locale))
        if towers is None:
            # Check the card itself before asking anything more about it.
            probe = Play(pid, card, color or Color.RED, _any_towers(game, pid, card), uno)
            try:
                game.validate(probe)
            except EngineError as exc:
                raise Refusal(error_text(exc, interaction.locale)) from None
            step = self._choice_step(session, game, pid, card, uno, color, interaction.locale)
            if step is not None:
                await self._say(interaction, step[0], view=step[1], edit=edit)
                return
            towers = ()
        await self._move(interaction, lambda s, g, p: Play(p, card, color, towers, uno),
                         gid=gid, serial=serial, edit=edit)

    # ================================================================== components
    async def on_component(self, interaction: discord.Interaction[Any], custom_id: str,
                           values: list[str]) -> None:
        try:
            await self._route(interaction, custom_id, values)
        except Refusal as exc:
            await self._say(interaction, str(exc))
        except Exception:
            log.exception("Component %s failed", custom_id)
            if not interaction.response.is_done():
                await self._say(interaction, _("Something went wrong; nothing was changed.",
                                               interaction.locale))

    async def _route(self, interaction: discord.Interaction[Any], custom_id: str,
                     values: list[str]) -> None:
        parts = custom_id.split(":")
        kind = parts[1] if len(parts) > 1 else ""
        locale = interaction.locale
        if kind == "l" and len(parts) == 4:
            await self._lobby_button(interaction, parts[2], parts[3])
        elif kind == "t" and len(parts) == 4:
            await self._table_button(interaction, parts[2], parts[3])
        elif kind == "p" and len(parts) == 5 and values:
            code, _sep, flag = values[0].partition("|")
            card = _parse_card(code, locale)
            await self._play_or_ask(interaction, parts[2], int(parts[3]), card, flag == "u",
                                    None, None)
        elif kind == "pg" and len(parts) == 5:
            session = self._session(interaction)
            if int(parts[3]) != session.serial:
                raise Refusal(_("This menu is out of date: press My hand for a fresh one.",
                                locale))
            await self._show_hand(interaction, parts[2], int(parts[4]), edit=True)
        elif kind == "d" and len(parts) == 4:
            await self._move(interaction, lambda s, g, p: Draw(p), gid=parts[2],
                             serial=int(parts[3]), edit=True)
        elif kind in ("dp", "dpu") and len(parts) == 4:
            session, game = self._game_session(interaction, parts[2])
            pid = self._need_player(interaction, session)
            drawn = game.drawn_card
            if game.turn != pid or game.pending is not Decision.DRAWN or drawn is None:
                raise Refusal(_("This menu is out of date: press My hand for a fresh one.",
                                locale))
            uno = kind == "dpu" or (len(game.hand(pid)) == 2 and game.has_called(pid))
            await self._play_or_ask(interaction, parts[2], int(parts[3]), drawn, uno, None, None)
        elif kind == "dk" and len(parts) == 4:
            await self._move(interaction, lambda s, g, p: Pass(p), gid=parts[2],
                             serial=int(parts[3]), edit=True)
        elif kind == "c" and len(parts) == 7:
            card = _parse_card(parts[4], locale)
            await self._play_or_ask(interaction, parts[2], int(parts[3]), card, parts[5] == "1",
                                    Color(parts[6]), None)
        elif kind == "tw" and len(parts) == 7 and values:
            card = _parse_card(parts[4], locale)
            color = None if parts[6] == "-" else Color(parts[6])
            towers = tuple(Tower(v) for v in values)
            await self._play_or_ask(interaction, parts[2], int(parts[3]), card, parts[5] == "1",
                                    color, towers)
        elif kind == "k" and len(parts) == 4 and values:
            code, _sep, flag = values[0].partition("|")
            card = _parse_card(code, locale)
            await self._move(interaction, lambda s, g, p: Keep(p, card, flag == "u"),
                             gid=parts[2], serial=int(parts[3]), edit=True)
        elif kind == "oc" and len(parts) == 5:
            color = Color(parts[4])
            await self._move(interaction, lambda s, g, p: ChooseColor(p, color), gid=parts[2],
                             serial=int(parts[3]), edit=True)
        elif kind == "lb" and len(parts) == 4:
            order: Literal["wins", "points"] = "points" if parts[2] == "points" else "wins"
            await self._leaderboard(interaction, order, int(parts[3]), edit=True)
        elif kind == "rules" and len(parts) == 3:
            await self._rules(interaction, int(parts[2]), edit=True)
        else:
            raise Refusal(_("This button is no longer in use.", locale))

    async def _table_button(self, interaction: discord.Interaction[Any], action: str,
                            gid: str) -> None:
        # The same buttons sit on the public table and in private menus; a click in a
        # private menu replaces that menu instead of adding another message.
        message = interaction.message
        edit = bool(message is not None and message.flags.ephemeral)
        if action == "hand":
            await self._show_hand(interaction, gid, edit=edit)
        elif action == "draw":
            await self._move(interaction, lambda s, g, p: Draw(p), gid=gid, edit=edit)
        elif action == "uno":
            await self._move(interaction, lambda s, g, p: CallUno(p), gid=gid, edit=edit)
        elif action == "catch":
            await self._move(interaction, self._catch_target, gid=gid, edit=edit)
        elif action == "accept":
            await self._move(interaction, lambda s, g, p: Accept(p), gid=gid, edit=edit)
        elif action == "challenge":
            await self._move(interaction, lambda s, g, p: Challenge(p), gid=gid, edit=edit)
        else:
            raise Refusal(_("This button is no longer in use.", interaction.locale))

    @staticmethod
    def _catch_target(session: Session, game: Game, pid: str) -> Move:
        target = game.catchable
        if target is None or target == pid:
            raise Refusal(_("Nobody can be caught right now."))
        return Catch(pid, target)

    # ================================================================== lobby
    async def _lobby_button(self, interaction: discord.Interaction[Any], action: str,
                            gid: str) -> None:
        session = self._session(interaction)
        locale = interaction.locale
        if session.game_id != gid:
            raise Refusal(_("That lobby has closed.", locale))
        async with session.lock:
            if self.sessions.get(session.channel_id) is not session:
                raise Refusal(_("That lobby has closed.", locale))
            if session.started:
                if action == "join":
                    raise Refusal(_("The game has already started: wait for the next one.",
                                    locale))
                raise Refusal(_("The game has already started.", locale))
            if action == "join":
                self._join(interaction, session)
            elif action == "leave":
                if await self._leave_lobby(interaction, session):
                    await interaction.response.edit_message(
                        content=_("The lobby closed: everyone left.", locale), embed=None,
                        view=None)
                    return
            elif action == "cpu":
                self._add_cpu(interaction, session)
            elif action == "nocpu":
                self._need_host(interaction, session)
                cpus = [seat for seat in session.seats if seat.cpu]
                if not cpus:
                    raise Refusal(_("There is no computer player to remove.", locale))
                session.seats.remove(cpus[-1])
            elif action == "start":
                await self._start(interaction, session, edit=True)
                return
            elif action == "cancel":
                self._need_host(interaction, session)
                await self._drop(session)
                await interaction.response.edit_message(
                    content=_("The game was cancelled by {name}.", locale,
                              name=interaction.user.display_name), embed=None, view=None)
                return
            session.last_human = time.time()
            await self._save(session)
            await interaction.response.edit_message(embed=lobby_embed(session, locale),
                                                    view=self._lobby_view(session))

    def _lobby_view(self, session: Session) -> discord.ui.View:
        gid = session.game_id
        return view_of(
            button(_("Join"), f"uno:l:join:{gid}", style=discord.ButtonStyle.success),
            button(_("Leave"), f"uno:l:leave:{gid}"),
            button(_("Add computer player"), f"uno:l:cpu:{gid}", emoji="🤖"),
            button(_("Start"), f"uno:l:start:{gid}", style=discord.ButtonStyle.primary),
            button(_("Cancel"), f"uno:l:cancel:{gid}", style=discord.ButtonStyle.danger),
            button(_("Remove computer player"), f"uno:l:nocpu:{gid}", row=1),
        )

    def _join(self, interaction: discord.Interaction[Any], session: Session) -> None:
        pid = self._pid(interaction)
        locale = interaction.locale
        if session.started:
            raise Refusal(_("The game has already started: wait for the next one.", locale))
        if session.seat(pid) is not None:
            raise Refusal(_("You're already in this game.", locale))
        if len(session.seats) >= get_edition(session.options.edition).max_players:
            raise Refusal(_("The table is full.", locale))
        session.seats.append(Seat(pid, interaction.user.display_name))

    async def _leave_lobby(self, interaction: discord.Interaction[Any], session: Session) -> bool:
        """Returns True when the lobby closed because nobody human is left."""
        pid = self._pid(interaction)
        seat = session.seat(pid)
        if seat is None:
            raise Refusal(_("You're not in this game.", interaction.locale))
        session.seats.remove(seat)
        if not session.humans():
            await self._drop(session)
            return True
        if pid == session.host_id:
            session.host_id = session.humans()[0]
        return False

    def _add_cpu(self, interaction: discord.Interaction[Any], session: Session) -> Seat:
        locale = interaction.locale
        if session.started:
            raise Refusal(_("The game has already started.", locale))
        if session.seat(self._pid(interaction)) is None and not self._is_admin(interaction):
            raise Refusal(_("Join the game first to add computer players.", locale))
        if len(session.seats) >= get_edition(session.options.edition).max_players:
            raise Refusal(_("The table is full.", locale))
        if sum(1 for s in session.seats if s.cpu) >= MAX_CPUS_WITH_ONE_HUMAN:
            raise Refusal(_("A game can have at most {n} computer players.", locale,
                            n=MAX_CPUS_WITH_ONE_HUMAN))
        return session.add_cpu()

    async def _start(self, interaction: discord.Interaction[Any], session: Session, *,
                     edit: bool) -> None:
        """Start the lobby's game (host or Manage Server); the caller holds the lock."""
        locale = interaction.locale
        if session.started:
            raise Refusal(_("The game has already started.", locale))
        self._need_host(interaction, session)
        edition = get_edition(session.options.edition)
        if len(session.seats) < edition.min_players:
            raise Refusal(_("At least {n} players are needed: invite someone or add a "
                            "computer player.", locale, n=edition.min_players))
        if len(session.seats) > edition.max_players:
            raise Refusal(_("{edition} takes at most {n} players.", locale,
                            edition=edition.title, n=edition.max_players))
        game = session.start_game()
        events = game.start()
        session.serial += 1
        session.last_human = time.time()
        try:
            await self._save(session)
        except Exception:
            # Not saved, not started: the lobby stays as it was and Start can be pressed again.
            session.game = None
            session.serial -= 1
            raise
        self._schedule(session)
        text = _("The game has started! Seats: {seats}.", locale,
                 seats=", ".join(session.name(p) for p in game.players))
        if edit:
            await interaction.response.edit_message(content=text, embed=None, view=None)
        else:
            await interaction.response.send_message(text)
            self._spawn(self._close_lobby_message(session))
        self._post(session, event_lines(session, events))

    async def _close_lobby_message(self, session: Session) -> None:
        """Take the buttons off the lobby message once the lobby is over."""
        if session.lobby_message_id is not None:
            await self._close_message(session, session.lobby_message_id)

    async def _edit_lobby_message(self, session: Session) -> None:
        """Show the lobby as it is now on its message."""
        if session.lobby_message_id is None:
            return
        channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        message = channel.get_partial_message(session.lobby_message_id)
        with contextlib.suppress(discord.HTTPException):
            await self._write(session.channel_id, message.edit(
                embed=lobby_embed(session), view=self._lobby_view(session)))

    async def _close_message(self, session: Session, message_id: int) -> None:
        channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        with contextlib.suppress(discord.HTTPException):
            await self._write(session.channel_id,
                              channel.get_partial_message(message_id).edit(view=None))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run a Discord call in the background (never while holding a game's lock)."""
        task = asyncio.create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    # ================================================================== commands
    async def cog_app_command_error(self, interaction: discord.Interaction[Any],
                                    error: app_commands.AppCommandError) -> None:
        original = getattr(error, "original", error)
        if isinstance(original, Refusal):
            await self._say(interaction, str(original))
            return
        if isinstance(error, app_commands.NoPrivateMessage):
            await self._say(interaction, _("UNO games are played in server channels.",
                                           interaction.locale))
            return
        log.error("Command %s failed", interaction.command.qualified_name
                  if interaction.command else "?", exc_info=original)
        await self._say(interaction, _("Something went wrong; nothing was changed.",
                                       interaction.locale))

    @app_commands.command(name="new", description="Open a lobby for a new game in this channel")
    @app_commands.guild_only()
    async def new(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        locale = interaction.locale
        if interaction.channel_id in self.sessions:
            raise Refusal(_("A game is already open in this channel: join it, or ask the host "
                            "to end it.", locale))
        defaults = await self.bot.db.get_guild_settings(interaction.guild_id)
        session = Session(channel_id=interaction.channel_id, guild_id=interaction.guild_id,
                          host_id=self._pid(interaction), options=_options_from(defaults))
        session.seats.append(Seat(self._pid(interaction), interaction.user.display_name))
        session.last_human = time.time()
        self.sessions[session.channel_id] = session
        async with session.lock:
            await self._save(session)  # saved before anyone is told the lobby exists
            response = await interaction.response.send_message(
                embed=lobby_embed(session, locale), view=self._lobby_view(session))
            session.lobby_message_id = getattr(response, "message_id", None)
            await self._save(session)

    @app_commands.command(name="join", description="Join the lobby in this channel")
    @app_commands.guild_only()
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        session = self._session(interaction)
        async with session.lock:
            self._join(interaction, session)
            session.last_human = time.time()
            await self._save(session)
        await interaction.response.send_message(
            _("{name} joined the game.", interaction.locale, name=interaction.user.display_name))
        self._spawn(self._edit_lobby_message(session))

    @app_commands.command(name="addcpu", description="Add a computer player to the lobby")
    @app_commands.guild_only()
    async def addcpu(self, interaction: discord.Interaction[Any]) -> None:
        session = self._session(interaction)
        async with session.lock:
            seat = self._add_cpu(interaction, session)
            await self._save(session)
        await interaction.response.send_message(
            _("{name} takes a seat.", interaction.locale, name=seat.name))
        self._spawn(self._edit_lobby_message(session))

    @app_commands.command(name="leave", description="Leave the game in this channel")
    @app_commands.guild_only()
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        session = self._session(interaction)
        locale = interaction.locale
        if not session.started:
            async with session.lock:
                closed = await self._leave_lobby(interaction, session)
                if not closed:
                    await self._save(session)
            await self._say(interaction, _("You left the lobby.", locale))
            return
        async with session.lock:
            pid = self._need_player(interaction, session)
            game = session.game
            assert game is not None
            lines = [_("{name} leaves the game.", name=session.name(pid))]
            lines += await self._remove(session, pid)
            if self.sessions.get(session.channel_id) is session:
                await self._after_change(session, lines)
            else:
                self._post(session, lines, table=False)
        await self._say(interaction, _("You left the game.", locale))

    @app_commands.command(name="start", description="Start the game (host)")
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        session = self._session(interaction)
        async with session.lock:
            await self._start(interaction, session, edit=False)

    @app_commands.command(name="end",
                          description="End the game in this channel (host or Manage Server)")
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        session = self._session(interaction)
        async with session.lock:
            self._need_host(interaction, session)
            await self._drop(session)
        await interaction.response.send_message(
            _("{name} ended the game. It does not count on the leaderboard.", interaction.locale,
              name=interaction.user.display_name))
        if not session.started:
            self._spawn(self._close_lobby_message(session))

    @app_commands.command(name="kick",
                          description="Remove a player from the game (host or Manage Server)")
    @app_commands.describe(player="The player to remove")
    @app_commands.guild_only()
    async def kick(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        session = self._session(interaction)
        locale = interaction.locale
        target = str(player.id)
        async with session.lock:
            self._need_host(interaction, session)
            if not session.is_seated(target):
                raise Refusal(_("{name} is not in this game.", locale, name=player.display_name))
            name = session.name(target)
            if session.game is None:
                seat = session.seat(target)
                assert seat is not None
                session.seats.remove(seat)
                if not session.humans():
                    await self._drop(session)
                else:
                    if target == session.host_id:
                        session.host_id = session.humans()[0]
                    await self._save(session)
                await interaction.response.send_message(
                    _("{name} was removed from the lobby.", locale, name=name))
                return
            lines = [_("{name} was removed from the game by {by}.", name=name,
                       by=interaction.user.display_name)]
            lines += await self._remove(session, target)
            if self.sessions.get(session.channel_id) is session:
                await self._after_change(session, lines)
            else:
                self._post(session, lines, table=False)
        await self._say(interaction, _("{name} was removed.", locale, name=name))

    @app_commands.command(name="hand", description="See your hand (only you can see it)")
    @app_commands.guild_only()
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        await self._show_hand(interaction)

    @app_commands.command(name="table", description="Show the table again")
    @app_commands.guild_only()
    async def table(self, interaction: discord.Interaction[Any]) -> None:
        session = self._session(interaction)
        if session.game is None:
            # The lobby moves down to here; the old message loses its buttons.
            response = await interaction.response.send_message(
                embed=lobby_embed(session, interaction.locale), view=self._lobby_view(session))
            old = session.lobby_message_id
            session.lobby_message_id = getattr(response, "message_id", None) or old
            if old is not None and old != session.lobby_message_id:
                self._spawn(self._close_message(session, old))
            async with session.lock:
                await self._save(session)
            return
        await self._say(interaction, _("The table is posted below.", interaction.locale))
        self._post(session, [_("{name} asked for the table.", name=interaction.user.display_name)])

    async def _card_autocomplete(self, interaction: discord.Interaction[Any], current: str
                                 ) -> list[app_commands.Choice[str]]:
        session = self.sessions.get(interaction.channel_id or 0)
        if session is None or session.game is None or session.game.is_over:
            return []
        game = session.game
        pid = self._pid(interaction)
        if pid not in game.players:
            return []
        needle = current.strip().lower()
        choices = []
        for c in sorted(game.playable_cards(pid)):
            name = f"{card_label(c, interaction.locale)} ({c.code})"
            if needle and needle not in name.lower():
                continue
            choices.append(app_commands.Choice(name=name, value=c.code))
        return choices[:25]

    @app_commands.command(name="play", description="Play a card")
    @app_commands.describe(card="The card to play", color="The colour for a wild card",
                           towers="Towers to grab with a grab card, e.g. U or U N",
                           uno="Call UNO with this play")
    @app_commands.choices(color=[app_commands.Choice(name=c.label, value=c.value) for c in Color])
    @app_commands.guild_only()
    async def play(self, interaction: discord.Interaction[Any], card: str,
                   color: str | None = None, towers: str | None = None,
                   uno: bool = False) -> None:
        locale = interaction.locale
        parsed = _parse_card(card, locale)
        chosen = Color(color) if color else None
        try:
            grab = tuple(Tower.parse(ch) for ch in (towers or "").upper() if ch in "UNO!")
        except ParseError as exc:
            raise Refusal(error_text(exc, interaction.locale)) from None
        session, game = self._game_session(interaction)
        pid = self._need_player(interaction, session)
        need, _free = game.tower_choices(pid, parsed)
        if (parsed.is_wild and chosen is None) or (need and not grab):
            # Ask for what the command left out, with the same menus as My hand.
            await self._play_or_ask(interaction, session.game_id, session.serial, parsed, uno,
                                    chosen, None, edit=False)
            return
        await self._move(interaction, lambda s, g, p: Play(p, parsed, chosen, grab, uno))

    play_autocomplete = play.autocomplete("card")(_card_autocomplete)

    @app_commands.command(name="draw", description="Draw a card")
    @app_commands.guild_only()
    async def draw(self, interaction: discord.Interaction[Any]) -> None:
        await self._move(interaction, lambda s, g, p: Draw(p))

    @app_commands.command(name="pass", description="Keep the card you just drew")
    @app_commands.guild_only()
    async def pass_(self, interaction: discord.Interaction[Any]) -> None:
        await self._move(interaction, lambda s, g, p: Pass(p))

    @app_commands.command(name="call", description="Call UNO!")
    @app_commands.guild_only()
    async def call(self, interaction: discord.Interaction[Any]) -> None:
        await self._move(interaction, lambda s, g, p: CallUno(p))

    @app_commands.command(name="catch", description="Catch a player who forgot to call UNO")
    @app_commands.describe(player="The player who holds one card and did not call UNO")
    @app_commands.guild_only()
    async def catch(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        target = str(player.id)
        await self._move(interaction, lambda s, g, p: Catch(p, target))

    @app_commands.command(name="challenge",
                          description="Challenge the Wild Draw Four played on you")
    @app_commands.guild_only()
    async def challenge(self, interaction: discord.Interaction[Any]) -> None:
        await self._move(interaction, lambda s, g, p: Challenge(p))

    @app_commands.command(name="accept", description="Accept the Wild Draw Four played on you")
    @app_commands.guild_only()
    async def accept(self, interaction: discord.Interaction[Any]) -> None:
        await self._move(interaction, lambda s, g, p: Accept(p))

    @app_commands.command(name="keep", description="Instant UNO: the card to keep")
    @app_commands.describe(card="The one card you keep")
    @app_commands.guild_only()
    async def keep(self, interaction: discord.Interaction[Any], card: str,
                   uno: bool = False) -> None:
        parsed = _parse_card(card, interaction.locale)
        await self._move(interaction, lambda s, g, p: Keep(p, parsed, uno))

    @app_commands.command(name="color",
                          description="Name the starting colour when a wild opens the round")
    @app_commands.choices(color=[app_commands.Choice(name=c.label, value=c.value) for c in Color])
    @app_commands.guild_only()
    async def color(self, interaction: discord.Interaction[Any], color: str) -> None:
        chosen = Color(color)
        await self._move(interaction, lambda s, g, p: ChooseColor(p, chosen))

    @app_commands.command(name="settings", description="Show or change the game settings")
    @app_commands.describe(
        target="Points that win the game (100-5000)",
        scoring="standard: the winner scores the other hands; alternative: lowest total wins",
        edition="Which deck to play", grab2_points="What a Grab-2-Towers card scores",
        turn_timer="Seconds per turn (10-600)", mention_turn="Mention the player whose turn it is",
        shuffle_seats="Shuffle the seats at the start",
        server_default="Also save these as this server's defaults (Manage Server)")
    @app_commands.choices(
        scoring=[app_commands.Choice(name="standard", value="standard"),
                 app_commands.Choice(name="alternative", value="alternative")],
        edition=[app_commands.Choice(name="UNO Power Grab", value="power-grab"),
                 app_commands.Choice(name="Classic UNO", value="classic")])
    @app_commands.choices(grab2_points=[app_commands.Choice(name="20", value=20),
                                        app_commands.Choice(name="50", value=50)])
    @app_commands.guild_only()
    async def settings(self, interaction: discord.Interaction[Any],
                       target: app_commands.Range[int, 100, 5000] | None = None,
                       scoring: str | None = None, edition: str | None = None,
                       grab2_points: int | None = None,
                       turn_timer: app_commands.Range[int, 10, 600] | None = None,
                       mention_turn: bool | None = None, shuffle_seats: bool | None = None,
                       server_default: bool = False) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        locale = interaction.locale
        changes = {k: v for k, v in {
            "target": target, "scoring": scoring, "edition": edition,
            "grab2_points": grab2_points, "turn_timer": turn_timer,
            "mention_turn": mention_turn, "shuffle_seats": shuffle_seats}.items()
            if v is not None}
        session = self.sessions.get(interaction.channel_id)
        if server_default and not self._is_admin(interaction):
            raise Refusal(_("Only members with Manage Server can change the server's defaults.",
                            locale))
        if session is not None and changes and not (server_default and session.started):
            if session.started:
                raise Refusal(_("Settings can't change once the game has started.", locale))
            async with session.lock:
                self._need_host(interaction, session)
                new = Options.from_dict({**session.options.to_dict(), **changes})
                try:
                    new.engine_settings()
                    if len(session.seats) > get_edition(new.edition).max_players:
                        raise Refusal(_("Too many seats for that edition.", locale))
                except EngineError as exc:
                    raise Refusal(error_text(exc, interaction.locale)) from None
                session.options = new
                await self._save(session)
        if server_default or (session is None and changes):
            if not self._is_admin(interaction):
                raise Refusal(_("Only members with Manage Server can change the server's "
                                "defaults.", locale))
            current = await self.bot.db.get_guild_settings(interaction.guild_id)
            base = {k: getattr(current, k) for k in Options.__slots__}
            try:
                merged = GuildSettings(guild_id=interaction.guild_id, **{**base, **changes})
            except ValueError as exc:
                raise Refusal(_(str(exc), locale)) from None
            await self.bot.db.set_guild_settings(merged)
        if session is not None:
            text = _("Settings for this game: {s}", locale, s=settings_text(session, locale))
        else:
            defaults = await self.bot.db.get_guild_settings(interaction.guild_id)
            probe = Session(0, 0, "", options=_options_from(defaults))
            text = _("This server's defaults: {s}", locale, s=settings_text(probe, locale))
        await self._say(interaction, text)

    @app_commands.command(name="rules", description="The rules, in short pages")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await self._rules(interaction, 0)

    async def _rules(self, interaction: discord.Interaction[Any], page: int, *,
                     edit: bool = False) -> None:
        pages = rule_pages(interaction.locale)
        page %= len(pages)
        title, body = pages[page]
        embed = discord.Embed(title=title, description=body, colour=0x5865F2)
        embed.set_footer(text=_("Page {p} of {n}", interaction.locale, p=page + 1, n=len(pages)))
        view = view_of(
            button(_("◀ Previous"), f"uno:rules:{(page - 1) % len(pages)}"),
            button(_("Next ▶"), f"uno:rules:{(page + 1) % len(pages)}"),
        )
        await self._say(interaction, "", embed=embed, view=view, edit=edit)

    @app_commands.command(name="leaderboard", description="This server's best players")
    @app_commands.describe(order="Rank by games won or by points")
    @app_commands.choices(order=[app_commands.Choice(name="wins", value="wins"),
                                 app_commands.Choice(name="points", value="points")])
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction[Any],
                          order: str = "wins") -> None:
        await self._leaderboard(interaction, "points" if order == "points" else "wins", 0)

    async def _leaderboard(self, interaction: discord.Interaction[Any],
                           order: Literal["wins", "points"], page: int, *,
                           edit: bool = False) -> None:
        guild_id = interaction.guild_id
        locale = interaction.locale
        if guild_id is None:
            raise Refusal(_("The leaderboard belongs to a server.", locale))
        total = await self.bot.db.leaderboard_size(guild_id)
        pages = max(1, -(-total // LEADERBOARD_PAGE))
        page = min(max(page, 0), pages - 1)
        rows = await self.bot.db.leaderboard(guild_id, order, LEADERBOARD_PAGE,
                                             page * LEADERBOARD_PAGE)
        if not rows:
            body = _("No games finished here yet: start one with /uno new.", locale)
        else:
            body = "\n".join(
                _("**{rank}.** <@{user}>: {wins} wins in {games} games · {points} points · "
                  "{rounds} rounds · {towers} towers · best round {best}", locale,
                  rank=page * LEADERBOARD_PAGE + i + 1, user=r.user_id, wins=r.games_won,
                  games=r.games_played, points=r.points, rounds=r.rounds_won,
                  towers=r.towers_grabbed, best=r.best_round)
                for i, r in enumerate(rows))
        title = _("Leaderboard by wins", locale) if order == "wins" else \
            _("Leaderboard by points", locale)
        embed = discord.Embed(title=title, description=body, colour=0xF1C40F)
        embed.set_footer(text=_("Page {p} of {n}", locale, p=page + 1, n=pages))
        view = view_of(
            button(_("◀ Previous"), f"uno:lb:{order}:{max(page - 1, 0)}", disabled=page == 0),
            button(_("Next ▶"), f"uno:lb:{order}:{page + 1}", disabled=page + 1 >= pages),
            button(_("By points") if order == "wins" else _("By wins"),
                   f"uno:lb:{'points' if order == 'wins' else 'wins'}:0"),
        )
        if edit:
            await interaction.response.edit_message(embed=embed, view=view)
        else:
            await interaction.response.send_message(
                embed=embed, view=view, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="stats", description="A member's UNO figures in this server")
    @app_commands.describe(member="Whose figures (you, if empty)")
    @app_commands.guild_only()
    async def stats(self, interaction: discord.Interaction[Any],
                    member: discord.User | None = None) -> None:
        assert interaction.guild_id is not None
        locale = interaction.locale
        who = member or interaction.user
        row = await self.bot.db.player_stats(interaction.guild_id, who.id)
        if row is None:
            await interaction.response.send_message(
                _("{name} hasn't finished a game in this server yet.", locale,
                  name=who.display_name), allowed_mentions=discord.AllowedMentions.none())
            return
        embed = discord.Embed(title=_("{name}'s UNO figures", locale, name=who.display_name),
                              colour=0xF1C40F)
        for label, value in (
            (_("Games played", locale), row.games_played), (_("Games won", locale), row.games_won),
            (_("Rounds won", locale), row.rounds_won), (_("Points", locale), row.points),
            (_("Towers grabbed", locale), row.towers_grabbed),
            (_("Best round", locale), row.best_round),
        ):
            embed.add_field(name=label, value=str(value))
        await interaction.response.send_message(embed=embed)


_COLOR_EMOJI = {Color.RED: "🟥", Color.BLUE: "🟦", Color.GREEN: "🟩", Color.YELLOW: "🟨"}
def _parse_card(code: str, locale: Locale) -> Card:
    try:
        return Card.parse(code)
    except ParseError as exc:
        raise Refusal(error_text(exc, locale)) from None


def _any_towers(game: Game, pid: str, card: Card) -> tuple[Tower, ...]:
    need, free = game.tower_choices(pid, card)
    return tuple(free[:need])


def _options_from(settings: GuildSettings) -> Options:
    return Options(edition=settings.edition, target=settings.target, scoring=settings.scoring,
                   grab2_points=settings.grab2_points, turn_timer=settings.turn_timer,
                   mention_turn=settings.mention_turn, shuffle_seats=settings.shuffle_seats)
