"""The search's fast playouts (engine/players/search.py ``FastPlayout``, issue 19) against the
engine's (``EnginePlayout``): the same ``Outcome`` where they must agree.

Sampled worlds of every edition, two to six seats, partners, both scorings: where the
candidate ends the hand, both give the very same outcome (each seat's points, partners
their team's, and the totals after the hand); and where the engine is driven by the
simulator's own policy (``move_of``), whole playouts give the same outcome too.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import Accept, CallUno, Card, Challenge, Color, Decision, Draw, Game, Pass, Play, Tower
from engine.events import RoundWon
from engine.moves import Move
from engine.players import HeuristicPlayer, Notes, seat_view
from engine.players.fastcards import CHALLENGE, move_of
from engine.players.fastsim import FastSim
from engine.players.playouts import Policy, greedy_policy, normal_policy, random_policy
from engine.players.search import (
    MAX_STEPS,
    SEARCHED,
    EnginePlayout,
    FastPlayout,
    Outcome,
    candidates,
    decide,
    quick_move,
    sample,
    world,
)
from engine.players.seatview import SeatView
from engine.settings import Settings

C = Card.parse


def cards(codes: str) -> list[Card]:
    return [C(x) for x in codes.split()]


NAMES = ["ann", "bob", "cat", "dan", "eve", "fay"]


def new_game(i: int) -> Game:
    """Game ``i``: the editions in turn, 2 to 6 seats or partners (4 or 6), both scorings,
    scores already on the table (so the totals after the hand are checked)."""
    edition = ("power-grab", "classic", "victory-lap")[i % 3]
    teams = None
    if i % 4 == 3:
        n = 4 if i % 8 == 3 else 6
        teams = [[NAMES[k], NAMES[k + n // 2]] for k in range(n // 2)]
    else:
        n = 2 + i % 5
    settings = Settings(target=200, scoring="alternative" if i % 5 == 1 else "standard")
    game = Game.new(NAMES[:n], edition=edition, settings=settings, seed=i, teams=teams)
    return game


def views(count: int, seed: int) -> list[SeatView]:
    """Searched decisions of normal players' games (at most four a game), most of them a
    last card's."""
    out: list[SeatView] = []
    i = seed
    while len(out) < count:
        i += 1
        game = new_game(i)
        notes = Notes()
        notes.observe(game.start())
        bots = {p: HeuristicPlayer(i) for p in game.players}
        rng = random.Random(i)
        taken = 0
        for _step in range(400):
            if game.is_over or len(out) >= count or taken >= 4:
                break
            for q in game.players:
                r = bots[q].react(game, q)
                if r is not None and r in game.legal_moves(q):
                    notes.observe(game.apply(r))
            p = game.turn
            if game.pending in SEARCHED and rng.random() < (
                    0.7 if len(game.s.hands[p]) == 1 else 0.03):
                out.append(seat_view(game, p, notes))
                taken += 1
            move = bots[p].choose(game, p)
            assert move is not None
            notes.observe(game.apply(move))
    return out


def ends_the_hand(game: Game, move: Move) -> bool:
    return any(isinstance(e, RoundWon) for e in game.copy().push(move))


@pytest.mark.slow
def test_a_move_that_ends_the_hand_has_the_same_outcome() -> None:
    ended: Counter[str] = Counter()
    for k, view in enumerate(views(150, 0)):
        rng = random.Random(k)
        fast = FastPlayout()
        for j in range(3):
            hands, draw = sample(view, rng)
            here = world(view, hands, draw, j)
            for move in candidates(here, view.me, k):
                if not ends_the_hand(here, move):
                    continue
                slow = EnginePlayout().run(world(view, hands, draw, j), move, j)
                assert fast.run(here, move, j) == slow, (view, move)
                ended[view.edition + ("/teams" if view.teams else "")] += 1
    # every edition, alone and with partners, had hands ended this way
    assert len(ended) == 6 and sum(ended.values()) >= 60, ended


