"""Buttons and selects with stable ``uno:`` custom_ids, one typed ``DynamicItem`` per family,
so they keep working after a restart. Each family encodes its custom_id (its constructor)
and decodes it (its ``template``, with named groups) in one place.

=====================  ==========================================================
family                 custom_id
=====================  ==========================================================
LobbyButton            ``uno:l:<action>:<gid>``   join, leave, cpu (cpueasy, cpuhard: a
                       computer player of that level), nocpu, start, cancel,
                       team0, team1, team2 (join that team), shuffle (teams dealt at
                       the start)
TableButton            ``uno:t:<action>:<gid>[:<serial>]``   hand, draw, uno, catch,
                       accept, challenge (the serial ties a click to the table it was on)
PlaySelect             ``uno:p:<gid>:<serial>:<page>``   values ``R7`` or ``R7|u`` (the
                       hand menu before the live panel: old menus keep working)
PageButton             ``uno:pg:<gid>:<serial>:<page>``
DrawnButton            ``uno:<d|dp|dk|dpu>:<gid>:<serial>``   draw; play/keep the drawn card
ColorButton            ``uno:c:<gid>:<serial>:<card>:<u>:<color>[:<towers>]``
TowerSelect            ``uno:tw:<gid>:<serial>:<card>:<u>:<color>``   values ``U`` ``N``...
KeepSelect             ``uno:k:<gid>:<serial>``   values ``R7`` or ``R7|u`` (a hand of
                       more than eight different cards)
OpeningColorButton     ``uno:oc:<gid>:<serial>:<color>``
LapButton              ``uno:lap:<gid>:<serial>:<keep|pass>[:<color>]``   Victory Lap: keep
                       or pass the hand in front of you (a colour if none was named yet)
=====================  ==========================================================

(The leaderboard's and the rules' pages live with their cogs; the hand panel's cards,
towers and kept card in ``_panel_items``; Play again and /uno end's question in
``_end_items``.) ``serial`` counts the game's
turn moves: a menu from before the last move is stale. Anything that does not match a
template, or a select value that is not what the menu offered, is refused politely. Each
family owns what its click means (``act``): it decodes its values and asks the game cog
for the move, the lobby's change (``LOBBY_VERBS``), the question or the menu
(:class:`GameCog`, found at click time, so a click that comes while the extension reloads
is answered politely).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Protocol, Self, TypeVar, runtime_checkable

import discord

from cogs.uno._reply import Reply, answer
from cogs.uno.table.contracts import Actor, Refusal, Stale, StaleComponent
from cogs.uno.table.lobbies import Lobbies
from cogs.uno.table.session import Session
from engine import (
    Accept,
    CallUno,
    Card,
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
from runtime.i18n import _

Make = Callable[[Session, Game, str], Move]
"""Builds a move from the game as it is under its lock (the mover's id last)."""

LobbyVerb = Callable[[Lobbies, int | None, Actor, str], Awaitable[Session]]
"""A change of a lobby as its button makes it: the lobbies, the channel, who clicked, the
lobby's game id (a button of a lobby that has closed since is refused); the lobby after."""

GID = r"(?P<gid>[0-9a-f]{1,32})"
SERIAL = r"(?P<serial>\d{1,9})"
CARD = r"(?P<card>[RBGYW][0-9A-Z+!]{0,3})"
COLOR = r"(?P<color>[RBGY-])"
TOWERS = r"(?P<towers>[UNO!]{1,4})"
MAX_VALUE = 8
"""No select value of ours is longer: anything longer is forged or garbled."""


class PlayerActions(Protocol):
    """What a click in a game asks for (``cogs.uno._plays.Plays``)."""

    async def show_hand(self, reply: Reply, channel_id: int | None, actor: Actor,
                        gid: str | None = None, page: int = 0,
                        notes: list[str] | None = None) -> None: ...
    async def refresh(self, reply: Reply, channel_id: int | None, actor: Actor,
                      note: str) -> None: ...
    async def show_page(self, reply: Reply, channel_id: int | None, actor: Actor, gid: str,
                        serial: int, page: int) -> None: ...
    async def move(self, reply: Reply, actor: Actor, channel_id: int | None, make: Make, *,
                   gid: str | None = None, serial: int | None = None) -> None: ...
    async def play(self, reply: Reply, actor: Actor, channel_id: int | None, gid: str | None,
                   serial: int | None, card: Card, uno: bool, color: Color | None,
                   towers: tuple[Tower, ...] | None) -> None: ...
    async def play_drawn(self, reply: Reply, actor: Actor, channel_id: int | None, gid: str,
                         serial: int, *, uno: bool) -> None: ...
    async def lap(self, reply: Reply, actor: Actor, channel_id: int | None, gid: str,
                  serial: int, keep: bool, color: Color | None) -> None: ...
    async def note(self, reply: Reply, channel_id: int | None, actor: Actor,
                   note: str) -> bool: ...
    async def back(self, reply: Reply, channel_id: int | None, actor: Actor,
                   gid: str | None = None) -> None: ...
    def retired(self, channel_id: int | None, pid: str, message_id: int) -> bool: ...
    async def moved(self, reply: Reply) -> None: ...


@runtime_checkable
class GameCog(Protocol):
    """The game cog (named "Uno") as the components see it."""

    plays: PlayerActions

    def actor(self, interaction: discord.Interaction[Any]) -> Actor: ...
    async def lobby_change(self, reply: Reply, interaction: discord.Interaction[Any],
                           verb: LobbyVerb, gid: str) -> None: ...
    async def lobby_start(self, reply: Reply, interaction: discord.Interaction[Any],
                          gid: str) -> None: ...
    async def again_click(self, reply: Reply, interaction: discord.Interaction[Any],
                          gid: str) -> None: ...
    async def end_click(self, reply: Reply, interaction: discord.Interaction[Any],
                        confirm: bool, gid: str, until: int) -> None: ...


def cog_of(interaction: discord.Interaction[Any]) -> GameCog | None:
    cog = interaction.client.get_cog("Uno")
    return cog if isinstance(cog, GameCog) else None


def card_value(value: str) -> tuple[Card, bool]:
    """A play/keep select value (``R7`` or ``R7|u``): the card and whether UNO is called."""
    code, _sep, flag = value.partition("|")
    if len(value) > MAX_VALUE or flag not in ("", "u"):
        raise StaleComponent(value[:MAX_VALUE])
    try:
        return Card.parse(code), flag == "u"
    except ParseError:
        raise StaleComponent(code[:MAX_VALUE]) from None


def towers_value(values: list[str]) -> tuple[Tower, ...]:
    towers = []
    for v in values:
        if v not in ("U", "N", "O", "!"):
            raise StaleComponent(v[:MAX_VALUE])
        towers.append(Tower(v))
    if len(set(towers)) != len(towers):
        raise StaleComponent("".join(values))
    return tuple(towers)


def catch_target(session: Session, game: Game, pid: str) -> Move:
    """Catch whoever may be caught now (the table's Catch button names nobody)."""
    target = game.catchable
    if target is None or target == pid:
        raise Refusal("Nobody can be caught right now.")
    return Catch(pid, target)


def card_code(code: str) -> Card:
    """The card a custom_id names (its template takes only card-shaped codes)."""
    try:
        return Card.parse(code)
    except ParseError:
        raise StaleComponent(code[:MAX_VALUE]) from None


def color_of(code: str) -> Color | None:
    return None if code == "-" else Color(code)


class UnoItem(discord.ui.DynamicItem[Any], template=r"(?!)"):
    """Base of every ``uno:`` family: a click is answered once (``_reply.answer``) with
    what the family's :meth:`act` does."""

    family: ClassVar[str]
    pattern: ClassVar[re.Pattern[str]] = re.compile(r"(?!)")
    """The family's template (the one given to discord.py), for :meth:`matches`."""
    edits: ClassVar[bool] = False
    """A click on this family answers by editing the message clicked (else: a private
    answer, unless the click came from a private menu, which is always edited)."""
    chosen: list[str]
    """A select's values as the click sent them (set when the click is answered)."""

    def __init_subclass__(cls, *, template: str) -> None:
        super().__init_subclass__(template=template)
        cls.pattern = re.compile(template)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        self.chosen = values_of(interaction)
        cog = cog_of(interaction)
        if cog is None:
            await interaction.response.send_message(
                _("The game service is restarting: try again in a moment.",
                  interaction.locale), ephemeral=True)
            return
        message = interaction.message
        private = bool(message is not None and message.flags.ephemeral)
        # Someone else's private message (only a modified client can click there): refused
        # without touching it, so it never shows the clicker's hand nor becomes their panel.
        foreign = message is not None and private and not owns(interaction, message)
        if (message is not None and private and not foreign
                and cog.plays.retired(interaction.channel_id, str(interaction.user.id),
                                      message.id)):
            # An older panel of theirs (a click made before it said the hand moved): it
            # stays retired, says so again, and nothing is done.
            await answer(interaction, cog.plays.moved, edit=True)
            return
        in_menu = private and not foreign

        async def work(reply: Reply) -> None:
            try:
                if foreign:
                    raise Refusal("This is another player's message: press My hand to see "
                                  "your own hand.")
                await self.act(reply, interaction, cog)
            except (Refusal, StaleComponent) as exc:
                if reply.attempted or not (in_menu or foreign or self.in_panel()):
                    raise
                # the player's panel itself says why, no new message
                locale = interaction.locale
                note = (_("That button was out of date: here is your hand as it is now.",
                          locale) if isinstance(exc, StaleComponent | Stale)
                        else exc.text(locale))
                actor = cog.actor(interaction)
                if in_menu:
                    await cog.plays.refresh(reply, interaction.channel_id, actor, note)
                elif not await cog.plays.note(reply, interaction.channel_id, actor, note):
                    raise  # no live panel: one private sentence

        await answer(interaction, work, edit=in_menu or (self.edits and not foreign))

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        """What the click means."""
        raise Refusal("This button is no longer in use.")

    def in_panel(self) -> bool:
        """Whether a refused click on this public button is answered in the player's
        live hand panel, if any (a table button whose other answers go there too)."""
        return False

    @property
    def values(self) -> list[str]:
        return self.chosen

    @classmethod
    def matches(cls, custom_id: str) -> bool:
        return cls.pattern.fullmatch(custom_id) is not None


def owns(interaction: discord.Interaction[Any], message: discord.Message) -> bool:
    """Whether ``message`` (a private one) is the clicker's: Discord names the person whose
    interaction it answered (a message that says nothing is taken as theirs)."""
    meta = message.interaction_metadata
    return meta is None or meta.user.id == interaction.user.id


def values_of(interaction: discord.Interaction[Any]) -> list[str]:
    """The values a select's click sent (none for a button)."""
    data: dict[str, Any] = dict(interaction.data or {})
    values = data.get("values")
    return [str(v) for v in values] if isinstance(values, list) else []


def button(custom_id: str, label: str, style: discord.ButtonStyle, emoji: str | None,
            row: int | None, disabled: bool) -> discord.ui.Button[Any]:
    return discord.ui.Button(label=label or None, custom_id=custom_id, style=style,
                             emoji=emoji, row=row, disabled=disabled)


def _cpu(level: str) -> LobbyVerb:
    return lambda lobbies, where, actor, gid: lobbies.add_cpu(where, actor, level, gid)


def _team(team: int) -> LobbyVerb:
    return lambda lobbies, where, actor, gid: lobbies.choose_team(where, actor, team, gid)


LOBBY_VERBS: dict[str, LobbyVerb] = {
    "join": Lobbies.join, "leave": Lobbies.leave,
    "cpu": _cpu("normal"), "cpueasy": _cpu("easy"), "cpuhard": _cpu("hard"),
    "nocpu": Lobbies.remove_cpu, "cancel": Lobbies.cancel,
    "team0": _team(0), "team1": _team(1), "team2": _team(2), "shuffle": Lobbies.shuffle_teams,
}
"""What each lobby button but Start changes (``uno:l:<action>:<gid>``)."""


class LobbyButton(UnoItem, template=rf"uno:l:(?P<action>join|leave|cpu|cpueasy|cpuhard|nocpu"
                                     rf"|start|cancel"
                                     rf"|team[012]|shuffle):"
                                     rf"{GID}"):
    family = "lobby"
    edits = True

    def __init__(self, action: str, gid: str, label: str = "", *,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 emoji: str | None = None, row: int | None = None) -> None:
        self.action, self.gid = action, gid
        super().__init__(button(f"uno:l:{action}:{gid}", label, style, emoji, row, False))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["action"], match["gid"])

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        if self.action == "start":
            # the game begins (a tournament's sign-up opens its tables' threads)
            await cog.lobby_start(reply, interaction, self.gid)
            return
        await cog.lobby_change(reply, interaction, LOBBY_VERBS[self.action], self.gid)


