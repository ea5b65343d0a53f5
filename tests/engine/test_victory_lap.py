"""The Victory Lap edition (RULES.md, section 18): one test per rule, on exact positions
built with Game.from_setup, then properties over random play.

Each docstring names the rule id, the sheet 004 section it checks and, where the sheet is
silent, the RULINGS section. Players are Ann, Ben, Cat (and Dan); the dealer is the last
listed player, so Ann plays first and Ben is next (R-REPLAY-SETUP).
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    EDITIONS,
    VICTORY_LAP,
    CallUno,
    Card,
    Catch,
    ChoiceError,
    ChooseColor,
    Color,
    Decision,
    Draw,
    EngineError,
    Event,
    Game,
    IllegalMoveError,
    Kind,
    Lap,
    NotYourTurnError,
    ParseError,
    Play,
    Settings,
    UnoCallError,
    move_from_dict,
    move_to_dict,
)
from engine.moves import Move
from engine.players import BasicPlayer, HeuristicPlayer, RandomPlayer, Strategy
from engine.replay import move_to_json, play_replay, replay_header
from engine.tools.simulate import run_game
from support.invariants import card_codes_in, check_invariants, check_public

P3 = ("Ann", "Ben", "Cat")
P4 = ("Ann", "Ben", "Cat", "Dan")
WV = Card.parse("WV")


def C(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


def G(hands: Mapping[str, str], *, players: Sequence[str] = P3,
      draw: str = "R9 B9 G9 Y9 R8 B8 G8 Y8", discard: str | None = "R7",
      color: Color | None = None, **kw: Any) -> Game:
    game, _ = Game.from_setup(
        list(players), edition="victory-lap",
        hands={p: C(h) for p, h in hands.items()}, draw=C(draw),
        discard=C(discard) if discard is not None else None, color=color, **kw)
    return game


def D(events: Sequence[Event]) -> list[dict[str, Any]]:
    return [e.to_dict() for e in events]


def hands(game: Game) -> dict[str, list[str]]:
    return {p: [c.code for c in game.hand(p)] for p in game.players}


def refused(game: Game, move: Any, error: type[EngineError] = EngineError) -> str:
    """Apply ``move``, expect ``error``, check the game did not change; return the message."""
    before = game.to_dict()
    with pytest.raises(error) as info:
        game.apply(move)
    assert game.to_dict() == before
    assert move not in game.legal_moves(move.player)
    msg = str(info.value)
    assert msg.endswith((".", "!")) and ". " not in msg.rstrip("."), msg
    return msg


HANDS4 = {"Ann": "WV R1 R2", "Ben": "B1 B2 B3", "Cat": "G1 G2 G3 G4", "Dan": "Y1 Y2 Y3 Y4 Y5"}


# ---------------------------------------------------------------- the edition

def test_deck() -> None:
    """R-DECK-VL (sheet 004, Contents; RULINGS, Victory Lap edition): 112 cards, per colour
    one 0, two each of 1-9, two Draw Two, two Reverse, two Skip; four Wild, four Wild Draw
    Four, four Victory Lap; no towers, no Power Grab cards."""
    deck = VICTORY_LAP.deck
    assert len(deck) == 112
    counts = Counter(deck)
    for color in Color:
        assert counts[Card.of(Kind.NUMBER, color, 0)] == 1
        for n in range(1, 10):
            assert counts[Card.of(Kind.NUMBER, color, n)] == 2
        for kind in (Kind.DRAW_TWO, Kind.REVERSE, Kind.SKIP):
            assert counts[Card.of(kind, color)] == 2
        assert sum(v for c, v in counts.items() if c.color is color) == 25
    assert counts[Card.of(Kind.WILD)] == 4
    assert counts[Card.of(Kind.WILD_DRAW_FOUR)] == 4
    assert counts[WV] == 4
    assert not VICTORY_LAP.towers and all(c.icon is None for c in deck)
    assert not {Kind.DRAW_ONE, Kind.GRAB_TWO, Kind.WILD_GRAB} & {c.kind for c in deck}
    assert EDITIONS["victory-lap"] is VICTORY_LAP


def test_players_two_to_ten() -> None:
    """R-PLAYERS (sheet 004, player count 2-10 on its cover): 2 to 10 seats."""
    names = [f"p{i}" for i in range(11)]
    for n in range(2, 11):
        Game.new(names[:n], edition="victory-lap", seed=n).start()
    for n in (1, 11):
        with pytest.raises(IllegalMoveError, match="needs 2 to 10 players"):
            Game.new(names[:n], edition="victory-lap")


def test_victory_lap_scores_fifty() -> None:
    """R-POINTS (sheet 004, Scoring): a Victory Lap left in a hand scores 50, like the
    other wilds; the round winner scores the other hands."""
    g = G({"Ann": "R1", "Ben": "WV B2", "Cat": "W G1"})
    assert g.card_points(WV) == 50
    ev = D(g.apply(Play("Ann", Card.parse("R1"))))
    won = next(e for e in ev if e["event"] == "round_won")
    assert won["points"] == 50 + 2 + 50 + 1


# ---------------------------------------------------------------- the lap

def test_lap_moves_every_hand_one_seat() -> None:
    """R-VL-LAP (sheet 004, Victory Lap Card): every hand moves one seat in the direction
    of play and only the card's player looks at the hand in front of them."""
    g = G(HANDS4, players=P4)
    ev = D(g.apply(Play("Ann", WV, Color.RED)))
    assert ev == [{"event": "played", "player": "Ann", "card": "WV", "color": "red"},
                  {"event": "turn", "player": "Ann", "decision": "lap"}]
    assert g.pending is Decision.LAP and g.turn == "Ann"
    assert hands(g) == {"Ann": ["Y1", "Y2", "Y3", "Y4", "Y5"],
                        "Ben": ["R1", "R2"], "Cat": ["B1", "B2", "B3"],
                        "Dan": ["G1", "G2", "G3", "G4"]}
    assert g.lap == {"player": "Ann", "step": 1, "steps_left": 3}


