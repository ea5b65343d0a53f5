"""One test per rule of RULES.md, on exact positions built with Game.from_setup.

Each docstring names the rule id and where the rule comes from (sheet section or RULINGS).
Players are Ann, Ben and Cat; with the default setup the dealer is the last listed player,
so Ann plays first and Ben is next (R-REPLAY-SETUP).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine import (
    Accept,
    CallUno,
    Card,
    CardNotInHandError,
    Catch,
    Challenge,
    ChoiceError,
    ChooseColor,
    Color,
    Decision,
    Draw,
    EngineError,
    Event,
    Game,
    GameOverError,
    IllegalMoveError,
    Keep,
    NoMatchError,
    NotYourTurnError,
    Pass,
    Play,
    Settings,
    Tower,
    UnoCallError,
)

P3 = ("Ann", "Ben", "Cat")
P2 = ("Ann", "Ben")
U, N, O, BANG = Tower.U, Tower.N, Tower.O, Tower.BANG


def C(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


def c(code: str) -> Card:
    return Card.parse(code)


def setup(
    hands: Mapping[str, str],
    *,
    players: Sequence[str] = P3,
    draw: str | None = "R9 B9 G9 Y9 R8 B8 G8 Y8",
    discard: str | None = "R7",
    color: Color | None = None,
    towers: Mapping[Tower, str | None] | None = None,
    edition: str = "power-grab",
    settings: Settings | None = None,
    **kw: Any,
) -> tuple[Game, list[Event]]:
    return Game.from_setup(
        list(players),
        edition=edition,
        settings=settings,
        hands={p: C(h) for p, h in hands.items()},
        draw=C(draw) if draw is not None else None,
        discard=C(discard) if discard is not None else None,
        color=color,
        towers=towers,
        **kw,
    )


def G(hands: Mapping[str, str], **kw: Any) -> Game:
    return setup(hands, **kw)[0]


def D(events: Sequence[Event]) -> list[dict[str, Any]]:
    return [e.to_dict() for e in events]


def kinds(events: Sequence[Event]) -> list[str]:
    return [e.kind for e in events]


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


HANDS3 = {"Ann": "R1 B2 G3 Y4", "Ben": "B7 B6 G6", "Cat": "Y1 Y2 Y3"}


# ---------------------------------------------------------------- dealing

def _dealer_rounds(events: Sequence[Event]) -> list[dict[str, int]]:
    """The dealer draws, split into rounds of drawing."""
    rounds: list[dict[str, int]] = []
    for e in events:
        if e.kind == "dealer_draw":
            d = e.to_dict()
            card = c(d["card"])
            value = card.number if card.number is not None else 0
            if not rounds or d["player"] in rounds[-1]:
                rounds.append({})
            rounds[-1][d["player"]] = value
    return rounds


@pytest.mark.parametrize("seed", range(12))
def test_dealer_is_highest_draw(seed: int) -> None:
    """R-DEALER-DRAW: the highest number deals; action cards count as zero
    (sheet 000, Setup)."""
    g = Game.new(["a", "b", "c", "d"], seed=seed)
    events = g.start()
    rounds = _dealer_rounds(events)
    last = rounds[-1]
    best = max(last.values())
    assert [p for p, v in last.items() if v == best] == [g.dealer]
    dealer_events = [e for e in events if e.kind == "dealer"]
    assert [e.to_dict()["player"] for e in dealer_events] == [g.dealer]


def test_dealer_tie_is_redrawn_among_the_tied() -> None:
    """R-DEALER-DRAW: players tied for highest draw again among themselves
    (RULINGS, Deal and round)."""
    found = 0
    for seed in range(300):
        g = Game.new(["a", "b", "c", "d", "e", "f"], seed=seed)
        rounds = _dealer_rounds(g.start())
        if len(rounds) < 2:
            continue
        found += 1
        for prev, nxt in zip(rounds, rounds[1:], strict=False):
            best = max(prev.values())
            assert sorted(nxt) == sorted(p for p, v in prev.items() if v == best)
            assert len(nxt) >= 2
        assert g.dealer in rounds[-1]
        assert max(rounds[-1].values()) == rounds[-1][g.dealer]
    assert found >= 5  # the seeds above do contain ties


@pytest.mark.parametrize("n", [2, 4, 6])
def test_deal_seven_from_left_of_dealer(n: int) -> None:
    """R-DEAL, R-FIRST-PLAYER: seven cards each, dealt from the dealer's left; play starts
    left of the dealer unless the first card says otherwise (sheet 000, Setup, Let's Play)."""
    players = [f"p{i}" for i in range(n)]
    g = Game.new(players, seed=3)
    events = g.start()
    dealt = [e.to_dict() for e in events if e.kind == "dealt"]
    dealer = players.index(g.dealer)
    assert [d["player"] for d in dealt] == [players[(dealer + i) % n] for i in range(1, n + 1)]
    assert all(d["count"] == 7 and len(d["cards"]) == 7 for d in dealt)
    assert sum(g.hand_counts().values()) >= 7 * n
    assert sum(g.hand_counts().values()) + len(g.draw_pile) + len(g.discard_pile) == 112


def test_first_player_is_left_of_dealer() -> None:
    """R-FIRST-PLAYER: with a plain number first card, the dealer's left neighbour starts
    and play runs left (sheet 000, Let's Play)."""
    g, events = setup({"Ann": "R1", "Ben": "R2", "Cat": "R3"}, draw="B5 G1", discard=None,
                      dealer="Ann")
    assert g.turn == "Ben" and g.direction == 1 and g.top == c("B5")
    assert D(events) == [{"event": "opened", "card": "B5"},
                         {"event": "turn", "player": "Ben", "decision": "play"}]


def test_default_setup_dealer_is_last_listed() -> None:
    """R-REPLAY-SETUP: without a dealer the last listed player deals; the first plays."""
    g = G(HANDS3)
    assert g.dealer == "Cat" and g.turn == "Ann"


def test_seat_shuffle_setting() -> None:
    """R-SEATS: seats keep joining order unless shuffle_seats (RULINGS, Deal and round)."""
    names = [f"p{i}" for i in range(6)]
    g = Game.new(names, seed=1)
    g.start()
    assert g.players == names
    shuffled = [Game.new(names, seed=s, settings=Settings(shuffle_seats=True)) for s in range(5)]
    for s in shuffled:
        s.start()
    assert any(s.players != names for s in shuffled)
    assert all(sorted(s.players) == names for s in shuffled)


# ---------------------------------------------------------------- first card

def test_first_wild_draw_four_returned_and_reshuffled() -> None:
    """R-FIRST-W4: a Wild Draw Four turned up goes back, the pile is reshuffled and another
    card turned (sheet 000, Wild Draw 4)."""
    g, events = setup({"Ann": "R1", "Ben": "R2", "Cat": "R3"}, discard=None,
                      draw="W+4 B5 B6 B7 B8 G5 G6 G7")
    ds = D(events)
    assert ds[0] == {"event": "opened", "card": "W+4"}
    assert ds[1] == {"event": "returned", "card": "W+4"}
    assert ds[2]["event"] == "opened" and ds[2]["card"] != "W+4"
    assert g.top != c("W+4") and c("W+4") in g.draw_pile
    assert len(g.draw_pile) == 7


@pytest.mark.parametrize(("code", "n"), [("B+1", 1), ("B+2", 2)])
def test_first_draw_card_first_player_draws_and_is_skipped(code: str, n: int) -> None:
    """R-FIRST-DRAW: a Draw One / Draw Two turned up: the first player draws 1 / 2 and is
    skipped (sheet 000, Draw One and Draw Two)."""
    g, events = setup({"Ann": "R1", "Ben": "R2", "Cat": "R3"}, discard=None,
                      draw=f"{code} G1 G2 G3")
    assert D(events) == [
        {"event": "opened", "card": code},
        {"event": "drew", "player": "Ann", "count": n, "cards": ["G1", "G2"][:n],
         "reason": "card"},
        {"event": "skipped", "player": "Ann"},
        {"event": "turn", "player": "Ben", "decision": "play"},
    ]
    assert len(g.hand("Ann")) == 1 + n


def test_first_skip() -> None:
    """R-FIRST-SKIP: the first player is skipped (sheet 000, Skip)."""
    g, events = setup({"Ann": "R1", "Ben": "R2", "Cat": "R3"}, discard=None, draw="YS G1")
    assert kinds(events) == ["opened", "skipped", "turn"]
    assert events[1].to_dict()["player"] == "Ann" and g.turn == "Ben"


def test_first_reverse_dealer_starts_to_the_right() -> None:
    """R-FIRST-REVERSE: the dealer plays first and play runs right (sheet 000, Reverse)."""
    g, events = setup({"Ann": "R1", "Ben": "R2", "Cat": "G3 G4"}, discard=None, draw="GR G1")
    assert kinds(events) == ["opened", "reversed", "turn"]
    assert g.turn == "Cat" and g.direction == -1
    g.apply(Play("Cat", c("G3")))
    assert g.turn == "Ben"

def test_first_grab_two_colour_only_and_no_grab() -> None:
    """R-FIRST-GRAB2: nobody grabs; the first play must match by colour only, that play
    only (sheet 000, Grab-2-Towers; RULINGS, Deal and round)."""
    g, events = setup({"Ann": "RG B5 WG", "Ben": "YG B6", "Cat": "R3 B7"}, discard=None,
                      draw="BG G1 R2 G3")
    assert kinds(events) == ["opened", "turn"]
    assert all(h is None for h in g.towers.values())
    msg = refused(g, Play("Ann", c("RG"), towers=(U, N)), NoMatchError)
    assert msg == "RG does not match the blue Grab-2-Towers: the first play on it must be blue."
    assert Play("Ann", c("WG"), color=Color.BLUE, towers=(U,)) in g.legal_moves("Ann")
    g.apply(Play("Ann", c("B5")))
    assert g.turn == "Ben"
    # later in the round a Grab-2-Towers is matched by symbol again
    g2 = G({"Ann": "RG B5", "Ben": "YG B6", "Cat": "R3 B7"}, discard="BG")
    assert Play("Ann", c("RG"), towers=(U, N)) in g2.legal_moves("Ann")


def test_first_grab_two_drawn_card_must_match_colour() -> None:
    """R-FIRST-GRAB2: after drawing, the drawn card also must match by colour only."""
    g, _ = setup({"Ann": "B5", "Ben": "B6", "Cat": "B7"}, discard=None, draw="RG YG G1")
    events = g.apply(Draw("Ann"))
    assert kinds(events) == ["drew", "turn"]
    assert g.turn == "Ben" and g.hand("Ann") == (c("B5"), c("YG"))


@pytest.mark.parametrize(("edition", "code"), [("power-grab", "WG"), ("classic", "W")])
def test_first_wild_first_player_names_colour(edition: str, code: str) -> None:
    """R-FIRST-WILD: a Wild Grab-A-Tower (or Wild) turned up: no grab; the first player names
    the colour, then plays (sheet 000, Wild Grab-A-Tower; RULINGS, Deal and round)."""
    g, events = setup({"Ann": "R1 B2", "Ben": "R2", "Cat": "R3"}, discard=None,
                      draw=f"{code} G1", edition=edition)
    assert D(events)[-1] == {"event": "turn", "player": "Ann", "decision": "color"}
    assert g.pending is Decision.COLOR and g.color is None
    assert all(h is None for h in g.towers.values())
    refused(g, Play("Ann", c("R1")), IllegalMoveError)
    msg = refused(g, ChooseColor("Ben", Color.RED), NotYourTurnError)
    assert msg == "Ann must name the starting colour first."
    events = g.apply(ChooseColor("Ann", Color.BLUE))
    assert D(events) == [{"event": "color_chosen", "player": "Ann", "color": "blue"},
                         {"event": "turn", "player": "Ann", "decision": "play"}]
    refused(g, Play("Ann", c("R1")), NoMatchError)
    g.apply(Play("Ann", c("B2")))
    assert g.turn == "Ben"


def test_first_icon_card_grabs_nothing() -> None:
    """R-FIRST-ICON: a Power Icon card turned up: nobody grabs (RULINGS, Deal and round)."""
    g, events = setup({"Ann": "R1", "Ben": "R2", "Cat": "R3"}, discard=None, draw="G5U G1")
    assert kinds(events) == ["opened", "turn"]
    assert all(h is None for h in g.towers.values()) and g.turn == "Ann"
