"""The engine's error tree. Every message is one sentence a player understands."""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises for a move or a value it refuses."""


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
