"""Moves: small frozen values. A move names the player who makes it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import Card, Color, Tower
from engine.errors import ParseError


@dataclass(frozen=True, slots=True)
class Play:
    """Play a card from the hand, with the choices it needs made up front."""

    player: str
    card: Card
    color: Color | None = None
    """The colour named for a wild."""
    towers: tuple[Tower, ...] = ()
    """The towers grabbed by Grab-2-Towers (two) or Wild Grab-A-Tower (one)."""
    uno: bool = False
    """Call UNO with this play (counts only when it leaves one card)."""


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw one card instead of playing."""

    player: str


@dataclass(frozen=True, slots=True)
class Pass:
    """Keep the card just drawn; the turn ends."""

    player: str


@dataclass(frozen=True, slots=True)
class CallUno:
    """Say "UNO!"."""

    player: str


@dataclass(frozen=True, slots=True)
class Catch:
    """Catch a player who holds one card and did not call UNO."""

    player: str
    target: str


@dataclass(frozen=True, slots=True)
class Challenge:
    """Challenge the Wild Draw Four just played on you."""

    player: str


@dataclass(frozen=True, slots=True)
class Accept:
    """Accept the Wild Draw Four just played on you: draw four, lose the turn."""

    player: str


@dataclass(frozen=True, slots=True)
class Keep:
    """Instant UNO: the one card to keep."""

    player: str
    card: Card
    uno: bool = False


@dataclass(frozen=True, slots=True)
class ChooseColor:
    """Name the colour of a wild card turned up to open the round."""

    player: str
    color: Color


@dataclass(frozen=True, slots=True)
class Lap:
    """Victory Lap: the card's player keeps the hand in front of them (``keep=True``) or
    passes it on (``keep=False``). ``color`` names the colour on the keep when the Victory
    Lap was played without one."""

    player: str
    keep: bool
    color: Color | None = None


Move = Play | Draw | Pass | CallUno | Catch | Challenge | Accept | Keep | ChooseColor | Lap


def move_to_dict(move: Move) -> dict[str, Any]:
    """The replay-file form of a move."""
    d: dict[str, Any] = {"player": move.player}
    match move:
        case Play():
            d["play"] = move.card.code
            if move.color is not None:
                d["color"] = move.color.label
            if move.towers:
                d["towers"] = [t.value for t in move.towers]
            if move.uno:
                d["uno"] = True
        case Draw():
            d["draw"] = True
        case Pass():
            d["pass"] = True
        case CallUno():
            d["uno"] = True
        case Catch():
            d["catch"] = move.target
        case Challenge():
            d["challenge"] = True
        case Accept():
            d["accept"] = True
        case Keep():
            d["keep"] = move.card.code
            if move.uno:
                d["uno"] = True
        case ChooseColor():
            d["color"] = move.color.label
        case Lap():
            d["lap"] = "keep" if move.keep else "pass"
            if move.color is not None:
                d["color"] = move.color.label
    return d


_ACTION_KEYS = ("play", "draw", "pass", "catch", "challenge", "accept", "keep", "lap")


def move_from_dict(d: dict[str, Any]) -> Move:
    """Read the replay-file form of a move; raises ParseError saying what is wrong."""
    if not isinstance(d, dict):
        raise ParseError("A move must be an object.")
    player = d.get("player")
    if not isinstance(player, str):
        raise ParseError("A move needs a \"player\" name.")
    actions = [k for k in _ACTION_KEYS if k in d]
    known = {"player", "uno", "color", "towers", *_ACTION_KEYS}
    unknown = sorted(set(d) - known)
    if unknown:
        raise ParseError(f"Unknown key '{unknown[0]}' in a move.")
    if len(actions) > 1:
        raise ParseError(f"A move has one action, not {', '.join(actions)}.")

    def color_of(value: Any) -> Color:
        if not isinstance(value, str):
            raise ParseError("\"color\" must be a colour name.")
        return Color.parse(value)

    def card_of(value: Any) -> Card:
        if not isinstance(value, str):
            raise ParseError("A card must be a card code string.")
        return Card.parse(value)

    uno = d.get("uno", False)
    if not isinstance(uno, bool):
        raise ParseError("\"uno\" must be true or false.")
    if not actions:
        if "color" in d:
            return ChooseColor(player, color_of(d["color"]))
        if uno:
            return CallUno(player)
        raise ParseError("A move needs an action: play, draw, pass, uno, catch, challenge, "
                         "accept, keep, lap or color.")
    action = actions[0]
    if action == "play":
        towers_raw = d.get("towers", [])
        if not isinstance(towers_raw, list) or not all(isinstance(t, str) for t in towers_raw):
            raise ParseError("\"towers\" must be a list of tower names (U, N, O, !).")
        color = color_of(d["color"]) if d.get("color") is not None else None
        return Play(player, card_of(d["play"]), color,
                    tuple(Tower.parse(t) for t in towers_raw), uno)
    if action == "keep":
        return Keep(player, card_of(d["keep"]), uno)
    if action == "lap":
        if d["lap"] not in ("keep", "pass"):
            raise ParseError("\"lap\" must be \"keep\" or \"pass\".")
        if uno:
            raise ParseError("Call UNO after the keep, as a move of its own.")
        color = color_of(d["color"]) if d.get("color") is not None else None
        return Lap(player, d["lap"] == "keep", color)
    if action == "catch":
        if not isinstance(d["catch"], str):
            raise ParseError("\"catch\" must name a player.")
        return Catch(player, d["catch"])
    if d[action] is not True:
        raise ParseError(f"\"{action}\" must be true.")
    if action == "draw":
        return Draw(player)
    if action == "pass":
        return Pass(player)
    if action == "challenge":
        return Challenge(player)
    return Accept(player)
