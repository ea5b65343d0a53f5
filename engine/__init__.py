"""UNO Power Grab, classic UNO and UNO Victory Lap rules: a pure, deterministic library.

No Discord, no I/O, no clock, no logging. See docs/engine-api.md and RULES.md. The computer
players are ``engine.players``: they build on this package, which does not import them.
"""

from engine.cards import BLOCKED_BY, Card, Color, Kind, Tower
from engine.editions import CLASSIC, EDITIONS, POWER_GRAB, VICTORY_LAP, Edition, get_edition
from engine.errors import (
    CardNotInHandError,
    ChoiceError,
    EngineError,
    GameOverError,
    IllegalMoveError,
    NoMatchError,
    NotAPlayerError,
    NotYourTurnError,
    ParseError,
    SettingsError,
    UnoCallError,
)
from engine.events import Event
from engine.game import Game
from engine.legal import LegalMoves, PlayNeeds
from engine.match import Hand, HandResult, Match, Standing
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
    move_from_dict,
    move_to_dict,
)
from engine.settings import Settings
from engine.state import Decision, PlayerStats

__all__ = [
    "BLOCKED_BY",
    "CLASSIC",
    "EDITIONS",
    "POWER_GRAB",
    "VICTORY_LAP",
    "Accept",
    "CallUno",
    "Card",
    "CardNotInHandError",
    "Catch",
    "Challenge",
    "ChoiceError",
    "ChooseColor",
    "Color",
    "Decision",
    "Draw",
    "Edition",
    "EngineError",
    "Event",
    "Game",
    "GameOverError",
    "Hand",
    "HandResult",
    "IllegalMoveError",
    "Keep",
    "Kind",
    "Lap",
    "LegalMoves",
    "Match",
    "Move",
    "NoMatchError",
    "NotAPlayerError",
    "NotYourTurnError",
    "ParseError",
    "Pass",
    "Play",
    "PlayNeeds",
    "PlayerStats",
    "Settings",
    "SettingsError",
    "Standing",
    "Tower",
    "UnoCallError",
    "get_edition",
    "move_from_dict",
    "move_to_dict",
]