class TableButton(UnoItem, template=rf"uno:t:(?P<action>hand|draw|uno|catch|accept|challenge|back)"
                                     rf":{GID}(?::{SERIAL})?"):
    family = "table"

    def __init__(self, action: str, gid: str, serial: int | None, label: str = "", *,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 emoji: str | None = None, row: int | None = None) -> None:
        self.action, self.gid, self.serial = action, gid, serial
        tail = "" if serial is None else f":{serial}"
        super().__init__(button(f"uno:t:{action}:{gid}{tail}", label, style, emoji, row,
                                 False))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        serial = match["serial"]
        return cls(match["action"], match["gid"], int(serial) if serial else None)

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        actor, where = cog.actor(interaction), interaction.channel_id
        if self.action in ("hand", "back"):  # (back: a warm seat taken back, the hand shown)
            await (cog.plays.show_hand if self.action == "hand" else cog.plays.back)(
                reply, where, actor, self.gid)
            return
        if self.serial is None and self.action != "uno":
            # A table button without the table's serial (an old release's, or forged)
            # can't say which table it was on.
            raise StaleComponent("")
        actions: dict[str, Make] = {
            "draw": lambda s, g, p: Draw(p),
            "uno": lambda s, g, p: CallUno(p),
            "catch": catch_target,
            "accept": lambda s, g, p: Accept(p),
            "challenge": lambda s, g, p: Challenge(p),
        }
        # UNO! is about the caller's own hand: it needs no particular table.
        await cog.plays.move(reply, actor, where, actions[self.action], gid=self.gid,
                             serial=None if self.action == "uno" else self.serial)

    def in_panel(self) -> bool:
        # My hand (Back to my seat too) asks for a fresh panel (the live one may be out of
        # view): its refusal is a private sentence where the player looks
        return self.action not in ("hand", "back")


