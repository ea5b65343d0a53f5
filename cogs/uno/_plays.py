"""What a player's click or command does to their game, and the private answer they get.

A move takes the game's lock once (``TableService.move``): its checks, the move, its save
and the mover's answer (their hand as the move left it) all happen under it; a card that
still needs something (its colour, its towers) is answered with that question from inside
the same change, which then changes nothing. The hand menus themselves are built by
``cogs.uno.show.hand``; the hand's picture follows the answer (``_pictures``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass
from typing import Any

import discord

from cogs.uno._components import TableButton, view_of
from cogs.uno._panels import Panels, Picture, moved_text
from cogs.uno._pictures import HandPictures, picture_name
from cogs.uno._places import in_replies
from cogs.uno._reply import Reply, answer
from cogs.uno.show.hand import (
    Menu,
    choice_menu,
    hand_menu,
    lap_note,
    match_cards,
    move_notes,
    panel_key,
    shown_cards,
    turn_hand,
)
from cogs.uno.table.contracts import (
    REQUIRED_PERMISSIONS,
    THREAD_PERMISSIONS,
    Actor,
    EngineRefusal,
    Moved,
    Refusal,
    Stale,
    StaleComponent,
    missing_permissions,
)
from cogs.uno.table.service import TableService
from cogs.uno.table.session import Session
from engine import (
    CallUno,
    Card,
    Catch,
    Color,
    Decision,
    EngineError,
    Game,
    Lap,
    Move,
    ParseError,
    Play,
    Tower,
)
from runtime.i18n import Locale, _

TYPED_NOTE_LIFE = 5.0
"""Seconds the short answer to a typed move shown in the live panel stays (scaled)."""
MAX_ECHO = 12
"""At most this much of a typed card code is repeated back in a refusal."""
Make = Callable[[Session, Game, str], Move]
"""Builds the move from the game as it is under the lock (the mover's id last)."""


def actor_of(interaction: discord.Interaction[Any]) -> Actor:
    """Who clicked or typed, as the table service knows people."""
    perms = interaction.permissions
    needed = (THREAD_PERMISSIONS if isinstance(interaction.channel, discord.Thread)
              else REQUIRED_PERMISSIONS)
    # (a game that lives in replies needs no permission in the channel: _places.py)
    missing = () if in_replies(interaction) else missing_permissions(
        interaction.app_permissions, needed)
    return Actor(id=str(interaction.user.id), name=interaction.user.display_name,
                 admin=bool(perms.manage_guild or perms.administrator),
                 locale=interaction.locale, guild_locale=interaction.guild_locale,
                 missing=missing)


def parse_card(code: str) -> Card:
    """A typed card code, or a refusal that shows what was typed."""
    try:
        return Card.parse(code)
    except ParseError:
        shown = code.strip()[:MAX_ECHO] + ("…" if len(code.strip()) > MAX_ECHO else "")
        raise Refusal("'{code}' is not a card: pick one from the list, or type a code such "
                      "as R7, B+2 or W+4.", code=shown) from None


Hand = tuple[list[Card], set[Card]]
"""A hand as its picture shows it: the cards (sorted) and those playable now."""


class Asked(Refusal):
    """A card that still needs a choice: answered with the question, nothing changed."""

    def __init__(self, menu: Menu, key: Hashable, number: int, hand: Hand | None) -> None:
        super().__init__("…")
        self.menu = menu
        self.key, self.number, self.hand = key, number, hand


@dataclass(frozen=True, slots=True)
class Prepared:
    """The mover's answer, built under the game's lock: what it shows and, when it is
    their hand, the panel's key and content number (``Panels``)."""

    menu: Menu
    key: Hashable | None = None
    number: int = 0
    hand: Hand | None = None
    """The hand its picture shows (the player's turn: the hand is in view as a picture
    too), or None: text only."""


class Plays:
    """The private side of playing: hands, moves and their answers, for one service."""

    def __init__(self, service: TableService, pictures: HandPictures) -> None:
        self.service = service
        self.pictures = pictures
        self.panels = Panels(self._panel_key, self._panel, art=self._panel_art,
                             scale=service.scale)

    # ------------------------------------------------------------------ live panels
    def _panel_key(self, session: Session, pid: str) -> Hashable:
        game = session.game
        if game is None or not (game.is_over or self.service.is_live(session)):
            return None  # no game any more (ended, cancelled): the panel says so
        return panel_key(session, game, pid)

    def _panel(self, session: Session, pid: str, locale: Locale, closing: bool) -> Menu:
        """``pid``'s panel as the game is now (``closing``: its token ends soon)."""
        game = session.game
        if closing:
            return (_("This panel has stopped following the game: press Reopen to see your "
                      "hand now and keep it up to date.", locale),
                    view_of(TableButton("hand", session.game_id, None, _("Reopen", locale),
                                        style=discord.ButtonStyle.primary)))
        if (game is None or pid not in game.players
                or not (game.is_over or self.service.is_live(session))):
            return _("The game is over.", locale), None
        return self._hand_of(session, game, pid, locale)

    def _panel_art(self, session: Session, pid: str) -> Picture | None:
        """The picture ``pid``'s panel shows now: their hand while it is their turn."""
        game = session.game
        if game is None or not self.service.is_live(session):
            return None
        return self._picture(turn_hand(session, game, pid), pid)

    def _picture(self, hand: Hand | None, pid: str) -> Picture | None:
        """Draws ``hand`` for ``pid`` (cached: a hand shown again is not drawn again)."""
        if hand is None or not self.pictures.enabled:
            return None
        cards, playable = hand

        async def draw() -> tuple[bytes, str] | None:
            image = await self.pictures.picture(cards, playable, pid)
            return None if image is None else (image, picture_name(cards))
        return draw

    async def _send(self, reply: Reply, session: Session, actor: Actor,
                    answer: Prepared) -> None:
        """``answer`` as the reply (in the message clicked, or a new one that becomes the
        panel), with the picture of the hand it shows: at once when it is drawn already,
        else added by an edit after the answer (drawing never delays an
        acknowledgement)."""
        hand = answer.hand
        image = self.pictures.ready(hand[0], hand[1], actor.id) if hand else None
        if image is not None and hand is not None:
            await reply.menu(answer.menu, image=image, image_name=picture_name(hand[0]))
        else:
            await reply.menu(answer.menu)
        self._shown(reply, session, actor, answer)
        if hand is not None and image is None:
            self.pictures.follow(reply, hand[0], hand[1], actor.id)

    def _shown(self, reply: Reply, session: Session, actor: Actor, answer: Prepared) -> None:
        """The answer showed the mover's hand: that message is their live panel."""
        if answer.key is None:
            return
        message_id = reply.shown.message_id if reply.shown is not None else None
        self.panels.shown(session, actor.id, actor.locale, reply.interaction, message_id,
                          answer.key, answer.number, answer.menu,
                          self._picture(answer.hand, actor.id))

    def retired(self, channel_id: int | None, pid: str, message_id: int) -> bool:
        """Whether ``message_id`` is an older panel of ``pid``'s than their newest."""
        return self.panels.retired(channel_id, pid, message_id)

    async def moved(self, reply: Reply) -> None:
        """The answer to a click through a retired panel: it says again where the hand is
        (its buttons and picture go), and nothing is done."""
        await reply.send(moved_text(reply.interaction.locale), view=None, edit=True,
                         replace_files=True)

    def _answer(self, session: Session, game: Game, actor: Actor, menu: Menu, *,
                hand: Hand | None = None) -> Prepared:
        """The mover's hand as an answer (under the game's lock), with its picture while it
        is their turn (``hand``: the picture's hand whatever the turn, as My hand shows
        it)."""
        key = panel_key(session, game, actor.id)
        self.panels.expect(session, actor.id, key)
        return Prepared(menu, key, self.panels.stamp(),
                        hand or turn_hand(session, game, actor.id))

    # ------------------------------------------------------------------ the hand
    def _hand_of(self, session: Session, game: Game, pid: str, locale: Locale, *,
                 page: int = 0, notes: list[str] | None = None) -> Menu:
        unseen = self.service.take_unseen(session, pid)
        extra = move_notes(session, pid, [], locale, unseen) if unseen else []
        extra = self._lap_notes(session, pid, locale) + extra
        return hand_menu(session, game, pid, locale, page, [*extra, *(notes or [])])

    @contextlib.asynccontextmanager
    async def _as_saved(self, session: Session) -> AsyncIterator[Game]:
        """The session's game as last saved (read under its lock; never a change that is
        still being saved or will be undone)."""
        async with self.service.reading(session):
            game = session.game
            if game is None or game.is_over or not self.service.is_live(session):
                raise self.service.game_over(session)
            yield game

    async def show_hand(self, reply: Reply, channel_id: int | None, actor: Actor,
                        gid: str | None = None, page: int = 0,
                        notes: list[str] | None = None) -> None:
        """The player's hand: their live panel (in the message clicked when the click came
        from a panel, else in a new message that becomes it)."""
        session, _game = self.service.game(channel_id, actor, gid)
        await self.service.check_pause(channel_id, actor)
        async with self._as_saved(session) as game:
            cards, playable = shown_cards(game, actor.id)
            answer = self._answer(session, game, actor, self._hand_of(
                session, game, actor.id, actor.locale, page=page, notes=notes),
                hand=(cards, playable) if cards else None)
        await self._send(reply, session, actor, answer)

    async def join_game(self, interaction: discord.Interaction[Any]) -> bool:
        """/uno join while the channel's game runs (False: no game runs, a lobby's join): a
        seat at its next round (said in the channel), or, for a person whose seat a computer
        player keeps warm, their seat back (their hand panel)."""
        session = self.service.sessions.get(interaction.channel_id or 0)
        if session is None or not session.started:
            return False
        actor = actor_of(interaction)
        if session.is_standing_in(actor.id):
            await answer(interaction, lambda reply: self.back(
                reply, interaction.channel_id, actor))
            return True

        async def work(reply: Reply) -> None:
            asked = await self.service.seats.ask(interaction.channel_id, actor)
            await reply.send(_("{name} asks for a seat at the next round.",
                               asked.options.language, name=actor.name))
        await answer(interaction, work, public=True)
        return True

    async def back(self, reply: Reply, channel_id: int | None, actor: Actor,
                   gid: str | None = None) -> None:
        """Back to my seat (or /uno join): the computer player keeping the seat warm gives
        it back; the answer is the hand panel."""
        await self.service.seats.back(channel_id, actor, gid)
        await self.show_hand(reply, channel_id, actor, gid,
                             notes=[_("You're back in your seat.", actor.locale)])

    async def show_page(self, reply: Reply, channel_id: int | None, actor: Actor, gid: str,
                        serial: int, page: int) -> None:
        """Another page of the hand menu (the menu's own serial must be current)."""
        if serial != self.service.session(channel_id).serial:
            raise StaleComponent("")
        await self.show_hand(reply, channel_id, actor, gid, page)

    # ------------------------------------------------------------------ moves
    async def move(self, reply: Reply, actor: Actor, channel_id: int | None, make: Make, *,
                   gid: str | None = None, serial: int | None = None) -> None:
        """A move through the pipeline, answered with the mover's hand as the move left it
        (read under the same lock: one lock take for the whole click). A click on the
        public table by a player whose panel is live is acknowledged without a message:
        the answer goes to their panel."""
        try:
            moved = await self.service.move(channel_id, actor, make, gid=gid, serial=serial,
                                            then=lambda m: self._after_move(m, actor))
        except Asked as asked:
            question = Prepared(asked.menu, asked.key, asked.number, asked.hand)
            session = self.service.session(channel_id)
            if await self._in_panel(reply, channel_id, actor, question, _(
                    "Your hand panel above asks what the card still needs.", actor.locale)):
                return
            if reply.edit and reply.interaction.message is not None:
                # The card was clicked in the panel, on their turn: the panel shows this
                # hand's picture already, and keeps it in view (not uploaded again).
                await reply.send(asked.menu[0], view=asked.menu[1])
                self._shown(reply, session, actor, question)
                return
            await self._send(reply, session, actor, question)
            return
        answer = moved.shown
        if not isinstance(answer, Prepared):
            await reply.menu((_("Done.", actor.locale), None))
            return
        if await self._in_panel(reply, channel_id, actor, answer, _(
                "Done: your hand panel above shows it.", actor.locale)):
            return
        # The picture only while it is still their turn (a card drawn, a skip in a game of
        # two): a picture with every answer costs more than it gives (bench/README.md,
        # "Hand pictures").
        await self._send(reply, moved.session, actor, answer)

    async def _in_panel(self, reply: Reply, channel_id: int | None, actor: Actor,
                        answer: Prepared, typed: str) -> bool:
        """Show ``answer`` in the player's live panel when the click or command came from
        elsewhere: a click on the table is acknowledged with no message, a typed command
        with ``typed``, which removes itself a moment later (one private message a game).
        False: no live panel (or the click can no longer be acknowledged so): the answer
        goes with the reply."""
        panel = self.panels.live(channel_id, actor.id)
        if panel is None or answer.key is None or reply.edit:
            return False
        kind = reply.interaction.type
        if kind is discord.InteractionType.component:
            if not await reply.quiet():
                return False
        elif kind is discord.InteractionType.application_command:
            await reply.fleeting(typed, TYPED_NOTE_LIFE * self.service.scale)
        else:
            return False
        self.panels.push(panel, answer.menu, answer.key, answer.number,
                         self._picture(answer.hand, actor.id))
        return True

    async def refresh(self, reply: Reply, channel_id: int | None, actor: Actor,
                      note: str) -> None:
        """A click in a panel that was refused or out of date: the panel shows the hand as
        it is now, the reason on top (no new message)."""
        try:
            await self.show_hand(reply, channel_id, actor, notes=[note])
        except Refusal as refusal:
            await reply.menu((f"{note}\n{refusal.text(actor.locale)}", None))

    async def note(self, reply: Reply, channel_id: int | None, actor: Actor,
                   note: str) -> bool:
        """A refused click outside the player's panel (the table's buttons, another
        player's message): their live panel shows the hand as it is now, the reason on
        top, and the click is acknowledged with no message. False when they have no live
        panel (nor game) to show it in, or the click can no longer be acknowledged so."""
        panel = self.panels.live(channel_id, actor.id)
        if panel is None or reply.interaction.type is not discord.InteractionType.component:
            return False
        try:
            session, _game = self.service.game(channel_id, actor)
            async with self._as_saved(session) as game:
                answer = self._answer(session, game, actor, self._hand_of(
                    session, game, actor.id, actor.locale, notes=[note]))
        except Refusal:
            return False
        if not await reply.quiet():
            return False
        self.panels.push(panel, answer.menu, answer.key, answer.number,
                         self._picture(answer.hand, actor.id))
        return True

    def _after_move(self, moved: Moved, actor: Actor) -> Prepared:
        # The game as it is now (a later hand of a match may have replaced the move's game).
        session = moved.session
        game = session.game if self.service.is_live(session) and session.game else moved.game
        unseen = self.service.take_unseen(session, actor.id)
        notes = move_notes(session, actor.id, moved.events, actor.locale, unseen)
        notes = self._lap_notes(session, actor.id, actor.locale) + notes
        if game.is_over:
            return self._answer(session, game, actor, (
                "\n".join(notes) or _("The game is over.", actor.locale), None))
        if not notes and isinstance(moved.move, CallUno):
            notes = [_("You called UNO!", actor.locale)]
        if not notes and isinstance(moved.move, Catch):
            notes = [_("Caught!", actor.locale)]
        if actor.id not in game.players:
            return Prepared(("\n".join(notes) or _("Done.", actor.locale), None))
        return self._answer(session, game, actor,
                            hand_menu(session, game, actor.id, actor.locale, 0, notes))

    def _lap_notes(self, session: Session, pid: str, locale: Locale) -> list[str]:
        """"Your hand changed": once, for a player whose hand a Victory Lap replaced."""
        step = self.service.take_lap_change(session, pid)
        return [] if step is None else [lap_note(step, locale)]

    async def play(self, reply: Reply, actor: Actor, channel_id: int | None, gid: str | None,
                   serial: int | None, card: Card, uno: bool, color: Color | None,
                   towers: tuple[Tower, ...] | None) -> None:
        """Play ``card``, or first ask what it still needs (its colour, its towers)."""

        def make(session: Session, game: Game, pid: str) -> Move:
            try:
                step = choice_menu(session, game, pid, card, uno, color, towers,
                                   actor.locale)
            except EngineError as exc:
                raise EngineRefusal(exc) from None
            if step is not None:
                raise Asked(step, panel_key(session, game, pid), self.panels.stamp(),
                            turn_hand(session, game, pid))
            return Play(pid, card, color, towers or (), uno)

        await self.move(reply, actor, channel_id, make, gid=gid, serial=serial)

    async def play_drawn(self, reply: Reply, actor: Actor, channel_id: int | None, gid: str,
                         serial: int, *, uno: bool) -> None:
        """Play the card just drawn (the Play it button), asking what it still needs."""
        session, _game = self.service.game(channel_id, actor, gid)
        async with self._as_saved(session) as game:
            drawn = game.drawn_card
            if (game.turn != actor.id or game.pending is not Decision.DRAWN or drawn is None
                    or serial != session.serial):
                raise StaleComponent("")
            uno = uno or (len(game.hand(actor.id)) == 2 and game.has_called(actor.id))
        await self.play(reply, actor, channel_id, gid, serial, drawn, uno, None, None)

    async def lap(self, reply: Reply, actor: Actor, channel_id: int | None, gid: str,
                  serial: int, keep: bool, color: Color | None) -> None:
        """Victory Lap: keep the hand in front of you, or pass it on."""

        def make(session: Session, game: Game, pid: str) -> Move:
            lap = game.lap
            if lap is None:
                raise Stale()
            if lap["player"] != pid:
                raise Refusal("This is not your Victory Lap: {name} is choosing a hand.",
                              name=session.name(str(lap["player"])))
            return Lap(pid, keep, color)

        await self.move(reply, actor, channel_id, make, gid=gid, serial=serial)

    def typed_card(self, channel_id: int | None, user_id: int, typed: str,
                   locale: Any) -> Card:
        """A card as typed in /uno play: a code, or a name the autocomplete would match."""
        try:
            return Card.parse(typed.strip()[:MAX_ECHO * 4])
        except ParseError:
            pass
        session = self.service.sessions.get(channel_id or 0)
        if session is not None and session.game is not None:
            pid = str(user_id)
            # During a Victory Lap the hand in front of a player is not theirs to name.
            if pid in session.game.players and session.game.lap is None:
                found = match_cards(sorted(set(session.game.hand(pid))), typed, locale)
                if len(found) == 1:
                    return found[0]
        return parse_card(typed)
