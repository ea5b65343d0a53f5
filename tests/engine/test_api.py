"""The engine's queries for callers (docs/engine-api.md): ``Game.play_needs``.

Each docstring names the RULES.md rule the query answers from.
"""

from __future__ import annotations

import json
import pickle
import random
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given
from hypothesis import settings as settings_
from hypothesis import strategies as st

from engine import (
    EDITIONS,
    Card,
    CardNotInHandError,
    ChoiceError,
    Color,
    Draw,
    EngineError,
    Game,
    GameOverError,
    IllegalMoveError,
    NoMatchError,
    NotAPlayerError,
    NotYourTurnError,
    ParseError,
    Play,
    PlayNeeds,
    Settings,
    Tower,
)
from engine.events import Reshuffled, RoundStarted
from engine.moves import Move
from engine.players import HeuristicPlayer, RandomPlayer
from engine.replay import (
    Leave,
    ReplayFormatError,
    leave_to_json,
    move_to_json,
    play_replay,
    replay_header,
)

U, N, O, BANG = Tower.U, Tower.N, Tower.O, Tower.BANG  # noqa: E741


def C(codes: str) -> list[Card]:
    return [Card.parse(x) for x in codes.split()]


def c(code: str) -> Card:
    return Card.parse(code)


def game(hands: dict[str, str], **kw: object) -> Game:
    g, _ = Game.from_setup(["Ann", "Ben", "Cat"], hands={p: C(h) for p, h in hands.items()},
                           draw=C(str(kw.pop("draw", "R9 B9 G9 Y9"))),
                           discard=C(str(kw.pop("discard", "R7"))), **kw)  # type: ignore[arg-type]
    return g


def refused_alike(g: Game, player: str, card: Card) -> EngineError:
    """play_needs refuses the card exactly as apply refuses every play of it."""
    with pytest.raises(EngineError) as info:
        g.play_needs(player, card)
    err = info.value
    for color in (None, Color.RED, Color.BLUE):
        for towers in ((), (U,), (U, N), (N, O)):
            with pytest.raises(EngineError) as other:
                g.validate(Play(player, card, color, towers))
            assert type(other.value) is type(err)
            assert str(other.value) == str(err) and other.value.template == err.template
    return err


def test_play_needs_plain_wild_and_grab_cards() -> None:
    """R-MATCH, R-GRAB2, R-WILD-GRAB: a number card needs nothing; Wild Grab-A-Tower a colour
    and one tower not held; Grab-2-Towers two of the towers not held (RULINGS, Towers)."""
    g = game({"Ann": "R1 RG WG W+4", "Ben": "B7", "Cat": "Y1"}, towers={U: "Ann", N: "Ben"})
    assert g.play_needs("Ann", c("R1")) == PlayNeeds(color=False, towers=0, free=())
    assert g.play_needs("Ann", c("W+4")) == PlayNeeds(color=True, towers=0, free=())
    assert g.play_needs("Ann", c("WG")) == PlayNeeds(color=True, towers=1, free=(N, O, BANG))
    assert g.play_needs("Ann", c("RG")) == PlayNeeds(color=False, towers=2, free=(N, O, BANG))
    # the old query still answers the same
    assert g.tower_choices("Ann", c("RG")) == (2, [N, O, BANG])


def test_play_needs_fewer_towers_than_two() -> None:
    """R-GRAB2: with one tower not held, Grab-2-Towers takes only it (RULINGS, Towers)."""
    g = game({"Ann": "RG", "Ben": "B7", "Cat": "Y1"},
             towers={U: "Ann", N: "Ann", O: "Ann"})
    assert g.play_needs("Ann", c("RG")) == PlayNeeds(color=False, towers=1, free=(BANG,))


def test_play_needs_classic_edition_has_no_towers() -> None:
    """R-DECK-CLASSIC: no tower choice in the classic edition."""
    g, _ = Game.from_setup(["Ann", "Ben"], edition="classic",
                           hands={"Ann": C("W R1"), "Ben": C("B1")}, discard=C("R7"))
    assert g.play_needs("Ann", c("W")) == PlayNeeds(color=True, towers=0, free=())


