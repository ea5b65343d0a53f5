"""What the channel is told of a move: one short line per engine event worth hearing
(``event_lines``), and which of those lines a table keeps showing longer (``notable``).
Public: only ``Event.public_dict()`` facts and the public view, never a hand.

Each event type's sentence is one small function below, registered with ``@says(Kind)``
in ``SENTENCES`` and found by the event's exact type; an event type said nothing of on
purpose is in ``SILENT``, with why. Every engine event type is in one or the other
(tests/table/test_words_events.py), so a new one cannot be forgotten silently.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

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
    Dealt,
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
    SeatAsked,
    Seated,
    SeatWithdrawn,
    Skipped,
    TowerGrabbed,
    TowersReturned,
    Turn,
    UnoCalled,
)
from engine.match import HandScored, MatchWon
from runtime.i18n import Locale, _, ngettext


@dataclass
class Telling:
    """One call of ``event_lines``: the events it tells, in which language, which of them is
    being told, and what a sentence before already said."""

    session: Session
    events: Sequence[Event]
    locale: Locale
    at: int = 0
    """The position in ``events`` of the event being told."""
    draw_told: bool = False
    """A catch, a challenge or an accepted Wild Draw Four said how many cards were drawn:
    the next ``Drew`` says nothing."""

    def name(self, player: str) -> str:
        return self.session.name(player)

    def holds(self, kind: type[Event]) -> bool:
        """Whether the events told hold one of ``kind`` (anywhere, before or after)."""
        return any(isinstance(x, kind) for x in self.events)


E = TypeVar("E", bound=Event)
Sentence = Callable[[E, Telling], list[str]]

SENTENCES: dict[type[Event], Sentence[Any]] = {}
"""Event type -> the function that says it (its lines, maybe none), filled by ``says``."""
SILENT: dict[type[Event], str] = {
    Dealt: "private (the cards dealt); RoundStarted says the deal",
    Turn: "the table shows whose turn it is and what they decide (game.pending_text)",
    HandScored: "a match's, told by standings.match_lines",
    MatchWon: "a match's, told by standings.match_lines",
    SeatWithdrawn: "the leave or the host's refusal that withdrew it says it (service)",
}
"""Event types the channel is told nothing of, on purpose, each with why."""


def says(kind: type[E]) -> Callable[[Sentence[E]], Sentence[E]]:
    """Make the decorated function the sentence of the events of exactly ``kind``."""
    def register(sentence: Sentence[E]) -> Sentence[E]:
        if kind in SENTENCES or kind in SILENT:
            raise ValueError(f"{kind.__name__} is said already (or silent)")
        SENTENCES[kind] = sentence
        return sentence
    return register


def event_lines(session: Session, events: Sequence[Event],
                locale: Locale = None) -> list[str]:
    """One short line per thing the channel should hear about: each event's sentence, in
    order (an event of a type in ``SILENT`` says nothing)."""
    telling = Telling(session, events, locale or session.options.language)  # the game's
    lines: list[str] = []
    for at, event in enumerate(events):
        sentence = SENTENCES.get(type(event))
        if sentence is not None:
            telling.at = at
            lines += sentence(event, telling)
    return lines


@says(DealerDraw)
def _dealer_draw(e: DealerDraw, t: Telling) -> list[str]:
    """The cards drawn for the deal, one line for a run of draws: its first says them all."""
    if t.at > 0 and isinstance(t.events[t.at - 1], DealerDraw):
        return []
    run: list[DealerDraw] = []
    for x in t.events[t.at:]:
        if not isinstance(x, DealerDraw):
            break
        run.append(x)
    draws = ", ".join(f"{t.name(d.player)} {card_label(d.card, t.locale)}" for d in run)
    return [_("Cards drawn for the deal: {draws}.", t.locale, draws=draws)]


@says(DealerChosen)
def _dealer_chosen(e: DealerChosen, t: Telling) -> list[str]:
    return [_("{name} drew the highest number and deals.", t.locale, name=t.name(e.player))]


@says(RoundStarted)
def _round_started(e: RoundStarted, t: Telling) -> list[str]:
    return [_("**Round {n}**: {dealer} deals 7 cards to everyone.", t.locale,
              n=e.round, dealer=t.name(e.dealer))]


@says(Opened)
def _opened(e: Opened, t: Telling) -> list[str]:
    return [_("The first card is {card}.", t.locale, card=card_label(e.card, t.locale))]


@says(Returned)
def _returned(e: Returned, t: Telling) -> list[str]:
    return [_("A Wild Draw Four can't start the pile: it goes back into the deck.",
              t.locale)]


@says(Played)
def _played(e: Played, t: Telling) -> list[str]:
    locale, name, card = t.locale, t.name(e.player), card_label(e.card, t.locale)
    if e.card.is_wild and e.color is not None:
        lines = [_("{name} plays {card} and picks {color}.", locale, name=name, card=card,
                   color=color_name(e.color, locale))]
    else:  # a Victory Lap may leave its colour for the keep (R-VL-COLOR)
        lines = [_("{name} plays {card}.", locale, name=name, card=card)]
    if e.card.kind is Kind.VICTORY_LAP and not t.holds(RoundWon):
        lines.append(_("🏁 Victory Lap! Every hand moves one seat, face down; {name} "
                       "looks at the hand in front of them.", locale, name=name))
    return lines


@says(Drew)
def _drew(e: Drew, t: Telling) -> list[str]:
    if t.draw_told:  # the catch, the challenge or the accept before said it
        t.draw_told = False
        return []
    if e.count == 0:
        return [_("{name} can't draw: there are no cards left to draw.", t.locale,
                  name=t.name(e.player))]
    if e.reason == "draw":
        return [_("{name} draws a card.", t.locale, name=t.name(e.player))]
    return [_("{name} draws {count}.", t.locale, name=t.name(e.player), count=e.count)]


@says(Skipped)
def _skipped(e: Skipped, t: Telling) -> list[str]:
    return [_("{name} is skipped.", t.locale, name=t.name(e.player))]


@says(Reversed)
def _reversed(e: Reversed, t: Telling) -> list[str]:
    return [_("Play reverses: it now goes {dir}.", t.locale,
              dir=direction_text(e.direction, t.locale))]


@says(TowerGrabbed)
def _tower_grabbed(e: TowerGrabbed, t: Telling) -> list[str]:
    if e.from_ is None:
        return [_("🏰 {name} grabs the {tower} tower from the tray.", t.locale,
                  name=t.name(e.player), tower=e.tower.value)]
    return [_("🏰 {name} grabs the {tower} tower from {other}.", t.locale,
              name=t.name(e.player), tower=e.tower.value, other=t.name(e.from_))]


@says(Blocked)
def _blocked(e: Blocked, t: Telling) -> list[str]:
    return [_("🛡️ {name}'s {tower} tower blocks the {card}!", t.locale,
              name=t.name(e.player), tower=e.tower.value, card=card_label(e.card, t.locale))]


@says(UnoCalled)
def _uno_called(e: UnoCalled, t: Telling) -> list[str]:
    return [_("📣 {name} calls UNO!", t.locale, name=t.name(e.player))]


@says(Caught)
def _caught(e: Caught, t: Telling) -> list[str]:
    t.draw_told = True
    return [_("🚨 {by} caught {name} without UNO: {name} draws 2.", t.locale,
              by=t.name(e.by), name=t.name(e.player))]


@says(ChallengeResolved)
def _challenge_resolved(e: ChallengeResolved, t: Telling) -> list[str]:
    t.draw_told = True
    if e.guilty:
        return [_("⚖️ {by} challenges {against}'s Wild Draw Four: guilty! "
                  "{against} draws 4 and {by} plays.", t.locale,
                  by=t.name(e.by), against=t.name(e.against))]
    return [_("⚖️ {by} challenges {against}'s Wild Draw Four: it was legal. "
              "{by} draws 6.", t.locale, by=t.name(e.by), against=t.name(e.against))]


@says(Accepted)
def _accepted(e: Accepted, t: Telling) -> list[str]:
    t.draw_told = True
    return [_("{name} accepts the Wild Draw Four and draws 4.", t.locale,
              name=t.name(e.player))]


@says(InstantUno)
def _instant_uno(e: InstantUno, t: Telling) -> list[str]:
    return [ngettext("⚡ {name} holds all four towers: **instant UNO!** {n} card "
                     "goes to the discard pile.",
                     "⚡ {name} holds all four towers: **instant UNO!** {n} cards "
                     "go to the discard pile.", e.discarded, t.locale,
                     name=t.name(e.player))]


@says(TowersReturned)
def _towers_returned(e: TowersReturned, t: Telling) -> list[str]:
    return [_("The towers go back to the tray.", t.locale)]


@says(Reshuffled)
def _reshuffled(e: Reshuffled, t: Telling) -> list[str]:
    return [_("The discard pile is shuffled into a new draw pile.", t.locale)]


@says(ColorChosen)
def _color_chosen(e: ColorChosen, t: Telling) -> list[str]:
    if t.holds(LapKept):
        # R-VL-COLOR: a Victory Lap played without a colour names it as the lap ends
        return [_("🏁 {name} names {color} for the Victory Lap.", t.locale,
                  name=t.name(e.player), color=color_name(e.color, t.locale))]
    return [_("{name} names {color} as the starting colour.", t.locale,
              name=t.name(e.player), color=color_name(e.color, t.locale))]


@says(Passed)
def _passed(e: Passed, t: Telling) -> list[str]:
    return [_("{name} keeps the drawn card.", t.locale, name=t.name(e.player))]


@says(LapPassed)
def _lap_passed(e: LapPassed, t: Telling) -> list[str]:
    """A step of a Victory Lap: who, and how far the hands went (never a card: the hands
    travel face down)."""
    return [_("🏁 {name} passes the hands on: step {step}.", t.locale, name=t.name(e.player),
              step=e.step + 1)]


@says(LapKept)
def _lap_kept(e: LapKept, t: Telling) -> list[str]:
    """The end of a Victory Lap: who kept which step's hand (never a card)."""
    game = t.session.game
    if game is not None and e.step % max(1, len(game.players)) == 0:
        # R-VL-OWN-HAND: a pass brought the own hand back, which ends the lap at once.
        return [_("🏁 {name}'s own hand is back: every hand went all the way round and the "
                  "Victory Lap is over.", t.locale, name=t.name(e.player))]
    return [ngettext("🏁 {name} keeps the hand at step {n}: every hand moved {n} seat.",
                     "🏁 {name} keeps the hand at step {n}: every hand moved {n} seats.",
                     e.step, t.locale, name=t.name(e.player))]


