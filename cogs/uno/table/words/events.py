"""What the channel is told of a move: one short line per engine event worth hearing
(``event_lines``), and which of those lines a table keeps showing longer (``notable``).
Public: only ``Event.public_dict()`` facts and the public view, never a hand."""

from __future__ import annotations

from collections.abc import Sequence

from cogs.uno.table.session import Session
from cogs.uno.table.words.cards import card_label, color_name
from cogs.uno.table.words.game import direction_text
from cogs.uno.table.words.standings import (
    lowest_wins,
    score_table,
    team_charges,
    team_name,
    team_table,
)
from engine import Kind
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
from runtime.i18n import Locale, _, ngettext


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
