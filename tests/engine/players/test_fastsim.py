"""The playout simulator (engine/players/fastsim.py, issue 19) against ``Game``, move for move.

Random hands of every edition (Power Grab's towers, grabs and instant UNO, the Victory
Lap, classic), 2 to 10 players, partners, both scorings: the same seed and the same moves
in both; at every step every player's legal moves are the same set, the table is the same
after every move, and the hand ends with the same points (RULES.md, "Scoring"; section 19
for partners). The default run plays a few hundred hands; the ``slow`` one thousands.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

import pytest

from engine import Game, Settings
from engine.editions import get_edition
from engine.events import Event, RoundWon
from engine.moves import Move, Play
from engine.players.fastcards import CARD_ID, DECISIONS, encode_move, is_turn_move, move_of
from engine.players.fastsim import FastSim, shuffle
from engine.players.playouts import (
    MAX_MOVES,
    POLICIES,
    describe,
    greedy_policy,
    legal_moves,
    per_seat,
    playout,
    random_policy,
)
from engine.setup import choose_dealer, start_round
from engine.state import Decision, state_to_dict

NAMES = [f"p{i}" for i in range(10)]
EDITION_NAMES = ("power-grab", "victory-lap", "classic")


def engine_table(game: Game) -> dict[str, Any]:
    """What ``describe`` shows, read from the engine's own saved form."""
    d = state_to_dict(game.s)
    out = {k: d[k] for k in ("hands", "draw", "discard", "color", "towers", "turn",
                             "direction", "pending", "drawn", "color_only", "after_keep",
                             "lap", "called", "catchable")}
    w4 = d["w4"]
    out["w4"] = None if w4 is None else {
        k: w4[k] for k in ("player", "victim", "guilty", "color")}
    return out


