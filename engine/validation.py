"""Whether a move may be made now, and if not, why not: ``validate`` (the one judge of a
move, behind ``Game.validate`` and ``Game.apply``), ``check_card`` (a play before its
choices) and ``may_call`` (calling UNO).

Nothing here changes the game: a refusal is an ``EngineError`` whose message says what is
wrong, so a refused move leaves the game exactly as it was. While a Victory Lap is under
way, engine/lap.py's ``check_lap`` judges instead.
"""

from __future__ import annotations

from dataclasses import replace

from engine.basegame import BaseGame, need_player
from engine.cards import Card, Kind, Tower
from engine.errors import (
    CardNotInHandError,
    ChoiceError,
    GameOverError,
    IllegalMoveError,
    NoMatchError,
    ParseError,
    UnoCallError,
)
from engine.lap import check_lap
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
from engine.state import Decision
from engine.turns import not_your_turn, wrong_decision


def validate(game: BaseGame, move: Move) -> Move:
    """Check ``move`` against the rules without changing anything.

    Returns the move in normal form (choices a card does not take dropped); raises an
    ``EngineError`` whose message says what is wrong.
    """
    s = game.s
    if s.pending is Decision.OVER:
        raise GameOverError("The game is over.")
    need_player(game, move.player)
    p = move.player
    if s.pending is Decision.LAP:
        return check_lap(game, move)
    if isinstance(move, CallUno):
        return _check_call(game, p)
    if isinstance(move, Catch):
        return _check_catch(game, p, move.target)
    if s.turn != p:
        raise not_your_turn(game, p)
    if isinstance(move, Play):
        return _check_play(game, move)
    if isinstance(move, Draw):
        if s.pending is Decision.DRAWN:
            raise IllegalMoveError("You already drew: play the drawn card or keep it.")
        if s.pending is not Decision.PLAY:
            raise wrong_decision(game)
        return move
    if isinstance(move, Pass):
        if s.pending is not Decision.DRAWN:
            raise IllegalMoveError("You can keep a card only right after drawing it.")
        return move
    if isinstance(move, Accept | Challenge):
        if s.pending is not Decision.CHALLENGE:
            raise IllegalMoveError("There is no Wild Draw Four to accept or challenge.")
        return move
    if isinstance(move, Keep):
        if s.pending is not Decision.KEEP:
            raise IllegalMoveError("You can choose a card to keep only after an instant UNO.")
        if move.card not in s.hands[p]:
            raise CardNotInHandError("You don't have {code}.", code=move.card)
        return move
    if isinstance(move, ChooseColor):
        if s.pending is not Decision.COLOR:
            raise IllegalMoveError("There is no colour to name now.")
        return move
    if isinstance(move, Lap):
        raise IllegalMoveError("There is no Victory Lap hand to keep or pass now.")
    raise ParseError("Unknown move.")  # pragma: no cover


def check_card(game: BaseGame, p: str, card: Card) -> None:
    """What a play of ``card`` by the turn player needs, whatever the choices."""
    s = game.s
    if s.pending is Decision.DRAWN:
        if card != s.drawn:
            raise IllegalMoveError(
                "After drawing you can only play the card you drew ({code}) or keep it.",
                code=s.drawn,
            )
    elif s.pending is not Decision.PLAY:
        raise wrong_decision(game)
    if card not in s.hands[p]:
        raise CardNotInHandError("You don't have {code}.", code=card)
    if not game.can_play_on_top(card):
        raise _no_match(game, card)


def may_call(game: BaseGame, p: str) -> bool:
    """Whether ``p`` may call UNO now."""
    # R-UNO-CALL: one card at any time; two cards on your turn, which includes a
    # decision of yours still pending (a card to keep, accept or challenge, a colour).
    s = game.s
    if p in s.called:
        return False
    n = len(s.hands[p])
    return n == 1 or (n == 2 and s.turn == p)


def _check_play(game: BaseGame, move: Play) -> Play:
    p = move.player
    card = move.card
    check_card(game, p, card)
    color = move.color
    if card.is_wild:
        # R-VL-COLOR: a Victory Lap that is not the last card may leave its colour to
        # the keep.
        lap_follows = card.kind is Kind.VICTORY_LAP and len(game.s.hands[p]) > 1
        if color is None and not lap_follows:
            raise ChoiceError("Choose a colour for the {card}.", card=card)
    else:
        color = None
    towers: tuple[Tower, ...] = ()
    need, free = game.tower_choices(p, card)
    if need:
        towers = move.towers
        if len(towers) != need or len(set(towers)) != need:
            if need == 1:
                raise ChoiceError("Choose one tower to grab with the {card}.", card=card)
            raise ChoiceError("Choose {n} different towers to grab with the {card}.",
                              n=need, card=card)
        for t in towers:
            if t not in free:
                raise ChoiceError("You already hold the {tower} tower: grab another one.",
                                  tower=t)
    if color is move.color and towers == move.towers:
        return move
    return replace(move, color=color, towers=towers)


def _check_call(game: BaseGame, p: str) -> CallUno:
    if p in game.s.called:
        raise UnoCallError("You already called UNO.")
    if may_call(game, p):
        return CallUno(p)
    raise UnoCallError(
        "You can call UNO on your turn with two cards, or when you hold one card."
    )


def _check_catch(game: BaseGame, p: str, target: str) -> Catch:
    s = game.s
    need_player(game, target)
    if target == p:
        raise UnoCallError("You can't catch yourself: call UNO instead.")
    if s.catchable != target:
        who = game.name(target)
        if len(s.hands[target]) != 1:
            raise UnoCallError("{name} doesn't hold exactly one card.", name=who)
        if target in s.called:
            raise UnoCallError("{name} already called UNO.", name=who)
        raise UnoCallError("Too late: {name} can't be caught any more.", name=who)
    return Catch(p, target)


def _no_match(game: BaseGame, card: Card) -> NoMatchError:
    s = game.s
    top = s.discard[-1]
    if s.color_only:
        return NoMatchError("{code} does not match the {top}: the first play on it must be "
                            "{color}.", code=card, top=top, color=s.color)
    if top.is_wild:
        return NoMatchError("{code} does not match the {top} (colour {color}).",
                            code=card, top=top, color=s.color)
    return NoMatchError("{code} does not match the {top}.", code=card, top=top)
