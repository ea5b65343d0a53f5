"""The turn's own steps, shared by every rule: drawing cards, ending a turn, ending the game,
the ``turn`` event, and the refusals that say whose decision the game waits for.

Functions that take the ``BaseGame`` (engine/basegame.py) and move its table (``game.s``); the
moves (engine/effects.py), the deal (engine/setup.py), the Victory Lap (engine/lap.py) and
the end of a round (engine/scoring.py) call them.
"""

from __future__ import annotations

from engine.basegame import BaseGame, player_after
from engine.cards import Card
from engine.errors import IllegalMoveError, NotYourTurnError
from engine.events import Drew, Event, GameWon, Reshuffled, Turn
from engine.state import Decision


def turn_event(game: BaseGame) -> Turn:
    """Who must act now, and what the game waits for."""
    return Turn(game.s.turn, game.s.pending.value)


def draw_cards(game: BaseGame, p: str, count: int, reason: str) -> list[Event]:
    """``p`` draws ``count`` cards (fewer when both piles run out), reshuffling the discard
    pile under its top card into a new draw pile when the draw pile is empty."""
    s = game.s
    events: list[Event] = []
    got: list[Card] = []
    hand = s.hands[p]
    for _ in range(count):
        if not s.draw:
            if len(s.discard) <= 1:
                break
            top = s.discard.pop()
            pile = s.discard
            game.rng.shuffle(pile)
            s.draw = pile
            s.discard = [top]
            events.append(Reshuffled(len(pile)))
        card = s.draw.pop()
        hand.append(card)
        got.append(card)
    if got:
        s.called.discard(p)
        if s.catchable == p:
            s.catchable = None
    events.append(Drew(p, len(got), tuple(got), reason))
    return events


def end_turn(game: BaseGame, p: str) -> list[Event]:
    """The turn passes to the player after ``p``."""
    s = game.s
    # R-UNO-CALL: a call covers the turn it is made in; a caller whose turn ends with
    # two or more cards (a drawn card kept, nothing to draw) must call again later.
    ending = s.turn
    if ending in s.called and len(s.hands[ending]) >= 2:
        s.called.discard(ending)
    s.turn = player_after(game, p)
    s.pending = Decision.PLAY
    s.color_only = False
    game.counters.turns += 1
    return [turn_event(game)]


def game_over(game: BaseGame) -> list[Event]:
    """The game ends; ``game.s.winners`` are set already."""
    s = game.s
    s.pending = Decision.OVER
    s.catchable = None
    for q in s.winners:
        if game.team_of(q) is not None:
            game.stats[q].team_games_won += 1
    return [GameWon(tuple(s.winners), dict(s.scores))]


def not_your_turn(game: BaseGame, player: str) -> NotYourTurnError:
    """The refusal for ``player``, who is not the one the game waits for."""
    s = game.s
    who = game.name(s.turn)
    if s.pending is Decision.CHALLENGE:
        return NotYourTurnError("{name} must accept or challenge the Wild Draw Four first.",
                                name=who)
    if s.pending is Decision.KEEP:
        return NotYourTurnError("{name} must choose the card to keep first.", name=who)
    if s.pending is Decision.COLOR:
        return NotYourTurnError("{name} must name the starting colour first.", name=who)
    if s.pending is Decision.LAP:
        return NotYourTurnError("{name} must keep or pass a hand in the Victory Lap first.",
                                name=who)
    return NotYourTurnError("It's {name}'s turn.", name=who)


def wrong_decision(game: BaseGame) -> IllegalMoveError:
    """The refusal for the player the game waits for, who answered another question."""
    s = game.s
    if s.pending is Decision.CHALLENGE:
        return IllegalMoveError("Accept or challenge the Wild Draw Four first.")
    if s.pending is Decision.KEEP:
        return IllegalMoveError("Choose the card to keep first.")
    if s.pending is Decision.COLOR:
        return IllegalMoveError("Name the starting colour first.")
    if s.pending is Decision.LAP:
        return IllegalMoveError("Keep or pass the hand in front of you first.")
    return IllegalMoveError("You can't do that now.")