def test_lap_follows_the_direction_of_play() -> None:
    """R-VL-LAP (sheet 004, Victory Lap Card: consistent with the current direction): with
    play running right, hands move right; play then goes on to the right."""
    g = G(HANDS4, players=P4, direction=-1, turn="Ann")
    g.apply(Play("Ann", WV, Color.RED))
    assert hands(g)["Ann"] == ["B1", "B2", "B3"] and hands(g)["Dan"] == ["R1", "R2"]
    ev = D(g.apply(Lap("Ann", True)))
    assert ev == [{"event": "lap_kept", "player": "Ann", "step": 1},
                  {"event": "turn", "player": "Dan", "decision": "play"}]


def test_keep_after_passes_and_play_goes_on_with_the_next_player() -> None:
    """R-VL-LAP, R-VL-NEXT (sheet 004, Victory Lap Card): each pass moves every hand one more
    seat; on the keep everyone takes the hand in front of them and the next player plays."""
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV, Color.GREEN))
    ev = D(g.apply(Lap("Ann", False)))
    assert ev == [{"event": "lap_passed", "player": "Ann", "cards": 5, "step": 1},
                  {"event": "turn", "player": "Ann", "decision": "lap"}]
    assert hands(g)["Ann"] == ["G1", "G2", "G3", "G4"]
    ev = D(g.apply(Lap("Ann", True)))
    assert ev == [{"event": "lap_kept", "player": "Ann", "step": 2},
                  {"event": "turn", "player": "Ben", "decision": "play"}]
    assert hands(g) == {"Ann": ["G1", "G2", "G3", "G4"], "Ben": ["Y1", "Y2", "Y3", "Y4", "Y5"],
                        "Cat": ["R1", "R2"], "Dan": ["B1", "B2", "B3"]}
    assert g.pending is Decision.PLAY and g.color is Color.GREEN and g.lap is None
    g.apply(Draw("Ben"))
    assert g.turn == "Cat"


def test_own_hand_back_ends_the_lap_at_once() -> None:
    """R-VL-OWN-HAND (sheet 004, Victory Lap Card, the note; RULINGS, Victory Lap edition:
    a pass that brings the card's player's own hand back ends the lap at once): that hand is
    kept with no further move, play goes on with the next player, and a keep sent after it
    is refused (a replay file may not send one)."""
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV, Color.BLUE))
    for step in (1, 2):
        assert g.lap == {"player": "Ann", "step": step, "steps_left": 4 - step}
        g.apply(Lap("Ann", False))
    assert g.lap == {"player": "Ann", "step": 3, "steps_left": 1}
    ev = D(g.apply(Lap("Ann", False)))
    assert ev == [{"event": "lap_passed", "player": "Ann", "cards": 3, "step": 3},
                  {"event": "lap_kept", "player": "Ann", "step": 4},
                  {"event": "turn", "player": "Ben", "decision": "play"}]
    assert g.lap is None and g.pending is Decision.PLAY and g.turn == "Ben"
    assert hands(g) == {p: h.split() for p, h in HANDS4.items()} | {"Ann": ["R1", "R2"]}
    assert g.color is Color.BLUE
    assert refused(g, Lap("Ann", True), NotYourTurnError) == "It's Ben's turn."


