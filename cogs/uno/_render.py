"""Turning engine state and events into text and embeds.

Public renderings use only ``Event.public_dict()`` facts and the public view, never a hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from cogs.i18n import Locale, _
from cogs.uno._emojis import card_emoji_text
from cogs.uno.table.session import Session
from engine import Card, Color, Decision, EngineError, Game, Kind, Tower, get_edition
from engine.events import (
    Accepted,
    Blocked,
    Caught,
    ChallengeResolved,
    ColorChosen,
    DealerChosen,
    DealerDraw,
    Drew,
    Event,
    GameWon,
    InstantUno,
    LapKept,
    LapPassed,
    Left,
    Opened,
    Passed,
    Played,
    Reshuffled,
    Returned,
    Reversed,
    RoundStarted,
    RoundWon,
    Skipped,
    TowerGrabbed,
    TowersReturned,
    UnoCalled,
)
from engine.match import HandScored, MatchWon

COLOR_EMOJI = {Color.RED: "🟥", Color.BLUE: "🟦", Color.GREEN: "🟩", Color.YELLOW: "🟨"}
WILD_EMOJI = "🌈"
EMBED_COLOR = {
    Color.RED: 0xD72600, Color.BLUE: 0x0956BF, Color.GREEN: 0x379711, Color.YELLOW: 0xECD407,
}
TOWER_NAMES = {Tower.U: "U", Tower.N: "N", Tower.O: "O", Tower.BANG: "!"}


def color_name(color: Color | None, locale: Locale = None) -> str:
    if color is None:
        return _("none", locale)
    return {
        Color.RED: _("red", locale), Color.BLUE: _("blue", locale),
        Color.GREEN: _("green", locale), Color.YELLOW: _("yellow", locale),
    }[color]


def edition_title(name: str, locale: Locale = None) -> str:
    """An edition's title ("Classic UNO") in the reader's language."""
    titles = {"power-grab": _("UNO Power Grab", locale), "classic": _("Classic UNO", locale),
              "victory-lap": _("UNO Victory Lap", locale)}
    return titles.get(name) or get_edition(name).title


def kind_name(kind: Kind, locale: Locale = None) -> str:
    return {
        Kind.DRAW_ONE: _("Draw One", locale),
        Kind.DRAW_TWO: _("Draw Two", locale),
        Kind.SKIP: _("Skip", locale),
        Kind.REVERSE: _("Reverse", locale),
        Kind.GRAB_TWO: _("Grab-2-Towers", locale),
        Kind.WILD: _("Wild", locale),
        Kind.WILD_DRAW_FOUR: _("Wild Draw Four", locale),
        Kind.WILD_GRAB: _("Wild Grab-A-Tower", locale),
        Kind.VICTORY_LAP: _("Victory Lap", locale),
    }.get(kind, "")


def card_label(card: Card, locale: Locale = None) -> str:
    """A card for people: "🟥 7", "🟦 3 [O]", "🟩 Draw Two", "🌈 Wild Draw Four"."""
    if card.is_wild:
        return f"{WILD_EMOJI} {kind_name(card.kind, locale)}"
    assert card.color is not None
    emoji = COLOR_EMOJI[card.color]
    if card.kind is Kind.NUMBER:
        icon = f" [{card.icon.value}]" if card.icon else ""
        return f"{emoji} {card.number}{icon}"
    return f"{emoji} {kind_name(card.kind, locale)}"


def card_name(card: Card, locale: Locale = None) -> str:
    """A card in a sentence: "red 7", "blue 3 (O)", "green Draw Two", "Wild Draw Four"."""
    if card.is_wild:
        return kind_name(card.kind, locale)
    assert card.color is not None
    if card.kind is Kind.NUMBER:
        icon = f" ({card.icon.value})" if card.icon else ""
        return _("{color} {number}{icon}", locale, color=color_name(card.color, locale),
                 number=card.number, icon=icon)
    return _("{color} {kind}", locale, color=color_name(card.color, locale),
             kind=kind_name(card.kind, locale))


def card_count(n: int, locale: Locale = None) -> str:
    return _("1 card", locale) if n == 1 else _("{n} cards", locale, n=n)


HAND_TEXT_BUDGET = 1000
"""Characters a hand's text may take with the cards' application emojis; a longer hand is
listed without them (a message holds 2,000)."""


def hand_text(cards: Sequence[Card], locale: Locale = None) -> str:
    """The cards for their holder: "🟥 7 `R7`, ..."; each led by its card-face emoji
    (``<:uno_R7:id>``) when the emojis are uploaded and the list stays short enough."""
    plain = [f"{card_label(c, locale)} `{c.code}`" for c in cards]
    if not plain:
        return _("(no cards)", locale)
    faces = [card_emoji_text(c) for c in cards]
    pictured = ", ".join(f"{face} {text}" if face else text for face, text in zip(faces, plain,
                                                                                   strict=True))
    if any(faces) and len(pictured) <= HAND_TEXT_BUDGET:
        return pictured
    return ", ".join(plain)


def direction_text(direction: int, locale: Locale = None) -> str:
    return _("➡️ left", locale) if direction == 1 else _("⬅️ right", locale)


def event_lines(session: Session, events: Sequence[Event],
                locale: Locale = None) -> list[str]:
    """One short line per thing the channel should hear about."""
    locale = locale or session.options.language  # public: the game's
    n = session.name
    lines: list[str] = []
    dealer_draws: list[str] = []
    quiet_draw = False
    for e in events:
        if isinstance(e, DealerDraw):
            dealer_draws.append(f"{n(e.player)} {card_label(e.card, locale)}")
            continue
        if dealer_draws:
            lines.append(_("Cards drawn for the deal: {draws}.", locale,
                           draws=", ".join(dealer_draws)))
            dealer_draws = []
        if isinstance(e, DealerChosen):
            lines.append(_("{name} drew the highest number and deals.", locale, name=n(e.player)))
        elif isinstance(e, RoundStarted):
            lines.append(_("**Round {n}**: {dealer} deals 7 cards to everyone.", locale,
                           n=e.round, dealer=n(e.dealer)))
        elif isinstance(e, Opened):
            lines.append(_("The first card is {card}.", locale, card=card_label(e.card, locale)))
        elif isinstance(e, Returned):
            lines.append(_("A Wild Draw Four can't start the pile: it goes back into the deck.",
                           locale))
        elif isinstance(e, Played):
            if e.card.is_wild and e.color is not None:
                lines.append(_("{name} plays {card} and picks {color}.", locale, name=n(e.player),
                               card=card_label(e.card, locale),
                               color=color_name(e.color, locale)))
            else:  # a Victory Lap may leave its colour for the keep (R-VL-COLOR)
                lines.append(_("{name} plays {card}.", locale, name=n(e.player),
                               card=card_label(e.card, locale)))
            if e.card.kind is Kind.VICTORY_LAP and not any(isinstance(x, RoundWon)
                                                           for x in events):
                lines.append(_("🏁 Victory Lap! Every hand moves one seat, face down; {name} "
                               "looks at the hand in front of them.", locale, name=n(e.player)))
        elif isinstance(e, Drew):
            if quiet_draw:
                quiet_draw = False
                continue
            if e.count == 0:
                lines.append(_("{name} can't draw: there are no cards left to draw.", locale,
                               name=n(e.player)))
            elif e.reason == "draw":
                lines.append(_("{name} draws a card.", locale, name=n(e.player)))
            else:
                lines.append(_("{name} draws {count}.", locale, name=n(e.player), count=e.count))
        elif isinstance(e, Skipped):
            lines.append(_("{name} is skipped.", locale, name=n(e.player)))
        elif isinstance(e, Reversed):
            lines.append(_("Play reverses: it now goes {dir}.", locale,
                           dir=direction_text(e.direction, locale)))
        elif isinstance(e, TowerGrabbed):
            if e.from_ is None:
                lines.append(_("🏰 {name} grabs the {tower} tower from the tray.", locale,
                               name=n(e.player), tower=e.tower.value))
            else:
                lines.append(_("🏰 {name} grabs the {tower} tower from {other}.", locale,
                               name=n(e.player), tower=e.tower.value, other=n(e.from_)))
        elif isinstance(e, Blocked):
            lines.append(_("🛡️ {name}'s {tower} tower blocks the {card}!", locale,
                           name=n(e.player), tower=e.tower.value,
                           card=card_label(e.card, locale)))
        elif isinstance(e, UnoCalled):
            lines.append(_("📣 {name} calls UNO!", locale, name=n(e.player)))
        elif isinstance(e, Caught):
            lines.append(_("🚨 {by} caught {name} without UNO: {name} draws 2.", locale,
                           by=n(e.by), name=n(e.player)))
            quiet_draw = True
        elif isinstance(e, ChallengeResolved):
            if e.guilty:
                lines.append(_("⚖️ {by} challenges {against}'s Wild Draw Four: guilty! "
                               "{against} draws 4 and {by} plays.", locale,
                               by=n(e.by), against=n(e.against)))
            else:
                lines.append(_("⚖️ {by} challenges {against}'s Wild Draw Four: it was legal. "
                               "{by} draws 6.", locale, by=n(e.by), against=n(e.against)))
            quiet_draw = True
        elif isinstance(e, Accepted):
            lines.append(_("{name} accepts the Wild Draw Four and draws 4.", locale,
                           name=n(e.player)))
            quiet_draw = True
        elif isinstance(e, InstantUno):
            lines.append(_("⚡ {name} holds all four towers: **instant UNO!** {count} go to "
                           "the discard pile.", locale, name=n(e.player),
                           count=card_count(e.discarded, locale)))
        elif isinstance(e, TowersReturned):
            lines.append(_("The towers go back to the tray.", locale))
        elif isinstance(e, Reshuffled):
            lines.append(_("The discard pile is shuffled into a new draw pile.", locale))
        elif isinstance(e, ColorChosen):
            lines.append(_("{name} names {color} as the starting colour.", locale,
                           name=n(e.player), color=color_name(e.color, locale)))
        elif isinstance(e, Passed):
            lines.append(_("{name} keeps the drawn card.", locale, name=n(e.player)))
        elif isinstance(e, LapPassed | LapKept):
            lines.append(lap_line(session, e, locale))
        elif isinstance(e, RoundWon) and e.team is not None:
            lines.append(_("🏆 {name} goes out: {team} win round {n} and score {points} "
                           "points!", locale, name=n(e.player), n=e.round, points=e.points,
                           team=team_name(session, e.team, locale)))
            if session.match is None:
                lines.append(team_table(session, locale))
        elif isinstance(e, RoundWon):
            lines.append(_("🏆 {name} wins round {n} and scores {points} points!", locale,
                           name=n(e.player), n=e.round, points=e.points))
            lines.append(score_table(session, e.scores, e.gained, locale))
        elif isinstance(e, GameWon) and (session.match is not None
                                         or session.tournament_of is not None):
            continue  # a hand of a match: the match's lines say what it means
        elif isinstance(e, GameWon) and session.game is not None and session.game.teams:
            lines.append(_("🎉 **{names}** won the game!", locale,
                           names=team_name(session, e.players, locale)))
        elif isinstance(e, GameWon):
            names = ", ".join(n(p) for p in e.players)
            lines.append(_("🎉 **{names}** won the game!", locale, names=names))
        elif isinstance(e, Left):
            lines.append(_("{name} left the game; their cards go under the draw pile.", locale,
                           name=n(e.player)))
    if dealer_draws:
        lines.append(_("Cards drawn for the deal: {draws}.", locale, draws=", ".join(dealer_draws)))
    return lines


def lap_line(session: Session, e: LapPassed | LapKept, locale: Locale = None) -> str:
    """A step of a Victory Lap for the channel: who, and how far the hands went (never a
    card: the hands travel face down)."""
    locale = locale or session.options.language  # public: the game's
    name = session.name(e.player)
    if isinstance(e, LapPassed):
        return _("🏁 {name} passes the hands on: step {step}.", locale, name=name,
                 step=e.step + 1)
    game = session.game
    if game is not None and e.step % max(1, len(game.players)) == 0:
        return _("🏁 {name} keeps their own hand at step {step}: every hand went all the "
                 "way round.", locale, name=name, step=e.step)
    if e.step == 1:
        return _("🏁 {name} keeps the hand at step 1: every hand moved one seat.", locale,
                 name=name)
    return _("🏁 {name} keeps the hand at step {step}: every hand moved {step} seats.",
             locale, name=name, step=e.step)


def team_name(session: Session, team: Sequence[str], locale: Locale = None) -> str:
    locale = locale or session.options.language  # public: the game's
    return _(" & ", locale).join(session.name(p) for p in team)


def team_table(session: Session, locale: Locale = None) -> str:
    """Partner play: each team's running total (sheet 004: the team scores together)."""
    locale = locale or session.options.language  # public: the game's
    game = session.game
    assert game is not None
    rows = sorted(zip(game.teams, game.team_scores, strict=True), key=lambda ts: -ts[1])
    body = "\n".join(f"{team_name(session, t, locale)[:30]:<30} {v:>5}" for t, v in rows)
    return _("```\n{body}\n```", locale, body=body)