class PolicyEnginePlayout:
    """``EnginePlayout`` driven by a simulator policy: at every step the engine's table as
    a ``FastSim``, the policy's move made on the engine (``move_of``); a player left
    catchable calls UNO first, as ``playouts.playout`` has it."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def run(self, game: Game, first: Move, seed: int) -> Outcome:
        rand = random.Random(seed).random
        move = first
        for _step in range(MAX_STEPS):
            for e in game.push(move):
                if isinstance(e, RoundWon):
                    return Outcome(dict(e.gained), dict(game.s.scores))
            if game.s.catchable is not None:
                game.push(CallUno(game.s.catchable))
            sim = FastSim.from_game(game)
            move = move_of(self.policy(sim, rand), game.players, sim.turn)
        return Outcome({q: 0 for q in game.players}, dict(game.s.scores))


@pytest.mark.slow
def test_whole_playouts_agree_with_the_engine_playing_the_same_policy() -> None:
    played = 0
    for k, view in enumerate(views(80, 1000)):
        rng = random.Random(k)
        for policy in (greedy_policy, normal_policy, random_policy):
            fast = FastPlayout(policy)
            hands, draw = sample(view, rng)
            here = world(view, hands, draw, k)
            for move in candidates(here, view.me, k):
                slow = PolicyEnginePlayout(policy).run(world(view, hands, draw, k), move, k)
                assert fast.run(here, move, k) == slow, (view, move, policy)
                played += 1
    assert played > 300


@pytest.mark.slow
def test_the_search_is_the_same_whichever_playout_agrees() -> None:
    """``decide`` gives a playout that keeps its world one world for all the candidates:
    with the engine driven by the same policy (a fresh world each), the same moves."""
    for k, view in enumerate(views(25, 2000)):
        fast = decide(view, seed=k, samples=6, playout=FastPlayout())
        slow = decide(view, seed=k, samples=6, playout=PolicyEnginePlayout(greedy_policy))
        assert fast == slow


def _policy_move(policy: Policy, game: Game) -> Move:
    sim = FastSim.from_game(game)
    return move_of(policy(sim, random.Random(0).random), game.players, sim.turn)


def test_the_normal_policy_keeps_a_draw_card_the_next_players_tower_blocks() -> None:
    """RULES.md section 9 (R-TOWERS): Ann holds N, which blocks a Draw Two. The playouts'
    normal policy, like the normal player, keeps its Draw Two and plays the Y3; the old
    greedy one threw the Draw Two away into the block."""
    game, _ = Game.from_setup(
        ["bot", "ann"], seed=3,
        hands={"bot": cards("Y+2 Y3 G4 B5"), "ann": cards("R1 R2")},
        discard=cards("Y5"), towers={Tower.N: "ann"}, turn="bot")
    assert HeuristicPlayer(0).choose(game, "bot") == Play("bot", C("Y3"))
    assert _policy_move(normal_policy, game) == Play("bot", C("Y3"))
    assert _policy_move(greedy_policy, game) == Play("bot", C("Y+2"))


def test_the_normal_policy_keeps_a_drawn_wild_while_it_has_another_card_to_play() -> None:
    """RULES.md section 6 (R-DRAW-PLAY): the drawn card is a Wild Grab, and the hand has four
    more cards with a yellow among them: the normal policy keeps the Wild Grab (passes), as the
    normal player does."""
    game, _ = Game.from_setup(
        ["bot", "ann"], seed=3,
        hands={"bot": cards("Y3 G4 B5 G8"), "ann": cards("R1 R2 R3")},
        draw=cards("WG"), discard=cards("Y5"), turn="bot")
    game.apply(Draw("bot"))
    assert game.pending is Decision.DRAWN
    assert HeuristicPlayer(0).choose(game, "bot") == Pass("bot")
    assert _policy_move(normal_policy, game) == Pass("bot")
    assert isinstance(_policy_move(greedy_policy, game), Play)


def test_the_playouts_answer_a_wild_draw_four_as_the_normal_player_does() -> None:
    """Issue 29, bug 14: the playouts accepted every Wild Draw Four, so inside a search a
    bluff was free. Their victims now answer as the normal player would (R-WD4-CHALLENGE;
    engine/players/challenges.py), from what the victim sees: the odds of a bluff by the
    bluffer's hand size and public record, and never a partner's card. Pending Wild Draw
    Fours of normal players' games (two to six seats, partners), the bluffer's record
    set to each of several: the greedy and normal policies and the engine's playout
    (``quick_move``) answer as ``HeuristicPlayer`` does, and both answers occur."""
    answers: Counter[str] = Counter()
    found = 0
    i = 0
    while found < 12:
        i += 1
        game = new_game(i)
        game.start()
        bots = {p: HeuristicPlayer(i) for p in game.players}
        for _step in range(600):
            if game.is_over or game.pending is Decision.CHALLENGE:
                break
            p = game.turn
            game.push(bots[p].choose(game, p))  # type: ignore[arg-type]
        if game.pending is not Decision.CHALLENGE:
            continue
        found += 1
        victim, against = game.turn, game.challenge_against
        assert against is not None
        for record in ((0, 0), (2, 1), (3, 3), (8, 8)):
            game.stats[against].w4_challenged, game.stats[against].bluffs_caught = record
            normal = HeuristicPlayer(0).choose(game, victim)
            assert normal is not None
            answers[type(normal).__name__] += 1
            for policy in (greedy_policy, normal_policy):
                assert _policy_move(policy, game) == normal, (i, record, policy)
            assert quick_move(game, victim, random.Random(0)) == normal, (i, record)
    assert answers["Challenge"] and answers["Accept"], answers


def test_a_bluff_is_challenged_in_the_playouts_by_the_bluffers_record() -> None:
    """The hard player's bluff (a red 7 kept, a Wild Draw Four played on a red 3): Ann, a
    normal player, accepts it from a clean record and challenges it from a player caught
    bluffing three times in three; the playouts do the same, and there the challenge finds
    the bluff and the bluffer draws four (the simulator's record counts it, as the
    engine's ``stats`` do)."""
    for record, challenged in (((0, 0), False), ((3, 3), True)):
        game, _ = Game.from_setup(["bot", "ann"], edition="classic", seed=2,
                                  hands={"bot": cards("W+4 R7 B5 G1 Y2"),
                                         "ann": cards("G2 B3 Y4 Y5")},
                                  discard=cards("R3"), turn="bot")
        game.stats["bot"].w4_challenged, game.stats["bot"].bluffs_caught = record
        game.apply(Play("bot", C("W+4"), Color.BLUE))
        assert game.pending is Decision.CHALLENGE
        sim = FastSim.from_game(game)
        assert sim.w4_guilty and sim.w4_color == 0  # red, before the Wild Draw Four
        answer = greedy_policy(sim, random.Random(0).random)
        assert isinstance(HeuristicPlayer(0).choose(game, "ann"),
                          Challenge if challenged else Accept)
        assert (answer == CHALLENGE) is challenged
        sim.step(answer)
        assert len(sim.hands[0]) == (8 if challenged else 4)
        assert sim.record[0] == ((4, 4) if challenged else (0, 0))