def test_own_hand_back_names_the_colour_on_the_last_pass() -> None:
    """R-VL-OWN-HAND, R-VL-COLOR (RULINGS, Victory Lap edition): a Victory Lap played without
    a colour leaves it to the keep; when the pass ends the lap instead, that pass names it
    (refused without one); the passes before it need none."""
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV))
    g.apply(Lap("Ann", False))
    g.apply(Lap("Ann", False))
    assert refused(g, Lap("Ann", False), ChoiceError) == (
        "Name the colour as you pass: your own hand comes back and the Victory Lap was "
        "played without one.")
    assert {m for m in g.legal_moves("Ann") if not m.keep} == {  # type: ignore[union-attr]
        Lap("Ann", False, c) for c in Color}
    ev = D(g.apply(Lap("Ann", False, Color.RED)))
    assert [e["event"] for e in ev] == ["lap_passed", "lap_kept", "color_chosen", "turn"]
    assert g.color is Color.RED and g.turn == "Ben" and g.lap is None

    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV, Color.GREEN))
    g.apply(Lap("Ann", False))
    g.apply(Lap("Ann", False))
    assert refused(g, Lap("Ann", False, Color.RED), ChoiceError) == (
        "You already named green with the Victory Lap.")
    assert g.validate(Lap("Ann", False, Color.GREEN)) == Lap("Ann", False)


def test_own_hand_of_one_card_back_needs_the_call() -> None:
    """R-VL-UNO, R-VL-OWN-HAND (RULINGS, Victory Lap edition: keeping a one-card hand needs
    the UNO call after the keep): an own hand of one card that a pass brought back is kept
    as any kept hand: the card's player can be caught until they call or the next player
    moves."""
    g = G({"Ann": "WV R1", "Ben": "B1 B2", "Cat": "G1 G2 G3"})
    g.apply(Play("Ann", WV, Color.RED))
    g.apply(Lap("Ann", False))
    g.apply(Lap("Ann", False))
    assert hands(g)["Ann"] == ["R1"] and g.lap is None and g.catchable == "Ann"
    assert CallUno("Ann") in g.legal_moves("Ann")
    ev = D(g.apply(Catch("Cat", "Ann")))
    assert ev[0] == {"event": "caught", "player": "Ann", "by": "Cat"}

    g = G({"Ann": "WV R1", "Ben": "B1 B2", "Cat": "G1 G2 G3"})
    g.apply(Play("Ann", WV, Color.RED))
    g.apply(Lap("Ann", False))
    g.apply(Lap("Ann", False))
    assert D(g.apply(CallUno("Ann"))) == [{"event": "uno", "player": "Ann"}]
    assert "already called" in refused(g, Catch("Cat", "Ann"), UnoCallError)


def test_lap_saved_with_the_own_hand_back_is_kept() -> None:
    """R-VL-SAVE (engine): a game saved before R-VL-OWN-HAND ended the lap at once, with the
    own hand already back, still loads: its keep is accepted and a pass refused."""
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV, Color.BLUE))
    saved = g.to_dict()
    saved["lap"] = {"player": "Ann", "step": 4}
    saved["hands"] = {p: h.split() for p, h in HANDS4.items()} | {"Ann": ["R1", "R2"]}
    old = Game.from_dict(saved)
    assert list(old.legal_moves("Ann")) == [Lap("Ann", True)]
    assert refused(old, Lap("Ann", False), IllegalMoveError) == (
        "Your own hand is back: you must keep it.")
    assert D(old.apply(Lap("Ann", True)))[0] == {"event": "lap_kept", "player": "Ann",
                                                  "step": 4}