def new_game(i: int) -> Game:
    """Game ``i`` of a run: the editions in turn, partners (4 or 6 seats) or not (2-6
    seats, up to 10 without towers), both scorings, both Grab-2-Towers values."""
    edition = EDITION_NAMES[i % 3]
    teams = None
    if (i // 3) % 2:
        n = 4 if (i // 12) % 2 else 6
        teams = [[NAMES[k], NAMES[k + n // 2]] for k in range(n // 2)]
    else:
        top = 6 if edition == "power-grab" or i % 7 else 10
        n = 2 + (i // 12) % (top - 1)
    settings = Settings(target=100, scoring="alternative" if (i // 6) % 2 else "standard",
                        grab2_points=50 if i % 4 == 0 else 20)
    game = Game.new(NAMES[:n], edition=edition, settings=settings, seed=i, teams=teams)
    game.start()
    return game


def pick(game: Game, legal: dict[str, list[Move]], rng: random.Random) -> Move:
    """A random legal move, made to keep hands short: mostly a play of the turn when
    there is one; sometimes anything anyone may do (calls and catches included)."""
    if rng.random() < 0.1:
        anyone = [m for p in game.players for m in legal[p]]
        return rng.choice(anyone)
    mine = legal[game.turn]
    plays = [m for m in mine if isinstance(m, Play)]
    if plays and rng.random() < 0.8:
        return rng.choice(plays)
    return rng.choice(mine)


def round_won(events: list[Event]) -> RoundWon | None:
    return next((e for e in events if isinstance(e, RoundWon)), None)


def check_hands(games: int, seed: int) -> Counter[str]:
    """Play ``games`` games (at most two hands each) in both; returns what was seen."""
    seen: Counter[str] = Counter()
    rng = random.Random(seed)
    for i in range(games):
        game = new_game(i + seed * 100_003)
        sim = FastSim.from_game(game)
        for _ in range(2000):
            assert describe(sim) == engine_table(game)
            seen[DECISIONS[sim.pending].value] += 1
            legal = {p: list(game.legal_moves(p)) for p in game.players}
            for seat, p in enumerate(game.players):
                mine = {move_of(m, sim.players, sim.turn) for m in legal_moves(sim, seat)}
                assert mine == set(legal[p]), (p, describe(sim))
            move = pick(game, legal, rng)
            seen[type(move).__name__] += 1
            events = game.apply(move)
            seen.update(e.kind for e in events)
            m = encode_move(move, sim.players)
            assert move_of(m, sim.players, sim.turn) == move
            sim.step(m)
            won = round_won(events)
            if won is None:
                continue
            assert sim.pending == 6 and sim.winner == sim.players.index(won.player)
            assert sim.gained == [won.gained[p] for p in sim.players]
            if game.teams:
                assert sim.team_points() == [won.gained[t[0]] for t in game.teams]
            seen["hands"] += 1
            seen[f"hand, {game.edition.name}, {'teams' if game.teams else 'alone'}, "
                 f"{game.settings.scoring}"] += 1
            if game.is_over or game.round_number > 2:
                break
            sim = FastSim.from_game(game)  # the next hand, as dealt by the game
    return seen


@pytest.mark.slow
def test_fastsim_agrees_with_game_move_for_move() -> None:
    seen = check_hands(120, seed=1)
    assert seen["hands"] >= 150
    # every decision and every rule the simulator has was met along the way
    for what in ("play", "drawn", "color", "challenge", "keep", "lap", "CallUno", "Catch",
                 "Challenge", "Accept", "Keep", "ChooseColor", "Lap", "Pass", "reshuffled",
                 "blocked", "instant_uno", "caught", "reversed", "skipped"):
        assert seen[what], what
    for edition in EDITION_NAMES:  # ... and every kind of table ended a hand
        for table in ("alone", "teams"):
            for scoring in ("standard", "alternative"):
                assert seen[f"hand, {edition}, {table}, {scoring}"], (edition, table, scoring)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("UNO_LONG_TESTS"),
                    reason="45 s of CPU: run with UNO_LONG_TESTS=1 (the default run plays a "
                           "few hundred hands of every kind)")
def test_fastsim_agrees_with_game_over_thousands_of_hands() -> None:
    seen = check_hands(2000, seed=2)
    assert seen["hands"] >= 2800


def lockstep(game: Game, moves: list[Move]) -> FastSim:
    """Make ``moves`` in ``game`` and in a simulator read from it, comparing the legal
    moves before each, the tables after each and the points when the hand ends."""
    sim = FastSim.from_game(game)
    for move in moves:
        for seat, p in enumerate(game.players):
            mine = {move_of(m, sim.players, sim.turn) for m in legal_moves(sim, seat)}
            assert mine == set(game.legal_moves(p))
        won = round_won(game.apply(move))
        sim.step(encode_move(move, sim.players))
        if won is not None:
            assert sim.gained == [won.gained[p] for p in sim.players]
            return sim
        assert describe(sim) == engine_table(game)
    return sim


def test_a_blocked_last_card() -> None:
    """R-TOWERS: a Draw Two played as the last card still makes the next player draw,
    unless they hold the tower that blocks it (then the hand is scored without)."""
    from engine import Card, Tower
    hands = {"a": [Card.parse("B+2")], "b": [Card.parse("G3"), Card.parse("Y9")]}
    for holder, cards in ((None, 4), ("b", 2)):
        game, _ = Game.from_setup(["a", "b"], seed=1, hands=hands,
                                  discard=[Card.parse("B5")], turn="a",
                                  towers={Tower.N: holder})
        sim = lockstep(game, [Play("a", Card.parse("B+2"))])
        assert len(sim.hands[1]) == cards
        if holder:
            assert sim.gained == [12, 0]


def test_empty_draw_pile_edges() -> None:
    """R-RESHUFFLE: with the draw pile empty a draw turns the discard pile under its top
    card (one card is enough); with nothing under it, nothing is drawn and the turn ends.
    R-UNO-CALL: a call made with two cards lapses when the turn ends with two."""
    from engine import Card, Draw
    from engine.moves import CallUno
    cards = [Card.parse(c) for c in ("R1", "B2", "G3", "Y5", "Y6")]
    game, _ = Game.from_setup(["a", "b"], edition="classic", seed=1,
                              hands={"a": cards[:2], "b": cards[2:3]}, draw=[],
                              discard=cards[3:5], turn="a")
    sim = lockstep(game, [CallUno("a"), Draw("a")])
    assert sim.pending == 1 and sim.hands[0][-1] == CARD_ID[cards[3]]  # Y5 came back
    game, _ = Game.from_setup(["a", "b"], edition="classic", seed=1,
                              hands={"a": cards[:2], "b": cards[2:3]}, draw=[],
                              discard=cards[4:5], turn="a")
    sim = lockstep(game, [CallUno("a"), Draw("a")])
    assert sim.turn == 1 and sim.called == 0  # nothing drawn, the call lapsed


def test_shuffle_is_randoms_shuffle() -> None:
    """The simulator's shuffle puts the cards in ``random.Random.shuffle``'s order and leaves
    the generator in the same state, so a reshuffle brings up the cards the game's would."""
    for n in (0, 1, 2, 3, 7, 50, 108, 112, 199, 250):
        for seed in range(20):
            ours, theirs = list(range(n)), list(range(n))
            a, b = random.Random(seed), random.Random(seed)
            shuffle(ours, a)
            b.shuffle(theirs)
            assert ours == theirs and a.getstate() == b.getstate(), (n, seed)


def test_deal_is_the_games_deal() -> None:
    """``FastSim.deal`` shuffles and deals as ``start_round`` does, first-card rules
    included (RULES.md, "Setup"): the same table for the same generator."""
    kinds: Counter[str] = Counter()
    for i in range(300):
        edition = EDITION_NAMES[i % 3]
        n = 2 + i % 5
        game = Game.new(NAMES[:n], edition=edition, seed=i)
        game.started = True
        choose_dealer(game)
        state = game.rng.getstate()
        start_round(game)
        rng = random.Random()
        rng.setstate(state)
        sim = FastSim.deal(game.edition, game.players, rng,
                           dealer=game.players.index(game.dealer))
        assert describe(sim) == engine_table(game)
        kinds[game.top.kind.value] += 1
    assert len(kinds) >= 8  # numbers, draw cards, skips, reverses, grabs, wilds turned up


@pytest.mark.slow
def test_policies_make_legal_moves_and_playout_is_their_moves() -> None:
    """Every move a policy makes is legal in ``Game`` (``apply`` validates it) and leaves
    both tables equal; ``playout`` returns the hand's points as the game scores them."""
    for i in range(60):
        game = new_game(10_000 + i)
        policy = (POLICIES["random"], POLICIES["greedy"], POLICIES["uniform"],
                  per_seat([greedy_policy, random_policy] * 5))[i % 4]
        sim = FastSim.from_game(game)
        twin = FastSim.from_game(game)  # its own copy of the game's generator
        rand = random.Random(i).random
        while True:
            if sim.catchable >= 0:  # what playout does: the player at risk calls
                game.apply(move_of(sim.catchable | 3 << 15, sim.players, sim.turn))
                sim.call(sim.catchable)
            m = policy(sim, rand)
            events = game.apply(move_of(m, sim.players, sim.turn))
            sim.step(m)
            assert describe(sim) == engine_table(game) or round_won(events)
            won = round_won(events)
            if won is not None:
                assert sim.gained == [won.gained[p] for p in sim.players]
                break
        assert playout(twin, policy, random.Random(i).random) == sim.gained
        assert twin.moves > 0


def test_the_random_playouts_shortcut_changes_nothing() -> None:
    """``playout`` with ``random_policy`` makes its commonest moves without encoding them:
    the same hands as the general loop (any other function object takes it) from the same
    generator, every edition, partners included."""
    for i in range(300):
        edition = EDITION_NAMES[i % 3]
        n = 4 if i % 2 else 2 + i % 5
        teams = [["a", "c"], ["b", "d"]] if n == 4 else None
        rng = random.Random(i)
        fast = FastSim.deal(get_edition(edition), "abcdef"[:n], rng, teams=teams)
        slow = fast.clone()
        slow.rng = random.Random(i)
        fast.rng = random.Random(i)
        points = playout(fast, random_policy, random.Random(i).random)
        assert points == playout(slow, lambda s, r: random_policy(s, r),
                                 random.Random(i).random)
        assert describe(fast) == describe(slow) and fast.moves == slow.moves > 0


def test_clone_is_independent() -> None:
    game = new_game(7)
    sim = FastSim.from_game(game)
    before = describe(sim)
    copy = sim.clone()
    playout(copy, random_policy, random.Random(1).random)
    assert copy.pending == 6
    assert describe(sim) == before


def test_sampled_view_replaces_hidden_cards() -> None:
    """A seat's sampled view (other hands and the draw pile replaced) reads as the Game
    whose cards were replaced; a pending Wild Draw Four's guilt follows the sampled hand."""
    for i in range(40):
        game = new_game(20_000 + i)
        rng = random.Random(i)
        for _ in range(rng.randrange(60)):
            if game.pending is not Decision.PLAY:
                break
            game.apply(rng.choice(list(game.legal_moves(game.turn))))
        me = game.players[0]
        hidden = [c for p in game.players if p != me for c in game.s.hands[p]] + game.s.draw
        rng.shuffle(hidden)
        hands = {}
        for p in game.players:
            if p != me:
                k = len(game.s.hands[p])
                hands[p], hidden = hidden[:k], hidden[k:]
        sim = FastSim.from_game(game, hands=hands, draw=hidden)
        copy = Game.from_dict(game.to_dict())
        for p, cards in hands.items():
            copy.s.hands[p] = list(cards)
        copy.s.draw = list(hidden)
        assert describe(sim)["hands"] == engine_table(copy)["hands"]
        assert describe(sim)["draw"] == engine_table(copy)["draw"]
        assert sim.hands[0] == [CARD_ID[c] for c in game.s.hands[me]]


def test_a_pending_wild_draw_four_is_judged_on_the_sampled_hand() -> None:
    from engine import Card, Color
    game, _ = Game.from_setup(["a", "b", "c"], edition="classic", hands={
        "a": [Card.parse("W+4"), Card.parse("R1"), Card.parse("B2")],
        "b": [Card.parse("G3")], "c": [Card.parse("Y4")]},
        discard=[Card.parse("R5")], turn="a")
    game.apply(Play("a", Card.parse("W+4"), Color.BLUE))
    assert game.s.w4 is not None and game.s.w4.guilty
    assert FastSim.from_game(game).w4_guilty
    sampled = {"a": [Card.parse("B7"), Card.parse("G2")]}
    assert not FastSim.from_game(game, hands=sampled).w4_guilty


def test_a_sampled_drawn_card_is_the_last_of_the_sampled_hand() -> None:
    """The card a player drew and may play is hidden too: in a sampled view it is the
    last card of that player's sampled hand (as ``Game`` appends a drawn card)."""
    from engine import Card, Draw
    game, _ = Game.from_setup(["a", "b"], edition="classic", seed=1, hands={
        "a": [Card.parse("B1")], "b": [Card.parse("G2"), Card.parse("Y3")]},
        draw=[Card.parse("R9")], discard=[Card.parse("R5")], turn="a")
    game.apply(Draw("a"))
    assert game.pending is Decision.DRAWN and game.drawn_card == Card.parse("R9")
    assert FastSim.from_game(game).drawn == CARD_ID[Card.parse("R9")]
    sim = FastSim.from_game(game, hands={"a": [Card.parse("G2"), Card.parse("R4")]})
    assert sim.drawn == CARD_ID[Card.parse("R4")]
    sim.step(sim.drawn)  # it can be played
    assert sim.hands[0] == [CARD_ID[Card.parse("G2")]] and sim.pending == 0


def test_a_playout_that_cannot_end_stops() -> None:
    """Every card in the hands, none fits, both piles empty: nobody can move on; the
    playout stops after ``MAX_MOVES`` with nobody scoring."""
    from engine import Card
    game, _ = Game.from_setup(["a", "b"], edition="classic", hands={
        "a": [Card.parse("B1")], "b": [Card.parse("G2")]},
        draw=[], discard=[Card.parse("R5")], turn="a")
    sim = FastSim.from_game(game)
    assert playout(sim, greedy_policy, random.Random(0).random) == [0, 0]
    assert sim.moves == MAX_MOVES
    assert sim.winner == -1


def test_uniform_policy_plays_only_turn_moves() -> None:
    sim = FastSim.from_game(new_game(3))
    rand = random.Random(3).random
    for _ in range(50):
        if sim.pending == 6:
            break
        m = POLICIES["uniform"](sim, rand)
        assert is_turn_move(m) and m in legal_moves(sim, sim.turn)
        sim.step(m)
