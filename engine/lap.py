"""The Victory Lap (R-VL-LAP): the hands travel round the table, one seat a step, until the
player of the Victory Lap keeps the hand in front of them, or a pass brings their own hand
back, which ends the lap at once (R-VL-OWN-HAND).

Functions that take the ``BaseGame`` (engine/basegame.py) and move its table (``game.s``),
as engine/setup.py does: checking a move (engine/validation.py) asks ``check_lap`` while a
lap is under way, a played Victory Lap starts one (``start_lap``, engine/effects.py) and
making the ``Lap`` move is ``do_lap``.
"""

from __future__ import annotations

from dataclasses import replace

from engine.basegame import BaseGame
from engine.errors import ChoiceError, IllegalMoveError
from engine.events import ColorChosen, Event, LapKept, LapPassed
from engine.moves import Lap, Move
from engine.state import Decision, LapRecord
from engine.turns import end_turn, not_your_turn, turn_event, wrong_decision


def check_lap(game: BaseGame, move: Move) -> Move:
    """R-VL-ONLY: while the hands travel, only the card's player keeps or passes."""
    s = game.s
    lap = s.lap
    assert lap is not None
    if move.player != lap.player:
        raise not_your_turn(game, move.player)
    if not isinstance(move, Lap):
        raise wrong_decision(game)
    if move.keep:
        if move.color is None:
            if s.color is None:
                raise ChoiceError("Name the colour as you keep the hand: the Victory Lap "
                                  "was played without one.")
            return move
        if s.color is None:
            return move
        if move.color is not s.color:
            raise ChoiceError("You already named {color} with the Victory Lap.",
                              color=s.color)
        return replace(move, color=None)
    if lap.step >= len(game.players):
        # A lap saved before R-VL-OWN-HAND ended it at once: the own hand is back, kept.
        raise IllegalMoveError("Your own hand is back: you must keep it.")
    if lap.step + 1 >= len(game.players):
        # R-VL-OWN-HAND: this pass brings the player's own hand back and ends the lap, so it
        # names the colour if the play did not (R-VL-COLOR), as a keep would.
        if s.color is None:
            if move.color is None:
                raise ChoiceError("Name the colour as you pass: your own hand comes back and "
                                  "the Victory Lap was played without one.")
            return move
        if move.color is not None and move.color is not s.color:
            raise ChoiceError("You already named {color} with the Victory Lap.",
                              color=s.color)
    return replace(move, color=None) if move.color is not None else move


def start_lap(game: BaseGame, p: str) -> list[Event]:
    """R-VL-LAP: every hand moves one seat in the direction of play; ``p`` looks at the
    hand in front of them. UNO calls belonged to the old hands (R-VL-UNO)."""
    s = game.s
    s.called.clear()
    s.catchable = None
    s.lap = LapRecord(p, 0)
    return lap_step(game)


def lap_step(game: BaseGame) -> list[Event]:
    """Every hand moves one more seat in the direction of play; the card's player looks at
    the hand now in front of them."""
    s = game.s
    lap = s.lap
    assert lap is not None
    move_hands(game)
    s.turn = lap.player
    s.pending = Decision.LAP
    return [turn_event(game)]


def move_hands(game: BaseGame) -> None:
    """Every hand moves one seat in the direction of play (one step of the lap)."""
    s = game.s
    lap = s.lap
    assert lap is not None
    seats = game.players
    n = len(seats)
    moved = {seats[(i + s.direction) % n]: s.hands[q] for i, q in enumerate(seats)}
    s.hands = {q: moved[q] for q in s.hands}
    lap.step += 1


def do_lap(game: BaseGame, move: Lap) -> list[Event]:
    s = game.s
    lap = s.lap
    p = move.player
    assert lap is not None and lap.player == p
    if not move.keep:
        passed = LapPassed(p, len(s.hands[p]), lap.step)
        if lap.step + 1 < len(game.players):
            return [passed, *lap_step(game)]
        # R-VL-OWN-HAND: this pass brings the player's own hand back: the lap is over at
        # once, that hand kept with no further move.
        move_hands(game)
        return [passed, *end_lap(game, move)]
    return end_lap(game, move)


def end_lap(game: BaseGame, move: Lap) -> list[Event]:
    """The hand in front of the card's player is kept (by a keep, or because a pass brought
    their own hand back): everyone takes the hand in front of them and play goes on."""
    s = game.s
    lap = s.lap
    p = move.player
    assert lap is not None
    events: list[Event] = [LapKept(p, lap.step)]
    s.lap = None
    if move.color is not None:
        s.color = move.color
        events.append(ColorChosen(p, move.color))
    if len(s.hands[p]) == 1:
        # R-VL-UNO: keeping one card needs a call after the keep; catchable until the
        # next player's first move. Others given one card are not at risk.
        s.catchable = p
    return events + end_turn(game, p)
