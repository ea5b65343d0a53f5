"""The UNO cog: the slash commands, the channel's events, and what a lobby's click does.

Each entry point turns an interaction into an :class:`Actor` and one call of the table
service, and the result (or its :class:`Refusal`) into one answer. The table service owns
the games, the pipeline and the locks; ``_plays`` answers a player's moves; each component
family owns its click (``_components``); the outbox posts in channels; the scheduler runs
the timers; ``show`` builds every message.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands, tasks

from cogs.uno._components import LobbyVerb
from cogs.uno._emojis import CardEmojis
from cogs.uno._ending import Endings, no_pictures
from cogs.uno._outbox import Outbox
from cogs.uno._pictures import HandPictures
from cogs.uno._places import in_replies, place_id
from cogs.uno._plays import Plays, actor_of
from cogs.uno._reply import Reply, answer, answers_sent
from cogs.uno._table_post import LOBBY_GONE
from cogs.uno.art import configure as configure_art
from cogs.uno.show.hand import match_cards, option_label
from cogs.uno.show.lobby import lobby_embed, lobby_view
from cogs.uno.table.contracts import (
    OPEN_THREAD_PERMISSIONS,
    Actor,
    EngineRefusal,
    Refusal,
    missing_permissions,
    permission_names,
)
from cogs.uno.table.scheduler import Scheduler
from cogs.uno.table.service import TableService
from cogs.uno.table.session import Session
from cogs.uno.table.words.standings import hand_banner, team_name
from engine import (
    Accept,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Color,
    Draw,
    Game,
    Keep,
    Move,
    ParseError,
    Pass,
    Tower,
)
from runtime.i18n import Locale, _, server_language

if TYPE_CHECKING:
    from runtime.unobot import UnoBot

log = logging.getLogger(__name__)

CARRIERS = (discord.InteractionType.application_command, discord.InteractionType.component,
            discord.InteractionType.modal_submit)
"""Interactions whose webhook can post followups (not autocomplete, not pings)."""


@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
class UnoCog(commands.GroupCog, name="Uno", group_name="uno",
             group_description="Play UNO Power Grab (or classic UNO) in this channel"):
    def __init__(self, bot: UnoBot) -> None:
        self.bot = bot
        self.outbox = Outbox(bot, time_scale=bot.config.time_scale, v2=bot.config.table_v2,
                             global_writes=bot.config.channel_writes, bury=bot.config.table_bury)
        self.service = TableService(bot.db, self.outbox, Scheduler(),
                                    time_scale=bot.config.time_scale,
                                    cpu_delay=bot.config.cpu_delay,
                                    search_workers=bot.config.search_workers)
        self.service.metrics = bot.metrics
        bot.metrics.count_games(self.tables_open)
        self.pictures = HandPictures(bot.db, enabled=bot.config.card_images)
        self.plays = Plays(self.service, self.pictures)
        self.service.followers.append(self.plays.panels.changed)
        self.plays.panels.below = self.outbox.below
        self.endings = Endings(self.service, self.outbox, v2=self.outbox.v2)
        self.outbox.on_lost = self.service.channel_lost
        self.outbox.on_table = self.service.table_posted
        if bot.config.art_cache:
            configure_art(bot.config.art_cache)
        self.outbox.is_live = lambda s: self.service.sessions.get(s.channel_id) is s
        self.card_emojis = CardEmojis(bot)
        super().__init__()

    def tables_open(self) -> dict[str, int]:
        """This process's tables, lobbies and games apart (/metrics)."""
        games = sum(1 for s in self.service.sessions.values() if s.game is not None)
        return {"game": games, "lobby": len(self.service.sessions) - games}

    # ================================================================== life cycle
    async def cog_load(self) -> None:
        self.sweeper.change_interval(seconds=max(0.5, 60 * self.service.scale))
        self.sweeper.start()
        fleet = self.bot.fleet  # this process's servers only: the others restore theirs
        await self.service.restore(fleet.owns, prune=fleet.leads, shards=None
                                   if fleet.ids is None else (fleet.count, fleet.mine))
        if self.bot.config.card_emojis:
            # in the background: READY and the restored games do not wait for the uploads
            self.card_emojis.start()

    async def cog_unload(self) -> None:
        self.sweeper.cancel()
        self.pictures.close()
        await self.card_emojis.stop()
        await self.service.close()
        await self.outbox.close()
        await answers_sent()  # before the HTTP session closes

    # ================================================================== channel activity
    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        # its followup webhook may carry the channel's table (interaction endpoints are not
        # bound to the bot's global rate limit)
        if interaction.type in CARRIERS:
            self.outbox.carry(interaction)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.service.thread_closed(payload.thread_id, "deleted")

    @commands.Cog.listener()
    async def on_raw_thread_update(self, payload: discord.RawThreadUpdateEvent) -> None:
        # Raw: a game's thread may not be in discord.py's cache (after a restart).
        metadata = payload.data.get("thread_metadata") or {}
        if metadata.get("locked"):
            await self.service.thread_closed(payload.thread_id, "locked")

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        # one more message below a table (anyone's, the bot's own too): chat buries it
        self.outbox.seen(message.channel.id, message.id)
        session = self.service.sessions.get(message.channel.id)
        if session is not None:
            self.plays.panels.posted(session)  # a hand panel pushed up goes down

    @commands.Cog.listener()
    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        # one fewer below a table or a hand panel (a reminder whose turn was taken, say)
        self.outbox.gone(payload.channel_id, payload.message_id)

    @commands.Cog.listener()
    async def on_raw_bulk_message_delete(self, payload: discord.RawBulkMessageDeleteEvent
                                         ) -> None:
        for message_id in payload.message_ids:
            self.outbox.gone(payload.channel_id, message_id)

    @tasks.loop(seconds=60)
    async def sweeper(self) -> None:
        try:
            self.plays.panels.sweep(self.service.sessions)
            await self.service.sweep_idle()
        except Exception:
            log.exception("The idle sweep failed")

    # ================================================================== answering
    async def cog_app_command_error(self, interaction: discord.Interaction[Any],
                                    error: app_commands.AppCommandError) -> None:
        if isinstance(error, app_commands.NoPrivateMessage):
            text = _("UNO games are played in server channels.", interaction.locale)
        else:
            log.error("Command %s failed", interaction.command.qualified_name
                      if interaction.command else "?", exc_info=error)
            text = _("Something went wrong; nothing was changed.", interaction.locale)
        if not interaction.response.is_done():
            await interaction.response.send_message(text, ephemeral=True)

    # ================================================================== clicks
    @staticmethod
    def actor(interaction: discord.Interaction[Any]) -> Actor:
        return actor_of(interaction)

    async def lobby_change(self, reply: Reply, interaction: discord.Interaction[Any],
                           verb: LobbyVerb, gid: str) -> None:
        """A lobby's button that changes it (``verb``): its message shows the lobby as the
        change left it, or that it closed."""
        actor = actor_of(interaction)
        session = await verb(self.service.lobbies, interaction.channel_id, actor, gid)
        language = session.options.language  # the lobby message is public
        live = self.service.is_live(session)
        if not live:
            # closed with people still seated: its host cancelled it
            text = _("The game was cancelled by {name}.", language, name=actor.name) \
                if session.humans() else _("The lobby closed: everyone left.", language)
            await self._edit_lobby(reply, text, None, None)
        else:
            await self._edit_lobby(reply, None, lobby_embed(session, language),
                                   lobby_view(session, language))
        if interaction.message is not None:  # (over an edit of it already on its way)
            self.outbox.answered_in_place(session, interaction.message.id,
                                          None if live else LOBBY_GONE)

    async def lobby_start(self, reply: Reply, interaction: discord.Interaction[Any],
                          gid: str) -> None:
        """A lobby's Start: the game begins, its message says so (a tournament's sign-up
        opens its tables' threads first)."""
        actor = actor_of(interaction)
        if self.service.session(interaction.channel_id).options.mode == "tournament":
            await self._start_tournament(reply, interaction, actor, gid)
            return
        session = await self.service.lobbies.start(interaction.channel_id, actor, gid)
        language = session.options.language
        await reply.send(self._with_note(self._started_text(session, language),
                                         self._no_pictures(interaction, language)),
                         view=None, public=True, edit=True)

    async def _server_language(self, interaction: discord.Interaction[Any]) -> str:
        """The language of the server's public game text: its setting, else its locale."""
        assert interaction.guild_id is not None
        chosen = (await self.bot.db.get_guild_settings(interaction.guild_id)).language
        return server_language(chosen, interaction.guild_locale)

    @staticmethod
    async def _edit_lobby(reply: Reply, text: str | None, embed: discord.Embed | None,
                          view: discord.ui.View | None) -> None:
        """Replace the lobby message the click came from."""
        await reply.send(text, embed=embed, clear_embed=embed is None, view=view, public=True,
                         edit=True)

    def _no_pictures(self, interaction: discord.Interaction[Any], language: Locale
                     ) -> str | None:
        return no_pictures(self.outbox.v2, interaction, language)

    async def again_click(self, reply: Reply, interaction: discord.Interaction[Any],
                          gid: str) -> None:
        """Play again, on a finished game's result."""
        await self.endings.again(reply, interaction, gid)

    async def end_click(self, reply: Reply, interaction: discord.Interaction[Any],
                        confirm: bool, gid: str, until: int) -> None:
        """Confirm or Cancel on /uno end's question."""
        await self.endings.answer(reply, interaction, confirm, gid, until)

    @staticmethod
    def _with_note(text: str, note: str | None) -> str:
        return f"{text}\n{note}" if note else text

    @staticmethod
    def _started_text(session: Session, locale: Any) -> str:
        game = session.game
        assert game is not None
        if session.match is not None:
            return _("The rotating partners match has started! {hand}", locale,
                     hand=hand_banner(session, locale))
        if game.teams:
            return _("The game has started! Teams: {teams}.", locale,
                     teams="; ".join(team_name(session, t, locale) for t in game.teams))
        return _("The game has started! Seats: {seats}.", locale,
                 seats=", ".join(session.name(p) for p in game.players))

    # ================================================================== commands: lobby
    @app_commands.command(name="new", description="Open a lobby for a new game in this channel")
    @app_commands.describe(thread="Open the game in a new thread of this channel (default: "
                                  "the server's setting)")
    async def new(self, interaction: discord.Interaction[Any], thread: bool | None = None
                  ) -> None:
        async def work(reply: Reply) -> None:
            assert interaction.channel_id is not None
            actor = actor_of(interaction)
            replies = in_replies(interaction)
            in_thread = thread
            if in_thread is None:
                in_thread = (await self.bot.db.get_guild_settings(place_id(interaction))
                             ).threads
            if in_thread and not replies and not isinstance(interaction.channel,
                                                            discord.Thread):
                await self._new_in_thread(reply, interaction, actor)
                return
            session = await self.service.lobbies.open(interaction.channel_id,
                                                      place_id(interaction), actor,
                                                      replies=replies)
            language = session.options.language
            shown = session.saved
            note = self._no_pictures(interaction, language)
            if replies:  # what works here and what does not, in one sentence
                note = self._with_note(_(
                    "Here I play only through your commands and clicks: the game works as "
                    "anywhere, but with no threads and no turn reminders, and the table stays "
                    "live while people click.", language), note)
            message_id = await reply.send(note, embed=lobby_embed(session, language),
                                          view=lobby_view(session, language))
            if message_id is not None:
                self.outbox.answered_with(session, message_id, interaction)
            await self.service.lobbies.set_message(session, lobby=message_id, shown=shown)
        await answer(interaction, work, public=True)

    async def _new_in_thread(self, reply: Reply, interaction: discord.Interaction[Any],
                             actor: Actor) -> None:
        """A lobby in a new public thread of this channel: the thread is created first, the
        lobby saved in it, then shown there; the channel is told where to join."""
        assert interaction.guild_id is not None
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            raise Refusal("Games can open threads only in text channels: use /uno new "
                          "thread:False here.")
        if self.service.closing:
            raise Refusal("The bot is restarting: try again in a moment.")
        self._need_thread_permissions(interaction, actor)
        language = await self._server_language(interaction)
        room = await self._create_thread(channel, _("UNO: {name}'s game", language,
                                                    name=actor.name), actor)
        try:
            session = await self.service.lobbies.open(room.id, interaction.guild_id, actor,
                                                      parent_id=channel.id)
        except Refusal:
            with contextlib.suppress(discord.HTTPException):
                await room.delete(reason="UNO game could not be opened")
            raise
        language = session.options.language
        view = lobby_view(session, language)
        assert view is not None
        shown = session.saved
        try:
            message = await room.send(embed=lobby_embed(session, language), view=view)
        except discord.HTTPException as exc:
            log.warning("Posting the lobby in thread %s failed: %s", room.id, exc)
            await reply.send(_("🧵 {name} opened a game in {thread}, but I couldn't post its "
                               "lobby there: use /uno table in the thread.", language,
                               name=actor.name, thread=room.mention))
            return
        await self.service.lobbies.set_message(session, lobby=message.id, shown=shown)
        await reply.send(self._with_note(
            _("🧵 {name} opened a game in {thread}: join it there.", language,
              name=actor.name, thread=room.mention),
            self._no_pictures(interaction, language)))

    @staticmethod
    def _need_thread_permissions(interaction: discord.Interaction[Any], actor: Actor) -> None:
        missing = missing_permissions(interaction.app_permissions, OPEN_THREAD_PERMISSIONS)
        if missing:
            raise Refusal("I can't open a game thread here (missing: {perms}): ask a server "
                          "admin for these permissions, or use /uno new thread:False.",
                          perms=permission_names(missing))

    @staticmethod
    async def _create_thread(channel: discord.TextChannel, name: str, actor: Actor
                             ) -> discord.Thread:
        """A new public thread of ``channel`` for a game, or a Refusal saying why not."""
        try:
            return await channel.create_thread(
                name=name[:100], type=discord.ChannelType.public_thread,
                auto_archive_duration=1440, reason=f"UNO game opened by {actor.id}")
        except discord.Forbidden:
            raise Refusal("Discord didn't let me create a thread here: check my Create Public "
                          "Threads permission, or use /uno new thread:False.") from None
        except discord.HTTPException as exc:
            log.warning("Creating a game thread in channel %s failed: %s", channel.id, exc)
            raise Refusal("Creating the thread failed: try again in a moment.") from None

    @app_commands.command(name="tournament",
                          description="Open the sign-up for an 8-player tournament at two "
                                      "tables, each in its own thread")
    @app_commands.describe(hands_per_pairing="How many hands each two players partner: 4 is "
                                             "the full 28 hands, 1 a quick 7")
    async def tournament(self, interaction: discord.Interaction[Any],
                         hands_per_pairing: app_commands.Range[int, 1, 4] = 4) -> None:
        async def work(reply: Reply) -> None:
            assert interaction.channel_id is not None
            actor = actor_of(interaction)
            if in_replies(interaction) or interaction.guild_id is None:
                raise Refusal("A tournament needs threads, which I can open only in a server "
                              "that added me.")
            if not isinstance(interaction.channel, discord.TextChannel):
                raise Refusal("A tournament opens its tables as threads: start it in a text "
                              "channel.")
            self._need_thread_permissions(interaction, actor)
            session = await self.service.lobbies.open(
                interaction.channel_id, interaction.guild_id, actor,
                choices={"mode": "tournament", "hands_per_pairing": hands_per_pairing,
                         "scoring": "standard", "shuffle_seats": False})
            shown = session.saved
            message_id = await reply.send(embed=lobby_embed(session, session.options.language),
                                          view=lobby_view(session, session.options.language))
            await self.service.lobbies.set_message(session, lobby=message_id, shown=shown)
        await answer(interaction, work, public=True)

    async def _start_tournament(self, reply: Reply, interaction: discord.Interaction[Any],
                                actor: Actor, gid: str) -> None:
        """The sign-up's Start: two threads, then the tournament in them (the threads go
        again if it can't start)."""
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel) and interaction.channel_id is not None
        self.service.tournaments.check_start(interaction.channel_id, actor, gid)
        self._need_thread_permissions(interaction, actor)
        rooms: list[discord.Thread] = []
        language = self.service.session(interaction.channel_id).options.language
        try:
            for n in (1, 2):
                rooms.append(await self._create_thread(
                    channel, _("UNO tournament: table {n}", language, n=n), actor))
            session = await self.service.tournaments.start(
                interaction.channel_id, actor, gid, [r.id for r in rooms])
        except Refusal:
            for room in rooms:
                with contextlib.suppress(discord.HTTPException):
                    await room.delete(reason="UNO tournament could not start")
            raise
        await reply.send(self._no_pictures(interaction, language),
                         embed=lobby_embed(session, language), view=None, public=True,
                         edit=True)

    @app_commands.command(name="join", description="Join this channel's lobby or game")
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        if await self.plays.join_game(interaction):  # a game under way: next round, or back
            return
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            session = await self.service.lobbies.join(interaction.channel_id, actor)
            self.service.outbox.refresh_lobby(session)
            await reply.send(_("{name} joined the game.", session.options.language,
                               name=actor.name))
        await answer(interaction, work, public=True)

    @app_commands.command(name="addcpu", description="Add a computer player to the lobby")
    @app_commands.describe(level="How well it plays (default: normal)")
    @app_commands.choices(level=[app_commands.Choice(name="easy", value="easy"),
                                 app_commands.Choice(name="normal", value="normal"),
                                 app_commands.Choice(name="hard", value="hard")])
    async def addcpu(self, interaction: discord.Interaction[Any],
                     level: str = "normal") -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            session = await self.service.lobbies.add_cpu(interaction.channel_id, actor, level)
            self.service.outbox.refresh_lobby(session)
            await reply.send(_("{name} takes a seat.", session.options.language,
                               name=session.seats[-1].name))
        await answer(interaction, work, public=True)

    @app_commands.command(name="leave", description="Leave the game in this channel")
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            was_lobby = await self.service.leave(interaction.channel_id, actor)
            session = self.service.sessions.get(interaction.channel_id or 0)
            if was_lobby and session is not None:
                self.service.outbox.refresh_lobby(session)
            await reply.send(_("You left the lobby.", actor.locale) if was_lobby
                             else _("You left the game.", actor.locale))
        await answer(interaction, work)

    @app_commands.command(name="start", description="Start the game (host)")
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            session = await self.service.lobbies.start(interaction.channel_id, actor)
            language = session.options.language
            await reply.send(self._with_note(self._started_text(session, language),
                                             self._no_pictures(interaction, language)))
        await answer(interaction, work, public=True)

    @app_commands.command(name="end",
                          description="End the game in this channel (host or Manage Server)")
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        # a question first: Confirm (within 30 s) ends the game, Cancel ends nothing
        await answer(interaction, lambda reply: self.endings.ask(reply, interaction),
                     public=True)

    @app_commands.command(name="kick",
                          description="Remove a player from the game (host or Manage Server)")
    @app_commands.describe(player="The player to remove")
    async def kick(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            name = await self.service.kick(interaction.channel_id, actor, str(player.id),
                                           player.display_name)
            await reply.send(_("{name} was removed.", actor.locale, name=name))
        await answer(interaction, work)

    @app_commands.command(name="table", description="Show the table again")
    async def table(self, interaction: discord.Interaction[Any]) -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            session = self.service.session(interaction.channel_id)
            if session.game is None:
                # The lobby moves down to here; the old message loses its buttons.
                shown = session.saved
                message_id = await reply.send(embed=lobby_embed(session, session.options.language),
                                              view=lobby_view(session, session.options.language),
                                              public=True)
                await self.service.lobbies.set_message(session, lobby=message_id, shown=shown)
                return
            await self.service.check_pause(interaction.channel_id, actor)
            self.service.outbox.announce(session, [_("{name} asked for the table.",
                                                     session.options.language,
                                                     name=actor.name)], fresh=True)
            await reply.send(_("The table is posted below.", actor.locale))
        await answer(interaction, work)

    # ================================================================== commands: moves
    @app_commands.command(name="hand", description="See your hand (only you can see it)")
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, lambda reply: self.plays.show_hand(
            reply, interaction.channel_id, actor_of(interaction)))

    async def _card_autocomplete(self, interaction: discord.Interaction[Any], current: str
                                 ) -> list[app_commands.Choice[str]]:
        session = self.service.sessions.get(interaction.channel_id or 0)
        if session is None:
            return []
        async with self.service.reading(session):
            game = session.game
            pid = str(interaction.user.id)
            if game is None or game.is_over or pid not in game.players:
                return []
            cards = match_cards(sorted(game.playable_cards(pid)), current, interaction.locale)
        return [app_commands.Choice(name=option_label(c, interaction.locale), value=c.code)
                for c in cards[:25]]

    @app_commands.command(name="play", description="Play a card")
    @app_commands.describe(card="The card to play", color="The colour for a wild card",
                           towers="Towers to grab with a grab card, e.g. U or U N",
                           uno="Call UNO with this play")
    @app_commands.choices(color=[app_commands.Choice(name=c.label, value=c.value) for c in Color])
    async def play(self, interaction: discord.Interaction[Any], card: str,
                   color: str | None = None, towers: str | None = None,
                   uno: bool = False) -> None:
        async def work(reply: Reply) -> None:
            parsed = self.plays.typed_card(interaction.channel_id, interaction.user.id, card,
                                           interaction.locale)
            chosen = Color(color) if color else None
            grab = None
            if towers:
                letters = [ch for ch in towers.upper() if ch in "UNO!"]
                try:
                    grab = tuple(dict.fromkeys(Tower.parse(ch) for ch in letters)) or None
                except ParseError as exc:
                    raise EngineRefusal(exc) from None
            actor = actor_of(interaction)
            session, _game = self.service.game(interaction.channel_id, actor)
            await self.plays.play(reply, actor, interaction.channel_id, session.game_id, None,
                                  parsed, uno, chosen, grab)
        await answer(interaction, work)

    play_autocomplete = play.autocomplete("card")(_card_autocomplete)

    def _simple(self, interaction: discord.Interaction[Any],
                make: Callable[[Session, Game, str], Move]) -> Awaitable[None]:
        return answer(interaction, lambda reply: self.plays.move(
            reply, actor_of(interaction), interaction.channel_id, make))

    @app_commands.command(name="draw", description="Draw a card")
    async def draw(self, interaction: discord.Interaction[Any]) -> None:
        await self._simple(interaction, lambda s, g, p: Draw(p))

    @app_commands.command(name="pass", description="Keep the card you just drew")
    async def pass_(self, interaction: discord.Interaction[Any]) -> None:
        await self._simple(interaction, lambda s, g, p: Pass(p))

    @app_commands.command(name="call", description="Call UNO!")
    async def call(self, interaction: discord.Interaction[Any]) -> None:
        await self._simple(interaction, lambda s, g, p: CallUno(p))

    @app_commands.command(name="catch", description="Catch a player who forgot to call UNO")
    @app_commands.describe(player="The player who holds one card and did not call UNO")
    async def catch(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        target = str(player.id)
        await self._simple(interaction, lambda s, g, p: Catch(p, target))

    @app_commands.command(name="challenge",
                          description="Challenge the Wild Draw Four played on you")
    async def challenge(self, interaction: discord.Interaction[Any]) -> None:
        await self._simple(interaction, lambda s, g, p: Challenge(p))

    @app_commands.command(name="accept", description="Accept the Wild Draw Four played on you")
    async def accept(self, interaction: discord.Interaction[Any]) -> None:
        await self._simple(interaction, lambda s, g, p: Accept(p))

    @app_commands.command(name="keep", description="Instant UNO: the card to keep")
    @app_commands.describe(card="The one card you keep")
    async def keep(self, interaction: discord.Interaction[Any], card: str,
                   uno: bool = False) -> None:
        async def work(reply: Reply) -> None:
            parsed = self.plays.typed_card(interaction.channel_id, interaction.user.id, card,
                                           interaction.locale)
            await self.plays.move(reply, actor_of(interaction), interaction.channel_id,
                                  lambda s, g, p: Keep(p, parsed, uno))
        await answer(interaction, work)

    @app_commands.command(name="color",
                          description="Name the starting colour when a wild opens the round")
    @app_commands.choices(color=[app_commands.Choice(name=c.label, value=c.value) for c in Color])
    async def color(self, interaction: discord.Interaction[Any], color: str) -> None:
        await self._simple(interaction, lambda s, g, p: ChooseColor(p, Color(color)))  # checked


__all__ = ["UnoCog"]