def match_lines(session: Session, events: Sequence[Event], locale: Locale = None
                ) -> list[str]:
    """A rotating-partners match: a hand's result, the totals, and who won the match."""
    locale = locale or session.options.language  # public: the game's
    match = session.match
    assert match is not None
    lines: list[str] = []
    for e in events:
        if isinstance(e, HandScored):
            gained = ", ".join(f"{team_name(session, t, locale)} +{p}"
                               for t, p in zip(e.teams, e.points, strict=True))
            lines.append(_("**Hand {n} of {total}** is over: {gained}.", locale,
                           n=e.round + 1, total=len(match.schedule), gained=gained))
            lines.append(standings_table(session, locale))
        elif isinstance(e, MatchWon):
            lines.append(_("🎉 **{names}** won the rotating partners match!", locale,
                           names=", ".join(session.name(p) for p in e.players)))
    return lines


def standings_table(session: Session, locale: Locale = None) -> str:
    locale = locale or session.options.language  # public: the game's
    match = session.match
    assert match is not None
    body = "\n".join(f"{s.place}. {session.name(s.player)[:20]:<20} {s.total:>5}"
                     for s in match.standings())
    return _("```\n{body}\n```", locale, body=body)


def hand_banner(session: Session, locale: Locale = None) -> str:
    """The match's current hand and its partnerships."""
    locale = locale or session.options.language  # public: the game's
    match, game = session.match, session.game
    assert match is not None and game is not None
    hand = match.next_hands()[0] if not match.is_over else None
    number = hand.round + 1 if hand is not None else len(match.schedule)
    return _("**Hand {n} of {total}**: {a} against {b}.", locale, n=number,
             total=len(match.schedule), a=team_name(session, game.teams[0], locale),
             b=team_name(session, game.teams[1], locale))


