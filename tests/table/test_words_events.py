"""What the channel is told of a move (cogs/uno/table/words/events.py), for positions built
exactly. Each test names the RULINGS or RULES.md section it checks."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from cogs.uno.table.session import Options, Seat, Session
from cogs.uno.table.words.events import SENTENCES, SILENT, event_lines
from engine import Card, Game, Play, Settings
from engine.events import Dealt, Event, Played, Skipped, Turn
from engine.match import HandScored, MatchWon

FOUR = ["Ann", "Ben", "Cy", "Dee"]
TEAMS = [["Ann", "Cy"], ["Ben", "Dee"]]


def cards(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


def session_of(game: Game, **options: Any) -> Session:
    seats = [Seat(p, p) for p in game.players]
    return Session(channel_id=1, guild_id=2, host_id=game.players[0], seats=seats,
                   options=Options(**options), game=game, serial=1)


def partner_game(scoring: str, scores: dict[str, int] | None = None) -> Game:
    game, _ = Game.from_setup(
        FOUR, edition="classic", teams=TEAMS, settings=Settings(target=500, scoring=scoring),
        hands={"Ann": cards("R5 G9"), "Ben": cards("R3 BS"), "Cy": cards("R7"),
               "Dee": cards("Y+2 W")},
        draw=cards("G1 G2 G3 G4"), discard=cards("R6"), turn="Cy", dealer="Ben",
        scores=scores)
    return game


def test_partners_under_alternative_scoring_say_what_each_team_is_charged() -> None:
    """R-TEAM-ALT (RULINGS, Alternative scoring with partners): the round's line says what
    each team was charged (the partner's cards count for the team of the player who went
    out) instead of "score 0 points", and the teams are listed lowest first."""
    game = partner_game("alternative", {"Ann": 100, "Ben": 10})
    session = session_of(game, scoring="alternative")
    lines = event_lines(session, game.apply(Play("Cy", Card.parse("R7"))), "en")
    text = "\n".join(lines)
    assert "Cy goes out: Ann & Cy win round 1. Each team adds the cards left in its " \
           "hands: Ann & Cy +14, Ben & Dee +93." in text, text
    assert "score 0 points" not in text
    table = next(line for line in lines if line.startswith("```"))
    rows = table.strip("`").split("\n")[1:-1]
    assert [r.split()[0] for r in rows] == ["Ben", "Ann"], rows  # 103 before 114
    assert rows[0].endswith("103") and rows[1].endswith("114")


def test_partners_under_standard_scoring_keep_the_highest_first() -> None:
    """R-TEAM-SCORE (sheet 004, Playing with Partners): the team that goes out scores the
    opposing hands; the highest total is listed first."""
    game = partner_game("standard", {"Ben": 200})
    session = session_of(game)
    lines = event_lines(session, game.apply(Play("Cy", Card.parse("R7"))), "en")
    assert "🏆 Cy goes out: Ann & Cy win round 1 and score 93 points!" in lines
    rows = next(line for line in lines if line.startswith("```")).strip("`").split("\n")[1:-1]
    assert [r.split()[0] for r in rows] == ["Ben", "Ann"], rows  # 200 before 93


def test_alternative_scoring_alone_lists_the_lowest_first() -> None:
    """R-SCORE-ALT (RULINGS, Scoring: alternative, the lowest total wins): the round's line
    says everyone adds their own hand, and the score table leads with the lowest total."""
    game, _ = Game.from_setup(
        ["Ann", "Ben", "Cy"], edition="classic",
        settings=Settings(target=500, scoring="alternative"),
        hands={"Ann": cards("R7"), "Ben": cards("R3 BS"), "Cy": cards("G1")},
        draw=cards("G2 G3 G4"), discard=cards("R6"), turn="Ann", dealer="Cy")
    session = session_of(game, scoring="alternative")
    lines = event_lines(session, game.apply(Play("Ann", Card.parse("R7"))), "en")
    assert "🏆 Ann wins round 1. Everyone adds the cards left in their hand; the lowest " \
           "total wins." in lines, lines
    rows = next(line for line in lines if line.startswith("```")).strip("`").split("\n")[1:-1]
    assert [r.split()[0] for r in rows] == ["Ann", "Cy", "Ben"], rows


def test_a_colour_named_as_a_lap_ends_is_the_victory_laps() -> None:
    """R-VL-COLOR, R-VL-OWN-HAND (RULINGS, Victory Lap edition: the colour may be named on
    the keep): the channel hears the colour named for the Victory Lap, not a starting
    colour, whether a keep or the pass that brought the own hand back names it."""
    from engine import Color, Lap

    for keep in (True, False):
        game, _ = Game.from_setup(
            ["Ann", "Ben"], edition="victory-lap",
            hands={"Ann": cards("WV R1 R2"), "Ben": cards("G1 G2")},
            draw=cards("Y1 Y2 Y3"), discard=cards("R7"), turn="Ann")
        session = session_of(game)
        game.apply(Play("Ann", Card.parse("WV")))
        lines = event_lines(session, game.apply(Lap("Ann", keep, Color.BLUE)), "en")
        assert "🏁 Ann names blue for the Victory Lap." in lines, lines
        assert not any("starting colour" in line for line in lines)


def engine_event_types() -> set[type[Event]]:
    """Every event type of the engine (engine/events.py, engine/match.py and any other
    engine module), found by walking ``Event``'s subclasses. A dataclass made with slots is
    a new class: the one it replaced may still be listed until collected, so a class
    counts only if its module names it."""
    found: set[type[Event]] = set()
    todo: list[type[Event]] = [Event]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return {k for k in found if k.__module__.split(".")[0] == "engine"
            and getattr(sys.modules[k.__module__], k.__qualname__, None) is k}


def unsaid() -> list[str]:
    """The engine's event types with neither a sentence nor a reason to say nothing."""
    return sorted(k.__name__ for k in engine_event_types()
                  if k not in SENTENCES and k not in SILENT)


def test_every_engine_event_has_its_sentence_or_is_silent_on_purpose() -> None:
    """A new event type of the engine gets its sentence (``@says(NewEvent)`` in
    cogs/uno/table/words/events.py) or a line in ``SILENT`` saying why the channel hears
    nothing of it: it is never left out without a word."""
    kinds = engine_event_types()
    assert {Played, Turn, HandScored, MatchWon} <= kinds, "the walk finds the engine's events"
    assert not unsaid(), f"event types with no sentence and not SILENT: {unsaid()}"
    assert not SENTENCES.keys() & SILENT.keys(), "an event type is said and silent"
    assert all(SILENT.values()), "each silent event type says why"
    assert set(SENTENCES) | set(SILENT) <= kinds, "only the engine's own event types"


def test_a_forgotten_event_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above catches a type with no sentence (here Skipped's, taken away)."""
    monkeypatch.delitem(SENTENCES, Skipped)
    assert unsaid() == ["Skipped"]


def test_the_silent_events_say_nothing() -> None:
    """The deal's private cards, whose turn it is, and a match's hands (told by
    ``match_lines``) add no line of their own."""
    game = Game.new(["Ann", "Ben", "Cy"], edition="classic", seed=1)
    quiet: list[Event] = [e for e in game.start() if type(e) in SILENT]
    assert {type(e) for e in quiet} == {Dealt, Turn}
    quiet += [HandScored(round=0, table=0, teams=(("Ann",), ("Ben",)), points=(10, 0),
                         totals={"Ann": 10, "Ben": 0}),
              MatchWon(players=("Ann",), totals={"Ann": 10, "Ben": 0})]
    assert event_lines(session_of(game), quiet, "en") == []
