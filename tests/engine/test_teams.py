"""Partner play, single-hand games and partner matches (sheet 004, "Playing with Partners"
and "Multi-Table Tournaments"; RULINGS, "Victory Lap edition (sheet 004)"; RULES.md
section 19)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Card,
    Color,
    EngineError,
    Game,
    IllegalMoveError,
    Match,
    ParseError,
    Play,
    Settings,
    SettingsError,
    Tower,
)
from engine.events import Drew, Event, Played, RoundWon
from engine.match import whist_rounds
from engine.moves import Accept, Catch, Challenge, Move
from engine.players import HeuristicPlayer, Strategy
from engine.tools.simulate import play_match, run_game

HERE = Path(__file__).parent / "scenarios"
ROOT = Path(__file__).resolve().parents[2]
FOUR = ["Ann", "Ben", "Cy", "Dee"]
TEAMS = [["Ann", "Cy"], ["Ben", "Dee"]]


def cards(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


def lines_of(name: str) -> list[dict[str, Any]]:
    text = (HERE / f"{name}.expected.jsonl").read_text(encoding="utf-8")
    return [json.loads(x) for x in text.splitlines()]


# ---------------------------------------------------------------------- seating
SIX = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay"]
THREE = [["Ann", "Dee"], ["Ben", "Eve"], ["Cy", "Fay"]]


@pytest.mark.parametrize(("players", "teams", "words"), [
    (FOUR, [["Ann", "Ben"], ["Cy", "Dee"]],
     "Partners sit across the table: Ann sits in seat 1, so their partner must sit in seat 3"),
    (FOUR, [["Ann", "Cy", "Ben"], ["Dee"]], "every team is two players, not 3"),
    (FOUR, [["Ann"], ["Cy"], ["Ben", "Dee"]], "every team is two players, not 1"),
    (FOUR, [["Ann", "Cy"], ["Ben", "Eve"]], "Dee is not on a team"),
    (FOUR, [["Ann", "Cy"], ["Ben", "Dee"], ["Eve", "Fay"]], "Eve is on a team but not seated"),
    (FOUR, [["Ann", "Cy"], ["Ben", "Cy"]], "only one team"),
    (FOUR, ["AnnCy", "BenDee"], "by name"),
    (["Ann", "Ben", "Cy"], [["Ann", "Cy"], ["Ben"]], "4 or 6 players"),
    (list("abcdefgh"), [list("ae"), list("bf"), list("cg"), list("dh")], "4 or 6 players"),
    # six players: the old two alternating teams of three, and pairs not across
    (SIX, [["Ann", "Cy", "Eve"], ["Ben", "Dee", "Fay"]], "every team is two players, not 3"),
    (SIX, [["Ann", "Cy"], ["Ben", "Eve"], ["Dee", "Fay"]],
     "Ann sits in seat 1, so their partner must sit in seat 4"),
    (SIX, [["Ann", "Dee"], ["Ben", "Fay"], ["Cy", "Eve"]],
     "Ben sits in seat 2, so their partner must sit in seat 5"),
    (SIX, [["Ann", "Dee"], ["Ben", "Eve"]], "Cy is not on a team"),
])
def test_teams_are_refused_unless_partners_sit_across(players: list[str],
                                                      teams: list[list[str]],
                                                      words: str) -> None:
    """R-TEAM-SEATS (sheet 004, Playing with Partners: partners sit across; RULINGS): teams
    of exactly two, 4 or 6 players, every seated player on one team, partners in seats i
    and i + n/2; anything else is refused with one sentence."""
    with pytest.raises(SettingsError, match=words) as info:
        Game.new(players, edition="classic", teams=teams)
    assert str(info.value).count(". ") == 0 and str(info.value).endswith(".")


def test_six_players_are_three_teams_of_two_sitting_across() -> None:
    """R-TEAM-SEATS: six players are three teams of two, seat i partnering seat i + 3; the
    teams keep the order given."""
    g = Game.new(SIX, teams=THREE, seed=1)
    assert g.teams == (("Ann", "Dee"), ("Ben", "Eve"), ("Cy", "Fay"))
    assert g.partners("Ann") == ("Dee",) and g.partners("Fay") == ("Cy",)
    assert g.are_partners("Ben", "Eve") and g.are_partners("Eve", "Ben")
    assert not g.are_partners("Ann", "Ben") and not g.are_partners("Ann", "Cy")
    assert not g.are_partners("Ann", "Ann")
    assert [g.team_of(p) for p in SIX] == [0, 1, 2, 0, 1, 2]
    assert g.team_scores == [0, 0, 0]
    # the order of the teams and within a team is the caller's
    h = Game.new(SIX, teams=[["Fay", "Cy"], ["Ann", "Dee"], ["Eve", "Ben"]], seed=1)
    assert h.team_of("Cy") == 0 and h.team_of("Ann") == 1 and h.team_of("Ben") == 2
    assert h.partners("Cy") == ("Fay",)


def test_four_players_are_two_teams_across() -> None:
    """R-TEAM-SEATS: four players are two teams of two, seats 0-2 and 1-3."""
    g = Game.new(FOUR, teams=[["Ben", "Dee"], ["Cy", "Ann"]], seed=1)
    assert g.partners("Ann") == ("Cy",) and g.team_of("Ann") == 1 and g.team_scores == [0, 0]


@pytest.mark.parametrize("players", [FOUR, SIX])
def test_seat_shuffle_keeps_partners_across(players: list[str]) -> None:
    """R-TEAM-SEATS with the seat-shuffle setting: which pair sits where and the order
    within each pair are shuffled, partners still across."""
    n = len(players)
    teams = [[players[i], players[i + n // 2]] for i in range(n // 2)]
    seen = set()
    for seed in range(40):
        g = Game.new(players, teams=teams, seed=seed, settings=Settings(shuffle_seats=True))
        g.start()
        assert sorted(g.players) == sorted(players)
        for i, p in enumerate(g.players):
            assert g.partners(p) == (g.players[(i + n // 2) % n],), g.players
        assert [list(t) for t in g.teams] == teams  # the team order stays as given
        seen.add(tuple(g.players))
    assert len(seen) > 5  # the seats really move


# ---------------------------------------------------------------------- scoring
def partner_setup(**kw: Any) -> Game:
    game, _ = Game.from_setup(
        FOUR, teams=TEAMS, hands={"Ann": cards("R5 G9"), "Ben": cards("R3 BS"),
                                  "Cy": cards("R7"), "Dee": cards("Y+2 WG")},
        draw=cards("G1 G2 G3 G4"), discard=cards("R6"), turn="Cy", dealer="Ben", **kw)
    return game


def test_partner_going_out_scores_only_the_opposing_hands() -> None:
    """R-TEAM-SCORE (sheet 004, Playing with Partners): when either partner goes out the
    round ends and the team scores the cards in both opposing hands, not the partner's."""
    g = partner_setup()
    events = g.apply(Play("Cy", Card.parse("R7")))
    won = next(e for e in events if isinstance(e, RoundWon))
    assert won.player == "Cy" and won.team == ("Ann", "Cy")
    assert won.points == 3 + 20 + 20 + 50  # R3, BS, Y+2, WG; Ann's R5 and G9 don't count
    assert won.gained == {"Ann": 93, "Ben": 0, "Cy": 93, "Dee": 0}
    assert g.team_scores == [93, 0]
    assert g.stats["Cy"].rounds_won == 1 and g.stats["Ann"].rounds_won == 0
    assert g.stats["Ann"].team_rounds_won == g.stats["Cy"].team_rounds_won == 1
    assert won.to_dict()["team"] == ["Ann", "Cy"]
    assert g.public_view()["team_scores"] == [93, 0]
    assert g.public_view()["teams"] == TEAMS