def score_table(session: Session, scores: dict[str, int], gained: dict[str, int],
                locale: Locale = None) -> str:
    locale = locale or session.options.language  # public: the game's
    rows = sorted(scores.items(), key=lambda kv: -kv[1])
    body = "\n".join(
        f"{session.name(p)[:20]:<20} {v:>5}  (+{gained.get(p, 0)})" for p, v in rows
    )
    return _("```\n{body}\n```", locale, body=body)


def pending_text(session: Session, game: Game, locale: Locale = None) -> str:
    locale = locale or session.options.language  # public: the game's
    who = session.name(game.turn)
    if game.is_over:
        return _("The game is over.", locale)
    if game.pending is Decision.CHALLENGE:
        return _("{name} must accept or challenge the Wild Draw Four.", locale, name=who)
    if game.pending is Decision.KEEP:
        return _("{name} is choosing the one card to keep.", locale, name=who)
    if game.pending is Decision.COLOR:
        return _("{name} names the starting colour.", locale, name=who)
    if game.pending is Decision.DRAWN:
        return _("{name} drew a playable card: play it or keep it.", locale, name=who)
    if game.pending is Decision.LAP and (lap := game.lap) is not None:
        return _("🏁 {name} is choosing a hand in the Victory Lap: step {step}.", locale,
                 name=who, step=lap["step"])
    return _("{name}'s turn.", locale, name=who)