@says(RoundWon)
def _round_won(e: RoundWon, t: Telling) -> list[str]:
    session, locale, name = t.session, t.locale, t.name(e.player)
    if e.team is not None and lowest_wins(session):
        # Partners, alternative scoring (RULINGS, Alternative scoring with partners):
        # every team is charged the cards left in its own members' hands.
        return [_("🏆 {name} goes out: {team} win round {n}. Each team adds the "
                  "cards left in its hands: {charged}.", locale, name=name,
                  n=e.round, team=team_name(session, e.team, locale),
                  charged=team_charges(session, e.gained, locale)),
                team_table(session, locale)]
    if e.team is not None:
        line = ngettext("🏆 {name} goes out: {team} win round {round} and score "
                        "{n} point!",
                        "🏆 {name} goes out: {team} win round {round} and score "
                        "{n} points!", e.points, locale, name=name,
                        round=e.round, team=team_name(session, e.team, locale))
        # a match's hand: the match's lines give its totals
        return [line] if session.match is not None else [line, team_table(session, locale)]
    if lowest_wins(session):
        return [_("🏆 {name} wins round {n}. Everyone adds the cards left in their "
                  "hand; the lowest total wins.", locale, name=name, n=e.round),
                score_table(session, e.scores, e.gained, locale)]
    return [ngettext("🏆 {name} wins round {round} and scores {n} point!",
                     "🏆 {name} wins round {round} and scores {n} points!",
                     e.points, locale, name=name, round=e.round),
            score_table(session, e.scores, e.gained, locale)]


