"""The game around its cards, in words: which way play goes, whose turn it is and what
they must decide, who is a computer player (and how strong), the table's settings, and what
the engine refuses (an ``EngineError`` in the reader's language)."""

from __future__ import annotations

from cogs.uno.table.session import Session
from cogs.uno.table.words.cards import card_name, color_name
from engine import Card, Color, Decision, EngineError, Game, Tower, get_edition
from runtime.i18n import Locale, _, ngettext


def cpu_mark(session: Session, player: str, locale: Locale = None) -> str:
    """What follows a computer player's name: the robot and its level (" 🤖 hard"); empty
    for a person."""
    if session.is_standing_in(player):
        # TRANSLATORS: beside a person's name on the table while a computer player keeps
        # their seat warm ("Bob 🤖 for Bob": the robot plays Bob's hand for him).
        return _(" 🤖 for {name}", locale, name=session.name(player))
    level = session.level(player)
    if level is None:
        return ""
    names = {"easy": _("easy", locale), "normal": _("normal", locale),
             "hard": _("hard", locale)}
    return f" 🤖 {names.get(level, level)}"


def direction_text(direction: int, locale: Locale = None) -> str:
    return _("➡️ left", locale) if direction == 1 else _("⬅️ right", locale)


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
             mention=_("on", locale) if o.mention_turn else _("off", locale), mode=mode) \
        + ngettext(" · a seat is kept warm after {n} missed turn",
                   " · a seat is kept warm after {n} missed turns in a row", o.missed_turns,
                   locale, n=o.missed_turns)


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