def test_play_needs_refuses_like_apply() -> None:
    """R-ERRORS, R-DECISION-TURN, R-MATCH, R-DRAW-PLAYABLE, R-FIRST-GRAB2: play_needs raises
    the very error any play of the card would (engine)."""
    g = game({"Ann": "R1 B2 WG", "Ben": "B7", "Cat": "Y1"})
    assert isinstance(refused_alike(g, "Ben", c("B7")), NotYourTurnError)
    assert isinstance(refused_alike(g, "Ann", c("G5")), CardNotInHandError)
    err = refused_alike(g, "Ann", c("B2"))
    assert isinstance(err, NoMatchError) and str(err) == "B2 does not match the red 7."
    assert isinstance(refused_alike(g, "Zed", c("R1")), NotAPlayerError)
    # after drawing, only the drawn card
    g.apply(Draw("Ann"))
    assert g.drawn_card == c("R9")
    err = refused_alike(g, "Ann", c("R1"))
    assert str(err) == "After drawing you can only play the card you drew (R9) or keep it."
    assert g.play_needs("Ann", c("R9")) == PlayNeeds(False, 0, ())
    # a Wild Draw Four decision pending: the victim must answer first
    g = game({"Ann": "W+4 R1", "Ben": "B7 B8", "Cat": "Y1"})
    g.apply(Play("Ann", c("W+4"), Color.BLUE))
    err = refused_alike(g, "Ben", c("B7"))
    assert type(err) is IllegalMoveError
    assert str(err) == "Accept or challenge the Wild Draw Four first."
    assert isinstance(refused_alike(g, "Cat", c("Y1")), NotYourTurnError)
    # first card Grab-2-Towers: colour only
    g = game({"Ann": "BG R1", "Ben": "B7", "Cat": "Y1"}, discard="", draw="RG R9 B9")
    assert isinstance(refused_alike(g, "Ann", c("BG")), NoMatchError)
    assert g.play_needs("Ann", c("R1")).towers == 0
    # the game is over
    g = game({"Ann": "R1", "Ben": "B7", "Cat": "Y1"}, settings=Settings(target=100),
             scores={"Ann": 99})
    g.apply(Play("Ann", c("R1")))
    assert isinstance(refused_alike(g, "Ben", c("B7")), GameOverError)


def _plays_of(g: Game, player: str, card: Card) -> set[Move]:
    return {m for m in g.legal_moves(player) if isinstance(m, Play) and m.card == card
            and not m.uno}


@pytest.mark.slow
@pytest.mark.parametrize("edition", sorted(EDITIONS))
def test_play_needs_agrees_with_legal_moves_over_random_games(edition: str) -> None:
    """R-ERRORS, R-GRAB2, R-WILD-GRAB: over random games, for every player and every card:
    play_needs refuses exactly when no play of the card is legal, with the error every play
    of it gets; otherwise the plays it describes are exactly the legal plays of the card and
    a play with a wrong choice is refused with a ChoiceError (engine)."""
    cards = sorted(set(EDITIONS[edition].deck), key=str)
    checked = 0
    for seed in range(4):
        rng = random.Random(seed)
        g = Game.new(["ann", "ben", "cat", "dan"], edition=edition, seed=seed,
                     settings=Settings(target=100))
        g.start()
        bots = {p: RandomPlayer(seed + i) for i, p in enumerate(g.players)}
        for step in range(150):
            if g.is_over:
                break
            if step % 5 == 0:
                p = rng.choice(g.players)
                for card in cards:
                    try:
                        needs = g.play_needs(p, card)
                    except EngineError:
                        assert not _plays_of(g, p, card)
                        refused_alike(g, p, card)
                        continue
                    checked += 1
                    colors: list[Color | None] = list(Color) if needs.color else [None]
                    if needs.color_later:  # R-VL-COLOR: or named on the keep
                        colors.append(None)
                    sets = list(combinations(needs.free, needs.towers))
                    assert needs.towers <= len(needs.free)
                    described = {Play(p, card, col, ts) for col in colors for ts in sets}
                    assert described == _plays_of(g, p, card)
                    if needs.towers:
                        with pytest.raises(ChoiceError):
                            g.validate(Play(p, card, colors[0], ()))
                    if needs.color and not needs.color_later:
                        with pytest.raises(ChoiceError):
                            g.validate(Play(p, card, None, sets[0]))
            move = bots[g.turn].choose(g, g.turn)
            assert move is not None
            g.apply(move)
    assert checked > 20