class PlaySelect(UnoItem, template=rf"uno:p:{GID}:{SERIAL}:(?P<page>\d{{1,3}})"):
    family = "play"

    def __init__(self, gid: str, serial: int, page: int,
                 options: list[discord.SelectOption] | None = None, placeholder: str = "",
                 ) -> None:
        self.gid, self.serial, self.page = gid, serial, page
        super().__init__(discord.ui.Select(custom_id=f"uno:p:{gid}:{serial}:{page}",
                                           options=options or [],
                                           placeholder=placeholder or None))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["gid"], int(match["serial"]), int(match["page"]))

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        if not self.values:
            raise StaleComponent("")
        card, uno = card_value(self.values[0])
        await cog.plays.play(reply, cog.actor(interaction), interaction.channel_id, self.gid,
                             self.serial, card, uno, None, None)


class PageButton(UnoItem, template=rf"uno:pg:{GID}:{SERIAL}:(?P<page>\d{{1,3}})"):
    family = "page"
    edits = True

    def __init__(self, gid: str, serial: int, page: int, label: str = "", *,
                 row: int | None = None) -> None:
        self.gid, self.serial, self.page = gid, serial, page
        super().__init__(button(f"uno:pg:{gid}:{serial}:{page}", label,
                                 discord.ButtonStyle.secondary, None, row, False))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["gid"], int(match["serial"]), int(match["page"]))

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        await cog.plays.show_page(reply, interaction.channel_id, cog.actor(interaction),
                                  self.gid, self.serial, self.page)


