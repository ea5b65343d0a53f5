"""Seats taken while a game runs (RULES.md R-JOIN-NEXT, R-JOIN-SCORE, R-JOIN-FIXED: our own
rulings, the sheets being silent): a person asks, waits, and sits down when the next round
is dealt, at the worst score at the table; partner games and single hands keep their seats;
the waiting list is saved with the game and replays exactly."""

from __future__ import annotations

import pytest

from engine import Card, Game, IllegalMoveError, Play, Settings
from engine.errors import GameOverError, NotAPlayerError
from engine.replay import play_replay, replay_header, wait_to_json
from support.invariants import check_invariants


def c(code: str) -> Card:
    return Card.parse(code)


def ending(settings: Settings | None = None, scores: dict[str, int] | None = None) -> Game:
    """Ann holds one card that ends the round (R1 on R7)."""
    game, _ = Game.from_setup(["Ann", "Ben", "Cat"], settings=settings,
                              hands={"Ann": [c("R1")], "Ben": [c("B7")], "Cat": [c("Y3")]},
                              draw=[c(x) for x in ("R9", "B9", "G9", "Y9")], discard=[c("R7")],
                              turn="Ann", scores=scores)
    return game


def test_a_person_waits_then_sits_down_when_the_next_round_is_dealt() -> None:
    """R-JOIN-NEXT: asking changes nothing at the table; the next deal seats them (at the
    end of the seat order), deals them seven cards and lets them play."""
    game = ending(scores={"Ann": 40, "Ben": 25, "Cat": 60})
    events = game.ask_seat("Dan", "Dan the Man")
    assert [e.to_dict() for e in events] == [{"event": "seat_asked", "player": "Dan"}]
    assert game.players == ["Ann", "Ben", "Cat"] and game.waiting == ("Dan",)
    assert game.name("Dan") == "Dan the Man"
    events = game.apply(Play("Ann", c("R1")))
    kinds = [e.kind for e in events]
    assert kinds[:4] == ["played", "round_won", "round_started", "seated"]
    assert game.players == ["Ann", "Ben", "Cat", "Dan"] and game.waiting == ()
    assert len(game.hand("Dan")) == 7
    # R-JOIN-SCORE: the lowest score at the table once the round is scored (Ben: 25)
    assert events[3].to_dict() == {"event": "seated", "player": "Dan", "score": 25}
    assert game.scores["Dan"] == 25
    assert game.stats["Dan"].rounds_won == 0
    check_invariants(game)


def test_under_alternative_scoring_a_newcomer_starts_at_the_highest_total() -> None:
    """R-JOIN-SCORE: the lowest total wins there, so the worst place is the highest."""
    game = ending(Settings(scoring="alternative"), scores={"Ann": 40, "Ben": 25, "Cat": 60})
    game.ask_seat("Dan")
    game.apply(Play("Ann", c("R1")))
    # Ben's 7 and Cat's 3 were added to their own totals: Ben 32, Cat 63
    assert game.scores["Dan"] == max(game.scores[p] for p in ("Ann", "Ben", "Cat")) == 63


def test_withdrawing_leaves_the_table_as_it_was() -> None:
    """R-JOIN-NEXT: a withdrawn request (or one the host refused) seats nobody."""
    game = ending()
    game.ask_seat("Dan")
    assert [e.kind for e in game.withdraw_seat("Dan")] == ["seat_withdrawn"]
    game.apply(Play("Ann", c("R1")))
    assert game.players == ["Ann", "Ben", "Cat"]
    with pytest.raises(NotAPlayerError):
        game.withdraw_seat("Dan")


def test_who_may_not_ask_for_a_seat() -> None:
    """R-JOIN-NEXT, R-JOIN-FIXED: a player already seated or waiting, a full table, a
    game over, partners (who sit across to the end) and a single hand refuse."""
    game = ending()
    with pytest.raises(IllegalMoveError, match="already in this game"):
        game.ask_seat("Ben")
    game.ask_seat("Dan")
    with pytest.raises(IllegalMoveError, match="already waiting"):
        game.ask_seat("Dan")
    for i in range(game.edition.max_players - 4):
        game.ask_seat(f"P{i}")
    before = game.to_dict()
    with pytest.raises(IllegalMoveError, match="full"):
        game.ask_seat("P10")
    assert game.to_dict() == before
    partners = Game.new(["a", "b", "c", "d"], seed=1, teams=[["a", "c"], ["b", "d"]])
    partners.start()
    with pytest.raises(IllegalMoveError, match="keeps its seats"):
        partners.ask_seat("e")
    hand = Game.new(["a", "b", "c", "d"], seed=1, max_rounds=1)
    hand.start()
    with pytest.raises(IllegalMoveError, match="keeps its seats"):
        hand.ask_seat("e")
    over = ending(Settings(target=100), scores={"Ann": 99, "Ben": 0, "Cat": 0})
    over.apply(Play("Ann", c("R1")))
    assert over.is_over
    with pytest.raises(GameOverError):
        over.ask_seat("Dan")


def test_the_waiting_list_is_saved_and_replays() -> None:
    """R-SAVE, R-REPLAY-FORMAT: ``to_dict`` keeps who waits (a record saved before has
    nobody waiting); a logged wait line replays to the same game."""
    game = Game.new(["Ann", "Ben"], seed=7, settings=Settings(target=100))
    header = replay_header(game, 7)
    game.start()
    game.ask_seat("Cat", "Cathy")
    saved = game.to_dict()
    assert saved["waiting"] == ["Cat"]
    restored = Game.from_dict(saved)
    assert restored.waiting == ("Cat",) and restored.name("Cat") == "Cathy"
    assert restored.to_dict() == saved
    old = dict(saved)
    del old["waiting"]
    assert Game.from_dict(old).waiting == ()
    replayed, lines = play_replay({**header, "moves": [wait_to_json("Cat", True, "Cathy")]})
    assert replayed.to_dict() == saved
    assert lines[-2] == {"event": "seat_asked", "player": "Cat"}
    replayed, _ = play_replay({**header, "moves": [wait_to_json("Cat", True),
                                                   wait_to_json("Cat", False)]})
    assert replayed.waiting == ()