def test_colour_with_the_play_or_on_the_keep() -> None:
    """R-VL-COLOR (RULINGS, Victory Lap edition: named with the play as for any wild, also
    accepted on the keep; sheet 004, Victory Lap Card: the colour is called with the hand
    chosen): a play without a colour leaves it to the keep, which must then name it."""
    g = G(HANDS4, players=P4)
    assert g.play_needs("Ann", WV).color and g.play_needs("Ann", WV).color_later
    g.apply(Play("Ann", WV))
    assert g.color is None
    assert "Name the colour" in refused(g, Lap("Ann", True), ChoiceError)
    assert [m for m in g.legal_moves("Ann") if isinstance(m, Lap) and m.keep] == [
        Lap("Ann", True, c) for c in Color]
    ev = D(g.apply(Lap("Ann", True, Color.YELLOW)))
    assert ev[1] == {"event": "color_chosen", "player": "Ann", "color": "yellow"}
    assert g.color is Color.YELLOW

    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV, Color.RED))
    assert refused(g, Lap("Ann", True, Color.BLUE), ChoiceError) == (
        "You already named red with the Victory Lap.")
    assert g.validate(Lap("Ann", True, Color.RED)) == Lap("Ann", True)
    assert g.validate(Lap("Ann", False, Color.RED)) == Lap("Ann", False)


def test_only_the_cards_player_keeps_or_passes_during_the_lap() -> None:
    """R-VL-ONLY (RULINGS, Victory Lap edition): while the lap runs only the card's player's
    keep or pass is accepted; everything else is refused with one sentence."""
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV, Color.RED))
    msg = "Ann must keep or pass a hand in the Victory Lap first."
    assert refused(g, Play("Ben", Card.parse("R1")), NotYourTurnError) == msg
    assert refused(g, Draw("Cat"), NotYourTurnError) == msg
    assert refused(g, Lap("Dan", True), NotYourTurnError) == msg
    assert refused(g, CallUno("Ben"), NotYourTurnError) == msg
    assert refused(g, Catch("Ben", "Ann"), NotYourTurnError) == msg
    assert refused(g, Draw("Ann"), IllegalMoveError) == (
        "Keep or pass the hand in front of you first.")
    assert refused(g, CallUno("Ann"), IllegalMoveError) == (
        "Keep or pass the hand in front of you first.")
    for p in ("Ben", "Cat", "Dan"):
        assert list(g.legal_moves(p)) == []
    assert set(g.legal_moves("Ann")) == {Lap("Ann", True), Lap("Ann", False)}
    assert Lap("Ann", False) in g.legal_moves("Ann")


def test_lap_move_outside_a_lap_is_refused() -> None:
    """R-VL-ONLY (engine): a keep or pass when no lap runs is refused."""
    g = G(HANDS4, players=P4)
    assert refused(g, Lap("Ann", True), IllegalMoveError) == (
        "There is no Victory Lap hand to keep or pass now.")
    assert refused(g, Lap("Ben", True), NotYourTurnError) == "It's Ann's turn."


def test_call_with_the_play_does_not_count() -> None:
    """R-VL-UNO (RULINGS, Victory Lap edition: a call made with the play does not count):
    the call is ignored; calls made before the lap go with the old hands."""
    g = G({"Ann": "WV R1", "Ben": "B1", "Cat": "G1 G2"})
    g.apply(CallUno("Ben"))
    ev = D(g.apply(Play("Ann", WV, Color.RED, uno=True)))
    assert [e["event"] for e in ev] == ["played", "turn"]
    assert not g.has_called("Ann") and not g.has_called("Ben") and g.catchable is None


def test_keeping_one_card_needs_a_call_after_the_keep() -> None:
    """R-VL-UNO (sheet 004, Victory Lap Card: keeping a one-card hand needs UNO; RULINGS,
    Victory Lap edition): the keeper can be caught until the next player's first move; a
    call after the keep protects them."""
    g = G({"Ann": "WV R1 R2", "Ben": "B1 B2", "Cat": "G1"})
    g.apply(Play("Ann", WV, Color.RED))
    g.apply(Lap("Ann", True))
    assert hands(g)["Ann"] == ["G1"] and g.catchable == "Ann"
    ev = D(g.apply(Catch("Cat", "Ann")))
    assert ev[0] == {"event": "caught", "player": "Ann", "by": "Cat"}
    assert len(g.hand("Ann")) == 3

    g = G({"Ann": "WV R1 R2", "Ben": "B1 B2", "Cat": "G1"})
    g.apply(Play("Ann", WV, Color.RED))
    g.apply(Lap("Ann", True))
    assert D(g.apply(CallUno("Ann"))) == [{"event": "uno", "player": "Ann"}]
    assert "already called" in refused(g, Catch("Cat", "Ann"), UnoCallError)

    g = G({"Ann": "WV R1 R2", "Ben": "R5 B2", "Cat": "G1"})
    g.apply(Play("Ann", WV, Color.RED))
    g.apply(Lap("Ann", True))
    g.apply(Play("Ben", Card.parse("R1")))  # Ben now holds Ann's old hand
    assert "Too late" in refused(g, Catch("Cat", "Ann"), UnoCallError)