def six_setup(**kw: Any) -> Game:
    """Three teams: Ann-Dee, Ben-Eve, Cy-Fay. Eve is about to go out with B7."""
    game, _ = Game.from_setup(
        SIX, teams=THREE,
        hands={"Ann": cards("R5 G9"), "Ben": cards("R3"), "Cy": cards("BS Y1"),
               "Dee": cards("W+4"), "Eve": cards("B7"), "Fay": cards("G+2 Y8")},
        draw=cards("G1 G2 G3 G4"), discard=cards("B6"), turn="Eve", dealer="Dee", **kw)
    return game


def test_six_player_partner_scores_both_opposing_teams_hands() -> None:
    """R-TEAM-SCORE (sheet 004, Playing with Partners): with three teams, the team of the
    player who goes out scores the cards in all four opposing hands (two teams), not the
    partner's own hand; both partners add it, the other teams add nothing."""
    g = six_setup()
    events = g.apply(Play("Eve", Card.parse("B7")))
    won = next(e for e in events if isinstance(e, RoundWon))
    assert won.player == "Eve" and won.team == ("Ben", "Eve")
    # Ann R5 G9 (14) + Dee W+4 (50) + Cy BS Y1 (21) + Fay G+2 Y8 (28); Ben's R3 is his own
    assert won.points == 14 + 50 + 21 + 28 == 113
    assert won.gained == {"Ann": 0, "Ben": 113, "Cy": 0, "Dee": 0, "Eve": 113, "Fay": 0}
    assert g.team_scores == [0, 113, 0]
    assert g.scores == won.gained
    assert g.stats["Eve"].rounds_won == 1 and g.stats["Ben"].rounds_won == 0
    assert g.stats["Ben"].team_rounds_won == g.stats["Eve"].team_rounds_won == 1
    assert g.stats["Ann"].team_rounds_won == g.stats["Fay"].team_rounds_won == 0
    assert won.to_dict()["team"] == ["Ben", "Eve"]
    assert g.public_view()["teams"] == THREE
    assert g.public_view()["team_scores"] == [0, 113, 0]
    assert g.player_view("Cy")["team_scores"] == [0, 113, 0]