def table_embed(session: Session, locale: Locale = None) -> discord.Embed:
    locale = locale or session.options.language  # public: the game's
    game = session.game
    assert game is not None
    view: dict[str, Any] = game.public_view()
    title = _("{edition}: round {n}", locale, edition=edition_title(game.edition.name, locale),
              n=game.round_number)
    top = game.top
    color_line = ""
    if top.is_wild:
        color_line = _(" (colour: {color})", locale, color=color_name(game.color, locale))
    desc = [
        _("Top card: **{card}**{color}", locale, card=card_label(top, locale), color=color_line),
        _("Direction: {dir}", locale, dir=direction_text(game.direction, locale)),
        f"**{pending_text(session, game, locale)}**",
    ]
    embed = discord.Embed(title=title, description="\n".join(desc),
                          colour=EMBED_COLOR.get(game.color, 0x2F3136) if game.color else 0x2F3136)
    rows = []
    for p in view["players"]:
        marker = "▶️" if p["id"] == game.turn and not game.is_over else "▫️"
        towers = " ".join(f"`{t}`" for t in p["towers"])
        uno = _(" · **UNO!**", locale) if p["uno"] and p["cards"] == 1 else ""
        cpu = " 🤖" if session.is_cpu(p["id"]) else ""
        rows.append(_("{marker} **{name}**{cpu}: {cards} · {score} pts{towers}{uno}",
                      locale, marker=marker, name=p["name"], cpu=cpu,
                      cards=card_count(p["cards"], locale),
                      score=p["score"], towers=(" · " + towers) if towers else "", uno=uno))
    embed.add_field(name=_("Players", locale), value="\n".join(rows)[:1024], inline=False)
    if session.match is not None:
        embed.add_field(name=_("Rotating partners match", locale),
                        value=(hand_banner(session, locale) + "\n"
                               + standings_table(session, locale))[:1024], inline=False)
    elif game.teams:
        name = (_("Tournament hand: partners sit across", locale)
                if session.tournament_of is not None else
                _("Teams (partners sit across)", locale))
        embed.add_field(name=name, value=team_table(session, locale)[:1024], inline=False)
    if game.edition.towers:
        tower_bits = []
        for t, holder in game.towers.items():
            where = session.name(holder) if holder else _("tray", locale)
            tower_bits.append(f"`{t.value}` {where}")
        embed.add_field(name=_("Towers (U blocks +1, N +2, O Wild +4, ! Skip)", locale),
                        value=" · ".join(tower_bits), inline=False)
    embed.set_footer(text=_("Draw pile: {draw} · Target: {target} points · Game {gid}", locale,
                            draw=view["draw_count"], target=view["target"],
                            gid=session.game_id))
    return embed


