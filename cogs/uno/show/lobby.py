"""The lobby message (seats, settings and its buttons) and, once a tournament plays, its
standings (the sign-up message, edited after every hand)."""

from __future__ import annotations

from typing import Any

import discord

from cogs.uno._components import LobbyButton, view_of
from cogs.uno.table.session import Session
from cogs.uno.table.words.cards import edition_title
from cogs.uno.table.words.game import cpu_mark, settings_text
from runtime.i18n import Locale, _, ngettext


def standings_embed(session: Session, locale: Locale = None) -> discord.Embed:
    """A tournament's standings (the sign-up message, edited after every hand)."""
    locale = locale or session.options.language  # public: the game's
    match = session.match
    assert match is not None
    played = len(match.results) // max(1, len(match.schedule[0]))
    title = (_("UNO tournament: final standings", locale) if match.is_over else
             _("UNO tournament: standings after round {n} of {total}", locale, n=played,
               total=len(match.schedule)))
    lines = [f"{st.place}. **{session.name(st.player)}**: "
             + ngettext("{n} point", "{n} points", st.total, locale) + " · "
             + ngettext("{won} of {n} hand won", "{won} of {n} hands won", st.hands_played,
                        locale, won=st.hands_won)
             for st in match.standings()]
    embed = discord.Embed(title=title, description="\n".join(lines)[:4000], colour=0xF1C40F)
    embed.add_field(name=_("Tables", locale),
                    value=" · ".join(_("table {n}: <#{t}>", locale, n=i + 1, t=t)
                                     for i, t in enumerate(session.tables)), inline=False)
    embed.set_footer(text=ngettext(
        "Each player partners every other {n} time; the highest total wins. Tournament {gid}",
        "Each player partners every other {n} times; the highest total wins. Tournament {gid}",
        match.hands_per_pairing, locale, gid=session.game_id))
    return embed


def lobby_embed(session: Session, locale: Locale = None) -> discord.Embed:
    locale = locale or session.options.language  # public: the game's
    if session.tables:
        return standings_embed(session, locale)
    o = session.options
    edition = edition_title(o.edition, locale)
    if o.mode == "tournament":
        edition = _("{edition} tournament (8 players, two tables)", locale, edition=edition)
    embed = discord.Embed(title=_("{edition}: new game", locale, edition=edition),
                          colour=0x5865F2)
    host = _(" (host)", locale)
    # partners: the teams as the start will deal them, once the seats make teams
    teams = session.lobby_teams() if o.mode == "partners" else {}
    seats = "\n".join(
        f"{i + 1}. {s.name}{cpu_mark(session, s.id, locale)}"
        f"{host if s.id == session.host_id else ''}"
        + (_(" · Team {n}", locale, n=teams[s.id] + 1) if s.id in teams else "")
        for i, s in enumerate(session.seats)
    ) or _("(nobody yet)", locale)
    embed.add_field(name=_("Seats", locale), value=seats, inline=False)
    embed.add_field(name=_("Settings", locale), value=settings_text(session, locale),
                    inline=False)
    embed.set_footer(text=_("Join, then the host presses Start. Game {gid}", locale,
                            gid=session.game_id))
    return embed


def lobby_view(session: Session, locale: Locale = None) -> discord.ui.View | None:
    locale = locale or session.options.language  # public: the game's
    if session.tables:
        return None  # a tournament's standings: nothing to click
    gid = session.game_id
    items: list[discord.ui.Item[Any]] = [
        LobbyButton("join", gid, _("Join", locale), style=discord.ButtonStyle.success),
        LobbyButton("leave", gid, _("Leave", locale)),
        LobbyButton("cpu", gid, _("Add computer player", locale), emoji="🤖"),
        LobbyButton("start", gid, _("Start", locale), style=discord.ButtonStyle.primary),
        LobbyButton("cancel", gid, _("Cancel", locale), style=discord.ButtonStyle.danger),
        LobbyButton("cpueasy", gid, _("Add easy computer player", locale), row=1),
        LobbyButton("cpuhard", gid, _("Add hard computer player", locale), row=1),
        LobbyButton("nocpu", gid, _("Remove computer player", locale), row=1),
    ]
    if session.options.mode == "partners":
        # a third team only once a sixth player is in sight
        teams = 3 if len(session.seats) > 4 else 2
        items += [LobbyButton(f"team{t}", gid, _("Team {n}", locale, n=t + 1), emoji="🤝",
                              row=2) for t in range(teams)]
        items.append(LobbyButton("shuffle", gid, _("Shuffle teams", locale), emoji="🔀",
                                 row=2))
    return view_of(*items)
