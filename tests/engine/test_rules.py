"""One test per rule of RULES.md, on exact positions built with Game.from_setup.

Each docstring names the rule id and where the rule comes from (sheet section or RULINGS).
Players are Ann, Ben and Cat; with the default setup the dealer is the last listed player,
so Ann plays first and Ben is next (R-REPLAY-SETUP).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise
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
    ParseError,
    Pass,
    Play,
    Settings,
    Tower,
    UnoCallError,
)

P3 = ("Ann", "Ben", "Cat")
P2 = ("Ann", "Ben")
U, N, O, BANG = Tower.U, Tower.N, Tower.O, Tower.BANG  # noqa: E741


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
        for prev, nxt in pairwise(rounds):
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


# ---------------------------------------------------------------- matching

@pytest.mark.parametrize(
    ("top", "color", "card", "ok"),
    [
        ("R7", None, "R3", True),       # colour
        ("R7", None, "B7", True),       # number
        ("R7", None, "B7O", True),      # number, the icon does not matter
        ("R7", None, "Y5", False),
        ("R5U", None, "B1U", False),    # icons never match
        ("R5U", None, "B5", True),
        ("RS", None, "BS", True),       # symbol
        ("RS", None, "B+2", False),
        ("R+1", None, "G+1", True),
        ("R+2", None, "Y+2", True),
        ("RR", None, "GR", True),
        ("RG", None, "YG", True),
        ("R7", None, "WG", True),       # wilds go on anything
        ("R7", None, "W+4", True),
        ("WG", Color.BLUE, "B3", True),  # on a wild: the colour named
        ("WG", Color.BLUE, "R3", False),
        ("W+4", Color.GREEN, "GS", True),
        ("W+4", Color.GREEN, "RS", False),
        ("WG", Color.BLUE, "WG", True),
    ],
)
def test_matching(top: str, color: Color | None, card: str, ok: bool) -> None:
    """R-MATCH, R-MATCH-WILD, R-MATCH-ICON: colour, number or symbol; wilds anywhere; the
    named colour on a wild; Power Icons never match (sheet 000, Let's Play)."""
    g = G({"Ann": f"{card} Y9", "Ben": "B1", "Cat": "B2"}, discard=top, color=color)
    assert g.can_play_on_top(c(card)) is ok
    assert (c(card) in g.playable_cards("Ann")) is ok
    if not ok:
        refused(g, Play("Ann", c(card)), NoMatchError)


def test_mismatch_messages_read_well() -> None:
    """R-ERRORS: the mismatch message names the card and what is on top."""
    g = G({"Ann": "R5 Y9", "Ben": "B1", "Cat": "B2"}, discard="B7")
    assert refused(g, Play("Ann", c("R5"))) == "R5 does not match the blue 7."
    g = G({"Ann": "R5 Y9", "Ben": "B1", "Cat": "B2"}, discard="B7O")
    assert refused(g, Play("Ann", c("R5"))) == "R5 does not match the blue 7 (O)."
    g = G({"Ann": "R5 Y9", "Ben": "B1", "Cat": "B2"}, discard="WG", color=Color.GREEN)
    assert refused(g, Play("Ann", c("R5"))) == \
        "R5 does not match the Wild Grab-A-Tower (colour green)."


def test_wrong_turn_and_not_held_messages() -> None:
    """R-ERRORS, R-DECISION-TURN: out-of-turn moves name whose turn it is; a card not held
    is named (RULINGS, Deal and round)."""
    g = G(HANDS3)
    assert refused(g, Play("Ben", c("B7")), NotYourTurnError) == "It's Ann's turn."
    assert refused(g, Draw("Cat"), NotYourTurnError) == "It's Ann's turn."
    assert refused(g, Play("Ann", c("R9")), CardNotInHandError) == "You don't have R9."
    assert refused(g, Play("Zed", c("R9"))) == "Zed is not playing in this game."


# ---------------------------------------------------------------- drawing

def test_draw_playable_card_only_that_card() -> None:
    """R-DRAW, R-DRAW-PLAYABLE: a playable drawn card may be played at once, but no other
    card of the hand (sheet 000, Let's Play; RULINGS, Turn)."""
    g = G({"Ann": "R1 B2", "Ben": "B7", "Cat": "Y1"}, draw="R3 G5")
    events = g.apply(Draw("Ann"))
    assert D(events) == [
        {"event": "drew", "player": "Ann", "count": 1, "cards": ["R3"], "reason": "draw"},
        {"event": "turn", "player": "Ann", "decision": "drawn"},
    ]
    assert g.drawn_card == c("R3")
    assert "cards" not in events[0].public_dict()
    msg = refused(g, Play("Ann", c("R1")), IllegalMoveError)
    assert msg == "After drawing you can only play the card you drew (R3) or keep it."
    assert refused(g, Draw("Ann")) == "You already drew: play the drawn card or keep it."
    assert [m for m in g.legal_moves("Ann") if isinstance(m, Play)] == [Play("Ann", c("R3"))]
    events = g.apply(Play("Ann", c("R3")))
    assert kinds(events) == ["played", "turn"] and g.turn == "Ben"


def test_draw_playable_then_keep() -> None:
    """R-DRAW-PLAYABLE: keeping the drawn card (Pass) ends the turn (RULINGS, Turn)."""
    g = G({"Ann": "R1 B2", "Ben": "B7", "Cat": "Y1"}, draw="R3 G5")
    g.apply(Draw("Ann"))
    events = g.apply(Pass("Ann"))
    assert D(events) == [{"event": "passed", "player": "Ann"},
                         {"event": "turn", "player": "Ben", "decision": "play"}]
    assert g.hand("Ann") == (c("R1"), c("B2"), c("R3")) and g.drawn_card is None


def test_draw_unplayable_ends_turn() -> None:
    """R-DRAW-UNPLAYABLE: a drawn card that can't be played ends the turn at once
    (RULINGS, Turn)."""
    g = G({"Ann": "R1 B2", "Ben": "B7", "Cat": "Y1"}, draw="G5 R3")
    events = g.apply(Draw("Ann"))
    assert kinds(events) == ["drew", "turn"] and g.turn == "Ben"
    assert g.pending is Decision.PLAY


def test_draw_allowed_with_a_playable_card_and_pass_only_after_drawing() -> None:
    """R-DRAW, R-DRAW-ONCE: drawing instead of playing is allowed; Pass only right after
    drawing a playable card (sheet 000, Let's Play)."""
    g = G({"Ann": "R1 B2", "Ben": "B7", "Cat": "Y1"}, draw="G5 R3")
    assert Draw("Ann") in g.legal_moves("Ann")
    assert refused(g, Pass("Ann")) == "You can keep a card only right after drawing it."


# ---------------------------------------------------------------- action cards

def test_first_card_only_wild_draw_fours_left_is_a_setup_error() -> None:
    """R-FIRST-W4, R-REPLAY-SETUP: when the draw pile holds nothing but Wild Draw Fours no
    first card can ever be turned up: the setup is refused with a ParseError rather than
    returning and reshuffling for ever (sheet 000, Wild Draw 4; engine)."""
    import signal

    def too_long(*_: object) -> None:
        raise TimeoutError("the opening card loop did not end")

    old = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(20)
    try:
        with pytest.raises(ParseError) as info:
            setup({"Ann": "R1", "Ben": "B1", "Cat": "Y1"}, draw="W+4 W+4", discard=None)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert str(info.value) == ("The draw pile holds only Wild Draw Fours: no card can be "
                               "turned up to start.")
    # one other card is enough: it is turned up sooner or later
    g = G({"Ann": "R1", "Ben": "B1", "Cat": "Y1"}, draw="W+4 W+4 W+4 G5", discard=None)
    assert g.top == c("G5") and g.draw_pile.count(c("W+4")) == 3


@pytest.mark.parametrize(("code", "n"), [("R+1", 1), ("R+2", 2)])
def test_draw_cards(code: str, n: int) -> None:
    """R-DRAW-ONE, R-DRAW-TWO: the next player draws 1 / 2 and loses the turn
    (sheet 000, Draw One, Draw Two)."""
    g = G({"Ann": f"{code} B2", "Ben": "B7", "Cat": "Y1"}, draw="G1 G2 G3")
    events = g.apply(Play("Ann", c(code)))
    assert D(events) == [
        {"event": "played", "player": "Ann", "card": code, "color": "red"},
        {"event": "drew", "player": "Ben", "count": n, "cards": ["G1", "G2"][:n],
         "reason": "card"},
        {"event": "skipped", "player": "Ben"},
        {"event": "turn", "player": "Cat", "decision": "play"},
    ]


def test_skip() -> None:
    """R-SKIP: the next player loses the turn (sheet 000, Skip)."""
    g = G({"Ann": "RS B2", "Ben": "B7", "Cat": "Y1"})
    events = g.apply(Play("Ann", c("RS")))
    assert kinds(events) == ["played", "skipped", "turn"] and g.turn == "Cat"
    assert g.hand("Ben") == (c("B7"),)


def test_reverse() -> None:
    """R-REVERSE: the direction changes (sheet 000, Reverse)."""
    g = G({"Ann": "RR B2", "Ben": "B7", "Cat": "R1 R2"})
    events = g.apply(Play("Ann", c("RR")))
    assert D(events)[1] == {"event": "reversed", "direction": -1}
    assert g.turn == "Cat" and g.direction == -1
    g.apply(Play("Cat", c("R1")))
    assert g.turn == "Ben"


def test_grab_two_towers() -> None:
    """R-GRAB2: two different towers not held, from the tray or other players
    (sheet 000, Grab-2-Towers; RULINGS, Towers)."""
    g = G({"Ann": "RG B2 B3", "Ben": "B7", "Cat": "Y1"}, towers={U: "Ann", N: "Ben"})
    assert refused(g, Play("Ann", c("RG")), ChoiceError) == \
        "Choose 2 different towers to grab with the red Grab-2-Towers."
    refused(g, Play("Ann", c("RG"), towers=(N, N)), ChoiceError)
    refused(g, Play("Ann", c("RG"), towers=(N,)), ChoiceError)
    assert refused(g, Play("Ann", c("RG"), towers=(U, N)), ChoiceError) == \
        "You already hold the U tower: grab another one."
    options = {m.towers for m in g.legal_moves("Ann") if isinstance(m, Play) and not m.uno}
    assert options == {(N, O), (N, BANG), (O, BANG)}
    events = g.apply(Play("Ann", c("RG"), towers=(N, O)))
    assert D(events) == [
        {"event": "played", "player": "Ann", "card": "RG", "color": "red"},
        {"event": "tower", "player": "Ann", "tower": "N", "from": "Ben"},
        {"event": "tower", "player": "Ann", "tower": "O", "from": None},
        {"event": "turn", "player": "Ben", "decision": "play"},
    ]
    assert g.towers == {U: "Ann", N: "Ann", O: "Ann", BANG: None}


def test_grab_two_with_one_tower_left_takes_only_it() -> None:
    """R-GRAB2: with fewer than two towers not held, the player takes what there is
    (RULINGS, Towers)."""
    g = G({"Ann": "RG B2 B3", "Ben": "B7", "Cat": "Y1"}, towers={U: "Ann", N: "Ann", O: "Ann"})
    assert refused(g, Play("Ann", c("RG"), towers=(BANG, U)), ChoiceError) == \
        "Choose one tower to grab with the red Grab-2-Towers."
    events = g.apply(Play("Ann", c("RG"), towers=(BANG,)))
    assert kinds(events) == ["played", "tower", "turn"]  # all four: instant UNO (keep)
    assert g.pending is Decision.KEEP


def test_wild_grab_a_tower() -> None:
    """R-WILD-GRAB: a wild naming a colour and grabbing one tower not held
    (sheet 000, Wild Grab-A-Tower)."""
    g = G({"Ann": "WG B2 B3", "Ben": "B7", "Cat": "Y1"}, towers={BANG: "Cat", U: "Ann"})
    assert refused(g, Play("Ann", c("WG"), towers=(BANG,)), ChoiceError) == \
        "Choose a colour for the Wild Grab-A-Tower."
    assert refused(g, Play("Ann", c("WG"), color=Color.BLUE), ChoiceError) == \
        "Choose one tower to grab with the Wild Grab-A-Tower."
    refused(g, Play("Ann", c("WG"), color=Color.BLUE, towers=(U,)), ChoiceError)
    events = g.apply(Play("Ann", c("WG"), color=Color.YELLOW, towers=(BANG,)))
    assert D(events)[:2] == [
        {"event": "played", "player": "Ann", "card": "WG", "color": "yellow"},
        {"event": "tower", "player": "Ann", "tower": "!", "from": "Cat"},
    ]
    assert g.color is Color.YELLOW and g.towers[BANG] == "Ann"


def test_non_wild_play_ignores_colour_and_non_grab_ignores_towers() -> None:
    """R-MATCH: choices a card does not take are dropped (engine)."""
    g = G({"Ann": "R3 B2", "Ben": "B7", "Cat": "Y1"})
    events = g.apply(Play("Ann", c("R3"), color=Color.BLUE, towers=(U,)))
    assert D(events)[0]["color"] == "red" and g.color is Color.RED
    assert g.towers[U] is None


@pytest.mark.parametrize(("holder", "frm"), [("Cat", "Cat"), (None, None), ("Ann", None)])
def test_icon_grab(holder: str | None, frm: str | None) -> None:
    """R-ICON-GRAB: an icon card grabs its tower from its holder or the tray, whatever the
    card's colour (sheet 000, Power Icons & Power Towers)."""
    g = G({"Ann": "R5U B2", "Ben": "B7", "Cat": "Y1"}, towers={U: holder})
    events = g.apply(Play("Ann", c("R5U")))
    if holder == "Ann":
        assert kinds(events) == ["played", "turn"]
    else:
        assert D(events)[1] == {"event": "tower", "player": "Ann", "tower": "U", "from": frm}
    assert g.towers[U] == "Ann"


# ---------------------------------------------------------------- blocks

@pytest.mark.parametrize(("code", "tower"), [("R+1", U), ("R+2", N), ("RS", BANG)])
def test_block_and_matching_after(code: str, tower: Tower) -> None:
    """R-TOWERS, R-BLOCK, R-BLOCK-MATCH: the next player holding the tower neither draws nor
    loses the turn; the card is then matched by colour or symbol (sheet 000, Power Icons &
    Power Towers; RULINGS, Towers)."""
    sym = code[1:]
    g = G({"Ann": f"{code} B2", "Ben": f"G{sym} Y3 R4", "Cat": "Y1"}, towers={tower: "Ben"})
    events = g.apply(Play("Ann", c(code)))
    assert D(events) == [
        {"event": "played", "player": "Ann", "card": code, "color": "red"},
        {"event": "blocked", "player": "Ben", "card": code, "tower": tower.value},
        {"event": "turn", "player": "Ben", "decision": "play"},
    ]
    assert len(g.hand("Ben")) == 3 and g.towers[tower] == "Ben"
    assert g.playable_cards("Ben") == [c(f"G{sym}"), c("R4")]


@pytest.mark.parametrize(("code", "tower"), [("R+1", N), ("R+2", U), ("RS", O), ("R+1", BANG)])
def test_wrong_tower_does_not_block(code: str, tower: Tower) -> None:
    """R-TOWERS: each tower blocks only its own card (sheet 000, Power Icons & Power
    Towers)."""
    g = G({"Ann": f"{code} B2", "Ben": "B7", "Cat": "Y1"}, towers={tower: "Ben"})
    events = g.apply(Play("Ann", c(code)))
    assert "blocked" not in kinds(events) and "skipped" in kinds(events)


def test_tower_of_someone_else_does_not_block() -> None:
    """R-BLOCK: only the next player's tower blocks (RULINGS, Towers)."""
    g = G({"Ann": "R+2 B2", "Ben": "B7", "Cat": "Y1"}, towers={N: "Cat"})
    events = g.apply(Play("Ann", c("R+2")))
    assert "blocked" not in kinds(events) and len(g.hand("Ben")) == 3


def test_reverse_and_grab_two_unblockable() -> None:
    """R-UNBLOCKABLE: Reverse and Grab-2-Towers can't be blocked, even a Reverse acting as
    Skip between two players (RULINGS, Power Grab deck)."""
    towers = {U: "Ben", N: "Ben", O: "Ben"}
    g = G({"Ann": "RR B2", "Ben": "B7"}, players=P2, towers=towers)
    events = g.apply(Play("Ann", c("RR")))
    assert "blocked" not in kinds(events) and g.turn == "Ann"
    g = G({"Ann": "RR B2", "Ben": "B7"}, players=P2, towers={BANG: "Ben"})
    events = g.apply(Play("Ann", c("RR")))
    assert "blocked" not in kinds(events) and g.turn == "Ann"
    g = G({"Ann": "RG B2 B3", "Ben": "B7", "Cat": "Y1"}, towers={BANG: "Ben"})
    events = g.apply(Play("Ann", c("RG"), towers=(U, N)))
    assert "blocked" not in kinds(events) and g.turn == "Ben"


def test_classic_edition_has_no_towers() -> None:
    """R-DECK-CLASSIC: no grabs or blocks in the classic edition (RULINGS, Classic)."""
    g = G({"Ann": "R+2 R5", "Ben": "B7", "Cat": "Y1"}, edition="classic", draw="R1 R2 R3")
    events = g.apply(Play("Ann", c("R+2")))
    assert "tower" not in kinds(events) and len(g.hand("Ben")) == 3


# ---------------------------------------------------------------- Wild Draw Four

def test_wd4_bluff_challenged_guilty() -> None:
    """R-WD4-ANYTIME, R-WD4-CHALLENGE: a bluff is allowed; guilty: the player draws 4, the
    challenger draws nothing and plays; only the challenger sees the hand
    (sheet 000, Wild Draw 4; RULINGS, Turn)."""
    g = G({"Ann": "W+4 R1 B2", "Ben": "B7 G3", "Cat": "Y1"}, draw="G1 G2 G4 G5 Y5 Y6")
    assert Play("Ann", c("W+4"), color=Color.BLUE) in g.legal_moves("Ann")
    assert not g.wild_draw_four_is_legal("Ann")
    events = g.apply(Play("Ann", c("W+4"), color=Color.BLUE))
    assert D(events)[-1] == {"event": "turn", "player": "Ben", "decision": "challenge"}
    assert g.pending is Decision.CHALLENGE and g.challenge_color is Color.RED
    assert refused(g, Play("Ben", c("B7")), IllegalMoveError) == \
        "Accept or challenge the Wild Draw Four first."
    assert refused(g, Draw("Cat"), NotYourTurnError) == \
        "Ben must accept or challenge the Wild Draw Four first."
    events = g.apply(Challenge("Ben"))
    ch = events[0]
    assert ch.to_dict() == {"event": "challenge", "by": "Ben", "against": "Ann", "guilty": True,
                            "hand": ["R1", "B2"]}
    assert "hand" not in ch.public_dict() and ch.owner == "Ben"
    assert "hand" in ch.visible_to("Ben") and "hand" not in ch.visible_to("Cat")
    assert "hand" not in ch.visible_to("Ann")
    assert D(events)[1:] == [
        {"event": "drew", "player": "Ann", "count": 4, "cards": ["G1", "G2", "G4", "G5"],
         "reason": "challenge"},
        {"event": "turn", "player": "Ben", "decision": "play"},
    ]
    assert len(g.hand("Ben")) == 2 and g.color is Color.BLUE
    g.apply(Play("Ben", c("B7")))
    assert g.turn == "Cat"


def test_wd4_challenged_innocent() -> None:
    """R-WD4-ANYTIME, R-WD4-CHALLENGE: legal when no card of the colour in play is held
    (same number or symbol does not matter); innocent: the challenger draws 6 and loses the
    turn (sheet 000, Wild Draw 4)."""
    g = G({"Ann": "W+4 B7 GS", "Ben": "B1", "Cat": "Y1"}, discard="R7",
          draw="G1 G2 G4 G5 Y5 Y6 Y7")
    assert g.wild_draw_four_is_legal("Ann")
    g.apply(Play("Ann", c("W+4"), color=Color.GREEN))
    events = g.apply(Challenge("Ben"))
    assert D(events)[0]["guilty"] is False
    assert D(events)[1:] == [
        {"event": "drew", "player": "Ben", "count": 6,
         "cards": ["G1", "G2", "G4", "G5", "Y5", "Y6"], "reason": "challenge"},
        {"event": "skipped", "player": "Ben"},
        {"event": "turn", "player": "Cat", "decision": "play"},
    ]


def test_wd4_challenger_sees_the_hand_as_it_was_when_played() -> None:
    """R-WD4-CHALLENGE, R-VIEWS: the challenger is shown the hand the Wild Draw Four was
    played from: not the 4 penalty cards, nor cards drawn since (a catch in the UNO window),
    also across a save and restore (sheet 000, Wild Draw 4; RULINGS, Turn)."""
    g = G({"Ann": "W+4 R1", "Ben": "B7 G3", "Cat": "Y1"}, draw="G1 G2 G4 G5 Y5 Y6")
    g.apply(Play("Ann", c("W+4"), color=Color.BLUE))
    g.apply(Catch("Cat", "Ann"))
    assert g.hand("Ann") == tuple(C("R1 G1 G2"))
    g = Game.from_dict(g.to_dict())
    events = g.apply(Challenge("Ben"))
    assert D(events)[0] == {"event": "challenge", "by": "Ben", "against": "Ann",
                            "guilty": True, "hand": ["R1"]}
    assert D(events)[1]["cards"] == ["G4", "G5", "Y5", "Y6"]
    assert len(g.hand("Ann")) == 7


def test_wd4_legality_on_a_wild_uses_named_colour() -> None:
    """R-WD4-ANYTIME: on a wild, the colour it named is the colour in play (RULINGS, Turn)."""
    g = G({"Ann": "W+4 R1 B2", "Ben": "B1", "Cat": "Y1"}, discard="WG", color=Color.GREEN)
    assert g.wild_draw_four_is_legal("Ann")
    g.apply(Play("Ann", c("W+4"), color=Color.RED))
    g.apply(Challenge("Ben"))
    assert len(g.hand("Ben")) == 7 and g.turn == "Cat"


def test_wd4_accept() -> None:
    """R-WD4-ACCEPT: accepting: draw 4 and lose the turn (sheet 000, Wild Draw 4)."""
    g = G({"Ann": "W+4 R1 B2", "Ben": "B1", "Cat": "Y1"}, draw="G1 G2 G4 G5 Y5")
    g.apply(Play("Ann", c("W+4"), color=Color.YELLOW))
    events = g.apply(Accept("Ben"))
    assert D(events) == [
        {"event": "accepted", "player": "Ben"},
        {"event": "drew", "player": "Ben", "count": 4, "cards": ["G1", "G2", "G4", "G5"],
         "reason": "card"},
        {"event": "skipped", "player": "Ben"},
        {"event": "turn", "player": "Cat", "decision": "play"},
    ]
    assert g.color is Color.YELLOW


def test_wd4_no_answer_accepts() -> None:
    """R-WD4-TIMEOUT, R-TIMEOUT: no answer in time counts as accepting (RULINGS, Turn)."""
    g = G({"Ann": "W+4 R1 B2", "Ben": "B1", "Cat": "Y1"})
    g.apply(Play("Ann", c("W+4"), color=Color.YELLOW))
    assert g.timeout_moves() == [Accept("Ben")]
    events = g.apply_timeout()
    assert kinds(events) == ["accepted", "drew", "skipped", "turn"]
    assert len(g.hand("Ben")) == 5


def test_wd4_blocked_cannot_be_challenged() -> None:
    """R-WD4-BLOCKED: blocked by O, there is nothing to challenge; the next player plays
    (RULINGS, Towers)."""
    g = G({"Ann": "W+4 R1 B2", "Ben": "B1 G2", "Cat": "Y1"}, towers={O: "Ben"})
    events = g.apply(Play("Ann", c("W+4"), color=Color.GREEN))
    assert D(events)[1:] == [
        {"event": "blocked", "player": "Ben", "card": "W+4", "tower": "O"},
        {"event": "turn", "player": "Ben", "decision": "play"},
    ]
    assert refused(g, Challenge("Ben")) == "There is no Wild Draw Four to accept or challenge."
    refused(g, Accept("Ben"))
    assert g.playable_cards("Ben") == [c("G2")]


def test_wd4_as_last_card() -> None:
    """R-WD4-LAST, R-LAST-DRAW: a Wild Draw Four as last card: the next player draws 4, no
    challenge, the round ends and the four count (RULINGS, Turn; sheet 000, Going Out)."""
    g = G({"Ann": "W+4", "Ben": "B1", "Cat": "Y2"}, draw="G1 G2 G4 G5 Y5")
    events = g.apply(Play("Ann", c("W+4"), color=Color.RED))
    assert kinds(events)[:3] == ["played", "drew", "round_won"]
    won = events[2].to_dict()
    assert won["player"] == "Ann" and won["points"] == 1 + 1 + 2 + 4 + 5 + 2
    assert "challenge" not in kinds(events)


# ---------------------------------------------------------------- instant UNO

def _three_towers(**kw: Any) -> Game:
    return G({"Ann": "R4! R1 B2 G3", "Ben": "B7 B8", "Cat": "Y1 Y2"},
             towers={U: "Ann", N: "Ben", O: "Ann"} | kw.pop("towers", {}), **kw)


def test_instant_uno_keep() -> None:
    """R-INSTANT-UNO: holding all four towers, the player keeps one card; the others go under
    the top of the discard pile; the towers return to the tray (sheet 000, Power Icons &
    Power Towers; RULINGS, Towers)."""
    g = _three_towers(towers={N: "Ann"})
    events = g.apply(Play("Ann", c("R4!")))
    assert D(events) == [
        {"event": "played", "player": "Ann", "card": "R4!", "color": "red"},
        {"event": "tower", "player": "Ann", "tower": "!", "from": None},
        {"event": "turn", "player": "Ann", "decision": "keep"},
    ]
    assert refused(g, Keep("Ann", c("Y1")), CardNotInHandError) == "You don't have Y1."
    assert refused(g, Play("Ben", c("B7"))) == "Ann must choose the card to keep first."
    events = g.apply(Keep("Ann", c("B2")))
    assert D(events) == [
        {"event": "instant_uno", "player": "Ann", "kept": "B2", "discarded": 2},
        {"event": "towers_returned"},
        {"event": "turn", "player": "Ben", "decision": "play"},
    ]
    assert "kept" not in events[0].public_dict()
    assert g.hand("Ann") == (c("B2"),)
    assert g.discard_pile == C("R7 R1 G3 R4!") and g.top == c("R4!")
    assert all(h is None for h in g.towers.values())
    assert g.color is Color.RED


def test_instant_uno_grabbing_from_another_player() -> None:
    """R-INSTANT-UNO: the fourth tower may come from another player (sheet 000, Power Icons
    & Power Towers)."""
    g = _three_towers(towers={N: "Ann", BANG: "Cat"})
    events = g.apply(Play("Ann", c("R4!")))
    assert D(events)[1]["from"] == "Cat" and g.pending is Decision.KEEP


def test_instant_uno_call_rule_after_keep() -> None:
    """R-INSTANT-UNO-CALL, R-UNO-WINDOW: after the keep without a call the player can be
    caught until the next player's first move (RULINGS, Towers)."""
    g = _three_towers(towers={N: "Ann"})
    g.apply(Play("Ann", c("R4!")))
    g.apply(Keep("Ann", c("B2")))
    assert g.catchable == "Ann"
    assert Catch("Cat", "Ann") in g.legal_moves("Cat")
    events = g.apply(Catch("Cat", "Ann"))
    assert kinds(events) == ["caught", "drew"] and len(g.hand("Ann")) == 3
    # the window closes at the next player's first move
    g = _three_towers(towers={N: "Ann"})
    g.apply(Play("Ann", c("R4!")))
    g.apply(Keep("Ann", c("B2")))
    g.apply(Draw("Ben"))
    msg = refused(g, Catch("Cat", "Ann"), UnoCallError)
    assert msg == "Too late: Ann can't be caught any more."


def test_instant_uno_keep_with_call() -> None:
    """R-INSTANT-UNO-CALL: calling with the keep protects the player (RULINGS, Towers)."""
    g = _three_towers(towers={N: "Ann"})
    g.apply(Play("Ann", c("R4!")))
    events = g.apply(Keep("Ann", c("B2"), uno=True))
    assert "uno" in kinds(events) and g.catchable is None and g.has_called("Ann")
    refused(g, Catch("Cat", "Ann"), UnoCallError)


def test_instant_uno_call_with_the_play_does_not_count() -> None:
    """R-INSTANT-UNO-CALL, R-UNO-CALL: a call with a play that leaves several cards is
    ignored; after the keep the player must call (RULINGS, Towers; UNO call and catch)."""
    g = _three_towers(towers={N: "Ann"})
    events = g.apply(Play("Ann", c("R4!"), uno=True))
    assert "uno" not in kinds(events)
    g.apply(Keep("Ann", c("B2")))
    assert g.catchable == "Ann"
    g.apply(CallUno("Ann"))
    assert g.catchable is None


def test_instant_uno_with_one_card_left() -> None:
    """R-INSTANT-UNO: a play leaving one card: nothing to choose, it is kept at once; the
    call made with the play counts (RULINGS, Towers)."""
    g = G({"Ann": "R4! B2", "Ben": "B7", "Cat": "Y1"}, towers={U: "Ann", N: "Ann", O: "Ann"})
    events = g.apply(Play("Ann", c("R4!"), uno=True))
    assert kinds(events) == ["played", "uno", "tower", "instant_uno", "towers_returned", "turn"]
    assert D(events)[3] == {"event": "instant_uno", "player": "Ann", "kept": "B2",
                            "discarded": 0}
    assert g.turn == "Ben" and all(h is None for h in g.towers.values())


def test_instant_uno_on_last_card_is_going_out() -> None:
    """R-INSTANT-UNO-OUT: the fourth tower grabbed with the last card: the player has gone
    out (RULINGS, Towers)."""
    g = G({"Ann": "R4!", "Ben": "B7", "Cat": "Y1"}, towers={U: "Ann", N: "Ann", O: "Ann"})
    events = g.apply(Play("Ann", c("R4!")))
    assert "round_won" in kinds(events) and "instant_uno" not in kinds(events)
    assert g.scores["Ann"] == 8


def test_keep_timeout_keeps_highest_card() -> None:
    """R-TIMEOUT: an instant UNO that times out keeps the highest-scoring card (engine)."""
    g = _three_towers(towers={N: "Ann"})
    g.apply(Play("Ann", c("R4!")))
    assert g.timeout_moves() == [Keep("Ann", c("G3"))]


# ---------------------------------------------------------------- UNO call and catch

def test_call_with_two_cards_on_turn() -> None:
    """R-UNO-CALL: with two cards on your turn you may call, then play (RULINGS, UNO call
    and catch)."""
    g = G({"Ann": "R1 B2", "Ben": "B7 B8", "Cat": "Y1 Y2"})
    assert refused(g, CallUno("Ben"), UnoCallError) == \
        "You can call UNO on your turn with two cards, or when you hold one card."
    assert kinds(g.apply(CallUno("Ann"))) == ["uno"]
    assert refused(g, CallUno("Ann"), UnoCallError) == "You already called UNO."
    events = g.apply(Play("Ann", c("R1")))
    assert "uno" not in kinds(events) and g.catchable is None and g.has_called("Ann")


def test_call_with_the_play() -> None:
    """R-UNO-CALL: a call made with the play leaving one card counts (RULINGS, UNO call and
    catch)."""
    g = G({"Ann": "R1 B2", "Ben": "B7 B8", "Cat": "Y1 Y2"})
    events = g.apply(Play("Ann", c("R1"), uno=True))
    assert D(events)[1] == {"event": "uno", "player": "Ann"}
    assert g.catchable is None
    refused(g, Catch("Cat", "Ann"), UnoCallError)


def test_call_ignored_when_more_than_one_card_left() -> None:
    """R-UNO-CALL: a call with a play leaving more than one card is ignored (RULINGS, UNO
    call and catch)."""
    g = G({"Ann": "R1 B2 B3", "Ben": "B7 B8", "Cat": "Y1 Y2"})
    events = g.apply(Play("Ann", c("R1"), uno=True))
    assert kinds(events) == ["played", "turn"] and not g.has_called("Ann")


def test_call_with_one_card_out_of_turn() -> None:
    """R-UNO-CALL: holding one card, a player may call at any time (RULINGS, UNO call and
    catch)."""
    g = G({"Ann": "R1 B2", "Ben": "B7", "Cat": "Y1 Y2"})
    assert CallUno("Ben") in g.legal_moves("Ben")
    g.apply(CallUno("Ben"))
    assert g.has_called("Ben")


def test_catch_penalty_and_window() -> None:
    """R-UNO-CATCH, R-UNO-WINDOW: an uncalled last-but-one play can be caught by anyone else
    (2 cards) until the next player's first move (sheet 000, Going Out; RULINGS, UNO call
    and catch)."""
    g = G({"Ann": "R1 B2", "Ben": "B7 B8", "Cat": "Y1 Y2"}, draw="G1 G2 G3")
    g.apply(Play("Ann", c("R1")))
    assert g.catchable == "Ann"
    assert refused(g, Catch("Ann", "Ann"), UnoCallError) == \
        "You can't catch yourself: call UNO instead."
    assert refused(g, Catch("Cat", "Ben"), UnoCallError) == "Ben doesn't hold exactly one card."
    events = g.apply(Catch("Cat", "Ann"))
    assert D(events) == [
        {"event": "caught", "player": "Ann", "by": "Cat"},
        {"event": "drew", "player": "Ann", "count": 2, "cards": ["G1", "G2"], "reason": "catch"},
    ]
    assert g.catchable is None and g.turn == "Ben"
    refused(g, Catch("Ben", "Ann"), UnoCallError)


def test_catch_window_closes_at_next_players_move() -> None:
    """R-UNO-WINDOW: the next player's first move closes the window (RULINGS, UNO call and
    catch)."""
    g = G({"Ann": "R1 B2", "Ben": "B7 B8", "Cat": "Y1 Y2"})
    g.apply(Play("Ann", c("R1")))
    g.apply(Draw("Ben"))
    assert g.catchable is None
    msg = refused(g, Catch("Cat", "Ann"), UnoCallError)
    assert msg == "Too late: Ann can't be caught any more."


def test_call_after_the_play_before_a_catch() -> None:
    """R-UNO-CALL, R-UNO-WINDOW: calling late, before anyone catches, is safe (RULINGS, UNO
    call and catch)."""
    g = G({"Ann": "R1 B2", "Ben": "B7 B8", "Cat": "Y1 Y2"})
    g.apply(Play("Ann", c("R1")))
    g.apply(CallUno("Ann"))
    assert refused(g, Catch("Cat", "Ann"), UnoCallError) == "Ann already called UNO."


def test_forced_draw_does_not_close_the_window() -> None:
    """R-UNO-WINDOW: when the next player is made to draw and skip, the window stays open
    until the player after them moves (RULINGS, UNO call and catch)."""
    g = G({"Ann": "R+2 B2", "Ben": "B7 B8", "Cat": "Y1 Y2 R3"})
    g.apply(Play("Ann", c("R+2")))
    assert g.turn == "Cat" and g.catchable == "Ann"
    g.apply(Catch("Ben", "Ann"))
    assert len(g.hand("Ann")) == 3
    g = G({"Ann": "R+2 B2", "Ben": "B7 B8", "Cat": "Y1 Y2 R3"})
    g.apply(Play("Ann", c("R+2")))
    g.apply(Play("Cat", c("R3")))
    refused(g, Catch("Ben", "Ann"), UnoCallError)


def test_accepting_wd4_closes_the_window() -> None:
    """R-UNO-WINDOW: accept or challenge is the next player's first move (RULINGS, UNO call
    and catch)."""
    g = G({"Ann": "W+4 B2", "Ben": "B7 B8", "Cat": "Y1 Y2 R3"})
    g.apply(Play("Ann", c("W+4"), color=Color.RED))
    assert g.catchable == "Ann"
    g.apply(Accept("Ben"))
    assert g.catchable is None


def test_drawing_loses_the_call() -> None:
    """R-UNO-CALL: a called player who draws no longer has one card, and loses the call."""
    g = G({"Ann": "R1 B2", "Ben": "B7", "Cat": "Y1 Y2"}, draw="G1 G2")
    g.apply(CallUno("Ben"))
    g.apply(Play("Ann", c("R1"), uno=True))
    g.apply(Draw("Ben"))
    assert not g.has_called("Ben")


def test_call_before_the_keep_covers_it() -> None:
    """R-UNO-CALL, R-INSTANT-UNO-CALL: an instant UNO leaving two cards is the player's turn
    and they hold two cards, so they may call before choosing; the call covers the keep
    (RULINGS, UNO call and catch; Deal and round: a pending decision is the turn)."""
    g = G({"Ann": "R4! R1 B2", "Ben": "B7 B8", "Cat": "Y1 Y2"},
          towers={U: "Ann", N: "Ann", O: "Ann"})
    g.apply(Play("Ann", c("R4!")))
    assert g.pending is Decision.KEEP and len(g.hand("Ann")) == 2
    assert CallUno("Ann") in g.legal_moves("Ann")
    assert kinds(g.apply(CallUno("Ann"))) == ["uno"]
    events = g.apply(Keep("Ann", c("B2")))
    assert "uno" not in kinds(events)
    assert g.has_called("Ann") and g.catchable is None
    assert refused(g, Catch("Cat", "Ann"), UnoCallError) == "Ann already called UNO."
    # with more than two cards to choose from, a call before the keep is refused
    g = _three_towers(towers={N: "Ann"})
    g.apply(Play("Ann", c("R4!")))
    refused(g, CallUno("Ann"), UnoCallError)


def test_call_before_the_challenge_covers_the_turn() -> None:
    """R-UNO-CALL, R-WD4-CHALLENGE: the victim of a Wild Draw Four holding two cards owns the
    decision, so may call; a guilty challenge leaves the turn to them and the call covers the
    play down to one card (RULINGS, UNO call and catch; Deal and round)."""
    g = G({"Ann": "W+4 R1 B2", "Ben": "B7 G3", "Cat": "Y1"}, draw="G1 G2 G4 G5 Y5 Y6")
    g.apply(Play("Ann", c("W+4"), color=Color.BLUE))
    assert CallUno("Ben") in g.legal_moves("Ben")
    g.apply(CallUno("Ben"))
    g.apply(Challenge("Ben"))
    assert g.turn == "Ben" and g.has_called("Ben")
    events = g.apply(Play("Ben", c("B7")))
    assert "uno" not in kinds(events) and g.catchable is None
    refused(g, Catch("Cat", "Ben"), UnoCallError)


def test_call_then_accept_or_lose_the_challenge_lapses() -> None:
    """R-UNO-CALL: a victim who called and then accepts (4 cards) or loses the challenge
    (6 cards) no longer holds one or two cards: the call is gone (RULINGS, UNO call and
    catch)."""
    for answer, held in ((Accept, 6), (Challenge, 8)):
        g = G({"Ann": "W+4 B2", "Ben": "B7 G3", "Cat": "Y1"},
              draw="G1 G2 G4 G5 Y5 Y6 Y7")
        g.apply(Play("Ann", c("W+4"), color=Color.GREEN, uno=True))
        g.apply(CallUno("Ben"))
        g.apply(answer("Ben"))
        assert len(g.hand("Ben")) == held and not g.has_called("Ben")
        assert not g.public_view()["players"][1]["uno"]


def test_call_lapses_when_the_drawn_card_is_kept() -> None:
    """R-UNO-CALL: a call covers the turn it is made in; called after drawing a playable
    card, then keeping it, the player ends the turn with two cards and must call again when
    they next play down to one (RULINGS, UNO call and catch)."""
    g = G({"Ann": "B2", "Ben": "B7 B8", "Cat": "Y1 Y2"}, draw="R9 R8 G1 G2")
    g.apply(Draw("Ann"))
    assert g.pending is Decision.DRAWN and len(g.hand("Ann")) == 2
    g.apply(CallUno("Ann"))
    assert g.has_called("Ann")
    g.apply(Pass("Ann"))
    assert not g.has_called("Ann")
    assert not g.public_view()["players"][0]["uno"]
    g.apply(Draw("Ben"))  # R8 matches the R7 still on top: Ben keeps it
    g.apply(Pass("Ben"))
    g.apply(Draw("Cat"))  # G1 does not match: the turn ends
    assert g.turn == "Ann"
    g.apply(Play("Ann", c("R9")))
    assert g.catchable == "Ann"


def test_call_lapses_when_there_is_nothing_to_draw() -> None:
    """R-UNO-CALL, R-NOTHING-TO-DRAW: called with two cards, then drawing nothing, the turn
    ends with two cards held: the call lapses (RULINGS, UNO call and catch)."""
    g = G({"Ann": "B2 B3", "Ben": "B7", "Cat": "Y1"}, draw="", discard="R7")
    g.apply(CallUno("Ann"))
    g.apply(Draw("Ann"))
    assert g.turn == "Ben" and not g.has_called("Ann")


def test_call_ignored_with_a_play_leaving_two_cards_does_not_cover_later() -> None:
    """R-UNO-CALL: a call with a play leaving more than one card is ignored, so the next play
    down to one card still needs its own call (RULINGS, UNO call and catch)."""
    g = G({"Ann": "R1 R2 B2", "Ben": "R3 R4", "Cat": "R5 R6"}, draw="G1 G2 G3")
    g.apply(Play("Ann", c("R1"), uno=True))
    assert not g.has_called("Ann")
    g.apply(Play("Ben", c("R3")))
    g.apply(Play("Cat", c("R5")))
    events = g.apply(Play("Ann", c("R2")))
    assert "uno" not in kinds(events) and g.catchable == "Ann"


# ---------------------------------------------------------------- two players

def test_two_players_reverse_is_skip() -> None:
    """R-TWO-REVERSE: with two players a Reverse acts as a Skip (RULINGS, Turn)."""
    g = G({"Ann": "RR B2", "Ben": "B7"}, players=P2)
    events = g.apply(Play("Ann", c("RR")))
    assert D(events)[1:] == [
        {"event": "reversed", "direction": -1},
        {"event": "skipped", "player": "Ben"},
        {"event": "turn", "player": "Ann", "decision": "play"},
    ]


def test_two_players_reverse_is_not_blocked_by_the_bang_tower() -> None:
    """R-TWO-REVERSE: the ! tower blocks Skip, but a two-player Reverse stays a Reverse,
    which no tower blocks (RULINGS, Towers; engine)."""
    g = G({"Ann": "RR B2", "Ben": "B7"}, players=P2, towers={Tower.BANG: "Ben"})
    events = g.apply(Play("Ann", c("RR")))
    assert "blocked" not in kinds(events)
    assert g.turn == "Ann"


@pytest.mark.parametrize("code", ["RS", "R+1", "R+2"])
def test_two_players_go_again(code: str) -> None:
    """R-TWO-AGAIN: after Skip, Draw One, Draw Two the player goes again (RULINGS, Turn)."""
    g = G({"Ann": f"{code} B2", "Ben": "B7"}, players=P2)
    g.apply(Play("Ann", c(code)))
    assert g.turn == "Ann"


def test_two_players_go_again_after_wd4() -> None:
    """R-TWO-AGAIN: after an accepted Wild Draw Four the player goes again (RULINGS, Turn)."""
    g = G({"Ann": "W+4 B2", "Ben": "B7"}, players=P2)
    g.apply(Play("Ann", c("W+4"), color=Color.BLUE))
    g.apply(Accept("Ben"))
    assert g.turn == "Ann"


@pytest.mark.parametrize(("code", "tower"), [("RS", BANG), ("R+1", U), ("R+2", N)])
def test_two_players_blocked_passes_turn(code: str, tower: Tower) -> None:
    """R-TWO-AGAIN, R-BLOCK: a blocked card hands the turn to the other player."""
    g = G({"Ann": f"{code} B2", "Ben": "B7"}, players=P2, towers={tower: "Ben"})
    g.apply(Play("Ann", c(code)))
    assert g.turn == "Ben"


# ---------------------------------------------------------------- draw pile

def test_reshuffle_discard_under_top() -> None:
    """R-RESHUFFLE: the discard pile but its top card becomes the draw pile (sheet 000,
    Going Out; RULINGS, Turn)."""
    g = G({"Ann": "B2 B3", "Ben": "B7", "Cat": "Y1"}, draw="", discard="G1 G2 G3 R7")
    events = g.apply(Draw("Ann"))
    assert D(events)[0] == {"event": "reshuffled", "count": 3}
    assert g.discard_pile == [c("R7")]
    assert sorted(map(str, [*g.draw_pile, g.hand("Ann")[-1]])) == ["G1", "G2", "G3"]


def test_nothing_to_draw_ends_the_turn() -> None:
    """R-NOTHING-TO-DRAW: with nothing to draw the draw is skipped and the turn ends
    (RULINGS, Turn)."""
    g = G({"Ann": "B2 B3", "Ben": "B7", "Cat": "Y1"}, draw="", discard="R7")
    events = g.apply(Draw("Ann"))
    assert D(events) == [
        {"event": "drew", "player": "Ann", "count": 0, "cards": [], "reason": "draw"},
        {"event": "turn", "player": "Ben", "decision": "play"},
    ]


def test_penalty_draws_what_there_is() -> None:
    """R-NOTHING-TO-DRAW: a penalty draws as many cards as are left (RULINGS, Turn)."""
    g = G({"Ann": "R+2 B3", "Ben": "B7", "Cat": "Y1"}, draw="", discard="G1 R7")
    events = g.apply(Play("Ann", c("R+2")))
    assert kinds(events) == ["played", "reshuffled", "drew", "skipped", "turn"]
    assert D(events)[2]["count"] == 2
    g = G({"Ann": "R+2 B3", "Ben": "B7", "Cat": "Y1"}, draw="G5", discard="R7")
    events = g.apply(Play("Ann", c("R+2")))
    assert D(events)[1]["count"] == 1 and g.turn == "Cat"


# ---------------------------------------------------------------- going out and scoring

def test_points_of_every_card() -> None:
    """R-POINTS: numbers face value; Draw One/Two, Skip, Reverse 20; Grab-2-Towers 20 or 50;
    wilds 50 (sheet 000, Scoring; sheets 001/003, Scoring; RULINGS, Scoring)."""
    for grab2 in (20, 50):
        g = G(HANDS3, settings=Settings(grab2_points=grab2))
        expect = {"R7": 7, "B1U": 1, "Y9": 9, "R+1": 20, "G+2": 20, "BS": 20, "YR": 20,
                  "RG": grab2, "WG": 50, "W+4": 50}
        assert {k: g.card_points(c(k)) for k in expect} == expect
    g = G(HANDS3, edition="classic")
    assert g.card_points(c("W")) == 50 and g.card_points(c("B0")) == 0


@pytest.mark.parametrize("grab2", [20, 50])
def test_standard_scoring(grab2: int) -> None:
    """R-GO-OUT, R-SCORE-STANDARD: the round winner scores the cards left in the other hands
    (sheet 000, Going Out, Scoring; RULINGS, Scoring)."""
    g = G({"Ann": "R1", "Ben": "B7 YG WG", "Cat": "Y+2 G5"}, scores={"Ann": 10, "Ben": 30},
          settings=Settings(grab2_points=grab2))
    events = g.apply(Play("Ann", c("R1")))
    won = events[1].to_dict()
    pts = 7 + grab2 + 50 + 20 + 5
    assert won == {"event": "round_won", "player": "Ann", "points": pts,
                   "gained": {"Ann": pts, "Ben": 0, "Cat": 0},
                   "scores": {"Ann": 10 + pts, "Ben": 30, "Cat": 0}, "round": 1}


def test_last_card_draw_effect_counts() -> None:
    """R-LAST-DRAW: a Draw Two as last card still makes the next player draw, and those
    cards are scored (sheet 000, Going Out; RULINGS, Scoring)."""
    g = G({"Ann": "R+2", "Ben": "B7", "Cat": "Y3"}, draw="RS G5 B1")
    events = g.apply(Play("Ann", c("R+2")))
    assert kinds(events)[:3] == ["played", "drew", "round_won"]
    assert events[2].to_dict()["points"] == 7 + 20 + 5 + 3


def test_last_card_draw_effect_blocked() -> None:
    """R-LAST-DRAW, R-BLOCK: the next player's tower blocks it; nothing drawn
    (RULINGS, Scoring)."""
    g = G({"Ann": "R+1", "Ben": "B7", "Cat": "Y3"}, draw="RS G5 B1", towers={U: "Ben"})
    events = g.apply(Play("Ann", c("R+1")))
    assert D(events)[1] == {"event": "blocked", "player": "Ben", "card": "R+1", "tower": "U"}
    assert events[2].to_dict()["points"] == 7 + 3


def test_last_card_skip_does_nothing_more() -> None:
    """R-LAST-DRAW: only drawing cards have an effect after going out (sheet 000, Going
    Out)."""
    g = G({"Ann": "RS", "Ben": "B7", "Cat": "Y3"})
    events = g.apply(Play("Ann", c("RS")))
    assert kinds(events)[:2] == ["played", "round_won"]
    assert events[1].to_dict()["points"] == 10


def test_target_reached_ends_the_game() -> None:
    """R-GAME-END, R-SCORE-STANDARD: the first to reach the target wins; then every move is
    refused (sheet 000, Winning the Game; RULINGS, Scoring)."""
    g = G({"Ann": "R1", "Ben": "B7", "Cat": "Y3"}, scores={"Ann": 490},
          settings=Settings(target=500))
    events = g.apply(Play("Ann", c("R1")))
    assert D(events)[-1] == {"event": "game_won", "players": ["Ann"],
                             "scores": {"Ann": 500, "Ben": 0, "Cat": 0}}
    assert g.is_over and g.winners == ["Ann"] and g.pending is Decision.OVER
    assert refused(g, Draw("Ben"), GameOverError) == "The game is over."
    assert list(g.legal_moves("Ben")) == []
    with pytest.raises(GameOverError):
        g.remove_player("Ben")


def test_new_round_starts_by_itself() -> None:
    """R-GAME-END, R-DEALER-PASSES: below the target a new round starts: the deal passes
    left, seven cards each, towers back, direction reset (RULINGS, Deal and round)."""
    g = G({"Ann": "R1", "Ben": "B7", "Cat": "Y3"}, towers={U: "Ben", N: "Cat"}, direction=-1,
          turn="Ann")
    events = g.apply(Play("Ann", c("R1")))
    ks = kinds(events)
    assert ks[:3] == ["played", "round_won", "round_started"]
    assert D(events)[2] == {"event": "round_started", "round": 2, "dealer": "Ann"}
    assert g.dealer == "Ann" and g.round_number == 2
    assert [e.to_dict()["player"] for e in events if e.kind == "dealt"] == ["Ben", "Cat", "Ann"]
    assert all(h is None for h in g.towers.values())
    assert g.scores == {"Ann": 10, "Ben": 0, "Cat": 0}
    assert sum(g.hand_counts().values()) + len(g.draw_pile) + len(g.discard_pile) == 112
    assert g.direction in (1, -1)


def test_alternative_scoring() -> None:
    """R-SCORE-ALT: everyone adds their own hand; the winner of the round adds nothing
    (sheet 000, Alternative Scoring and Winning; RULINGS, Scoring)."""
    g = G({"Ann": "R1", "Ben": "B7 WG", "Cat": "Y3"}, scores={"Ann": 5},
          settings=Settings(scoring="alternative", target=100))
    events = g.apply(Play("Ann", c("R1")))
    assert D(events)[1] == {"event": "round_won", "player": "Ann", "points": 0,
                            "gained": {"Ann": 0, "Ben": 57, "Cat": 3},
                            "scores": {"Ann": 5, "Ben": 57, "Cat": 3}, "round": 1}
    assert not g.is_over


def test_alternative_scoring_lowest_wins_ties_all_win() -> None:
    """R-SCORE-ALT: when anyone reaches the target the lowest total wins; players tied for
    lowest all win (RULINGS, Scoring)."""
    g = G({"Ann": "R1", "Ben": "B7 WG", "Cat": "Y3"}, scores={"Ann": 3, "Ben": 50},
          settings=Settings(scoring="alternative", target=100))
    events = g.apply(Play("Ann", c("R1")))
    assert D(events)[-1] == {"event": "game_won", "players": ["Ann", "Cat"],
                             "scores": {"Ann": 3, "Ben": 107, "Cat": 3}}
    assert g.winners == ["Ann", "Cat"]


# ---------------------------------------------------------------- errors and refusals

def test_refused_moves_leave_the_game_unchanged() -> None:
    """R-ERRORS: every refused move raises one sentence and changes nothing (engine)."""
    g = G(HANDS3)
    moves = [
        Play("Ben", c("B7")), Play("Ann", c("R9")), Play("Ann", c("B2")), Pass("Ann"),
        Accept("Ann"), Challenge("Ann"), Keep("Ann", c("R1")), ChooseColor("Ann", Color.RED),
        CallUno("Ann"), Catch("Ben", "Ann"), Catch("Ben", "Zed"), Draw("Zed"),
    ]
    for m in moves:
        refused(g, m)


def test_from_setup_rejects_bad_positions() -> None:
    """R-REPLAY-SETUP: cards of another edition, a wild on top without a colour, unknown
    players are refused (engine)."""
    from engine import ParseError
    with pytest.raises(ParseError, match="not a card of UNO Power Grab"):
        setup({"Ann": "W"})
    with pytest.raises(ParseError, match="needs a \"color\""):
        setup({"Ann": "R1"}, discard="WG")
    with pytest.raises(EngineError, match="Zed is not playing"):
        setup({"Zed": "R1"})


# ---------------------------------------------------------------- timeouts and leaving

def test_timeout_defaults() -> None:
    """R-TIMEOUT: on the turn: draw and keep; a colour: the one held most (engine)."""
    g = G({"Ann": "R1 B2", "Ben": "B7", "Cat": "Y1"}, draw="R3 G5")
    assert g.timeout_moves() == [Draw("Ann")]
    events = g.apply_timeout()
    assert kinds(events) == ["drew", "turn", "passed", "turn"]
    assert g.turn == "Ben" and len(g.hand("Ann")) == 3
    g, _ = setup({"Ann": "B1 B2 G3", "Ben": "R2", "Cat": "R3"}, discard=None, draw="WG G1")
    assert g.timeout_moves() == [ChooseColor("Ann", Color.BLUE)]
    g.apply_timeout()
    assert g.color is Color.BLUE and g.turn == "Ann"


def test_leaving_player() -> None:
    """R-LEAVE: cards under the draw pile, towers back to the tray, the turn passes on
    (engine)."""
    g = G({"Ann": "R1 B2", "Ben": "B7 G7", "Cat": "Y1"}, draw="R3 G5", towers={U: "Ann"})
    events = g.remove_player("Ann")
    assert D(events) == [{"event": "left", "player": "Ann", "cards": 2},
                         {"event": "turn", "player": "Ben", "decision": "play"}]
    assert g.draw_pile[:2] == C("R3 G5")
    assert sorted(map(str, g.draw_pile[2:])) == ["B2", "R1"]
    assert g.towers[U] is None and g.players == ["Ben", "Cat"]
    assert "Ann" not in g.scores


def test_leaving_voids_their_wild_draw_four() -> None:
    """R-LEAVE: a pending Wild Draw Four of the leaving player is void: its victim plays."""
    g = G({"Ann": "W+4 R1 B2", "Ben": "B7 G7", "Cat": "Y1"})
    g.apply(Play("Ann", c("W+4"), color=Color.GREEN))
    g.remove_player("Ann")
    assert g.turn == "Ben" and g.pending is Decision.PLAY and len(g.hand("Ben")) == 2


def test_leaving_victim_of_wild_draw_four() -> None:
    """R-LEAVE: when the victim leaves, the next player plays (engine)."""
    g = G({"Ann": "W+4 R1 B2", "Ben": "B7 G7", "Cat": "Y1"})
    g.apply(Play("Ann", c("W+4"), color=Color.GREEN))
    g.remove_player("Ben")
    assert g.turn == "Cat" and g.pending is Decision.PLAY


def test_last_player_left_wins() -> None:
    """R-LEAVE: with one player left that player wins (engine)."""
    g = G({"Ann": "R1 B2", "Ben": "B7"}, players=P2)
    events = g.remove_player("Ann")
    assert D(events)[-1] == {"event": "game_won", "players": ["Ben"], "scores": {"Ben": 0}}
    assert g.is_over and g.winners == ["Ben"]


def test_leaving_dealer_passes_the_deal_on() -> None:
    """R-LEAVE: if the dealer leaves, the next deal goes to the seat after theirs (engine)."""
    g = G({"Ann": "R1", "Ben": "B7", "Cat": "Y1", "Dan": "Y2"}, players=("Ann", "Ben", "Cat",
                                                                          "Dan"))
    assert g.dealer == "Dan"
    g.remove_player("Dan")
    g.apply(Play("Ann", c("R1")))
    assert g.dealer == "Ann"


def test_game_with_players_gone_saves_and_restores() -> None:
    """R-LEAVE, R-SAVE: a game won because the others left, and a departed player's name,
    survive to_dict/from_dict (both used to fail: the restore refused one seat and dropped
    the departed name)."""
    g = Game.new(["111", "222"], names={"111": "Ann", "222": "Ben"}, seed=4)
    g.start()
    g.remove_player("111")
    saved = g.to_dict()
    back = Game.from_dict(saved)
    assert back.to_dict() == saved
    assert back.is_over and back.winners == ["222"] and back.name("111") == "Ann"
    with pytest.raises(IllegalMoveError, match="needs 2 to 6 players"):
        Game.new(["111"])