class DrawnButton(UnoItem, template=rf"uno:(?P<action>d|dp|dk|dpu):{GID}:{SERIAL}"):
    """Draw (``d``) from the hand menu; then play (``dp``, ``dpu`` with an UNO call) or keep
    (``dk``) the drawn card."""

    family = "drawn"

    def __init__(self, action: str, gid: str, serial: int, label: str = "", *,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 row: int | None = None) -> None:
        self.action, self.gid, self.serial = action, gid, serial
        super().__init__(button(f"uno:{action}:{gid}:{serial}", label, style, None, row,
                                 False))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["action"], match["gid"], int(match["serial"]))

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        actor, where = cog.actor(interaction), interaction.channel_id
        if self.action == "d":
            await cog.plays.move(reply, actor, where, lambda s, g, p: Draw(p), gid=self.gid,
                                 serial=self.serial)
        elif self.action == "dk":
            await cog.plays.move(reply, actor, where, lambda s, g, p: Pass(p), gid=self.gid,
                                 serial=self.serial)
        else:
            await cog.plays.play_drawn(reply, actor, where, self.gid, self.serial,
                                       uno=self.action == "dpu")


class ColorButton(UnoItem, template=rf"uno:c:{GID}:{SERIAL}:{CARD}:(?P<uno>[01]):{COLOR}"
                                     rf"(?::{TOWERS})?"):
    """The colour for a wild about to be played (the towers already chosen, if any)."""

    family = "color"

    def __init__(self, gid: str, serial: int, card: str, uno: bool, color: str,
                 towers: str = "", label: str = "", emoji: str | None = None) -> None:
        self.gid, self.serial, self.card, self.uno = gid, serial, card, uno
        self.color, self.towers = color, towers
        tail = f":{towers}" if towers else ""
        super().__init__(button(f"uno:c:{gid}:{serial}:{card}:{int(uno)}:{color}{tail}",
                                 label, discord.ButtonStyle.secondary, emoji, None, False))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["gid"], int(match["serial"]), match["card"], match["uno"] == "1",
                   match["color"], match["towers"] or "")

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        towers = towers_value(list(self.towers)) if self.towers else None
        await cog.plays.play(reply, cog.actor(interaction), interaction.channel_id, self.gid,
                             self.serial, card_code(self.card), self.uno,
                             color_of(self.color), towers)


