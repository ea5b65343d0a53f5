"""The move log as people read it (``/uno log``) and as a replay file (``/uno log export``).

A log entry is a move in the replay format (``engine.replay``); the header (seq 0) is the
replay file's start: edition, players, names, rules and seed. Lines show what the table saw
and nothing more: the card kept after an instant UNO stays hidden.
"""

from __future__ import annotations

from typing import Any

from cogs.i18n import Locale, _
from cogs.uno._render import card_label, color_name
from engine import Card, Color, ParseError


def _card(code: Any, locale: Locale) -> str:
    try:
        return card_label(Card.parse(str(code)), locale)
    except ParseError:
        return str(code)[:8]


def _color(value: Any, locale: Locale) -> str:
    try:
        return color_name(Color.parse(str(value)), locale)
    except ParseError:
        return str(value)[:8]


def log_line(move: dict[str, Any], names: dict[str, str], locale: Locale = None) -> str:
    """One logged move as the table saw it."""
    who = names.get(str(move.get("player")), str(move.get("player")))
    if "play" in move:
        text = _("{name} plays {card}", locale, name=who, card=_card(move["play"], locale))
        if move.get("color"):
            text += _(" and picks {color}", locale, color=_color(move["color"], locale))
        if move.get("towers"):
            text += _(", grabbing {towers}", locale, towers=" ".join(move["towers"]))
        if move.get("uno"):
            text += _(" (UNO!)", locale)
        return text + "."
    if move.get("draw"):
        return _("{name} draws.", locale, name=who)
    if move.get("pass"):
        return _("{name} keeps the drawn card.", locale, name=who)
    if "catch" in move:
        return _("{name} catches {other}.", locale, name=who,
                 other=names.get(str(move["catch"]), str(move["catch"])))
    if move.get("challenge"):
        return _("{name} challenges the Wild Draw Four.", locale, name=who)
    if move.get("accept"):
        return _("{name} accepts the Wild Draw Four.", locale, name=who)
    if "keep" in move:
        called = _(" and calls UNO!", locale) if move.get("uno") else "."
        return _("{name} keeps one card{called}", locale, name=who, called=called)
    if "color" in move:
        return _("{name} names {color}.", locale, name=who, color=_color(move["color"], locale))
    if move.get("leave"):
        return _("{name} leaves the game.", locale, name=who)
    if move.get("uno"):
        return _("{name} calls UNO!", locale, name=who)
    return _("{name} moves.", locale, name=who)


def log_lines(header: dict[str, Any], moves: list[dict[str, Any]], locale: Locale = None
              ) -> list[str]:
    names = {str(k): str(v) for k, v in (header.get("names") or {}).items()}
    return [f"`{i + 1:>2}` {log_line(m, names, locale)}" for i, m in enumerate(moves)]


def replay_document(header: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
    """The game as a file for ``python -m engine.replay``: it plays back exactly."""
    return {
        "edition": header["edition"],
        "players": header["players"],
        "names": header.get("names", {}),
        "rules": header["rules"],
        "seed": header["seed"],
        "moves": moves,
    }