def test_others_given_one_card_may_call_but_are_not_caught() -> None:
    """R-VL-UNO (RULINGS, Victory Lap edition): a player handed a one-card hand may call UNO
    but can't be caught for not calling."""
    g = G({"Ann": "WV R1 R2", "Ben": "B1 B2", "Cat": "G1"}, players=P3)
    g.apply(Play("Ann", WV, Color.RED))
    g.apply(Lap("Ann", False))
    g.apply(Lap("Ann", True))  # two seats on: Ann keeps Ben's hand, Ben holds Cat's
    assert hands(g) == {"Ann": ["B1", "B2"], "Ben": ["G1"], "Cat": ["R1", "R2"]}
    assert g.catchable is None
    refused(g, Catch("Cat", "Ben"), UnoCallError)
    assert CallUno("Ben") in g.legal_moves("Ben")
    assert D(g.apply(CallUno("Ben"))) == [{"event": "uno", "player": "Ben"}]


def test_victory_lap_as_last_card_ends_the_round() -> None:
    """R-VL-LAST (RULINGS, Victory Lap edition): a Victory Lap played as the last card ends
    the round with no lap (a colour is still named, as for any wild)."""
    g = G({"Ann": "WV", "Ben": "B1 B2", "Cat": "G1"})
    assert not g.play_needs("Ann", WV).color_later
    assert Play("Ann", WV) not in g.legal_moves("Ann")
    refused(g, Play("Ann", WV), ChoiceError)
    ev = D(g.apply(Play("Ann", WV, Color.BLUE)))
    assert [e["event"] for e in ev[:2]] == ["played", "round_won"]
    assert not any(e["event"].startswith("lap") for e in ev)
    assert ev[1]["points"] == 1 + 2 + 1 and g.round_number == 2


def test_victory_lap_turned_up_first() -> None:
    """R-FIRST-WILD (RULINGS, Deal and round: Victory Lap turned up, no lap): the first
    player names the colour, then plays."""
    g = G({"Ann": "R1 B9", "Ben": "R2", "Cat": "G3"}, discard=None, draw="WV G1 R2 Y3")
    assert g.pending is Decision.COLOR and g.turn == "Ann" and g.lap is None
    refused(g, Lap("Ann", True), IllegalMoveError)
    g.apply(ChooseColor("Ann", Color.BLUE))
    g.apply(Play("Ann", Card.parse("B9")))
    assert g.turn == "Ben" and hands(g)["Ann"] == ["R1"]


@pytest.mark.parametrize(("code", "drawn"), [("BS", 0), ("BR", 0), ("B+2", 2), ("W+4", 4)])
def test_two_handed_play(code: str, drawn: int) -> None:
    """R-TWO-REVERSE, R-TWO-AGAIN (sheet 004, Two-Handed Play): Reverse and Skip let the
    player play again; after Draw Two or an accepted Wild Draw Four the other player has
    drawn and the play is back to them."""
    g = G({"Ann": f"{code} B1 B2", "Ben": "G1 G2"}, players=("Ann", "Ben"), discard="B7")
    g.apply(Play("Ann", Card.parse(code), Color.BLUE if code == "W+4" else None))
    if code == "W+4":
        g.apply(move_from_dict({"player": "Ben", "accept": True}))
    assert g.turn == "Ann" and g.pending is Decision.PLAY
    assert len(g.hand("Ben")) == 2 + drawn


