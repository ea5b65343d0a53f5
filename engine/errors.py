"""The engine's error tree. Every message is one sentence a player understands."""

from __future__ import annotations

from typing import Any


class EngineError(ValueError):
    """Base of every error the engine raises for a move or a value it refuses.

    The message is ``template`` filled with ``params``: a caller that translates (the
    Discord layer) translates the template and renders the params itself; ``str(error)``
    is the English sentence. A Card param renders as its description ("blue 7"), except one
    named ``code``, which renders as the card code ("R5"); colours render as their names.
    """

    def __init__(self, template: str = "", /, **params: Any) -> None:
        self.template = template
        self.params = params
        super().__init__(template.format(**{k: _english(k, v) for k, v in params.items()})
                         if params else template)


def _english(key: str, value: Any) -> str:
    describe = getattr(value, "describe", None)
    if callable(describe):  # a Card
        return str(value) if key == "code" else str(describe())
    label = getattr(value, "label", None)
    if isinstance(label, str):  # a Color
        return label
    return str(value)


class ParseError(EngineError):
    """A card, colour, tower or move could not be read."""


class SettingsError(EngineError):
    """A setting is out of its allowed range."""


class GameOverError(EngineError):
    """The game has ended; no more moves."""


class NotAPlayerError(EngineError):
    """The move names someone who is not seated in this game."""


class NotYourTurnError(EngineError):
    """A player acted when it was someone else's turn or decision."""


class IllegalMoveError(EngineError):
    """The move is not allowed now (wrong card, wrong phase, missing choice...)."""


class CardNotInHandError(IllegalMoveError):
    """The player does not hold the card they tried to play or keep."""


class NoMatchError(IllegalMoveError):
    """The card does not match the top of the discard pile."""


class ChoiceError(IllegalMoveError):
    """A colour or tower choice is missing or not allowed."""


class UnoCallError(IllegalMoveError):
    """An UNO call or catch that the rules do not allow now."""