def standings_embed(session: Session, locale: Locale = None) -> discord.Embed:
    """A tournament's standings (the sign-up message, edited after every hand)."""
    locale = locale or session.options.language  # public: the game's
    match = session.match
    assert match is not None
    played = len(match.results) // max(1, len(match.schedule[0]))
    title = (_("UNO tournament: final standings", locale) if match.is_over else
             _("UNO tournament: standings after round {n} of {total}", locale, n=played,
               total=len(match.schedule)))
    lines = [f"{st.place}. **{session.name(st.player)}**: {st.total} "
             + _("points · {won} of {played} hands won", locale, won=st.hands_won,
                 played=st.hands_played)
             for st in match.standings()]
    embed = discord.Embed(title=title, description="\n".join(lines)[:4000], colour=0xF1C40F)
    embed.add_field(name=_("Tables", locale),
                    value=" · ".join(_("table {n}: <#{t}>", locale, n=i + 1, t=t)
                                     for i, t in enumerate(session.tables)), inline=False)
    embed.set_footer(text=_("Each player partners every other {n} times; the highest total "
                            "wins. Tournament {gid}", locale, n=match.hands_per_pairing,
                            gid=session.game_id))
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
    seats = "\n".join(
        f"{i + 1}. {s.name}{' 🤖' if s.cpu else ''}{host if s.id == session.host_id else ''}"
        + (_(" · Team {n}", locale, n=s.team + 1)
           if o.mode == "partners" and s.team is not None else "")
        for i, s in enumerate(session.seats)
    ) or _("(nobody yet)", locale)
    embed.add_field(name=_("Seats", locale), value=seats, inline=False)
    embed.add_field(name=_("Settings", locale), value=settings_text(session, locale),
                    inline=False)
    embed.set_footer(text=_("Join, then the host presses Start. Game {gid}", locale,
                            gid=session.game_id))
    return embed


def settings_text(session: Session, locale: Locale = None) -> str:
    locale = locale or session.options.language  # public: the game's
    o = session.options
    # Grab-2-Towers is a Power Grab card: other editions don't list its points.
    g2 = _(" · Grab-2-Towers {g2} pts", locale, g2=o.grab2_points) \
        if get_edition(o.edition).towers else ""
    mode = {"partners": _(" · partners (4 or 6 players, partners across)", locale),
            "rotating": _(" · rotating partners match (4 players, 3 hands)", locale),
            "tournament": _(" · {hands} hands each, partners rotating", locale,
                            hands=7 * o.hands_per_pairing),
            }.get(o.mode, "")
    return _("Target {target} · scoring {scoring}{g2} · turn timer {timer}s"
             " · seats {seats} · turn mentions {mention}{mode}", locale,
             target=o.target, scoring=o.scoring, g2=g2, timer=o.turn_timer,
             seats=_("shuffled", locale) if o.shuffle_seats else _("in joining order", locale),
             mention=_("on", locale) if o.mention_turn else _("off", locale), mode=mode)


def error_text(exc: EngineError, locale: Locale = None) -> str:
    """An engine refusal in the reader's language: its template translated, its cards,
    colours and towers drawn as everywhere else."""
    if not exc.params:
        return _(str(exc), locale)
    params: dict[str, object] = {}
    for key, value in exc.params.items():
        if isinstance(value, Card):
            params[key] = value.code if key == "code" else card_name(value, locale)
        elif isinstance(value, Color):
            params[key] = color_name(value, locale)
        elif isinstance(value, Tower):
            params[key] = value.value
        else:
            params[key] = value
    return _(exc.template, locale, **params)
