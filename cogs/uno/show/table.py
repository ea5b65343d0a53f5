"""The public table: one model, two messages.

:class:`TableModel` is what the table shows after a change, built once (``of``, from the
session as saved, in the game's language): its words, what its picture shows, whose turn it
is and which buttons it offers. Every table message is built from it, never from the
session again:

* :func:`table_layout`: one Components V2 message (the default). One container holds, top
  to bottom: what just happened and whose turn it is, the table's picture (a media gallery
  showing ``attachment://<name>``, when there is one), the table as text (the same
  information as the picture: nobody needs the picture, e.g. with images turned off or a
  screen reader), and the table's buttons. Discord's limits for such a message: 40
  components counted with the nested ones (this one has at most 14) and 4,000 characters
  of text in all (the recent lines are cut from the top to fit).
* :func:`table_embed` and :func:`embed_buttons`: an embed and a row of buttons
  (``UNO_TABLE_V2=0``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import discord

from cogs.uno._components import TableButton, finished, view_of
from cogs.uno.art import TableScene, TableWords
from cogs.uno.table.session import Session
from cogs.uno.table.words.cards import (
    card_count,
    card_label,
    color_name,
    edition_title,
)
from cogs.uno.table.words.game import cpu_mark, direction_text, pending_text
from cogs.uno.table.words.standings import hand_banner, standings_table, team_table
from engine import Color, Decision
from runtime.i18n import Locale, _, ngettext, speaking

MAX_TEXT = 4000
"""Discord's limit for the text displays of one message, all together."""
NO_COLOUR = 0x2F3136

EMBED_COLOR = {
    Color.RED: 0xD72600, Color.BLUE: 0x0956BF, Color.GREEN: 0x379711, Color.YELLOW: 0xECD407,
}
"""The embed table's side colour: the colour in play."""


