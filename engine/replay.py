"""The replay format: a game's record written (``replay_header``, ``move_to_json``,
``leave_to_json``) and read back (``build_game``, ``play_replay``, ``replay``: every event
as a dict, then the closing state).

The format is documented in docs/tools.md ("Replay files"). A malformed record raises
``ReplayFormatError``, whose one line says what is wrong and where. The command that reads a
file and prints its replay is engine/tools/replay.py (``python -m engine.tools.replay``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from engine.cards import Card, Color, Tower
from engine.errors import EngineError, ParseError
from engine.game import Game
from engine.moves import Catch, Move, move_from_dict, move_to_dict
from engine.settings import Settings
from engine.state import Decision
from engine.teams import check_teams

TOP_KEYS = {"edition", "players", "names", "rules", "seed", "setup", "moves", "teams",
            "max_rounds"}
SETUP_KEYS = {"hands", "draw", "discard", "color", "towers", "turn", "direction", "dealer",
              "scores"}


class ReplayFormatError(Exception):
    """The scenario file is malformed; the message says what and where."""


@dataclass(frozen=True, slots=True)
class Leave:
    """A replay line ``{"player": p, "leave": true}``: ``p`` leaves (``Game.remove_player``).
    Not a move of the rules (anyone may leave at any time), so it is not a ``Move``."""

    player: str


@dataclass(frozen=True, slots=True)
class Wait:
    """A replay line ``{"player": p, "wait": true, "name": n}``: ``p`` asks for a seat at
    the next round (``Game.ask_seat``); ``{"player": p, "wait": false}``: they no longer
    wait (``Game.withdraw_seat``). Like a leave, not a move of the rules."""

    player: str
    wait: bool
    name: str | None = None


def wait_to_json(player: str, wait: bool, name: str | None = None) -> dict[str, Any]:
    """The replay-file object for ``player`` asking for a seat (``wait``) or withdrawing."""
    line: dict[str, Any] = {"player": player, "wait": wait}
    if wait and name is not None and name != player:
        line["name"] = name
    return line


def _wait_from_json(raw: dict[str, Any], where: str) -> Wait:
    others = sorted(set(raw) - {"player", "wait", "name"})
    if others:
        raise ReplayFormatError(f"{where}: a wait has no other key, not {others[0]!r}")
    if not isinstance(raw["wait"], bool):
        raise ReplayFormatError(f"{where}: \"wait\" must be true or false")
    if not isinstance(raw.get("player"), str):
        raise ReplayFormatError(f"{where}: A move needs a \"player\" name.")
    name = raw.get("name")
    if name is not None and not isinstance(name, str):
        raise ReplayFormatError(f"{where}: \"name\" must be a string")
    return Wait(raw["player"], raw["wait"], name)


def move_to_json(move: Move | Leave) -> dict[str, Any]:
    """The replay-file object for ``move``, exactly as the replay tool reads it back:
    log every move a game applies, then write ``{"edition", "players", "names", "rules",
    "seed", "moves"}`` to replay the game from ``Game.new(...).start()``."""
    if isinstance(move, Leave):
        return leave_to_json(move.player)
    return move_to_dict(move)


def leave_to_json(player: str) -> dict[str, Any]:
    """The replay-file object for ``player`` leaving the game (``Game.remove_player``)."""
    return {"player": player, "leave": True}


def _leave_from_json(raw: dict[str, Any], where: str) -> Leave:
    others = sorted(set(raw) - {"player", "leave"})
    if others:
        raise ReplayFormatError(f"{where}: a leave has no other key, not {others[0]!r}")
    if raw["leave"] is not True:
        raise ReplayFormatError(f"{where}: \"leave\" must be true")
    if not isinstance(raw.get("player"), str):
        raise ReplayFormatError(f"{where}: A move needs a \"player\" name.")
    return Leave(raw["player"])


def _cards(value: Any, where: str) -> list[Card]:
    if not isinstance(value, list):
        raise ReplayFormatError(f"{where}: expected a list of card codes")
    out = []
    for i, code in enumerate(value):
        if not isinstance(code, str):
            raise ReplayFormatError(f"{where}[{i}]: a card code must be a string")
        try:
            out.append(Card.parse(code))
        except ParseError as exc:
            raise ReplayFormatError(f"{where}[{i}]: {exc}") from None
    return out


def _name(value: Any, players: list[str], where: str) -> str:
    if value not in players:
        raise ReplayFormatError(f"{where}: {value!r} is not one of the players")
    assert isinstance(value, str)
    return value


def build_game(data: Any) -> tuple[Game, list[dict[str, Any]]]:
    """The game a scenario describes, and the events of setting it up."""
    if not isinstance(data, dict):
        raise ReplayFormatError("top level: expected a JSON object")
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise ReplayFormatError(f"top level: unknown key {unknown[0]!r}")
    for key in ("edition", "players", "moves"):
        if key not in data:
            raise ReplayFormatError(f"top level: missing {key!r}")
    edition = data["edition"]
    if edition not in ("power-grab", "classic", "victory-lap"):
        raise ReplayFormatError(
            "edition: must be \"power-grab\", \"classic\" or \"victory-lap\"")
    players = data["players"]
    if (not isinstance(players, list) or not all(isinstance(p, str) and p for p in players)
            or len(set(players)) != len(players)):
        raise ReplayFormatError("players: expected a list of distinct names")
    if not isinstance(data["moves"], list):
        raise ReplayFormatError("moves: expected a list")
    names = data.get("names")
    if names is not None:
        if not isinstance(names, dict) or not all(
                isinstance(v, str) and v for v in names.values()):
            raise ReplayFormatError("names: expected an object of player: display name")
        for p in names:
            _name(p, players, "names")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ReplayFormatError("seed: expected a whole number")
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise ReplayFormatError("rules: expected an object")
    try:
        settings = Settings.from_dict(rules)
    except (EngineError, TypeError) as exc:
        raise ReplayFormatError(f"rules: {exc}") from None
    teams = data.get("teams")
    if teams is not None:
        if not isinstance(teams, list) or not all(isinstance(t, list) for t in teams):
            raise ReplayFormatError("teams: expected a list of teams, each a list of two names")
        try:
            check_teams(players, teams)
        except EngineError as exc:
            raise ReplayFormatError(f"teams: {exc}") from None
    max_rounds = data.get("max_rounds")
    if max_rounds is not None and (isinstance(max_rounds, bool) or not isinstance(
            max_rounds, int) or max_rounds < 1):
        raise ReplayFormatError("max_rounds: expected a whole number of at least 1")
    setup = data.get("setup")
    try:
        if setup is None:
            game = Game.new(players, edition=edition, settings=settings, seed=seed,
                            names=names, teams=teams, max_rounds=max_rounds)
            events = game.start()
        else:
            game, events = _from_setup(setup, players, edition, settings, seed, teams)
            game.max_rounds = max_rounds
            game.names.update(names or {})
    except EngineError as exc:
        raise ReplayFormatError(f"setup: {exc}") from None
    return game, [e.to_dict() for e in events]


def _from_setup(setup: Any, players: list[str], edition: str, settings: Settings,
                seed: int, teams: list[list[str]] | None = None) -> tuple[Game, list[Any]]:
    if not isinstance(setup, dict):
        raise ReplayFormatError("setup: expected an object")
    unknown = sorted(set(setup) - SETUP_KEYS)
    if unknown:
        raise ReplayFormatError(f"setup: unknown key {unknown[0]!r}")
    hands = None
    if "hands" in setup:
        if not isinstance(setup["hands"], dict):
            raise ReplayFormatError("setup.hands: expected an object of name: [cards]")
        hands = {_name(p, players, "setup.hands"): _cards(h, f"setup.hands.{p}")
                 for p, h in setup["hands"].items()}
    draw = _cards(setup["draw"], "setup.draw") if "draw" in setup else None
    discard = _cards(setup.get("discard", []), "setup.discard")
    color = None
    if setup.get("color") is not None:
        if not isinstance(setup["color"], str):
            raise ReplayFormatError("setup.color: expected a colour name")
        try:
            color = Color.parse(setup["color"])
        except ParseError as exc:
            raise ReplayFormatError(f"setup.color: {exc}") from None
    towers = None
    if "towers" in setup:
        if not isinstance(setup["towers"], dict):
            raise ReplayFormatError("setup.towers: expected an object of tower: name or null")
        towers = {}
        for t, holder in setup["towers"].items():
            try:
                tower = Tower.parse(t)
            except ParseError as exc:
                raise ReplayFormatError(f"setup.towers: {exc}") from None
            towers[tower] = None if holder is None else _name(holder, players,
                                                              f"setup.towers.{t}")
    turn = _name(setup["turn"], players, "setup.turn") if "turn" in setup else None
    dealer = _name(setup["dealer"], players, "setup.dealer") if "dealer" in setup else None
    direction = setup.get("direction", 1)
    if direction not in (1, -1) or isinstance(direction, bool):
        raise ReplayFormatError("setup.direction: expected 1 or -1")
    scores = setup.get("scores")
    if scores is not None:
        if not isinstance(scores, dict) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in scores.values()
        ):
            raise ReplayFormatError("setup.scores: expected an object of name: points")
        for p in scores:
            _name(p, players, "setup.scores")
    return Game.from_setup(
        players, edition=edition, settings=settings, seed=seed, hands=hands, draw=draw,
        discard=discard, color=color, towers=towers, turn=turn, direction=direction,
        dealer=dealer, scores=scores, teams=teams,
    )


def state_of(game: Game) -> dict[str, Any]:
    """The closing ``state`` line."""
    pending = None
    if game.pending is Decision.OVER:
        pending = None
    elif game.pending is not Decision.PLAY:
        pending = {"decision": game.pending.value, "player": game.turn}
        lap = game.lap
        if lap is not None:  # how far the hands have moved, and how far they may go
            pending["step"] = lap["step"]
            pending["steps_left"] = lap["steps_left"]
    return {
        "event": "state",
        "hands": {p: [c.code for c in game.hand(p)] for p in game.players},
        "draw": [c.code for c in game.draw_pile],
        "discard": [c.code for c in game.discard_pile],
        "top": game.top.code if game.discard_pile else None,
        "color": game.color.label if game.color else None,
        "towers": {t.value: h for t, h in game.towers.items()},
        "turn": None if game.is_over else game.turn,
        "direction": game.direction,
        "scores": game.scores,
        "pending": pending,
        "over": game.is_over,
        "winners": game.winners,
        "round": game.round_number,
        **({"team_scores": game.team_scores} if game.teams else {}),
    }


def play_replay(data: Any) -> tuple[Game, list[dict[str, Any]]]:
    """Play a scenario: the game as it ends, and every line ``replay`` prints.

    Raises ReplayFormatError when malformed.
    """
    game, lines = build_game(data)
    players = list(data["players"])
    moves: list[Move | Leave | Wait] = []
    for i, raw in enumerate(data["moves"]):
        move: Move | Leave | Wait
        if isinstance(raw, dict) and "leave" in raw:
            move = _leave_from_json(raw, f"moves[{i}]")
        elif isinstance(raw, dict) and "wait" in raw:
            move = _wait_from_json(raw, f"moves[{i}]")
            if move.wait and move.player not in players:
                players.append(move.player)  # a newcomer: named by the moves after it
        else:
            try:
                move = move_from_dict(raw)
            except ParseError as exc:
                raise ReplayFormatError(f"moves[{i}]: {exc}") from None
        _name(move.player, players, f"moves[{i}].player")
        if isinstance(move, Catch):
            _name(move.target, players, f"moves[{i}].catch")
        moves.append(move)
    for i, move in enumerate(moves):
        try:
            if isinstance(move, Leave):
                events = game.remove_player(move.player)
            elif isinstance(move, Wait):
                events = (game.ask_seat(move.player, move.name) if move.wait
                          else game.withdraw_seat(move.player))
            else:
                events = game.apply(move)
        except EngineError as exc:
            lines.append({"event": "rejected", "player": move.player, "reason": str(exc),
                          "move": i})
            continue
        lines += [e.to_dict() for e in events]
    state = state_of(game)
    if data.get("names") is not None:
        state["names"] = {p: game.name(p) for p in players}
    lines.append(state)
    return game, lines


def replay(data: Any) -> Iterator[dict[str, Any]]:
    """Play a scenario: yields every event as a dict, then the state.

    Raises ReplayFormatError (before yielding anything) when malformed.
    """
    _, lines = play_replay(data)
    yield from lines


def replay_header(game: Game, seed: int, names: Mapping[str, str] | None = None
                  ) -> dict[str, Any]:
    """The top of a replay file for a game made with ``Game.new(game.players,
    edition, settings, seed, names)`` (before ``start()``, which may shuffle the seats):
    add ``"moves"`` (``move_to_json`` of every move applied) to complete it."""
    header: dict[str, Any] = {
        "edition": game.edition.name,
        "players": list(game.players),
        "rules": game.settings.to_dict(),
        "seed": seed,
    }
    if game.teams:
        header["teams"] = [list(t) for t in game.teams]
    if game.max_rounds is not None:
        header["max_rounds"] = game.max_rounds
    shown = dict(names if names is not None else game.names)
    if any(shown.get(p, p) != p for p in game.players):
        header["names"] = {p: shown.get(p, p) for p in game.players}
    return header


if __name__ == "__main__":  # the command's old name, which the bot gave with its replay files
    raise SystemExit("The replay tool has moved: run python -m engine.tools.replay FILE.json")
