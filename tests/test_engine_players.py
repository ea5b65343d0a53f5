"""Computer players: deterministic under a seed, and the heuristic one plays well."""

from __future__ import annotations

from engine import Card, Game
from engine.players import BasicPlayer, HeuristicPlayer, RandomPlayer
from engine.simulate import run_game, simulate


def test_heuristic_beats_a_plain_player_head_to_head() -> None:
    """Over 150 two-player games the heuristic player (towers, blockers, challenges, UNO,
    catches) beats a player who just plays the first matching card."""
    summary = simulate(150, 2, "power-grab", 11, ["heuristic", "basic"])
    rates = summary.to_dict()["win_rate_by_strategy"]
    assert rates["heuristic"] >= 0.65, rates


def test_heuristic_beats_plain_players_at_a_full_table() -> None:
    """One heuristic seat against three plain ones wins more than its fair quarter."""
    summary = simulate(300, 4, "power-grab", 21, ["heuristic", "basic", "basic", "basic"])
    rates = summary.to_dict()["win_rate_by_strategy"]
    assert rates["heuristic"] > 0.25 > rates["basic"], rates


def test_heuristic_crushes_random() -> None:
    summary = simulate(40, 3, "classic", 2, ["heuristic", "random", "random"])
    assert summary.to_dict()["win_rate_by_strategy"]["heuristic"] >= 0.9


def cards(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


def _play(seed: int, kind: type[HeuristicPlayer] | type[RandomPlayer] | type[BasicPlayer]
          ) -> dict[str, object]:
    game = Game.new(["a", "b", "c"], seed=seed)
    game.start()
    run_game(game, {p: kind(seed + i) for i, p in enumerate(game.players)})
    return game.to_dict()


def test_players_are_deterministic_under_a_seed() -> None:
    for kind in (HeuristicPlayer, RandomPlayer, BasicPlayer):
        assert _play(4, kind) == _play(4, kind)
    assert _play(4, HeuristicPlayer) != _play(5, HeuristicPlayer)


def test_heuristic_goes_for_instant_uno_and_challenges_likely_bluffs() -> None:
    """With three towers and a grab card in hand it takes the fourth (instant UNO); facing a
    Wild Draw Four from a big hand when its colour is common, it challenges."""
    from engine import Challenge, Color, Play, Tower

    g, _ = Game.from_setup(["me", "you"], hands={"me": cards("R4! R5 B6 Y7"),
                                                  "you": cards("G1 G2")},
                           discard=[Card.parse("R9")],
                           towers={Tower.U: "me", Tower.N: "me", Tower.O: "me"}, turn="me")
    move = HeuristicPlayer(1).choose(g, "me")
    assert isinstance(move, Play) and move.card == Card.parse("R4!")

    g2, _ = Game.from_setup(["me", "you"], hands={"me": cards("R5"),
                                                   "you": cards("W+4 R1 R2 R3 R1 R2 R3 R6")},
                            discard=[Card.parse("R9")], turn="you")
    g2.apply(Play("you", Card.parse("W+4"), Color.BLUE))
    assert isinstance(HeuristicPlayer(1).choose(g2, "me"), Challenge)