def test_two_players_one_pass_brings_the_own_hand_back() -> None:
    """R-VL-OWN-HAND (sheet 004, Two-Handed Play: the usual rules; Victory Lap Card; RULINGS,
    Victory Lap edition): with two players the first pass already brings the card's
    player's own hand back, which ends the lap: Ben plays next."""
    g = G({"Ann": "WV R1 R2", "Ben": "G1"}, players=("Ann", "Ben"))
    g.apply(Play("Ann", WV, Color.RED))
    assert hands(g) == {"Ann": ["G1"], "Ben": ["R1", "R2"]}
    assert set(g.legal_moves("Ann")) == {Lap("Ann", True), Lap("Ann", False)}
    ev = D(g.apply(Lap("Ann", False)))
    assert [e["event"] for e in ev] == ["lap_passed", "lap_kept", "turn"]
    assert hands(g) == {"Ann": ["R1", "R2"], "Ben": ["G1"]}
    assert g.lap is None and g.turn == "Ben"


# ---------------------------------------------------------------- views, saving, timeouts

def test_views_during_and_after_a_lap() -> None:
    """R-VL-VIEWS (sheet 004, Victory Lap Card: only the card's player looks, the others'
    hands lie face down; engine): the card's player sees the hand in front of them and how
    many passes are left; the others see no card; after the keep each sees the hand held."""
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV, Color.RED))
    ann = g.player_view("Ann")
    assert ann["hand"] == ["Y1", "Y2", "Y3", "Y4", "Y5"] and ann["playable"] == []
    assert ann["lap"] == {"player": "Ann", "step": 1, "steps_left": 3}
    for p in ("Ben", "Cat", "Dan"):
        view = g.player_view(p)
        assert view["hand"] == [] and view["face_down"] == len(g.hand(p))
        view.pop("top")
        assert card_codes_in(view) == []
    public = g.public_view()
    assert public["pending"] == "lap" and public["lap"]["steps_left"] == 3
    public.pop("top")
    assert card_codes_in(public) == []
    g.apply(Lap("Ann", True))
    for p in P4:
        assert g.player_view(p)["hand"] == hands(g)[p]
        assert "face_down" not in g.player_view(p)
    assert g.public_view()["lap"] is None


def test_lap_events_are_public() -> None:
    """R-VL-VIEWS (engine): lap_passed and lap_kept carry no card; the sizes are public."""
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV, Color.RED))
    for ev in (g.apply(Lap("Ann", False)), g.apply(Lap("Ann", True))):
        check_public(ev)
        for e in ev:
            assert e.public_dict() == e.to_dict() and e.owner is None


def test_save_and_restore_mid_lap() -> None:
    """R-VL-SAVE, R-SAVE (engine): a lap under way survives to_dict/from_dict exactly and plays on
    identically; games saved before the edition (no "lap" key) still load."""
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV))
    g.apply(Lap("Ann", False))
    saved = g.to_dict()
    assert saved["lap"] == {"player": "Ann", "step": 2} and saved["pending"] == "lap"
    restored = Game.from_dict(saved)
    assert restored.to_dict() == saved
    assert restored.lap == g.lap
    for game in (g, restored):
        assert D(game.apply(Lap("Ann", False))) == [
            {"event": "lap_passed", "player": "Ann", "cards": 4, "step": 2},
            {"event": "turn", "player": "Ann", "decision": "lap"}]
    assert restored.to_dict() == g.to_dict()
    old = Game.new(list(P3), seed=3)
    old.start()
    d = old.to_dict()
    del d["lap"]
    assert Game.from_dict(d).to_dict() == old.to_dict()


def test_timeout_keeps_the_hand_in_front() -> None:
    """R-VL-TIMEOUT (engine, as R-TIMEOUT): a lap that times out keeps the hand in front of
    the card's player, naming the colour they hold most if none was named."""
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV))
    assert g.timeout_moves() == [Lap("Ann", True, Color.YELLOW)]
    ev = D(g.apply_timeout())
    assert [e["event"] for e in ev] == ["lap_kept", "color_chosen", "turn"]
    assert g.color is Color.YELLOW and hands(g)["Ann"] == ["Y1", "Y2", "Y3", "Y4", "Y5"]
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV, Color.RED))
    assert g.timeout_moves() == [Lap("Ann", True)]


@pytest.mark.parametrize("who", P4)
def test_leaving_during_a_lap_ends_it(who: str) -> None:
    """R-LEAVE (engine): a lap under way ends first, as on a timeout; then the player leaves
    with the hand in front of them."""
    g = G(HANDS4, players=P4)
    g.apply(Play("Ann", WV, Color.RED))
    cards = g.all_cards()
    held = len(g.hand(who))
    ev = D(g.remove_player(who))
    assert ev[0] == {"event": "lap_kept", "player": "Ann", "step": 1}
    assert {"event": "left", "player": who, "cards": held} in ev
    assert g.pending is Decision.PLAY and g.turn in g.players and g.lap is None
    assert g.turn == ("Ben" if who != "Ben" else "Cat")
    assert g.all_cards() == cards