def test_six_player_team_reaching_the_target_wins_together() -> None:
    """R-TEAM-SCORE: the three team totals race to the target; the two partners who reach
    it are the winners, whatever their seats."""
    g = six_setup(settings=Settings(target=150),
                  scores={"Ann": 100, "Ben": 40, "Eve": 30, "Cy": 120})
    assert g.team_scores == [100, 40, 120]  # a team starts at its best member's score
    g.apply(Play("Eve", Card.parse("B7")))
    assert g.is_over and g.winners == ["Ben", "Eve"] and g.team_scores == [100, 153, 120]
    assert g.stats["Ben"].team_games_won == g.stats["Eve"].team_games_won == 1
    assert g.stats["Cy"].team_games_won == 0


def test_six_player_alternative_scoring_adds_each_teams_own_hands() -> None:
    """R-TEAM-ALT (engine): under alternative scoring each of the three teams adds the cards
    left in its own two hands; when one reaches the target the lowest total wins."""
    g = six_setup(settings=Settings(target=100, scoring="alternative"), scores={"Cy": 60})
    g.apply(Play("Eve", Card.parse("B7")))
    assert g.team_scores == [64, 3, 109]  # Ann+Dee 14+50, Ben+Eve 3+0, Cy+Fay 60+21+28
    assert g.is_over and g.winners == ["Ben", "Eve"]


def test_tied_teams_share_the_win() -> None:
    """R-TEAM-SCORE: teams level on the winning total share the win (every player of
    every such team is a winner)."""
    g = six_setup(settings=Settings(target=200), scores={"Ann": 113, "Cy": 20})
    g.max_rounds = 1  # the last round: the highest total wins though none reached 200
    g.apply(Play("Eve", Card.parse("B7")))
    assert g.team_scores == [113, 113, 20]
    assert g.is_over and g.winners == ["Ann", "Ben", "Dee", "Eve"]


def test_round_won_has_no_team_key_without_teams() -> None:
    """RULINGS, replay teams: without teams the round_won line is unchanged."""
    g, _ = Game.from_setup(["a", "b"], hands={"a": cards("R7"), "b": cards("R1")},
                           discard=cards("R6"), turn="a")
    won = next(e for e in g.apply(Play("a", Card.parse("R7"))) if isinstance(e, RoundWon))
    assert "team" not in won.to_dict() and "team_scores" not in g.public_view()


def test_team_reaching_the_target_wins_together() -> None:
    """R-TEAM-SCORE: team totals race to the target; both partners are the winners."""
    g = partner_setup(settings=Settings(target=100), scores={"Ann": 20, "Cy": 10})
    assert g.team_scores == [20, 0] and g.scores["Cy"] == 20  # partners share a score
    g.apply(Play("Cy", Card.parse("R7")))
    assert g.is_over and g.winners == ["Ann", "Cy"] and g.team_scores == [113, 0]
    assert g.stats["Ann"].team_games_won == g.stats["Cy"].team_games_won == 1
    assert g.stats["Ben"].team_games_won == 0


def test_alternative_scoring_with_teams_counts_each_teams_own_hands() -> None:
    """R-TEAM-ALT (engine): under alternative scoring every team adds the cards left in
    its own hands, and the lowest team total wins when a team reaches the target."""
    g = partner_setup(settings=Settings(target=100, scoring="alternative"))
    g.apply(Play("Cy", Card.parse("R7")))
    assert g.team_scores == [14, 93]  # Ann's R5 G9; Ben's R3 BS, Dee's Y+2 WG
    assert not g.is_over  # 93 < 100
    assert g.scores == {"Ann": 14, "Ben": 93, "Cy": 14, "Dee": 93}


def test_alternative_scoring_with_partners_charges_each_team_its_own_hands() -> None:
    """R-TEAM-ALT (RULINGS, Alternative scoring with partners): at the end of a hand every
    team is charged the points left in its members' hands (the player who went out holds
    none; their partner's cards count); when a team's total reaches the target the game ends
    and the lowest team total wins."""
    g = partner_setup(settings=Settings(target=100, scoring="alternative"),
                      scores={"Ann": 90, "Ben": 10})
    events = g.apply(Play("Cy", Card.parse("R7")))
    won = next(e for e in events if isinstance(e, RoundWon))
    assert won.team == ("Ann", "Cy") and won.points == 0
    # Cy went out (none); Ann's R5 G9 count for Cy's team; Ben's R3 BS + Dee's Y+2 WG
    assert won.gained == {"Ann": 14, "Ben": 93, "Cy": 14, "Dee": 93}
    assert g.team_scores == [104, 103]
    assert g.is_over and g.winners == ["Ben", "Dee"], "the lowest total wins, not the 100"


