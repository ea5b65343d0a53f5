"""The bot's words: cards, colours, events, standings and settings as text, in a language.

Pure text (no Discord objects): the tables write their announcements with it, the
builders of every message (``table``, ``lobby``, ``hand``) their text. Public renderings
use only ``Event.public_dict()`` facts and the public view, never a hand.
"""

from __future__ import annotations

from collections.abc import Sequence

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
from runtime.i18n import Locale, _, language_for, ngettext

COLOR_EMOJI = {Color.RED: "🟥", Color.BLUE: "🟦", Color.GREEN: "🟩", Color.YELLOW: "🟨"}
WILD_EMOJI = "🌈"
EMBED_COLOR = {
    Color.RED: 0xD72600, Color.BLUE: 0x0956BF, Color.GREEN: 0x379711, Color.YELLOW: 0xECD407,
}
TOWER_NAMES = {Tower.U: "U", Tower.N: "N", Tower.O: "O", Tower.BANG: "!"}

_faces: dict[str, str] = {}
"""Card code -> its card-face emoji in message text (``<:uno_R7:id>``), once uploaded."""


def show_faces(faces: dict[str, str]) -> None:
    """Card faces (code -> emoji text) known from now on (``cogs.uno._emojis``)."""
    _faces.update(faces)


def forget_faces() -> None:
    _faces.clear()


def card_face(card: Card) -> str:
    """``<:uno_R7:id>`` for a message's text, or "" if the card has no emoji (yet)."""
    return _faces.get(card.code, "")


def color_name(color: Color | None, locale: Locale = None) -> str:
    language = language_for(locale)
    names = _COLOR_NAMES.get(language)
    if names is None:
        names = _COLOR_NAMES[language] = {
            None: _("none", language),
            Color.RED: _("red", language), Color.BLUE: _("blue", language),
            Color.GREEN: _("green", language), Color.YELLOW: _("yellow", language),
        }
    return names[color]


_COLOR_NAMES: dict[str, dict[Color | None, str]] = {}
"""A language's colour names, rendered once (the catalogues never change while running)."""


def edition_title(name: str, locale: Locale = None) -> str:
    """An edition's title ("Classic UNO") in the reader's language."""
    titles = {"power-grab": _("UNO Power Grab", locale), "classic": _("Classic UNO", locale),
              "victory-lap": _("UNO Victory Lap", locale)}
    return titles.get(name) or get_edition(name).title


def cpu_mark(session: Session, player: str, locale: Locale = None) -> str:
    """What follows a computer player's name: the robot and its level (" 🤖 hard"); empty
    for a person."""
    level = session.level(player)
    if level is None:
        return ""
    names = {"easy": _("easy", locale), "normal": _("normal", locale),
             "hard": _("hard", locale)}
    return f" 🤖 {names.get(level, level)}"


def kind_name(kind: Kind, locale: Locale = None) -> str:
    language = language_for(locale)
    names = _KIND_NAMES.get(language)
    if names is None:
        names = _KIND_NAMES[language] = {
            Kind.DRAW_ONE: _("Draw One", language),
            Kind.DRAW_TWO: _("Draw Two", language),
            Kind.SKIP: _("Skip", language),
            Kind.REVERSE: _("Reverse", language),
            Kind.GRAB_TWO: _("Grab-2-Towers", language),
            Kind.WILD: _("Wild", language),
            Kind.WILD_DRAW_FOUR: _("Wild Draw Four", language),
            Kind.WILD_GRAB: _("Wild Grab-A-Tower", language),
            Kind.VICTORY_LAP: _("Victory Lap", language),
        }
    return names.get(kind, "")


_KIND_NAMES: dict[str, dict[Kind, str]] = {}
"""A language's names of the action cards' kinds, rendered once."""
_LABELS: dict[tuple[str, Card], str] = {}
_NAMES: dict[tuple[str, Card], str] = {}
"""``card_label`` and ``card_name`` per (language, card), rendered once each: a hand panel
labels every card twice (its text and its buttons), and a move builds one or two panels.
Bounded: two languages, about a hundred distinct cards."""


