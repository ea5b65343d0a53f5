"""The live table as one Components V2 message (``discord.ui.LayoutView``).

One container holds, top to bottom: what just happened and whose turn it is, the table's
picture (a media gallery showing ``attachment://<name>``, when there is one), the table as
text (the same information as the picture: nobody needs the picture, e.g. with images
turned off or a screen reader), and the table's buttons (the same ``uno:`` items as the
embed table's). Discord's limits for such a message: 40 components counted with the nested
ones (this one has at most 14) and 4,000 characters of text in all (the recent lines are
cut from the top to fit).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import discord

from cogs.i18n import Locale, _, speaking
from cogs.uno._components import finished
from cogs.uno._menus import table_view
from cogs.uno._render import table_embed
from cogs.uno.art import TableView, TableWords
from cogs.uno.table.session import Session

MAX_TEXT = 4000
"""Discord's limit for the text displays of one message, all together."""


def embed_text(embed: discord.Embed) -> str:
    """An embed's text as Markdown (title, description, fields, footer)."""
    parts = []
    if embed.title:
        parts.append(f"### {embed.title}")
    if embed.description:
        parts.append(embed.description)
    for fld in embed.fields:
        parts.append(f"**{fld.name}**\n{fld.value}")
    if embed.footer.text:
        parts.append(f"-# {embed.footer.text}")
    return "\n".join(parts)


def table_picture_view(session: Session) -> TableView:
    """What the table's picture shows (the public view: never a hand)."""
    game = session.game
    assert game is not None
    view = game.public_view()
    cpu = [p["id"] for p in view["players"] if session.is_cpu(p["id"])]
    return TableView.from_public_view(view, cpu=cpu,
                                      words=table_words(session.options.language))


@lru_cache(maxsize=16)
def table_words(language: str | None) -> TableWords:
    """The words of the table's picture in ``language`` (the game's)."""
    with speaking(language):
        return TableWords(
            top_card=_("Top card"), draw_pile=_("Draw pile"), direction=_("Direction"),
            # TRANSLATORS: the table picture's direction, on two short lines: "play goes" /
            # "down the list" (of seats, top to bottom) or "up the list".
            play_goes=_("play goes"), down=_("down the list"), up=_("up the list"),
            towers=_("Towers"), players=_("Players"), tray=_("tray"),
            # TRANSLATORS: the tag beside a computer player's name in the table picture.
            cpu=_("CPU"), uno=_("UNO!"), one_card=_("1 card"), cards=_("{n} cards"),
            colour=_("colour: {color}"), red=_("red"), blue=_("blue"), green=_("green"),
            yellow=_("yellow"), player=_("Player {n}"))


def table_layout(session: Session, lines: str | None, picture: str | None, *,
                 buttons: bool = True, locale: Locale = None) -> discord.ui.LayoutView:
    """The table message: ``lines`` (recent announcements and the turn line), the picture
    ``picture`` (an attachment's file name; None: no picture), the table as text and, with
    ``buttons``, the table's buttons."""
    embed = table_embed(session, locale)
    info = embed_text(embed)[:MAX_TEXT]
    container = discord.ui.Container[discord.ui.LayoutView](accent_colour=embed.colour)
    room = MAX_TEXT - len(info)
    if lines and room > 0:
        container.add_item(discord.ui.TextDisplay(lines[-room:]))
    if picture is not None:
        container.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem(
            f"attachment://{picture}", description=(embed.title or "")[:1024] or None)))
    container.add_item(discord.ui.TextDisplay(info))
    if buttons:
        rows: dict[int, list[discord.ui.Item[Any]]] = {}
        for item in table_view(session, locale).children:
            rows.setdefault(item.row or 0, []).append(item)
        for row in sorted(rows):
            for item in rows[row]:
                item.row = None  # an action row places them
            container.add_item(discord.ui.ActionRow(*rows[row]))
    layout = discord.ui.LayoutView(timeout=None)
    layout.add_item(container)
    return finished(layout)