# ---------------------------------------------------------------- replay encoder

@pytest.mark.slow
@settings_(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**48), n=st.integers(2, 6),
       edition=st.sampled_from(sorted(EDITIONS)),
       scoring=st.sampled_from(["standard", "alternative"]),
       shuffle=st.booleans(), data=st.randoms(use_true_random=False))
def test_logged_moves_replay_to_the_same_game(seed: int, n: int, edition: str, scoring: str,
                                              shuffle: bool, data: random.Random) -> None:
    """R-REPLAY-FORMAT, R-LEAVE, R-SAVE: a game made as the bot makes it (Game.new with ids,
    names, settings and a seed), every applied move logged with move_to_json (leaves with
    leave_to_json), replays from its header to exactly the same game: to_dict equal, no move
    rejected (engine)."""
    ids = ["123456789", "cpu1", "987654321", "cpu2", "555", "cpu3"][:n]
    names = {p: ("CPU " + p[3:]) if p.startswith("cpu") else f"user {p}" for p in ids}
    rules = Settings(target=100, scoring=scoring, grab2_points=50, shuffle_seats=shuffle)
    g = Game.new(ids, edition=edition, settings=rules, seed=seed, names=names)
    header = replay_header(g, seed)
    g.start()
    log: list[dict[str, object]] = []
    for _ in range(250):
        if g.is_over:
            break
        if data.random() < 0.01 and len(g.players) > 2:
            who = data.choice(g.players)
            g.remove_player(who)
            log.append(leave_to_json(who))
            continue
        options = [m for p in g.players for m in g.legal_moves(p)]
        move = data.choice(options)
        g.apply(move)
        log.append(move_to_json(move))
    if not g.is_over and data.random() < 0.5:
        who = g.players[0]
        g.remove_player(who)
        log.append(move_to_json(Leave(who)))
    text = json.dumps({**header, "moves": log})
    replayed, lines = play_replay(json.loads(text))
    assert [x for x in lines if x["event"] == "rejected"] == []
    assert replayed.to_dict() == g.to_dict()
    assert lines[-1]["names"] == names


def test_every_move_kind_encodes_to_what_the_parser_reads() -> None:
    """R-REPLAY-FORMAT: move_to_json gives the documented replay objects (engine)."""
    from engine import Accept, CallUno, Catch, Challenge, ChooseColor, Keep, Pass
    from engine.moves import move_from_dict
    moves: list[Move] = [
        Play("a", c("WG"), Color.GREEN, (N,), True), Play("a", c("R1")), Draw("a"), Pass("a"),
        CallUno("a"), Catch("a", "b"), Challenge("a"), Accept("a"), Keep("a", c("B8!"), True),
        Keep("a", c("R1")), ChooseColor("a", Color.YELLOW),
    ]
    for m in moves:
        assert move_from_dict(json.loads(json.dumps(move_to_json(m)))) == m
    assert move_to_json(Play("a", c("WG"), Color.GREEN, (N,), True)) == {
        "player": "a", "play": "WG", "color": "green", "towers": ["N"], "uno": True}
    assert move_to_json(Leave("a")) == leave_to_json("a") == {"player": "a", "leave": True}


def test_replay_leave_lines() -> None:
    """R-LEAVE, R-REPLAY-FORMAT: a leave line removes the player; one the game refuses (the
    player already gone) is reported as rejected; a malformed one is a format error."""
    base = {"edition": "power-grab", "players": ["ann", "ben", "cat"], "seed": 3,
            "names": {"ann": "Ann"}}
    game, lines = play_replay({**base, "moves": [{"player": "ben", "leave": True},
                                                 {"player": "ben", "leave": True}]})
    assert game.players == ["ann", "cat"]
    left = [x for x in lines if x["event"] == "left"]
    assert left == [{"event": "left", "player": "ben", "cards": 7}]
    rejected = [x for x in lines if x["event"] == "rejected"]
    assert rejected == [{"event": "rejected", "player": "ben",
                         "reason": "ben is not playing in this game.", "move": 1}]
    assert lines[-1]["names"] == {"ann": "Ann", "ben": "ben", "cat": "cat"}
    for bad, where in (({"player": "ben", "leave": False}, "moves[0]: \"leave\" must be"),
                       ({"player": "ben", "leave": True, "draw": True},
                        "moves[0]: a leave has no other key, not 'draw'"),
                       ({"player": "zed", "leave": True}, "moves[0].player: 'zed' is not")):
        with pytest.raises(ReplayFormatError) as info:
            play_replay({**base, "moves": [bad]})
        assert str(info.value).startswith(where), info.value
    with pytest.raises(ReplayFormatError, match="names: 'zed' is not one of the players"):
        play_replay({**base, "names": {"zed": "Zed"}, "moves": []})