def card_label(card: Card, locale: Locale = None) -> str:
    """A card for people: "🟥 red 7", "🟦 blue 3 [O]", "🟩 green Draw Two", "🌈 Wild Draw
    Four". The coloured square is led by nothing else, so its colour is named beside it: a
    colour-blind reader sees red and green as the same olive square (issue 17, Words)."""
    key = (language_for(locale), card)
    label = _LABELS.get(key)
    if label is None:
        label = _LABELS[key] = _card_label(card, key[0])
    return label


def _card_label(card: Card, language: str) -> str:
    if card.is_wild:
        return f"{WILD_EMOJI} {kind_name(card.kind, language)}"
    assert card.color is not None
    emoji = COLOR_EMOJI[card.color]
    color = color_name(card.color, language)
    if card.kind is Kind.NUMBER:
        icon = f" [{card.icon.value}]" if card.icon else ""
        return f"{emoji} " + _("{color} {number}{icon}", language, color=color,
                               number=card.number, icon=icon)
    return f"{emoji} " + _("{color} {kind}", language, color=color,
                           kind=kind_name(card.kind, language))


def card_name(card: Card, locale: Locale = None) -> str:
    """A card in a sentence: "red 7", "blue 3 (O)", "green Draw Two", "Wild Draw Four"."""
    key = (language_for(locale), card)
    name = _NAMES.get(key)
    if name is None:
        name = _NAMES[key] = _card_name(card, key[0])
    return name


def _card_name(card: Card, language: str) -> str:
    if card.is_wild:
        return kind_name(card.kind, language)
    assert card.color is not None
    if card.kind is Kind.NUMBER:
        icon = f" ({card.icon.value})" if card.icon else ""
        return _("{color} {number}{icon}", language, color=color_name(card.color, language),
                 number=card.number, icon=icon)
    return _("{color} {kind}", language, color=color_name(card.color, language),
             kind=kind_name(card.kind, language))


def card_count(n: int, locale: Locale = None) -> str:
    return ngettext("{n} card", "{n} cards", n, locale)


HAND_TEXT_BUDGET = 1000
"""Characters a hand's text may take with the cards' application emojis; a longer hand is
listed without them (a message holds 2,000)."""


def hand_text(cards: Sequence[Card], locale: Locale = None) -> str:
    """The cards for their holder: "🟥 7 `R7`, ..."; each led by its card-face emoji
    (``<:uno_R7:id>``) when the emojis are uploaded and the list stays short enough."""
    plain = [f"{card_label(c, locale)} `{c.code}`" for c in cards]
    if not plain:
        return _("(no cards)", locale)
    faces = [card_face(c) for c in cards]
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
            lines.append(ngettext("⚡ {name} holds all four towers: **instant UNO!** {n} card "
                                  "goes to the discard pile.",
                                  "⚡ {name} holds all four towers: **instant UNO!** {n} cards "
                                  "go to the discard pile.", e.discarded, locale,
                                  name=n(e.player)))
        elif isinstance(e, TowersReturned):
            lines.append(_("The towers go back to the tray.", locale))
        elif isinstance(e, Reshuffled):
            lines.append(_("The discard pile is shuffled into a new draw pile.", locale))
        elif isinstance(e, ColorChosen) and any(isinstance(x, LapKept) for x in events):
            # R-VL-COLOR: a Victory Lap played without a colour names it as the lap ends
            lines.append(_("🏁 {name} names {color} for the Victory Lap.", locale,
                           name=n(e.player), color=color_name(e.color, locale)))
        elif isinstance(e, ColorChosen):
            lines.append(_("{name} names {color} as the starting colour.", locale,
                           name=n(e.player), color=color_name(e.color, locale)))
        elif isinstance(e, Passed):
            lines.append(_("{name} keeps the drawn card.", locale, name=n(e.player)))
        elif isinstance(e, LapPassed | LapKept):
            lines.append(lap_line(session, e, locale))
        elif isinstance(e, RoundWon) and e.team is not None and lowest_wins(session):
            # Partners, alternative scoring (RULINGS, Alternative scoring with partners):
            # every team is charged the cards left in its own members' hands.
            lines.append(_("🏆 {name} goes out: {team} win round {n}. Each team adds the "
                           "cards left in its hands: {charged}.", locale, name=n(e.player),
                           n=e.round, team=team_name(session, e.team, locale),
                           charged=team_charges(session, e.gained, locale)))
            lines.append(team_table(session, locale))
        elif isinstance(e, RoundWon) and e.team is not None:
            lines.append(ngettext("🏆 {name} goes out: {team} win round {round} and score "
                                  "{n} point!",
                                  "🏆 {name} goes out: {team} win round {round} and score "
                                  "{n} points!", e.points, locale, name=n(e.player),
                                  round=e.round, team=team_name(session, e.team, locale)))
            if session.match is None:
                lines.append(team_table(session, locale))
        elif isinstance(e, RoundWon) and lowest_wins(session):
            lines.append(_("🏆 {name} wins round {n}. Everyone adds the cards left in their "
                           "hand; the lowest total wins.", locale, name=n(e.player),
                           n=e.round))
            lines.append(score_table(session, e.scores, e.gained, locale))
        elif isinstance(e, RoundWon):
            lines.append(ngettext("🏆 {name} wins round {round} and scores {n} point!",
                                  "🏆 {name} wins round {round} and scores {n} points!",
                                  e.points, locale, name=n(e.player), round=e.round))
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


