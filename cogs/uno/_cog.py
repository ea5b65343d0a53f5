"""The UNO cog: thin slash commands and component handlers.

Each entry point turns an interaction into an :class:`Actor` and one call of the table
service, and the result (or its :class:`Refusal`) into one private answer. The table
service owns the games, the pipeline and the locks; the outbox posts in channels; the
scheduler runs the timers; the menus are pure functions.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands, tasks

from cogs.i18n import LANGUAGE_NAMES, LANGUAGES, Locale, _, language_of, server_language
from cogs.uno._components import (
    ColorButton,
    DrawnButton,
    KeepSelect,
    LapButton,
    LobbyButton,
    OpeningColorButton,
    PageButton,
    PlaySelect,
    RetiredComponent,
    StaleComponent,
    TableButton,
    TowerSelect,
    UnoItem,
    card_value,
    color_of,
    towers_value,
)
from cogs.uno._contracts import (
    OPEN_THREAD_PERMISSIONS,
    REQUIRED_PERMISSIONS,
    THREAD_PERMISSIONS,
    Actor,
    Moved,
    Refusal,
    missing_permissions,
    permission_names,
    stale_text,
)
from cogs.uno._emojis import CardEmojis
from cogs.uno._menus import (
    choice_menu,
    hand_menu,
    lap_note,
    lobby_view,
    match_cards,
    move_notes,
    option_label,
    shown_cards,
    uno_button,
)
from cogs.uno._outbox import Outbox
from cogs.uno._render import (
    error_text,
    hand_banner,
    lobby_embed,
    settings_text,
    team_name,
)
from cogs.uno._reply import Reply, age_of, answer
from cogs.uno._scheduler import Scheduler
from cogs.uno._service import TableService, options_from
from cogs.uno._session import Session
from cogs.uno.art import configure as configure_art
from cogs.uno.art import hand_image
from data import DatabaseError, UserSettings
from data.models import TARGET_MAX, TARGET_MIN, TURN_TIMER_MAX, TURN_TIMER_MIN
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
    Keep,
    Lap,
    Move,
    ParseError,
    Pass,
    Play,
    Tower,
)
from engine.settings import GRAB2_POINTS

if TYPE_CHECKING:
    from bot import UnoBot

log = logging.getLogger(__name__)

MAX_PENDING_PICTURES = 32
"""Hand pictures drawn at once at most; a busy bot answers with the text alone."""
PICTURE_LATE = 0.25
"""A hand answered this many seconds after its click goes without its picture: the bot is
behind (a restart meeting every table's click at once, an overload), and the clicks
waiting behind this one come first (the text lists the same cards)."""
LOOK_TTL = 60.0
"""Seconds a person's look is kept before it is read again."""
MAX_LOOKS = 10_000
HAND_CARD_WIDTH = 80
"""Pixels per card in the hand picture (2 ms for seven cards, 13 KB; 120 px: 3.7 ms, 20 KB)."""
MAX_ECHO = 12
"""At most this much of a typed card code is repeated back in a refusal."""
LOG_LINES = 15


def actor_of(interaction: discord.Interaction[Any]) -> Actor:
    perms = interaction.permissions
    needed = (THREAD_PERMISSIONS if isinstance(interaction.channel, discord.Thread)
              else REQUIRED_PERMISSIONS)
    missing = missing_permissions(interaction.app_permissions, needed)
    return Actor(id=str(interaction.user.id), name=interaction.user.display_name,
                 admin=bool(perms.manage_guild or perms.administrator),
                 locale=interaction.locale, guild_locale=interaction.guild_locale,
                 missing=missing)


def language_text(chosen: str | None, guild_locale: Locale, locale: Locale) -> str:
    """The server's language for new games, as /uno settings shows it."""
    if chosen:
        return _("language: {language}", locale, language=LANGUAGE_NAMES[chosen])
    return _("language: the server's ({language})", locale,
             language=LANGUAGE_NAMES[language_of(guild_locale)])


def parse_card(code: str, locale: Any) -> Card:
    try:
        return Card.parse(code)
    except ParseError:
        shown = code.strip()[:MAX_ECHO] + ("…" if len(code.strip()) > MAX_ECHO else "")
        raise Refusal(_("'{code}' is not a card: pick one from the list, or type a code such "
                        "as R7, B+2 or W+4.", locale, code=shown)) from None


CARRIERS = (discord.InteractionType.application_command, discord.InteractionType.component,
            discord.InteractionType.modal_submit)
"""Interactions whose webhook can post followups (not autocomplete, not pings)."""


class UnoCog(commands.GroupCog, name="Uno", group_name="uno",
             group_description="Play UNO Power Grab (or classic UNO) in this channel"):
    def __init__(self, bot: UnoBot) -> None:
        self.bot = bot
        self.outbox = Outbox(bot, time_scale=bot.config.time_scale, v2=bot.config.table_v2)
        self.service = TableService(bot.db, self.outbox, Scheduler(),
                                    time_scale=bot.config.time_scale,
                                    cpu_delay=bot.config.cpu_delay)
        self._pictures: set[asyncio.Task[None]] = set()
        """Hand pictures being drawn and attached (bounded: past it, text only)."""
        self._looks: dict[int, tuple[bool, float]] = {}
        """Each person's look (high contrast?) and when it was read."""
        self.outbox.on_lost = self.service.channel_lost
        if bot.config.art_cache:
            configure_art(bot.config.art_cache)
        self.outbox.is_live = lambda s: self.service.sessions.get(s.channel_id) is s
        self.card_emojis = CardEmojis(bot)
        super().__init__()

    # ================================================================== life cycle
    async def cog_load(self) -> None:
        self.sweeper.change_interval(seconds=max(0.5, 60 * self.service.scale))
        self.sweeper.start()
        await self.service.restore()
        if self.bot.config.card_emojis:
            # in the background: READY and the restored games do not wait for the uploads
            self.card_emojis.start()

    async def cog_unload(self) -> None:
        self.sweeper.cancel()
        for task in list(self._pictures):
            task.cancel()
        await self.card_emojis.stop()
        await self.service.close()
        await self.outbox.close()

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
        self.outbox.seen(message.channel.id, message.id)

    @tasks.loop(seconds=60)
    async def sweeper(self) -> None:
        try:
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

    # ================================================================== private menus
    def _hand(self, session: Session, game: Game, actor: Actor, *, page: int = 0,
              notes: list[str] | None = None) -> tuple[str, discord.ui.View | None]:
        unseen = self.service.take_unseen(session, actor.id)
        extra = move_notes(session, actor.id, [], actor.locale, unseen) if unseen else []
        extra = self._lap_notes(session, actor) + extra
        return hand_menu(session, game, actor.id, actor.locale, page, [*extra, *(notes or [])])

    @contextlib.asynccontextmanager
    async def _as_saved(self, session: Session, actor: Actor) -> AsyncIterator[Game]:
        """The session's game as last saved (read under its lock; never a change that is
        still being saved or will be undone)."""
        async with self.service.reading(session):
            game = session.game
            if game is None or game.is_over or not self.service.is_live(session):
                raise Refusal(_("The game is over.", actor.locale))
            yield game

    async def _show_hand(self, reply: Reply, channel_id: int | None, actor: Actor,
                         gid: str | None = None, page: int = 0) -> None:
        session, _game = self.service.game(channel_id, actor, gid)
        await self.service.check_pause(channel_id, actor)
        async with self._as_saved(session, actor) as game:
            menu = self._hand(session, game, actor, page=page)
            cards, playable = shown_cards(game, actor.id)
        await reply.menu(menu)
        if cards and self.bot.config.card_images:
            # The picture follows the answer: drawing it never delays the acknowledgement.
            if age_of(reply.interaction) >= PICTURE_LATE:
                log.info("Behind: a hand goes without its picture")
            elif len(self._pictures) < MAX_PENDING_PICTURES:
                task = asyncio.create_task(self._attach_picture(reply, cards, playable,
                                                                actor.id))
                self._pictures.add(task)
                task.add_done_callback(self._pictures.discard)
            else:
                log.info("Busy: a hand goes without its picture")

    async def _attach_picture(self, reply: Reply, cards: list[Card], playable: set[Card],
                              user: str) -> None:
        """Draw the hand and put it on the menu just sent (best effort: the text lists the
        same cards)."""
        image = await self._picture(cards, playable, user)
        if image is None or reply.expired:
            return
        try:
            await reply.interaction.edit_original_response(
                attachments=[discord.File(io.BytesIO(image), filename="hand.png")])
        except discord.HTTPException as exc:
            log.info("Adding the hand picture to %s failed: %s", reply.interaction.id, exc)

    async def _picture(self, cards: list[Card], playable: set[Card], user: str
                       ) -> bytes | None:
        """The hand as a picture (drawn off the event loop; cards come from a cache), in
        the person's look, or None: no cards to show, pictures off, or drawing failed (the
        text says it all)."""
        if not cards or not self.bot.config.card_images:
            return None
        contrast = await self._high_contrast(int(user))
        try:
            return await asyncio.to_thread(hand_image, cards, playable, width=HAND_CARD_WIDTH,
                                           contrast=contrast)
        except Exception:
            log.exception("Drawing a hand failed; the menu goes without its picture")
            return None

    async def _high_contrast(self, user: int) -> bool:
        """The person's look, read from the database at most once a minute (another process
        of the bot may have changed it)."""
        now = time.monotonic()
        known = self._looks.get(user)
        if known is not None and now - known[1] < LOOK_TTL:
            return known[0]
        try:
            contrast = (await self.bot.db.get_user_settings(user)).high_contrast
        except Exception as exc:
            log.warning("Reading the settings of user %s failed (%s)", user, exc)
            contrast = known[0] if known is not None else False
        self._looks[user] = (contrast, now)
        while len(self._looks) > MAX_LOOKS:
            del self._looks[next(iter(self._looks))]
        return contrast

    async def _move(self, reply: Reply, interaction: discord.Interaction[Any],
                    make: Callable[[Session, Game, str], Move], *, gid: str | None = None,
                    serial: int | None = None) -> None:
        """A move through the pipeline, then the mover's hand as it is now."""
        actor = actor_of(interaction)
        moved = await self.service.move(interaction.channel_id, actor, make, gid=gid,
                                        serial=serial)
        async with self.service.reading(moved.session):
            menu = self._after_move(moved, actor)
        # Text only: a picture with every move costs more than it gives (bench/README.md,
        # "Hand pictures"); My hand shows one.
        await reply.menu(menu)

    def _after_move(self, moved: Moved, actor: Actor) -> tuple[str, discord.ui.View | None]:
        # The game as it is now (a later change may have replaced the object of the move).
        session = moved.session
        game = session.game if self.service.is_live(session) and session.game else moved.game
        unseen = self.service.take_unseen(session, actor.id)
        notes = move_notes(session, actor.id, moved.events, actor.locale, unseen)
        notes = self._lap_notes(session, actor) + notes
        if game.is_over:
            return "\n".join(notes) or _("The game is over.", actor.locale), None
        if not notes and isinstance(moved.move, CallUno):
            notes = [_("You called UNO!", actor.locale)]
        if not notes and isinstance(moved.move, Catch):
            notes = [_("Caught!", actor.locale)]
        if actor.id not in game.players:
            return "\n".join(notes) or _("Done.", actor.locale), None
        return hand_menu(session, game, actor.id, actor.locale, 0, notes)

    def _lap_notes(self, session: Session, actor: Actor) -> list[str]:
        """"Your hand changed": once, for a player whose hand a Victory Lap replaced."""
        step = self.service.take_lap_change(session, actor.id)
        return [] if step is None else [lap_note(step, actor.locale)]

    async def _play(self, reply: Reply, interaction: discord.Interaction[Any], gid: str,
                    serial: int | None, card: Card, uno: bool, color: Color | None,
                    towers: tuple[Tower, ...] | None) -> None:
        """Play ``card``, or first ask what it still needs (its colour, its towers)."""
        actor = actor_of(interaction)
        session, _game = self.service.game(interaction.channel_id, actor, gid)
        async with self._as_saved(session, actor) as game:
            if serial is not None and serial != session.serial:
                raise Refusal(stale_text(actor.locale))
            try:
                step = choice_menu(session, game, actor.id, card, uno, color, towers,
                                   actor.locale)
            except EngineError as exc:
                raise Refusal(error_text(exc, actor.locale)) from None
        if step is not None:
            await reply.menu(step)
            return
        chosen = towers or ()
        await self._move(reply, interaction, lambda s, g, p: Play(p, card, color, chosen, uno),
                         gid=gid, serial=session.serial)

    # ================================================================== components
    async def on_component(self, interaction: discord.Interaction[Any], item: UnoItem) -> None:
        message = interaction.message
        in_menu = bool(message is not None and message.flags.ephemeral)
        await answer(interaction, lambda reply: self._component(reply, interaction, item),
                           edit=in_menu or item.family in ("page", "rules", "leaderboard",
                                                           "lobby"))

    async def _component(self, reply: Reply, interaction: discord.Interaction[Any],
                         item: UnoItem) -> None:
        locale = interaction.locale
        if isinstance(item, LobbyButton):
            await self._lobby_button(reply, interaction, item)
        elif isinstance(item, TableButton):
            await self._table_button(reply, interaction, item)
        elif isinstance(item, PlaySelect):
            if not item.values:
                raise StaleComponent("")
            card, uno = card_value(item.values[0])
            await self._play(reply, interaction, item.gid, item.serial, card, uno, None, None)
        elif isinstance(item, PageButton):
            actor = actor_of(interaction)
            session = self.service.session(interaction.channel_id, locale)
            if item.serial != session.serial:
                raise StaleComponent("")
            await self._show_hand(reply, interaction.channel_id, actor, item.gid, item.page)
        elif isinstance(item, DrawnButton):
            await self._drawn_button(reply, interaction, item)
        elif isinstance(item, ColorButton):
            card = parse_card(item.card, locale)
            towers = towers_value(list(item.towers)) if item.towers else None
            await self._play(reply, interaction, item.gid, item.serial, card, item.uno,
                             color_of(item.color), towers)
        elif isinstance(item, TowerSelect):
            card = parse_card(item.card, locale)
            await self._play(reply, interaction, item.gid, item.serial, card, item.uno,
                             color_of(item.color), towers_value(item.values))
        elif isinstance(item, KeepSelect):
            if not item.values:
                raise StaleComponent("")
            card, uno = card_value(item.values[0])
            await self._move(reply, interaction, lambda s, g, p: Keep(p, card, uno),
                             gid=item.gid, serial=item.serial)
        elif isinstance(item, OpeningColorButton):
            chosen = color_of(item.color)
            if chosen is None:
                raise StaleComponent(item.color)
            await self._move(reply, interaction, lambda s, g, p: ChooseColor(p, chosen),
                             gid=item.gid, serial=item.serial)
        elif isinstance(item, LapButton):
            await self._lap_button(reply, interaction, item)
        elif isinstance(item, RetiredComponent):
            raise Refusal(_("This button is no longer in use.", locale))
        else:
            raise Refusal(_("This button is no longer in use.", locale))

    async def _drawn_button(self, reply: Reply, interaction: discord.Interaction[Any],
                            item: DrawnButton) -> None:
        if item.action == "d":
            await self._move(reply, interaction, lambda s, g, p: Draw(p), gid=item.gid,
                             serial=item.serial)
            return
        if item.action == "dk":
            await self._move(reply, interaction, lambda s, g, p: Pass(p), gid=item.gid,
                             serial=item.serial)
            return
        actor = actor_of(interaction)
        session, _game = self.service.game(interaction.channel_id, actor, item.gid)
        async with self._as_saved(session, actor) as game:
            drawn = game.drawn_card
            if (game.turn != actor.id or game.pending is not Decision.DRAWN or drawn is None
                    or item.serial != session.serial):
                raise StaleComponent("")
            uno = item.action == "dpu" or (len(game.hand(actor.id)) == 2
                                           and game.has_called(actor.id))
        await self._play(reply, interaction, item.gid, item.serial, drawn, uno, None, None)

    async def _lap_button(self, reply: Reply, interaction: discord.Interaction[Any],
                          item: LapButton) -> None:
        """Victory Lap: keep the hand in front of you, or pass it on."""
        keep = item.action == "keep"
        color = color_of(item.color) if item.color else None

        def make(session: Session, game: Game, pid: str) -> Move:
            lap = game.lap
            if lap is None:
                raise Refusal(stale_text(interaction.locale))
            if lap["player"] != pid:
                raise Refusal(_("This is not your Victory Lap: {name} is choosing a hand.",
                                interaction.locale, name=session.name(str(lap["player"]))))
            return Lap(pid, keep, color)

        await self._move(reply, interaction, make, gid=item.gid, serial=item.serial)

    async def _table_button(self, reply: Reply, interaction: discord.Interaction[Any],
                            item: TableButton) -> None:
        gid, serial = item.gid, item.serial
        if serial is None and item.action not in ("hand", "uno"):
            # A table button without the table's serial (an old release's, or forged)
            # can't say which table it was on.
            raise StaleComponent("")
        if item.action == "hand":
            await self._show_hand(reply, interaction.channel_id, actor_of(interaction), gid)
            return
        actions: dict[str, Callable[[Session, Game, str], Move]] = {
            "draw": lambda s, g, p: Draw(p),
            "uno": lambda s, g, p: CallUno(p),
            "catch": _catch_target,
            "accept": lambda s, g, p: Accept(p),
            "challenge": lambda s, g, p: Challenge(p),
        }
        make = actions[item.action]
        # UNO! is about the caller's own hand: it needs no particular table.
        await self._move(reply, interaction, make, gid=gid,
                         serial=None if item.action == "uno" else serial)

    async def _lobby_button(self, reply: Reply, interaction: discord.Interaction[Any],
                            item: LobbyButton) -> None:
        actor = actor_of(interaction)
        locale = actor.locale
        if item.action == "start" and self.service.session(
                interaction.channel_id, locale).options.mode == "tournament":
            await self._start_tournament(reply, interaction, actor, item.gid)
            return
        if item.action == "start":
            session = await self.service.start(interaction.channel_id, actor, item.gid)
            await reply.send(self._started_text(session, session.options.language), view=None,
                             public=True, edit=True)
            return
        session = await self.service.lobby_action(interaction.channel_id, actor, item.action,
                                                  item.gid)
        language = session.options.language  # the lobby message is public
        if not self.service.is_live(session):
            text = _("The game was cancelled by {name}.", language, name=actor.name) \
                if item.action == "cancel" else _("The lobby closed: everyone left.", language)
            await self._edit_lobby(reply, text, None, None)
            return
        await self._edit_lobby(reply, None, lobby_embed(session, language),
                               lobby_view(session, language))

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
    @app_commands.guild_only()
    async def new(self, interaction: discord.Interaction[Any], thread: bool | None = None
                  ) -> None:
        async def work(reply: Reply) -> None:
            assert interaction.guild_id is not None and interaction.channel_id is not None
            actor = actor_of(interaction)
            in_thread = thread
            if in_thread is None:
                in_thread = (await self.bot.db.get_guild_settings(interaction.guild_id)).threads
            if in_thread and not isinstance(interaction.channel, discord.Thread):
                await self._new_in_thread(reply, interaction, actor)
                return
            session = await self.service.open_lobby(interaction.channel_id,
                                                    interaction.guild_id, actor)
            language = session.options.language
            message_id = await reply.send(embed=lobby_embed(session, language),
                                          view=lobby_view(session, language))
            await self.service.set_message(session, lobby=message_id)
        await answer(interaction, work, public=True)

    async def _new_in_thread(self, reply: Reply, interaction: discord.Interaction[Any],
                             actor: Actor) -> None:
        """A lobby in a new public thread of this channel: the thread is created first, the
        lobby saved in it, then shown there; the channel is told where to join."""
        assert interaction.guild_id is not None
        locale = actor.locale
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            raise Refusal(_("Games can open threads only in text channels: use /uno new "
                            "thread:False here.", locale))
        if self.service.closing:
            raise Refusal(_("The bot is restarting: try again in a moment.", locale))
        self._need_thread_permissions(interaction, actor)
        language = await self._server_language(interaction)
        room = await self._create_thread(channel, _("UNO: {name}'s game", language,
                                                    name=actor.name), actor)
        try:
            session = await self.service.open_lobby(room.id, interaction.guild_id, actor,
                                                    parent_id=channel.id)
        except Refusal:
            with contextlib.suppress(discord.HTTPException):
                await room.delete(reason="UNO game could not be opened")
            raise
        language = session.options.language
        view = lobby_view(session, language)
        assert view is not None
        try:
            message = await room.send(embed=lobby_embed(session, language), view=view)
        except discord.HTTPException as exc:
            log.warning("Posting the lobby in thread %s failed: %s", room.id, exc)
            await reply.send(_("🧵 {name} opened a game in {thread}, but I couldn't post its "
                               "lobby there: use /uno table in the thread.", language,
                               name=actor.name, thread=room.mention))
            return
        await self.service.set_message(session, lobby=message.id)
        await reply.send(_("🧵 {name} opened a game in {thread}: join it there.", language,
                           name=actor.name, thread=room.mention))

    @staticmethod
    def _need_thread_permissions(interaction: discord.Interaction[Any], actor: Actor) -> None:
        missing = missing_permissions(interaction.app_permissions, OPEN_THREAD_PERMISSIONS)
        if missing:
            raise Refusal(_("I can't open a game thread here (missing: {perms}): ask a server "
                            "admin for these permissions, or use /uno new thread:False.",
                            actor.locale, perms=permission_names(missing)))

    @staticmethod
    async def _create_thread(channel: discord.TextChannel, name: str, actor: Actor
                             ) -> discord.Thread:
        """A new public thread of ``channel`` for a game, or a Refusal saying why not."""
        try:
            return await channel.create_thread(
                name=name[:100], type=discord.ChannelType.public_thread,
                auto_archive_duration=1440, reason=f"UNO game opened by {actor.id}")
        except discord.Forbidden:
            raise Refusal(_("Discord didn't let me create a thread here: check my Create Public "
                            "Threads permission, or use /uno new thread:False.",
                            actor.locale)) from None
        except discord.HTTPException as exc:
            log.warning("Creating a game thread in channel %s failed: %s", channel.id, exc)
            raise Refusal(_("Creating the thread failed: try again in a moment.",
                            actor.locale)) from None

    @app_commands.command(name="tournament",
                          description="Open the sign-up for an 8-player tournament at two "
                                      "tables, each in its own thread")
    @app_commands.describe(hands_per_pairing="How many hands each two players partner: 4 is "
                                             "the full 28 hands, 1 a quick 7")
    @app_commands.guild_only()
    async def tournament(self, interaction: discord.Interaction[Any],
                         hands_per_pairing: app_commands.Range[int, 1, 4] = 4) -> None:
        async def work(reply: Reply) -> None:
            assert interaction.guild_id is not None and interaction.channel_id is not None
            actor = actor_of(interaction)
            if not isinstance(interaction.channel, discord.TextChannel):
                raise Refusal(_("A tournament opens its tables as threads: start it in a text "
                                "channel.", actor.locale))
            self._need_thread_permissions(interaction, actor)
            session = await self.service.open_lobby(
                interaction.channel_id, interaction.guild_id, actor,
                choices={"mode": "tournament", "hands_per_pairing": hands_per_pairing,
                         "scoring": "standard", "shuffle_seats": False})
            message_id = await reply.send(embed=lobby_embed(session, session.options.language),
                                          view=lobby_view(session, session.options.language))
            await self.service.set_message(session, lobby=message_id)
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
        language = self.service.session(interaction.channel_id, actor.locale).options.language
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
        await reply.send(embed=lobby_embed(session, language), view=None, public=True,
                         edit=True)

    @app_commands.command(name="join", description="Join the lobby in this channel")
    @app_commands.guild_only()
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            session = await self.service.lobby_action(interaction.channel_id, actor, "join")
            self.service.outbox.refresh_lobby(session)
            await reply.send(_("{name} joined the game.", session.options.language,
                               name=actor.name))
        await answer(interaction, work, public=True)

    @app_commands.command(name="addcpu", description="Add a computer player to the lobby")
    @app_commands.guild_only()
    async def addcpu(self, interaction: discord.Interaction[Any]) -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            session = await self.service.lobby_action(interaction.channel_id, actor, "cpu")
            self.service.outbox.refresh_lobby(session)
            await reply.send(_("{name} takes a seat.", session.options.language,
                               name=session.seats[-1].name))
        await answer(interaction, work, public=True)

    @app_commands.command(name="leave", description="Leave the game in this channel")
    @app_commands.guild_only()
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
    @app_commands.guild_only()
    async def start(self, interaction: discord.Interaction[Any]) -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            session = await self.service.start(interaction.channel_id, actor)
            await reply.send(self._started_text(session, session.options.language))
        await answer(interaction, work, public=True)

    @app_commands.command(name="end",
                          description="End the game in this channel (host or Manage Server)")
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction[Any]) -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            language = self.service.session(interaction.channel_id, actor.locale
                                            ).options.language
            await self.service.end(interaction.channel_id, actor)
            await reply.send(_("{name} ended the game. It does not count on the leaderboard.",
                               language, name=actor.name))
        await answer(interaction, work, public=True)

    @app_commands.command(name="kick",
                          description="Remove a player from the game (host or Manage Server)")
    @app_commands.describe(player="The player to remove")
    @app_commands.guild_only()
    async def kick(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            name = await self.service.kick(interaction.channel_id, actor, str(player.id),
                                           player.display_name)
            await reply.send(_("{name} was removed.", actor.locale, name=name))
        await answer(interaction, work)

    @app_commands.command(name="table", description="Show the table again")
    @app_commands.guild_only()
    async def table(self, interaction: discord.Interaction[Any]) -> None:
        async def work(reply: Reply) -> None:
            actor = actor_of(interaction)
            session = self.service.session(interaction.channel_id, actor.locale)
            if session.game is None:
                # The lobby moves down to here; the old message loses its buttons.
                message_id = await reply.send(embed=lobby_embed(session, session.options.language),
                                              view=lobby_view(session, session.options.language),
                                              public=True)
                await self.service.set_message(session, lobby=message_id)
                return
            await self.service.check_pause(interaction.channel_id, actor)
            self.service.outbox.announce(session, [_("{name} asked for the table.",
                                                     session.options.language,
                                                     name=actor.name)], fresh=True)
            await reply.send(_("The table is posted below.", actor.locale))
        await answer(interaction, work)

    @app_commands.command(name="settings", description="Show or change the game settings")
    @app_commands.describe(
        target=f"Points that win the game ({TARGET_MIN}-{TARGET_MAX})",
        scoring="standard: the winner scores the other hands; alternative: lowest total wins",
        edition="Which deck to play", grab2_points="What a Grab-2-Towers card scores",
        turn_timer=f"Seconds per turn ({TURN_TIMER_MIN}-{TURN_TIMER_MAX})",
        mention_turn="Mention the player whose turn it is",
        shuffle_seats="Shuffle the seats at the start",
        threads="Server default: /uno new opens each game in a new thread (Manage Server)",
        mode="solo; partners (4 or 6, partners across); rotating partners match (4, 3 hands)",
        server_default="Also save these as this server's defaults (Manage Server)",
        language="Language of new games' channel text (Manage Server); private replies follow "
                 "yours")
    @app_commands.choices(
        scoring=[app_commands.Choice(name="standard", value="standard"),
                 app_commands.Choice(name="alternative", value="alternative")],
        edition=[app_commands.Choice(name="UNO Power Grab", value="power-grab"),
                 app_commands.Choice(name="Classic UNO", value="classic"),
                 app_commands.Choice(name="UNO Victory Lap", value="victory-lap")])
    @app_commands.choices(grab2_points=[app_commands.Choice(name=str(v), value=v)
                                        for v in GRAB2_POINTS])
    @app_commands.choices(mode=[app_commands.Choice(name="everyone for themselves",
                                                   value="solo"),
                               app_commands.Choice(name="partners", value="partners"),
                               app_commands.Choice(name="rotating partners match",
                                                   value="rotating")])
    @app_commands.choices(language=[app_commands.Choice(name=LANGUAGE_NAMES[code], value=code)
                                    for code in LANGUAGES])
    @app_commands.guild_only()
    async def settings(self, interaction: discord.Interaction[Any],
                       target: app_commands.Range[int, TARGET_MIN, TARGET_MAX] | None = None,
                       scoring: str | None = None, edition: str | None = None,
                       grab2_points: int | None = None,
                       turn_timer: app_commands.Range[int, TURN_TIMER_MIN, TURN_TIMER_MAX]
                       | None = None,
                       mention_turn: bool | None = None, shuffle_seats: bool | None = None,
                       threads: bool | None = None, mode: str | None = None,
                       server_default: bool = False, language: str | None = None) -> None:
        changes = {k: v for k, v in {
            "target": target, "scoring": scoring, "edition": edition,
            "grab2_points": grab2_points, "turn_timer": turn_timer,
            "mention_turn": mention_turn, "shuffle_seats": shuffle_seats,
            "mode": mode}.items()
            if v is not None}
        server_only = {k: v for k, v in {"threads": threads, "language": language}.items()
                       if v is not None}
        await answer(interaction,
                     lambda reply: self._settings(reply, interaction, changes,
                                                  server_default, server_only))

    async def _settings(self, reply: Reply, interaction: discord.Interaction[Any],
                        changes: dict[str, Any], server_default: bool,
                        server_only: dict[str, Any]) -> None:
        """``server_only``: settings of the server, not of a game (games in threads)."""
        assert interaction.guild_id is not None and interaction.channel_id is not None
        actor = actor_of(interaction)
        locale = actor.locale
        session = self.service.sessions.get(interaction.channel_id)
        server_default = server_default or bool(server_only)
        if server_default and not actor.admin:
            raise Refusal(_("Only members with Manage Server can change the server's defaults.",
                            locale))
        game_changes = dict(changes)
        if "language" in server_only and session is not None and not session.started:
            game_changes["language"] = server_only["language"]  # the open lobby too
        if session is not None and game_changes and not (server_default and session.started):
            session = await self.service.configure(interaction.channel_id, actor,
                                                   game_changes)
        if session is None and "mode" in changes:
            raise Refusal(_("Partner play is chosen per game: open a lobby with /uno new, "
                            "then set its mode.", locale))
        if server_default or (session is None and changes):
            changes = {k: v for k, v in changes.items() if k != "mode"}  # a game's choice
            if not actor.admin:
                raise Refusal(_("Only members with Manage Server can change the server's "
                                "defaults.", locale))
            current = await self.bot.db.get_guild_settings(interaction.guild_id)
            try:
                merged = dataclasses.replace(current, **changes, **server_only)
            except ValueError as exc:
                raise Refusal(_(str(exc), locale)) from None
            await self.bot.db.set_guild_settings(merged)
        parts = []
        if session is not None:
            parts.append(_("Settings for this game: {s}", locale,
                           s=settings_text(session, locale)))
        if session is None or server_default:
            defaults = await self.bot.db.get_guild_settings(interaction.guild_id)
            probe = Session(0, 0, "", options=options_from(defaults))
            parts.append(_("This server's defaults: {s}", locale, s=settings_text(probe, locale))
                         + " · " + (_("games open in a new thread", locale) if defaults.threads
                                    else _("games open in the channel", locale))
                         + " · " + language_text(defaults.language, interaction.guild_locale,
                                                 locale))
        await reply.send("\n".join(parts))

    @app_commands.command(name="appearance",
                          description="How your cards are drawn for you (only you see this)")
    @app_commands.describe(high_contrast="Stronger colours and thicker outlines for your cards")
    async def appearance(self, interaction: discord.Interaction[Any],
                         high_contrast: bool | None = None) -> None:
        async def work(reply: Reply) -> None:
            locale = interaction.locale
            user = interaction.user.id
            if high_contrast is not None:
                try:
                    await self.bot.db.set_user_settings(UserSettings(user, high_contrast))
                except DatabaseError:
                    raise Refusal(_("Your choice couldn't be saved: try again in a moment.",
                                    locale)) from None
                self._looks[user] = (high_contrast, time.monotonic())
            contrast = await self._high_contrast(user)
            await reply.send(_("Your cards are drawn in high contrast (in every server).", locale)
                             if contrast else
                             _("Your cards are drawn in the normal look (in every server).",
                               locale))
        await answer(interaction, work)

    # ================================================================== commands: moves
    @app_commands.command(name="hand", description="See your hand (only you can see it)")
    @app_commands.guild_only()
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, lambda reply: self._show_hand(
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
    @app_commands.guild_only()
    async def play(self, interaction: discord.Interaction[Any], card: str,
                   color: str | None = None, towers: str | None = None,
                   uno: bool = False) -> None:
        async def work(reply: Reply) -> None:
            locale = interaction.locale
            parsed = self._typed_card(interaction, card)
            chosen = Color(color) if color else None
            grab = None
            if towers:
                letters = [ch for ch in towers.upper() if ch in "UNO!"]
                try:
                    grab = tuple(dict.fromkeys(Tower.parse(ch) for ch in letters)) or None
                except ParseError as exc:
                    raise Refusal(error_text(exc, locale)) from None
            actor = actor_of(interaction)
            session, _game = self.service.game(interaction.channel_id, actor)
            await self._play(reply, interaction, session.game_id, None, parsed, uno, chosen,
                             grab)
        await answer(interaction, work)

    def _typed_card(self, interaction: discord.Interaction[Any], typed: str) -> Card:
        """A card as typed in /uno play: a code, or a name the autocomplete would match."""
        try:
            return Card.parse(typed.strip()[:MAX_ECHO * 4])
        except ParseError:
            pass
        session = self.service.sessions.get(interaction.channel_id or 0)
        if session is not None and session.game is not None:
            pid = str(interaction.user.id)
            # During a Victory Lap the hand in front of a player is not theirs to name.
            if pid in session.game.players and session.game.lap is None:
                found = match_cards(sorted(set(session.game.hand(pid))), typed,
                                    interaction.locale)
                if len(found) == 1:
                    return found[0]
        return parse_card(typed, interaction.locale)

    play_autocomplete = play.autocomplete("card")(_card_autocomplete)

    def _simple(self, interaction: discord.Interaction[Any],
                make: Callable[[Session, Game, str], Move]) -> Awaitable[None]:
        return answer(interaction, lambda reply: self._move(reply, interaction, make))

    @app_commands.command(name="draw", description="Draw a card")
    @app_commands.guild_only()
    async def draw(self, interaction: discord.Interaction[Any]) -> None:
        await self._simple(interaction, lambda s, g, p: Draw(p))

    @app_commands.command(name="pass", description="Keep the card you just drew")
    @app_commands.guild_only()
    async def pass_(self, interaction: discord.Interaction[Any]) -> None:
        await self._simple(interaction, lambda s, g, p: Pass(p))

    @app_commands.command(name="call", description="Call UNO!")
    @app_commands.guild_only()
    async def call(self, interaction: discord.Interaction[Any]) -> None:
        await self._simple(interaction, lambda s, g, p: CallUno(p))

    @app_commands.command(name="catch", description="Catch a player who forgot to call UNO")
    @app_commands.describe(player="The player who holds one card and did not call UNO")
    @app_commands.guild_only()
    async def catch(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        target = str(player.id)
        await self._simple(interaction, lambda s, g, p: Catch(p, target))

    @app_commands.command(name="challenge",
                          description="Challenge the Wild Draw Four played on you")
    @app_commands.guild_only()
    async def challenge(self, interaction: discord.Interaction[Any]) -> None:
        await self._simple(interaction, lambda s, g, p: Challenge(p))

    @app_commands.command(name="accept", description="Accept the Wild Draw Four played on you")
    @app_commands.guild_only()
    async def accept(self, interaction: discord.Interaction[Any]) -> None:
        await self._simple(interaction, lambda s, g, p: Accept(p))

    @app_commands.command(name="keep", description="Instant UNO: the card to keep")
    @app_commands.describe(card="The one card you keep")
    @app_commands.guild_only()
    async def keep(self, interaction: discord.Interaction[Any], card: str,
                   uno: bool = False) -> None:
        async def work(reply: Reply) -> None:
            parsed = self._typed_card(interaction, card)
            await self._move(reply, interaction, lambda s, g, p: Keep(p, parsed, uno))
        await answer(interaction, work)

    @app_commands.command(name="color",
                          description="Name the starting colour when a wild opens the round")
    @app_commands.choices(color=[app_commands.Choice(name=c.label, value=c.value) for c in Color])
    @app_commands.guild_only()
    async def color(self, interaction: discord.Interaction[Any], color: str) -> None:
        chosen = Color(color)
        await self._simple(interaction, lambda s, g, p: ChooseColor(p, chosen))


def _catch_target(session: Session, game: Game, pid: str) -> Move:
    target = game.catchable
    if target is None or target == pid:
        raise Refusal(_("Nobody can be caught right now."))
    return Catch(pid, target)


__all__ = ["UnoCog", "uno_button"]