def test_lap_moves_in_replay_form() -> None:
    """R-REPLAY-FORMAT (engine): {"lap": "keep"|"pass"} with an optional colour, both ways."""
    for move in (Lap("Ann", True), Lap("Ann", False), Lap("Ann", True, Color.GREEN)):
        assert move_from_dict(move_to_dict(move)) == move
        assert move_to_json(move) == move_to_dict(move)
    assert move_to_dict(Lap("Ann", True, Color.GREEN)) == {
        "player": "Ann", "lap": "keep", "color": "green"}
    for bad in ({"player": "Ann", "lap": "swap"}, {"player": "Ann", "lap": True},
                {"player": "Ann", "lap": "keep", "uno": True},
                {"player": "Ann", "lap": "keep", "play": "WV"}):
        with pytest.raises(ParseError):
            move_from_dict(bad)


def test_computer_players_handle_the_lap() -> None:
    """R-VL-LAP (engine, computer players): the heuristic player passes a hand when a smaller
    one is still to come and keeps otherwise; every player owes a legal move in a lap."""
    g = G({"Ann": "WV R1 R2 R3 R4", "Ben": "B1", "Cat": "G1 G2 G3 G4 G5 G6"})
    g.apply(Play("Ann", WV, Color.RED))
    bot = HeuristicPlayer(1)
    assert hands(g)["Ann"] == ["G1", "G2", "G3", "G4", "G5", "G6"]
    assert bot.choose(g, "Ann") == Lap("Ann", False)  # Ben's one card is still to come
    g.apply(Lap("Ann", False))
    assert bot.choose(g, "Ann") == Lap("Ann", True)
    for strategy in (HeuristicPlayer(2), RandomPlayer(2), BasicPlayer(2)):
        g = G({"Ann": "WV R1 R2 R3 R4", "Ben": "B1", "Cat": "G1 G2 G3 G4 G5 G6"})
        g.apply(Play("Ann", WV))
        move = strategy.choose(g, "Ann")
        assert move is not None and move in g.legal_moves("Ann")
        assert strategy.react(g, "Ben") is None


def test_heuristic_player_plays_the_victory_lap_from_a_big_hand() -> None:
    """R-VL-LAP (engine, computer players): holding many cards against a small hand, the
    heuristic player plays the Victory Lap even with another playable card."""
    g = G({"Ann": "WV R1 G2 G3 G4 Y5 Y6", "Ben": "B1", "Cat": "G1 G5"})
    move = HeuristicPlayer(3).choose(g, "Ann")
    assert isinstance(move, Play) and move.card == WV


# ---------------------------------------------------------------- properties

def lap_biased_move(game: Game, rng: random.Random) -> Move:
    """Any legal move of anyone, a Victory Lap play whenever one is offered (mostly)."""
    options: list[Move] = []
    for p in game.players:
        options += list(game.legal_moves(p))
    laps = [m for m in options if isinstance(m, Play) and m.card == WV]
    if laps and rng.random() < 0.8:
        return rng.choice(laps)
    return rng.choice(options)


def hand_multiset(game: Game) -> Counter[tuple[str, ...]]:
    return Counter(tuple(sorted(c.code for c in game.hand(p))) for p in game.players)


def check_lap_privacy(game: Game) -> None:
    """During a lap nobody but the card's player sees a card of a hand; otherwise each
    player sees exactly the hand they hold."""
    lap = game.lap
    for p in game.players:
        view = game.player_view(p)
        if lap is not None and p != lap["player"]:
            assert view["hand"] == [] and view["playable"] == []
            view.pop("top")
            assert card_codes_in(view) == []
        else:
            assert view["hand"] == [c.code for c in game.hand(p)]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), n=st.integers(2, 10),
       scoring=st.sampled_from(["standard", "alternative"]),
       data=st.randoms(use_true_random=False))