@says(GameWon)
def _game_won(e: GameWon, t: Telling) -> list[str]:
    """Nothing: a finished game's result, its own message right after these lines
    (``show.result``), says who won, once (issue 29: it was said twice in a row); a
    match's lines or a tournament's standings say what the end of a hand means."""
    return []


@says(Left)
def _left(e: Left, t: Telling) -> list[str]:
    return [_("{name} left the game; their cards go under the draw pile.", t.locale,
              name=t.name(e.player))]


@says(SeatAsked)
def _seat_asked(e: SeatAsked, t: Telling) -> list[str]:
    return [_("🪑 {name} asks for a seat: they sit down when the next round is dealt.",
              t.locale, name=t.name(e.player))]


@says(Seated)
def _seated(e: Seated, t: Telling) -> list[str]:
    return [ngettext("🪑 {name} sits down at the table with {n} point.",
                     "🪑 {name} sits down at the table with {n} points.", e.score, t.locale,
                     name=t.name(e.player), n=e.score)]


NOTABLE_MARKS = ("⚖️", "⚡")
"""The marks of the lines a table keeps showing longer: a challenge's verdict and an instant
UNO (each line of ``event_lines`` is one event's)."""


def notable(line: str) -> bool:
    """Whether ``line`` (an announcement) is a challenge's verdict or an instant UNO, which a
    table edited in place keeps until it can have been read."""
    return any(mark in line for mark in NOTABLE_MARKS)