@dataclass(frozen=True, slots=True)
class TableModel:
    """The public table after one change (never a hand): every table message's content."""

    game_id: str
    serial: int
    language: str
    title: str
    description: str
    fields: tuple[tuple[str, str], ...]
    """(name, value) sections: the players, the teams or match, the towers."""
    footer: str
    colour: int
    picture: TableScene
    """What the table's picture shows."""
    turn: str
    """The player whose decision the table waits for."""
    turn_line: str
    """The sentence that names them (a mention when they are a person)."""
    names_turn: bool
    """Whether the table names whose turn it is (turn mentions on, and a person's turn)."""
    paused: bool
    """The game waits until the bot can post again (no mention notifies then)."""
    challenge: bool
    """A Wild Draw Four waits for a person's answer: the table offers Accept and
    Challenge."""
    warm: bool = False
    """A computer player keeps someone's seat warm: the table offers Back to my seat."""

    @classmethod
    def of(cls, session: Session) -> TableModel | None:
        """The table of ``session``'s game as it is (call it when it is as saved: after a
        change, or under the session's lock), or None when there is no running game."""
        game = session.game
        if game is None or game.is_over:
            return None
        language = session.options.language  # public: the game's
        view: dict[str, Any] = game.public_view()
        top = game.top
        color_line = ""
        if top.is_wild:
            color_line = _(" (colour: {color})", language, color=color_name(game.color, language))
        description = "\n".join([
            _("Top card: **{card}**{color}", language, card=card_label(top, language),
              color=color_line),
            _("Direction: {dir}", language, dir=direction_text(game.direction, language)),
            f"**{pending_text(session, game, language)}**",
        ])
        rows = []
        for p in view["players"]:
            marker = "▶️" if p["id"] == game.turn else "▫️"
            towers = " ".join(f"`{t}`" for t in p["towers"])
            uno = _(" · **UNO!**", language) if p["uno"] and p["cards"] == 1 else ""
            cpu = cpu_mark(session, p["id"], language)
            rows.append(_("{marker} **{name}**{cpu}: {cards} · {score} pts{towers}{uno}",
                          language, marker=marker, name=p["name"], cpu=cpu,
                          cards=card_count(p["cards"], language), score=p["score"],
                          towers=(" · " + towers) if towers else "", uno=uno))
        fields = [(_("Players", language), "\n".join(rows)[:1024])]
        if session.match is not None:
            fields.append((_("Rotating partners match", language),
                           (hand_banner(session, language) + "\n"
                            + standings_table(session, language))[:1024]))
        elif game.teams:
            name = (_("Tournament hand: partners sit across", language)
                    if session.tournament_of is not None else
                    _("Teams (partners sit across)", language))
            fields.append((name, team_table(session, language)[:1024]))
        if game.waiting:
            fields.append((_("Waiting for the next round", language),
                           ", ".join(session.name(p) for p in game.waiting)[:1024]))
        if game.edition.towers:
            bits = [f"`{t.value}` {session.name(holder) if holder else _('tray', language)}"
                    for t, holder in game.towers.items()]
            fields.append((_("Towers (U blocks +1, N +2, O Wild +4, ! Skip)", language),
                           " · ".join(bits)))
        cpus = [p["id"] for p in view["players"] if session.is_cpu(p["id"])]
        return cls(
            game_id=session.game_id, serial=session.serial, language=language,
            title=_("{edition}: round {n}", language,
                    edition=edition_title(game.edition.name, language), n=game.round_number),
            description=description, fields=tuple(fields),
            footer=_("Draw pile: {draw} · Target: {target} points · Game {gid}", language,
                     draw=view["draw_count"], target=view["target"], gid=session.game_id),
            colour=EMBED_COLOR.get(game.color, NO_COLOUR) if game.color else NO_COLOUR,
            picture=TableScene.from_public_view(view, cpu=cpus, words=table_words(language)),
            turn=game.turn, turn_line=turn_ping(session, language),
            names_turn=(session.options.mention_turn and game.turn.isdigit()
                        and not session.is_cpu(game.turn)),
            paused=session.paused is not None,
            # (a computer player answers by itself: nobody has a button to press then)
            challenge=(game.pending is Decision.CHALLENGE
                       and not session.is_cpu(game.turn)),
            warm=bool(session.stand_ins))

    def text(self) -> str:
        """The table as Markdown (the V2 message's text; the embed's, laid out)."""
        parts = [f"### {self.title}", self.description]
        parts += [f"**{name}**\n{value}" for name, value in self.fields]
        parts.append(f"-# {self.footer}")
        return "\n".join(parts)


def turn_ping(session: Session, language: str | None = None) -> str:
    """The sentence that names whose decision the table waits for (a mention for a person;
    whether it notifies is the message's ``allowed_mentions``)."""
    game = session.game
    assert game is not None
    who = f"<@{game.turn}>" if game.turn.isdigit() else session.name(game.turn)
    language = language or session.options.language  # public
    if game.pending is Decision.CHALLENGE:
        return _("{who}: accept or challenge the Wild Draw Four.", language, who=who)
    if game.pending is Decision.KEEP:
        return _("{who}: choose the card to keep (My hand).", language, who=who)
    if game.pending is Decision.COLOR:
        return _("{who}: name the starting colour (My hand).", language, who=who)
    if game.pending is Decision.LAP:
        return _("{who}: keep or pass the hand in the Victory Lap (My hand).", language,
                 who=who)
    return _("{who}, it's your turn.", language, who=who)


@lru_cache(maxsize=16)
def table_words(language: str | None) -> TableWords:
    """The words of the table's picture in ``language`` (the game's)."""
    with speaking(language):
        return TableWords(
            top_card=_("Top card"), draw_pile=_("Draw pile"), direction=_("Direction"),
            # TRANSLATORS: the table picture's direction, on two short lines: "play goes" /
            # "down the list" (of seats, top to bottom) or "up the list".
            play_goes=_("play goes"), down=_("down the list"), up=_("up the list"),
            towers=_("Towers"), players=_("Players"),
            # TRANSLATORS: the tag beside a computer player's name in the table picture.
            cpu=_("CPU"), uno=_("UNO!"),
            # (each form keeps its {n}: the picture fills in the count)
            one_card=ngettext("{n} card", "{n} cards", 1, n="{n}"),
            cards=ngettext("{n} card", "{n} cards", 2, n="{n}"),
            zero_cards=ngettext("{n} card", "{n} cards", 0, n="{n}"),
            colour=_("colour: {color}"), red=_("red"), blue=_("blue"), green=_("green"),
            yellow=_("yellow"), player=_("Player {n}"))