class TowerSelect(UnoItem, template=rf"uno:tw:{GID}:{SERIAL}:{CARD}:(?P<uno>[01]):{COLOR}"):
    family = "towers"

    def __init__(self, gid: str, serial: int, card: str, uno: bool, color: str,
                 options: list[discord.SelectOption] | None = None, placeholder: str = "",
                 need: int = 1) -> None:
        self.gid, self.serial, self.card, self.uno, self.color = gid, serial, card, uno, color
        super().__init__(discord.ui.Select(
            custom_id=f"uno:tw:{gid}:{serial}:{card}:{int(uno)}:{color}",
            options=options or [], placeholder=placeholder or None, min_values=need,
            max_values=need))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["gid"], int(match["serial"]), match["card"], match["uno"] == "1",
                   match["color"])

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        await cog.plays.play(reply, cog.actor(interaction), interaction.channel_id, self.gid,
                             self.serial, card_code(self.card), self.uno,
                             color_of(self.color), towers_value(self.values))


class KeepSelect(UnoItem, template=rf"uno:k:{GID}:{SERIAL}"):
    family = "keep"

    def __init__(self, gid: str, serial: int,
                 options: list[discord.SelectOption] | None = None, placeholder: str = ""
                 ) -> None:
        self.gid, self.serial = gid, serial
        super().__init__(discord.ui.Select(custom_id=f"uno:k:{gid}:{serial}",
                                           options=options or [],
                                           placeholder=placeholder or None))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["gid"], int(match["serial"]))

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        if not self.values:
            raise StaleComponent("")
        card, uno = card_value(self.values[0])
        await cog.plays.move(reply, cog.actor(interaction), interaction.channel_id,
                             lambda s, g, p: Keep(p, card, uno), gid=self.gid,
                             serial=self.serial)


