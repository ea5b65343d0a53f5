"""Setting up a round: the draw for dealer, the deal, the opening card, and the scenario
setups of the replay tool (``Game.from_setup``).

Functions that take the ``BaseGame`` (engine/basegame.py) and set its table (``game.s``);
``Game.start`` and the end of a round (engine/scoring.py) call them. The first-card rules
(``open_round``) are shared by a real deal and a scenario whose discard pile is empty.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from engine.basegame import BaseGame, need_player, player_after, reseat
from engine.cards import DRAW_COUNT, Card, Color, Kind, Tower
from engine.errors import ParseError
from engine.events import (
    DealerChosen,
    DealerDraw,
    Dealt,
    Event,
    Opened,
    Returned,
    Reversed,
    RoundStarted,
    Seated,
    Skipped,
)
from engine.state import Decision, PlayerStats
from engine.turns import draw_cards, turn_event

HAND_SIZE = 7


def choose_dealer(game: BaseGame) -> list[Event]:
    """Each player draws a card; the highest number deals, ties draw again."""
    events: list[Event] = []
    deck = list(game.edition.deck)
    game.rng.shuffle(deck)
    contenders = list(game.players)
    while True:
        best = -1
        drawn: dict[str, int] = {}
        for p in contenders:
            if not deck:
                deck = list(game.edition.deck)
                game.rng.shuffle(deck)
            card = deck.pop()
            events.append(DealerDraw(p, card))
            value = card.number if card.kind is Kind.NUMBER and card.number else 0
            drawn[p] = value
            best = max(best, value)
        contenders = [p for p in contenders if drawn[p] == best]
        if len(contenders) == 1:
            break
    game.s.dealer = contenders[0]
    events.append(DealerChosen(game.s.dealer))
    return events


def start_round(game: BaseGame) -> list[Event]:
    """A new round: clear the table, shuffle, deal ``HAND_SIZE`` cards each, open."""
    s = game.s
    game.round_number += 1
    game.counters.rounds += 1
    events: list[Event] = [RoundStarted(game.round_number, s.dealer)]
    events += seat_waiting(game)
    for p in game.players:
        s.hands[p] = []
    s.towers = {t: None for t in Tower}
    s.direction = 1
    s.called = set()
    s.catchable = None
    s.drawn = None
    s.w4 = None
    s.after_keep = None
    s.color_only = False
    deck = list(game.edition.deck)
    game.rng.shuffle(deck)
    s.draw = deck
    s.discard = []
    order = [player_after(game, s.dealer, 1, i + 1) for i in range(len(game.players))]
    for _ in range(HAND_SIZE):
        for p in order:
            s.hands[p].append(s.draw.pop())
    for p in order:
        events.append(Dealt(p, HAND_SIZE, tuple(s.hands[p])))
    events += open_round(game)
    return events


def seat_waiting(game: BaseGame) -> list[Event]:
    """Whoever asked for a seat sits down now, as a round is dealt (R-JOIN-NEXT): at the
    end of the seat order (just before the first seat), in the order they asked, each
    starting at the worst score at the table (R-JOIN-SCORE: the lowest; under alternative
    scoring, where the lowest wins, the highest)."""
    s = game.s
    if not s.waiting:
        return []
    current = [s.scores[p] for p in game.players]
    start = 0 if not current else (
        min(current) if game.settings.scoring == "standard" else max(current))
    events: list[Event] = []
    for p in s.waiting:
        game.players.append(p)
        s.hands[p] = []
        s.scores[p] = start
        game.stats.setdefault(p, PlayerStats())
        events.append(Seated(p, start))
    s.waiting = []
    reseat(game)
    return events


def open_round(game: BaseGame) -> list[Event]:
    """Turn up the first card and apply the first-card rules."""
    s = game.s
    if all(c.kind is Kind.WILD_DRAW_FOUR for c in s.draw):
        # R-FIRST-W4 would return and reshuffle for ever (a replay setup can do this).
        raise ParseError("The draw pile holds only Wild Draw Fours: no card can be "
                         "turned up to start.")
    events: list[Event] = []
    while True:
        card = s.draw.pop()
        events.append(Opened(card))
        if card.kind is Kind.WILD_DRAW_FOUR:
            events.append(Returned(card))
            s.draw.append(card)
            game.rng.shuffle(s.draw)
            continue
        break
    s.discard.append(card)
    s.color = card.color
    s.direction = 1
    first = player_after(game, s.dealer)
    s.pending = Decision.PLAY
    kind = card.kind
    if kind in (Kind.DRAW_ONE, Kind.DRAW_TWO):
        events += draw_cards(game, first, DRAW_COUNT[kind], "card")
        events.append(Skipped(first))
        s.turn = player_after(game, first)
    elif kind is Kind.SKIP:
        events.append(Skipped(first))
        s.turn = player_after(game, first)
    elif kind is Kind.REVERSE:
        s.direction = -1
        events.append(Reversed(-1))
        s.turn = s.dealer
    elif kind is Kind.GRAB_TWO:
        s.color_only = True
        s.turn = first
    elif card.is_wild:
        s.turn = first
        s.pending = Decision.COLOR
    else:
        s.turn = first
    events.append(turn_event(game))
    return events


def arrange(
    game: BaseGame,
    *,
    hands: Mapping[str, Sequence[Card]] | None,
    draw: Sequence[Card] | None,
    discard: Sequence[Card] | None,
    color: Color | None,
    towers: Mapping[Tower, str | None] | None,
    turn: str | None,
    direction: int,
    dealer: str | None,
    scores: Mapping[str, int] | None,
) -> list[Event]:
    """Lay out a new ``game`` as a scenario describes it (``Game.from_setup`` documents
    the arguments); returns the events of the opening card if one was turned up."""
    game.started = True
    game.round_number = 1
    game.counters.rounds = 1
    s = game.s
    allowed = game.edition.card_set
    for label, cards in (("hands", [c for h in (hands or {}).values() for c in h]),
                         ("draw", list(draw or [])), ("discard", list(discard or []))):
        for c in cards:
            if c not in allowed:
                raise ParseError(f"{c} is not a card of {game.edition.title} (in {label}).")
    for p in hands or {}:
        need_player(game, p)
    if dealer is not None:
        need_player(game, dealer)
        s.dealer = dealer
    if direction not in (1, -1):
        raise ParseError("The direction must be 1 or -1.")
    for p, held in (hands or {}).items():
        s.hands[p] = list(held)
    if draw is None:
        # Whatever the scenario did not place, shuffled by the seed.
        left = Counter(game.edition.deck)
        left.subtract(c for h in s.hands.values() for c in h)
        left.subtract(discard or [])
        pile = sorted((+left).elements())
        game.rng.shuffle(pile)
        s.draw = pile
    else:
        s.draw = list(reversed(draw))
    if hands is None:
        for _ in range(HAND_SIZE):
            for i in range(len(game.players)):
                p = player_after(game, s.dealer, 1, i + 1)
                if s.draw:
                    s.hands[p].append(s.draw.pop())
    if scores:
        for p, v in scores.items():
            need_player(game, p)
            s.scores[p] = int(v)
    if towers:
        for t, holder in towers.items():
            if holder is not None:
                need_player(game, holder)
            s.towers[t] = holder
    events: list[Event] = []
    if not discard:
        if not s.draw:
            raise ParseError("The draw pile is empty: there is no card to turn up.")
        events += open_round(game)
        if turn is not None:
            need_player(game, turn)
            s.turn = turn
        return events
    s.discard = list(discard)
    top = s.discard[-1]
    if top.is_wild:
        if color is None:
            raise ParseError("The top card is wild: the setup needs a \"color\".")
        s.color = color
    else:
        s.color = top.color
    s.direction = direction
    if turn is not None:
        need_player(game, turn)
        s.turn = turn
    else:
        s.turn = player_after(game, s.dealer)
    return events