def test_alternative_scoring_with_partners_ties_for_lowest_all_win() -> None:
    """R-TEAM-ALT (RULINGS, Alternative scoring with partners: teams tied for lowest all
    win): two of three teams level on the lowest total share the win."""
    g = six_setup(settings=Settings(target=100, scoring="alternative"),
                  scores={"Ann": 40, "Ben": 101, "Cy": 57})
    g.apply(Play("Eve", Card.parse("B7")))
    # Ann+Dee 40+14+50, Ben+Eve 101+3, Cy+Fay 57+21+28
    assert g.team_scores == [104, 104, 106]
    assert g.is_over and g.winners == ["Ann", "Ben", "Dee", "Eve"]


def test_single_hand_game_ends_after_one_round() -> None:
    """R-HANDS (engine): a game of ``max_rounds=1`` ends after its round, highest total
    winning, as a match plays its hands."""
    g = partner_setup()
    g.max_rounds = 1
    g.apply(Play("Cy", Card.parse("R7")))
    assert g.is_over and g.winners == ["Ann", "Cy"] and g.round_number == 1
    with pytest.raises(SettingsError):
        Game.new(FOUR, max_rounds=0)


def test_tower_grab_from_partner_is_a_grab_and_partners_towers_do_not_block() -> None:
    """R-TEAM-TOWERS (RULINGS, Victory Lap edition; sheet 004): towers belong to players, not
    teams: a Power Icon grabs the tower from one's partner, and a partner's tower blocks
    nothing aimed at you."""
    out = lines_of("partner_tower_grab")
    grabs = [e for e in out if e["event"] == "tower"]
    assert grabs[0] == {"event": "tower", "player": "Cy", "tower": "U", "from": "Ann"}
    assert grabs[1] == {"event": "tower", "player": "Ann", "tower": "U", "from": "Cy"}
    assert not any(e["event"] == "blocked" for e in out)
    assert {"event": "skipped", "player": "Cy"} in out


def test_instant_uno_by_a_partner_then_going_out_wins_for_the_team() -> None:
    """R-TEAM-TOWERS: instant UNO needs all four towers in one hand; the partner who made it
    keeps one card, and going out with it wins the round for the team."""
    out = lines_of("partner_instant_uno")
    assert any(e["event"] == "instant_uno" and e["player"] == "Cy" for e in out)
    won = next(e for e in out if e["event"] == "round_won")
    assert won["team"] == ["Ann", "Cy"] and won["points"] == 30
    assert out[-1]["team_scores"] == [30, 0] and out[-1]["winners"] == ["Ann", "Cy"]


def test_partner_goes_out_scenario() -> None:
    """R-TEAM-SCORE: the replay's round_won names the team, the state has team_scores."""
    out = lines_of("partner_goes_out")
    won = next(e for e in out if e["event"] == "round_won")
    assert won["team"] == ["Ann", "Cy"] and won["points"] == 90
    assert out[-1]["team_scores"] == [240, 40]


def test_six_player_three_team_scenario() -> None:
    """R-TEAM-SCORE with six players (sheet 004, Playing with Partners; RULINGS): Dee, in
    seat 4 across from her partner Ann, goes out with a Draw Two; Eve draws two first, and
    the team scores the four opposing hands (Ben BS, Cy Y4, Eve B7 WG G1 G2, Fay G+2 Y8),
    not Ann's G9; the team total reaches the target."""
    out = lines_of("partner_six_three_teams")
    won = next(e for e in out if e["event"] == "round_won")
    assert won["player"] == "Dee" and won["team"] == ["Ann", "Dee"]
    assert won["points"] == 20 + 4 + (7 + 50 + 1 + 2) + (20 + 8) == 112
    assert out[-1]["team_scores"] == [212, 150, 90]
    assert out[-1]["winners"] == ["Ann", "Dee"]


def test_last_team_standing_wins_when_the_others_leave() -> None:
    """R-TEAM-LEAVE (engine): when only one team has players left, it wins."""
    g = Game.new(FOUR, teams=TEAMS, seed=3)
    g.start()
    g.remove_player("Ben")
    assert not g.is_over
    g.remove_player("Dee")
    assert g.is_over and g.winners == ["Ann", "Cy"]


def test_with_three_teams_the_game_goes_on_until_one_team_is_left() -> None:
    """R-TEAM-LEAVE: with three teams, a whole team leaving leaves two teams playing; when
    only one team has players left, it wins (a lone partner included)."""
    g = Game.new(SIX, teams=THREE, seed=3)
    g.start()
    g.remove_player("Ben")
    g.remove_player("Eve")
    assert not g.is_over and g.team_scores == [0, 0, 0]
    g.remove_player("Cy")
    assert not g.is_over and g.partners("Fay") == ()
    g.remove_player("Fay")
    assert g.is_over and sorted(g.winners) == ["Ann", "Dee"]