class OpeningColorButton(UnoItem, template=rf"uno:oc:{GID}:{SERIAL}:{COLOR}"):
    family = "opening"

    def __init__(self, gid: str, serial: int, color: str, label: str = "",
                 emoji: str | None = None) -> None:
        self.gid, self.serial, self.color = gid, serial, color
        super().__init__(button(f"uno:oc:{gid}:{serial}:{color}", label,
                                 discord.ButtonStyle.secondary, emoji, None, False))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["gid"], int(match["serial"]), match["color"])

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        chosen = color_of(self.color)
        if chosen is None:
            raise StaleComponent(self.color)
        await cog.plays.move(reply, cog.actor(interaction), interaction.channel_id,
                             lambda s, g, p: ChooseColor(p, chosen), gid=self.gid,
                             serial=self.serial)


class LapButton(UnoItem, template=rf"uno:lap:{GID}:{SERIAL}:(?P<action>keep|pass)"
                                   rf"(?::{COLOR})?"):
    """Victory Lap: keep the hand in front of you or pass it on. Each step of the lap is a
    move, so a button from an earlier step (its serial) is out of date."""

    family = "lap"

    def __init__(self, gid: str, serial: int, action: str, color: str = "", label: str = "",
                 *, style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 emoji: str | None = None, row: int | None = None) -> None:
        self.gid, self.serial, self.action, self.color = gid, serial, action, color
        tail = f":{color}" if color else ""
        super().__init__(button(f"uno:lap:{gid}:{serial}:{action}{tail}", label, style,
                                 emoji, row, False))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Item[Any], match: re.Match[str]) -> Self:
        return cls(match["gid"], int(match["serial"]), match["action"], match["color"] or "")

    async def act(self, reply: Reply, interaction: discord.Interaction[Any],
                  cog: GameCog) -> None:
        await cog.plays.lap(reply, cog.actor(interaction), interaction.channel_id, self.gid,
                            self.serial, self.action == "keep",
                            color_of(self.color) if self.color else None)


FAMILIES: tuple[type[UnoItem], ...] = (
    LobbyButton, TableButton, PlaySelect, PageButton, DrawnButton, ColorButton, TowerSelect,
    KeepSelect, OpeningColorButton, LapButton)
"""The families of this module (``_panel_items.PANEL_FAMILIES`` has the hand panel's,
``_end_items.END_FAMILIES`` the end of a game's)."""


V = TypeVar("V", discord.ui.View, discord.ui.LayoutView)


def view_of(*items: discord.ui.Item[Any]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    return finished(view)


def finished(view: V) -> V:
    """``view``, stopped before it is sent: every item of ours is a ``DynamicItem``
    registered once (``bot.add_dynamic_items``) and dispatched from its custom_id, so
    discord.py need not keep the view. A view that is not stopped is kept in its view store
    and, sent in an ephemeral answer, given a 15-minute timeout (``timeout=None`` does not
    prevent it): a sleeping task holding the view, about 40 tracked objects per hand menu
    for 15 minutes. A view and its items refer to each other: the garbage collector frees
    them once sent (tests/tools/test_gc.py)."""
    view.stop()
    return view