NOTABLE_MARKS = ("⚖️", "⚡")
"""The marks of the lines a table keeps showing longer: a challenge's verdict and an instant
UNO (each line of ``event_lines`` is one event's)."""


def notable(line: str) -> bool:
    """Whether ``line`` (an announcement) is a challenge's verdict or an instant UNO, which a
    table edited in place keeps until it can have been read."""
    return any(mark in line for mark in NOTABLE_MARKS)


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
        # R-VL-OWN-HAND: a pass brought the own hand back, which ends the lap at once.
        return _("🏁 {name}'s own hand is back: every hand went all the way round and the "
                 "Victory Lap is over.", locale, name=name)
    return ngettext("🏁 {name} keeps the hand at step {n}: every hand moved {n} seat.",
                    "🏁 {name} keeps the hand at step {n}: every hand moved {n} seats.",
                    e.step, locale, name=name)


def team_name(session: Session, team: Sequence[str], locale: Locale = None) -> str:
    locale = locale or session.options.language  # public: the game's
    return _(" & ", locale).join(session.name(p) for p in team)


def lowest_wins(session: Session) -> bool:
    """Alternative scoring: a total is a penalty and the lowest wins (RULINGS, Scoring)."""
    game = session.game
    return game is not None and game.settings.scoring != "standard"


def team_charges(session: Session, gained: dict[str, int], locale: Locale = None) -> str:
    """Partners under alternative scoring: what each team was charged this round ("Ann &
    Cy +14, Ben & Dee +93"), the points left in its members' hands."""
    game = session.game
    assert game is not None
    return ", ".join(f"{team_name(session, t, locale)} +{max(gained.get(p, 0) for p in t)}"
                     for t in game.teams)


def team_table(session: Session, locale: Locale = None) -> str:
    """Partner play: each team's running total (sheet 004: the team scores together), the
    leading team first (under alternative scoring the lowest total leads)."""
    locale = locale or session.options.language  # public: the game's
    game = session.game
    assert game is not None
    sign = 1 if lowest_wins(session) else -1
    rows = sorted(zip(game.teams, game.team_scores, strict=True), key=lambda ts: sign * ts[1])
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
    sign = 1 if lowest_wins(session) else -1  # the leader first: the lowest, if it wins
    rows = sorted(scores.items(), key=lambda kv: sign * kv[1])
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