def uno_button(game_id: str, serial: int, language: Locale, *,
               row: int | None = None) -> TableButton:
    return TableButton("uno", game_id, serial, _("UNO!", language),
                       style=discord.ButtonStyle.success, row=row)


def table_buttons(model: TableModel) -> list[list[discord.ui.Item[Any]]]:
    """The table's buttons, row by row."""
    language, gid, serial = model.language, model.game_id, model.serial
    rows: list[list[discord.ui.Item[Any]]] = [[
        TableButton("hand", gid, None, _("My hand", language),
                    style=discord.ButtonStyle.primary, emoji="🃏"),
        TableButton("draw", gid, serial, _("Draw", language)),
        uno_button(gid, serial, language),
        TableButton("catch", gid, serial, _("Catch", language),
                    style=discord.ButtonStyle.danger),
    ]]
    if model.challenge:
        rows.append([
            TableButton("accept", gid, serial, _("Accept +4", language), row=1),
            TableButton("challenge", gid, serial, _("Challenge", language),
                        style=discord.ButtonStyle.danger, row=1),
        ])
    if model.warm:
        rows.append([seat_back_button(gid, language, row=2)])
    return rows


def seat_back_button(game_id: str, language: Locale, *, row: int | None = None) -> TableButton:
    """Back to my seat: a person takes their seat back from the computer player keeping it
    warm (on the table while someone's is, and in their hand panel)."""
    return TableButton("back", game_id, None, _("Back to my seat", language),
                       style=discord.ButtonStyle.primary, emoji="🪑", row=row)


def table_embed(model: TableModel) -> discord.Embed:
    """The table as an embed (``UNO_TABLE_V2=0``)."""
    embed = discord.Embed(title=model.title, description=model.description,
                          colour=model.colour)
    for name, value in model.fields:
        embed.add_field(name=name, value=value, inline=False)
    embed.set_footer(text=model.footer)
    return embed


def embed_buttons(model: TableModel) -> discord.ui.View:
    """The embed table's buttons."""
    return view_of(*(item for row in table_buttons(model) for item in row))


def closed_table_layout(language: Locale) -> discord.ui.LayoutView:
    """A Components V2 table closed when what it showed is not known (posted before a
    restart, its game over since): one sentence, no buttons. Discord refuses to edit a V2
    message to no components (400, 50006), so it cannot simply lose its buttons."""
    container = discord.ui.Container[discord.ui.LayoutView]()
    container.add_item(discord.ui.TextDisplay(
        _("This table is closed: its game is over.", language)))
    layout = discord.ui.LayoutView(timeout=None)
    layout.add_item(container)
    return finished(layout)


def table_layout(model: TableModel, lines: str | None, picture: str | None, *,
                 buttons: bool = True) -> discord.ui.LayoutView:
    """The table message: ``lines`` (recent announcements and the turn line), the picture
    ``picture`` (an attachment's file name; None: no picture), the table as text and, with
    ``buttons``, the table's buttons."""
    info = model.text()[:MAX_TEXT]
    container = discord.ui.Container[discord.ui.LayoutView](accent_colour=model.colour)
    room = MAX_TEXT - len(info)
    if lines and room > 0:
        container.add_item(discord.ui.TextDisplay(lines[-room:]))
    if picture is not None:
        container.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem(
            f"attachment://{picture}", description=model.title[:1024] or None)))
    container.add_item(discord.ui.TextDisplay(info))
    if buttons:
        for row in table_buttons(model):
            for item in row:
                item.row = None  # an action row places them
            container.add_item(discord.ui.ActionRow(*row))
    layout = discord.ui.LayoutView(timeout=None)
    layout.add_item(container)
    return finished(layout)
