"""What a move does to the game: ``push`` (the body of ``Game.push``) makes a move known to
be legal, and a played card acts on the next player (``_card_effect``).

Every rule here is written down in RULES.md with the sheet section or ruling it comes from.
Nothing is checked again: engine/validation.py judged the move. The Victory Lap's moves are
engine/lap.py's, the end of a round engine/scoring.py's.
"""

from __future__ import annotations

from engine.basegame import BaseGame, player_after
from engine.cards import BLOCKED_BY, DRAW_COUNT, Card, Color, Kind, Tower
from engine.events import (
    Accepted,
    Blocked,
    Caught,
    ChallengeResolved,
    ColorChosen,
    Drew,
    Event,
    InstantUno,
    Passed,
    Played,
    Reversed,
    Skipped,
    TowerGrabbed,
    TowersReturned,
    UnoCalled,
)
from engine.lap import do_lap, start_lap
from engine.moves import (
    Accept,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Draw,
    Keep,
    Lap,
    Move,
    Pass,
    Play,
)
from engine.scoring import end_round
from engine.state import Decision, W4Record
from engine.turns import draw_cards, end_turn, turn_event


def push(game: BaseGame, move: Move) -> list[Event]:
    """Make ``move``, known to be legal; returns what happened."""
    game.counters.moves += 1
    p = move.player
    if isinstance(move, CallUno):
        game.s.called.add(p)
        if game.s.catchable == p:
            game.s.catchable = None
        return [UnoCalled(p)]
    if isinstance(move, Catch):
        return _do_catch(game, p, move.target)
    _close_window(game, p)
    if isinstance(move, Play):
        return _do_play(game, move)
    if isinstance(move, Draw):
        return _do_draw(game, p)
    if isinstance(move, Pass):
        game.s.drawn = None
        return [Passed(p), *end_turn(game, p)]
    if isinstance(move, Accept):
        return _do_accept(game, p)
    if isinstance(move, Challenge):
        return _do_challenge(game, p)
    if isinstance(move, Keep):
        return _do_keep(game, move)
    if isinstance(move, Lap):
        return do_lap(game, move)
    assert isinstance(move, ChooseColor)
    game.s.color = move.color
    game.s.pending = Decision.PLAY
    return [ColorChosen(p, move.color), turn_event(game)]


def _close_window(game: BaseGame, actor: str) -> None:
    """A move by anyone but the player at risk closes the UNO catch window."""
    if game.s.catchable is not None and game.s.catchable != actor:
        game.s.catchable = None


def _grab(game: BaseGame, p: str, tower: Tower) -> list[Event]:
    s = game.s
    holder = s.towers[tower]
    if holder == p:
        return []
    s.towers[tower] = p
    game.stats[p].towers_grabbed += 1
    game.counters.grabs += 1
    return [TowerGrabbed(p, tower, holder)]


def _blocks(game: BaseGame, player: str, kind: Kind) -> Tower | None:
    """The tower of ``player`` that blocks a card of ``kind``, if they hold it."""
    if not game.edition.towers:
        return None
    tower = BLOCKED_BY.get(kind)
    if tower is not None and game.s.towers[tower] == player:
        return tower
    return None


def _do_play(game: BaseGame, move: Play) -> list[Event]:
    s = game.s
    p = move.player
    card = move.card
    hand = s.hands[p]
    prev_color = s.color
    hand.remove(card)
    guilty = card.kind is Kind.WILD_DRAW_FOUR and any(c.color is prev_color for c in hand)
    s.discard.append(card)
    s.color = move.color if card.is_wild else card.color
    s.drawn = None
    s.color_only = False
    events: list[Event] = [Played(p, card, s.color)]
    left = len(hand)
    # R-VL-UNO: a call made with a Victory Lap does not count (the hands move on).
    if left == 1 and card.kind is not Kind.VICTORY_LAP:
        if move.uno or p in s.called:
            if move.uno and p not in s.called:
                events.append(UnoCalled(p))
            s.called.add(p)
        else:
            s.catchable = p
    elif left > 1:
        s.called.discard(p)
    if game.edition.towers:
        if card.icon is not None:
            events += _grab(game, p, card.icon)
        for t in move.towers:
            events += _grab(game, p, t)
    if left == 0:
        return events + _last_card_effect(game, p, card) + end_round(game, p)
    if game.edition.towers and all(h == p for h in s.towers.values()):
        if left >= 2:
            s.pending = Decision.KEEP
            s.after_keep = player_after(game, p)
            events.append(turn_event(game))
            return events
        events += _instant_uno(game, p, hand[0], 0)
    return events + _card_effect(game, p, card, guilty, prev_color)


def _instant_uno(game: BaseGame, p: str, kept: Card, discarded: int) -> list[Event]:
    game.s.towers = {t: None for t in Tower}
    game.stats[p].instant_unos += 1
    game.counters.instant_unos += 1
    return [InstantUno(p, kept, discarded), TowersReturned()]


