"""UNO Power Grab, classic UNO and UNO Victory Lap rules: a pure, deterministic library.

No Discord, no I/O, no clock, no logging. See docs/engine-api.md and RULES.md.
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
from engine.players import EasyPlayer, HeuristicPlayer, RandomPlayer, Strategy
from engine.seatview import Notes, SeatView, seat_view
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
    "EasyPlayer",
    "Edition",
    "EngineError",
    "Event",
    "Game",
    "GameOverError",
    "Hand",
    "HandResult",
    "HeuristicPlayer",
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
    "Notes",
    "ParseError",
    "Pass",
    "Play",
    "PlayNeeds",
    "PlayerStats",
    "RandomPlayer",
    "SeatView",
    "Settings",
    "SettingsError",
    "Standing",
    "Strategy",
    "Tower",
    "UnoCallError",
    "get_edition",
    "move_from_dict",
    "move_to_dict",
    "seat_view",
]