# ---------------------------------------------------------------- the generator's saved state
def _shuffled_game(seed: int) -> Game:
    game = Game.new(["a", "b", "c"], seed=seed)
    game.rng.random()  # the generator has moved past the deal
    return game


def test_saved_generator_state_is_compact_and_continues_the_same_stream() -> None:
    game = _shuffled_game(5)
    saved = game.to_dict()
    assert isinstance(saved["rng"], str) and len(saved["rng"]) < 3500
    again = Game.from_dict(json.loads(json.dumps(saved)))
    assert [again.rng.random() for _ in range(5)] == [game.rng.random() for _ in range(5)]


def test_the_saved_generator_text_follows_the_generator() -> None:
    game = _shuffled_game(6)
    first = game.to_dict()["rng"]
    assert game.to_dict()["rng"] == first, "unchanged generator, same text"
    game.rng.random()
    assert game.to_dict()["rng"] != first, "the generator moved: new text"


class _CountingRandom(random.Random):
    """A generator that counts how often its state is read."""

    reads = 0

    def getstate(self) -> tuple[Any, ...]:
        self.reads += 1
        return super().getstate()


@pytest.mark.slow
def test_every_save_of_a_whole_game_holds_the_generator_as_it_is() -> None:
    """A save after a move that shuffled nothing reuses the last save's generator text
    without reading the generator (``Game.rng``); after a deal or a reshuffle it reads it
    again. Each save, restored, continues exactly the generator of the game itself (its
    twin, a pickled copy, is read without touching the game)."""
    game = Game.new(["a", "b", "c", "d"], seed=16, edition="classic")  # a reshuffle in it
    counting = _CountingRandom()
    counting.setstate(game.rng.getstate())
    game.rng = counting
    game.start()
    players = {p: HeuristicPlayer(seed=i) for i, p in enumerate(game.players)}
    saves = reshuffles = deals = read = 0
    while not game.is_over:
        move = players[game.turn].choose(game, game.turn)
        assert move is not None
        events = game.apply(move)
        reshuffles += sum(isinstance(e, Reshuffled) for e in events)
        deals += sum(isinstance(e, RoundStarted) for e in events)
        before = counting.reads
        saved = game.to_dict()
        saves += 1
        read += counting.reads - before
        twin = pickle.loads(pickle.dumps(game))  # (pickling reads the state too)
        assert Game.from_dict(saved).rng.getstate() == twin.rng.getstate(), saves
    assert reshuffles > 0 and deals > 1, "new deals and a reshuffle of the discard pile"
    assert read < saves / 10, (read, saves)


def test_a_version_1_saved_game_still_loads() -> None:
    """Version 1 kept the generator's state as a list of numbers."""
    game = _shuffled_game(7)
    saved = game.to_dict()
    version, internal, gauss = game.rng.getstate()
    old = {**saved, "version": 1, "rng": [version, list(internal), gauss]}
    again = Game.from_dict(json.loads(json.dumps(old)))
    assert again.rng.random() == game.rng.random()
    assert again.to_dict() == {**game.to_dict(), "rng": again.to_dict()["rng"]}


@pytest.mark.parametrize("rng", ["3:bm90IGEgc3RhdGU=:", "3:%%%:", "x:AAAA:", [1, 2]])
def test_a_damaged_generator_state_is_refused(rng: object) -> None:
    saved = {**_shuffled_game(8).to_dict(), "rng": rng}
    with pytest.raises(ParseError):
        Game.from_dict(saved)