def _card_effect(
    game: BaseGame, p: str, card: Card, guilty: bool, prev_color: Color | None
) -> list[Event]:
    """What a played card does to the next player; ends with the next Turn."""
    s = game.s
    kind = card.kind
    victim = player_after(game, p)
    events: list[Event] = []
    if kind is Kind.REVERSE:
        s.direction = -s.direction
        events.append(Reversed(s.direction))
        if len(game.players) == 2:
            events.append(Skipped(victim))
            return events + end_turn(game, victim)
        return events + end_turn(game, p)
    if kind in (Kind.SKIP, Kind.DRAW_ONE, Kind.DRAW_TWO, Kind.WILD_DRAW_FOUR):
        tower = _blocks(game, victim, kind)
        if tower is not None:
            game.stats[victim].blocks += 1
            game.counters.blocks += 1
            events.append(Blocked(victim, card, tower))
            return events + end_turn(game, p)
        if kind is Kind.WILD_DRAW_FOUR:
            s.w4 = W4Record(p, victim, guilty, prev_color, tuple(s.hands[p]))
            s.turn = victim
            s.pending = Decision.CHALLENGE
            return [*events, turn_event(game)]
        if kind in DRAW_COUNT:
            events += draw_cards(game, victim, DRAW_COUNT[kind], "card")
        events.append(Skipped(victim))
        return events + end_turn(game, victim)
    if kind is Kind.VICTORY_LAP:
        return events + start_lap(game, p)
    return events + end_turn(game, p)


def _last_card_effect(game: BaseGame, p: str, card: Card) -> list[Event]:
    """A drawing card played as the last card still makes the next player draw."""
    if card.kind not in DRAW_COUNT:
        return []
    victim = player_after(game, p)
    tower = _blocks(game, victim, card.kind)
    if tower is not None:
        game.stats[victim].blocks += 1
        game.counters.blocks += 1
        return [Blocked(victim, card, tower)]
    return draw_cards(game, victim, DRAW_COUNT[card.kind], "card")


def _do_draw(game: BaseGame, p: str) -> list[Event]:
    s = game.s
    events = draw_cards(game, p, 1, "draw")
    drew = events[-1]
    assert isinstance(drew, Drew)
    if drew.count == 1 and game.can_play_on_top(drew.cards[0]):
        s.pending = Decision.DRAWN
        s.drawn = drew.cards[0]
        events.append(turn_event(game))
        return events
    return events + end_turn(game, p)


def _do_accept(game: BaseGame, p: str) -> list[Event]:
    s = game.s
    s.w4 = None
    events: list[Event] = [Accepted(p)]
    events += draw_cards(game, p, 4, "card")
    events.append(Skipped(p))
    return events + end_turn(game, p)


def _do_challenge(game: BaseGame, p: str) -> list[Event]:
    s = game.s
    w4 = s.w4
    assert w4 is not None
    s.w4 = None
    game.counters.challenges += 1
    against = w4.player
    # The hand as it was when the card was played: not the cards drawn since (a catch
    # in the UNO window) nor the penalty below (R-WD4-CHALLENGE).
    events: list[Event] = [ChallengeResolved(p, against, w4.guilty, w4.hand)]
    game.stats[against].w4_challenged += 1
    if w4.guilty:
        game.stats[against].bluffs_caught += 1
        game.stats[p].challenges_won += 1
        events += draw_cards(game, against, 4, "challenge")
        s.pending = Decision.PLAY
        s.turn = p
        game.counters.turns += 1
        return [*events, turn_event(game)]
    events += draw_cards(game, p, 6, "challenge")
    events.append(Skipped(p))
    return events + end_turn(game, p)


def _do_keep(game: BaseGame, move: Keep) -> list[Event]:
    s = game.s
    p = move.player
    hand = s.hands[p]
    hand.remove(move.card)
    others = list(hand)
    s.hands[p] = [move.card]
    top = s.discard.pop()
    s.discard.extend(others)
    s.discard.append(top)
    events = _instant_uno(game, p, move.card, len(others))
    if move.uno and p not in s.called:
        s.called.add(p)
        events.append(UnoCalled(p))
    elif p not in s.called:
        # A call made before the keep (holding two cards) covers it (R-UNO-CALL).
        s.catchable = p
    nxt = s.after_keep
    assert nxt is not None
    s.after_keep = None
    s.turn = nxt
    s.pending = Decision.PLAY
    game.counters.turns += 1
    events.append(turn_event(game))
    return events


def _do_catch(game: BaseGame, p: str, target: str) -> list[Event]:
    game.s.catchable = None
    game.stats[target].caught += 1
    game.counters.catches += 1
    return [Caught(target, p), *draw_cards(game, target, 2, "catch")]