# ---------------------------------------------------------------------- saved format
def test_teams_survive_a_save_and_older_saves_still_read() -> None:
    """R-SAVE: teams, team_scores and max_rounds round-trip; a version-2 save (no teams)
    still reads as a game without teams."""
    g = Game.new(FOUR, teams=TEAMS, seed=5, max_rounds=3)
    g.start()
    saved = json.loads(json.dumps(g.to_dict()))
    back = Game.from_dict(saved)
    assert back.teams == (("Ann", "Cy"), ("Ben", "Dee")) and back.max_rounds == 3
    assert back.to_dict() == saved
    plain = Game.new(FOUR, seed=5)
    plain.start()
    old = plain.to_dict()
    old["version"] = 2
    for key in ("teams", "max_rounds", "team_scores"):
        del old[key]
    again = Game.from_dict(old)
    assert again.teams == () and again.team_scores == [] and again.max_rounds is None


def test_six_player_teams_survive_a_save_mid_game() -> None:
    """R-SAVE: a three-team game round-trips through to_dict/from_dict, after a scored round
    and after a player left, and plays on exactly as the original."""
    g = six_setup(settings=Settings(target=300))
    g.apply(Play("Eve", Card.parse("B7")))
    assert not g.is_over and g.team_scores == [0, 113, 0]
    g.remove_player("Cy")
    saved = json.loads(json.dumps(g.to_dict()))
    assert saved["teams"] == THREE and saved["team_scores"] == [0, 113, 0]
    back = Game.from_dict(saved)
    assert back.teams == tuple(tuple(t) for t in THREE) and back.to_dict() == saved
    assert back.partners("Fay") == () and back.partners("Ann") == ("Dee",)
    bots = {p: HeuristicPlayer(i) for i, p in enumerate(SIX)}
    twins = {p: HeuristicPlayer(i) for i, p in enumerate(SIX)}
    run_game(g, bots)
    run_game(back, twins)
    assert back.to_dict() == g.to_dict() and g.is_over
    with pytest.raises(SettingsError, match="two players"):  # not a pair: refused
        Game.from_dict({**saved, "teams": [["Ann", "Dee", "Ben"], ["Eve"], ["Fay"]]})


# ---------------------------------------------------------------------- properties
def random_move(game: Game, rng: random.Random) -> Move:
    options: list[Move] = []
    for p in game.players:
        options += list(game.legal_moves(p))
    return rng.choice(options)


def hands_at_round_end(before: dict[str, tuple[Card, ...]], events: list[Event],
                       points: Any) -> dict[str, int]:
    """The points left in every hand when the round ended, from the hands before the move
    and what its events show before ``round_won``: the last card played, the cards a
    drawing last card made the next player draw (R-LAST-DRAW)."""
    held = {p: list(h) for p, h in before.items()}
    for e in events:
        if isinstance(e, RoundWon):
            break
        if isinstance(e, Played):
            held[e.player].remove(e.card)
        elif isinstance(e, Drew):
            held[e.player] += e.cards
    return {p: sum(points(c) for c in h) for p, h in held.items()}


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), six=st.booleans(),
       edition=st.sampled_from(["power-grab", "classic", "victory-lap"]),
       scoring=st.sampled_from(["standard", "alternative"]),
       shuffle=st.booleans(), data=st.randoms(use_true_random=False))