def test_random_victory_lap_games_keep_every_invariant(seed: int, n: int, scoring: str,
                                                      data: random.Random) -> None:
    """R-DECK-VL, R-VL-LAP, R-VL-VIEWS, R-ERRORS (sheet 004, Contents and Victory Lap Card):
    over random play that favours the Victory Lap, the 112 cards are conserved at every step,
    a lap only moves whole hands (the hands as multisets are unchanged from its start to its
    keep), no view shows a hand's cards to anyone but the card's player, and refused moves
    change nothing."""
    names = [f"p{i}" for i in range(n)]
    game = Game.new(names, edition="victory-lap", seed=seed,
                    settings=Settings(target=100, scoring=scoring))
    check_public(game.start())
    lap_hands: Counter[tuple[str, ...]] | None = None
    for _ in range(250):
        if game.is_over:
            break
        lap = game.lap
        if lap is not None:
            other = next(p for p in game.players if p != lap["player"])
            saved = game.to_dict()
            for bad in (Draw(other), CallUno(other), Lap(other, True), Draw(lap["player"])):
                assert bad not in game.legal_moves(bad.player)
                with pytest.raises(EngineError):
                    game.apply(bad)
                assert game.to_dict() == saved
        move = lap_biased_move(game, data)
        events = game.apply(move)
        check_public(events)
        check_invariants(game)
        check_lap_privacy(game)
        if isinstance(move, Lap):
            assert lap_hands is not None and hand_multiset(game) == lap_hands
        if game.pending is Decision.LAP:
            if lap_hands is None:
                lap_hands = hand_multiset(game)
        else:
            lap_hands = None


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 6), cut=st.integers(0, 200),
       data=st.randoms(use_true_random=False))
def test_save_and_restore_mid_lap_plays_on_identically(seed: int, n: int, cut: int,
                                                       data: random.Random) -> None:
    """R-VL-SAVE, R-SAVE (engine): play until a lap is under way (or the cut), save and restore: the
    saved form round-trips and both games give the same events for the same moves."""
    names = [f"p{i}" for i in range(n)]
    game = Game.new(names, edition="victory-lap", seed=seed, settings=Settings(target=100))
    game.start()
    for i in range(cut + 300):
        if game.is_over or (i >= cut and game.pending is Decision.LAP):
            break
        game.apply(lap_biased_move(game, data))
    saved = game.to_dict()
    restored = Game.from_dict(saved)
    assert restored.to_dict() == saved
    assert restored.player_view(restored.turn) == game.player_view(game.turn)
    for _ in range(60):
        if game.is_over:
            break
        move = lap_biased_move(game, data)
        assert D(game.apply(move)) == D(restored.apply(move))
    assert restored.to_dict() == game.to_dict()


@pytest.mark.slow
def test_many_victory_lap_games_end() -> None:
    """R-GAME-END with the Victory Lap (sheet 004, Winning the Game): simulated games of 2 to
    10 computer players always finish, cards conserved."""
    for i in range(120):
        n = 2 + i % 9
        game = Game.new([f"p{k}" for k in range(n)], edition="victory-lap", seed=i,
                        settings=Settings(target=100))
        game.start()
        bots: dict[str, Strategy] = {
            p: (HeuristicPlayer(i + k) if (i + k) % 2 else RandomPlayer(i + k))
            for k, p in enumerate(game.players)}
        run_game(game, bots)
        assert game.is_over and game.winners
        assert game.all_cards() == Counter(game.edition.deck)


def test_simulator_and_replay_take_the_edition() -> None:
    """R-REPLAY-FORMAT (engine): the simulator plays the edition and counts its laps; a
    replay file may name it, and a game logged move by move replays to the same state."""
    out = subprocess.run(
        [sys.executable, "-m", "engine.tools.simulate", "--games", "5", "--players", "5",
         "--edition", "victory-lap", "--target", "100", "--seed", "3"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert out.startswith("5 games of UNO Victory Lap, 5 players, seed 3")
    assert "laps" in out and "lap_passes" in out
    game = Game.new(list(P4), edition="victory-lap", seed=11, settings=Settings(target=100))
    header = replay_header(game, 11)
    game.start()
    logged: list[dict[str, Any]] = []
    bots: dict[str, Strategy] = {p: (HeuristicPlayer(k) if k % 2 else RandomPlayer(k))
            for k, p in enumerate(game.players)}
    run_game(game, bots, on_apply=lambda m: logged.append(move_to_json(m)))
    assert any("lap" in m for m in logged)
    replayed, _ = play_replay({**header, "moves": logged})
    assert replayed.to_dict() == game.to_dict()