def test_random_partner_games_keep_every_invariant(seed: int, six: bool, edition: str,
                                                   scoring: str, shuffle: bool,
                                                   data: random.Random) -> None:
    """R-TEAM-SEATS, R-TEAM-SCORE, R-TEAM-ALT, R-TOWERS: in random partner games (four
    players in two teams, six in three) partners stay across, cards are conserved, the
    four towers are always somewhere, scores never decrease, partners always share their
    team's total, each team total equals the sum of the hands scored for it (standard:
    every opposing hand when one of the team went out; alternative: its own two hands),
    and the winners are every player of the best team total."""
    players = list("abcdef") if six else list("abcd")
    n = len(players)
    teams = [[players[i], players[i + n // 2]] for i in range(n // 2)]
    g = Game.new(players, edition=edition, seed=seed, teams=teams,
                 settings=Settings(target=100, scoring=scoring, shuffle_seats=shuffle))
    g.start()
    for i, p in enumerate(g.players):
        assert g.partners(p) == (g.players[(i + n // 2) % n],)
    deck = Counter(g.edition.deck)
    gains = [0 for _ in teams]
    rounds = 0
    scores = g.scores
    for _ in range(400):
        if g.is_over:
            break
        before = {p: g.hand(p) for p in g.players}
        events = g.apply(random_move(g, data))
        for e in events:
            if not isinstance(e, RoundWon):
                continue
            held = hands_at_round_end(before, events, g.card_points)
            rounds += 1
            ours = g.team_of(e.player)
            assert ours is not None and e.team == tuple(teams[ours])
            for i, team in enumerate(teams):
                if scoring == "standard":
                    want = sum(held[q] for q in players if g.team_of(q) != ours) * (i == ours)
                else:
                    want = held[team[0]] + held[team[1]]
                assert e.gained[team[0]] == e.gained[team[1]] == want
                gains[i] += want
            if scoring == "standard":
                assert e.points == e.gained[e.player]
        assert g.all_cards() == deck
        assert set(g.towers) == set(Tower)
        assert all(h is None or h in players for h in g.towers.values())
        now = g.scores
        assert all(now[p] >= scores[p] for p in now)
        scores = now
        assert g.team_scores == gains
        for i, team in enumerate(teams):
            assert now[team[0]] == now[team[1]] == g.team_scores[i]
    assert rounds == g.round_number - (not g.is_over)
    if g.is_over:
        best = (max if scoring == "standard" else min)(g.team_scores)
        assert set(g.winners) == {p for p in players
                                  if g.team_scores[g.team_of(p) or 0] == best}


@settings(max_examples=20, deadline=None)
@given(hpp=st.integers(1, 4), seed=st.integers(0, 10**6))
def test_tournament_pairs_everyone_evenly(hpp: int, seed: int) -> None:
    """R-TOURNAMENT (sheet 004, Multi-Table Tournaments; RULINGS): every two of the eight
    are partners exactly ``hands_per_pairing`` times (4 by default: 28 hands each) and
    opponents twice as often (8 by default); every round splits the 8 into two tables."""
    players = [f"p{i}" for i in range(8)]
    m = Match.tournament(players, hands_per_pairing=hpp, rng=random.Random(seed))
    assert len(m.schedule) == 7 * hpp
    partners, opponents = m.pair_counts()
    for a, b in combinations(players, 2):
        assert partners.get(frozenset((a, b)), 0) == hpp
        assert opponents.get(frozenset((a, b)), 0) == 2 * hpp
    for rnd in m.schedule:
        assert len(rnd) == 2
        seated = [p for hand in rnd for p in hand.seats]
        assert sorted(seated) == sorted(players)
        for hand in rnd:  # partners sit across
            assert hand.teams == ((hand.seats[0], hand.seats[2]),
                                  (hand.seats[1], hand.seats[3]))
    assert all(n == 7 * hpp for n in Counter(
        p for h in m.hands() for p in h.seats).values())


def test_default_tournament_is_28_hands_each_and_the_design_is_whist() -> None:
    """R-TOURNAMENT: 28 rounds by default; the base design is a Wh(8)."""
    m = Match.tournament([f"p{i}" for i in range(8)])
    assert m.hands_per_pairing == 4 and len(m.schedule) == 28 and m.hand_count == 56
    rounds = whist_rounds()
    pairs = Counter(frozenset(t) for rnd in rounds for table in rnd for t in table)
    assert len(pairs) == 28 and set(pairs.values()) == {1}


def test_rotating_match_partners_each_other_once() -> None:
    """R-ROTATING (sheet 004, Playing with Partners): three hands, each player partnering
    each other player once."""
    m = Match.rotating(FOUR)
    assert m.hand_count == 3
    partners, opponents = m.pair_counts()
    assert set(partners.values()) == {1} and len(partners) == 6
    assert set(opponents.values()) == {2}
    assert len(Match.rotating(FOUR, hands_per_pairing=2).schedule) == 6
    with pytest.raises(SettingsError):
        Match.rotating(["a", "b", "c"])
    with pytest.raises(SettingsError):
        Match.tournament([f"p{i}" for i in range(8)], hands_per_pairing=5)


def test_individual_totals_add_each_partnerships_hands() -> None:
    """R-MATCH-SCORE (sheet 004): each player keeps what their partnerships scored; the
    highest total wins, ties broken by hands won, then shared."""
    m = Match.rotating(FOUR)
    h1, h2, h3 = m.hands()
    assert m.next_hands() == [h1]
    m.record(h1, (40, 0), won_by=0)
    with pytest.raises(IllegalMoveError):
        m.record(h1, (1, 0))
    with pytest.raises(IllegalMoveError):
        m.record(h3, (1, 0))  # round 2 is being played
    m.record(h2, (0, 40), won_by=1)
    events = m.record(h3, (30, 0), won_by=0)
    totals = m.totals()
    expected = dict.fromkeys(FOUR, 0)
    for h, pts in zip((h1, h2, h3), ((40, 0), (0, 40), (30, 0)), strict=True):
        for team, v in zip(h.teams, pts, strict=True):
            for p in team:
                expected[p] += v
    assert totals == expected
    assert m.is_over and events[-1].kind == "match_won"
    top = max(totals.values())
    assert set(m.winners) <= {p for p in FOUR if totals[p] == top}
    places = {s.player: s.place for s in m.standings()}
    assert all(places[w] == 1 for w in m.winners)


def test_ties_on_total_and_hands_won_share_first_place() -> None:
    """R-MATCH-SCORE: players equal on total and hands won share the win."""
    m = Match.rotating(FOUR)
    for h in m.hands():
        m.record(h, (10, 10))
    assert sorted(m.winners) == sorted(FOUR)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 1000), cut=st.integers(0, 7))
def test_match_round_trips_mid_match(seed: int, cut: int) -> None:
    """R-MATCH-SAVE: to_dict/from_dict mid-match gives the same match, which then plays on
    to the same result."""
    m = Match.tournament([f"p{i}" for i in range(8)], hands_per_pairing=1,
                         rng=random.Random(seed))
    rng = random.Random(seed)
    done = 0
    while done < cut and not m.is_over:
        for h in m.next_hands():
            m.record(h, (rng.randrange(200), 0), won_by=0)
            done += 1
    saved = json.loads(json.dumps(m.to_dict()))
    back = Match.from_dict(saved)
    assert back.to_dict() == saved and back.totals() == m.totals()
    assert back.next_hands() == m.next_hands()
    for h in m.hands():
        if not m.is_recorded(h):
            pts = (rng.randrange(200), 0)
            m.record(h, pts, won_by=0)
            back.record(h, pts, won_by=0)
    assert back.to_dict() == m.to_dict() and back.winners == m.winners
    with pytest.raises(ParseError):
        Match.from_dict({**saved, "version": 99})
    with pytest.raises(ParseError):
        Match.from_dict({**saved, "schedule": [[["p0", "p1", "p2"]]]})


def test_a_match_plays_its_hands_as_one_round_games() -> None:
    """R-MATCH-SCORE: each hand is a one-round partner Game; record_game reads its result."""
    m = Match.rotating(FOUR, rng=random.Random(2))
    play_match(m, dict.fromkeys(FOUR, "heuristic"), "classic", 7)
    assert m.is_over and m.winners
    assert sum(m.hands_won().values()) == 2 * 3
    with pytest.raises(SettingsError):
        m.new_game(m.hands()[0], settings=Settings(scoring="alternative"))
    g = m.new_game(m.hands()[0], seed=1)
    with pytest.raises(IllegalMoveError):
        m.record_game(m.hands()[0], g)


# ---------------------------------------------------------------------- players
def adjacent_partners() -> Game:
    """Ann and Cy partners; Ben has left, so Cy now sits right after Ann."""
    g, _ = Game.from_setup(
        FOUR, teams=TEAMS,
        hands={"Ann": cards("RS R5 G2 G3"), "Ben": cards("B1"), "Cy": cards("Y1 Y2 Y3"),
               "Dee": cards("B4 B5 B6")},
        discard=cards("R6"), turn="Ann", dealer="Dee")
    g.remove_player("Ben")
    return g


def test_partner_aware_player_does_not_skip_its_partner() -> None:
    """R-TEAM-PLAYERS (engine): a partner-aware computer player avoids the Skip aimed at its
    partner; a partner-blind one takes it."""
    g = adjacent_partners()
    assert g.next_player("Ann") == "Cy"
    aware = HeuristicPlayer(1).choose(g, "Ann")
    blind = HeuristicPlayer(1, partner_aware=False).choose(g, "Ann")
    assert isinstance(aware, Play) and aware.card != Card.parse("RS")
    assert isinstance(blind, Play) and blind.card == Card.parse("RS")


def test_partner_aware_player_neither_catches_nor_challenges_its_partner() -> None:
    """R-TEAM-PLAYERS: no catch of a partner who forgot UNO, no challenge of a partner."""
    g, _ = Game.from_setup(FOUR, teams=TEAMS,
                           hands={"Ann": cards("R5 G9"), "Ben": cards("R3 BS"),
                                  "Cy": cards("R7 B1"), "Dee": cards("Y+2 WG")},
                           discard=cards("R6"), turn="Ann", dealer="Dee")
    g.apply(Play("Ann", Card.parse("R5")))  # no UNO call
    assert g.catchable == "Ann"
    assert HeuristicPlayer(1).react(g, "Cy") is None
    assert HeuristicPlayer(1, partner_aware=False).react(g, "Cy") == Catch("Cy", "Ann")
    assert HeuristicPlayer(1).react(g, "Ben") == Catch("Ben", "Ann")
    h = adjacent_partners()
    h.s.hands["Ann"] = cards("W+4 R5 G2")
    h.apply(Play("Ann", Card.parse("W+4"), color=Color.GREEN))
    assert h.turn == "Cy" and h.challenge_against == "Ann"
    assert HeuristicPlayer(1).choose(h, "Cy") == Accept("Cy")
    assert not isinstance(HeuristicPlayer(1).choose(h, "Cy"), Challenge)


@pytest.mark.slow
def test_partner_aware_players_beat_partner_blind_ones() -> None:
    """R-TEAM-PLAYERS: over 120 four-player partner games (teams swapping strategies every
    game) the partner-aware pair wins more often than the partner-blind pair (55 % to 45 %;
    57 % to 43 % over 300)."""
    from engine.tools.simulate import simulate
    data = simulate(120, 4, "power-grab", 5, ["heuristic", "blind"], teams=True).to_dict()
    rates = data["team_win_rate"]
    assert rates["heuristic+heuristic"] > rates["blind+blind"], rates


def test_run_game_with_three_teams_finishes() -> None:
    """R-TEAM-PLAYERS: computer players play a three-team game to its end; one team (or
    tied teams) wins."""
    g = Game.new(SIX, teams=THREE, seed=9, settings=Settings(target=150))
    g.start()
    run_game(g, {p: HeuristicPlayer(i) for i, p in enumerate(g.players)})
    assert g.is_over and len(g.winners) % 2 == 0 and g.winners
    assert all(g.partners(w)[0] in g.winners for w in g.winners)


def test_partner_aware_player_has_one_partner_among_three_teams() -> None:
    """R-TEAM-PLAYERS: with six players each computer player has exactly one partner, the
    player across; the four others (two teams) are opponents it attacks and catches."""
    g, _ = Game.from_setup(
        SIX, teams=THREE,
        hands={"Ann": cards("R5 G9"), "Ben": cards("R3 BS"), "Cy": cards("R7 B1"),
               "Dee": cards("Y+2 WG"), "Eve": cards("G5 G6"), "Fay": cards("B2 B3")},
        discard=cards("R6"), turn="Ann", dealer="Fay")
    bot = HeuristicPlayer(1)
    assert {p: bot._partners(g, p) for p in SIX} == {
        "Ann": ("Dee",), "Ben": ("Eve",), "Cy": ("Fay",), "Dee": ("Ann",),
        "Eve": ("Ben",), "Fay": ("Cy",)}
    g.apply(Play("Ann", Card.parse("R5")))  # no UNO call
    assert g.catchable == "Ann"
    assert HeuristicPlayer(1).react(g, "Dee") is None  # her partner does not catch her
    assert HeuristicPlayer(1).react(g, "Ben") == Catch("Ben", "Ann")
    assert HeuristicPlayer(1).react(g, "Cy") == Catch("Cy", "Ann")


# ---------------------------------------------------------------------- tools
def test_replay_refuses_bad_teams() -> None:
    """docs/tools.md, Replay files: a bad ``teams`` key is a format error naming it."""
    from engine.replay import ReplayFormatError, build_game
    with pytest.raises(ReplayFormatError, match="teams: Partners sit across the table"):
        build_game({"edition": "classic", "players": FOUR, "moves": [],
                    "teams": [["Ann", "Ben"], ["Cy", "Dee"]]})
    with pytest.raises(ReplayFormatError, match="teams: Partners play in pairs"):
        build_game({"edition": "classic", "players": SIX, "moves": [],
                    "teams": [["Ann", "Cy", "Eve"], ["Ben", "Dee", "Fay"]]})
    with pytest.raises(ReplayFormatError, match="teams: expected a list of teams"):
        build_game({"edition": "classic", "players": SIX, "moves": [], "teams": "AnnDee"})
    with pytest.raises(ReplayFormatError, match="max_rounds"):
        build_game({"edition": "classic", "players": FOUR, "moves": [], "max_rounds": 0})


def test_replay_header_of_a_partner_game_replays_it() -> None:
    """docs/tools.md, Replay files: a partner game logged with replay_header replays exactly."""
    from engine.replay import move_to_json, play_replay, replay_header
    g = Game.new(FOUR, edition="classic", seed=4, teams=TEAMS, max_rounds=2)
    header = replay_header(g, 4)
    assert header["teams"] == TEAMS and header["max_rounds"] == 2
    g.start()
    bots: dict[str, Strategy] = {p: HeuristicPlayer(i) for i, p in enumerate(FOUR)}
    log: list[dict[str, Any]] = []
    run_game(g, bots, on_apply=lambda m: log.append(move_to_json(m)))
    again, _ = play_replay({**header, "moves": log})
    assert again.to_dict() == g.to_dict()


@pytest.mark.slow
def test_simulator_cli_teams_and_match() -> None:
    """The simulator prints team and individual results."""
    out = subprocess.run([sys.executable, "-m", "engine.tools.simulate", "--games", "3",
                          "--players", "4", "--teams", "--strategies", "heuristic,blind"],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert "team win rate" in out
    out = subprocess.run([sys.executable, "-m", "engine.tools.simulate", "--games", "2",
                          "--players", "6", "--teams", "--strategies", "heuristic,blind,basic",
                          "--target", "100", "--json"],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    rates = json.loads(out)["team_win_rate"]
    assert set(rates) == {"heuristic+heuristic", "blind+blind", "basic+basic"}
    out = subprocess.run([sys.executable, "-m", "engine.tools.simulate", "--games", "1",
                          "--match", "tournament", "--hands-per-pairing", "1",
                          "--strategies", "heuristic,blind"],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert "mean individual total" in out and "(14 hands)" in out
    bad = subprocess.run([sys.executable, "-m", "engine.tools.simulate", "--players", "3",
                          "--teams"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2


def test_engine_errors_are_value_errors() -> None:
    assert issubclass(SettingsError, EngineError)
