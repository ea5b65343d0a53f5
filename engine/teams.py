"""Partner play (RULES.md section 19): checking the teams of a partner table
(``check_teams``), scoring a round won at one (``score_team_round``) and whether a team has
won the game (``team_game_winners``); the end of a round (engine/scoring.py) asks them.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.basegame import BaseGame
from engine.errors import SettingsError
from engine.events import RoundWon

TEAM_SIZES = (4, 6)
"""Partner play: how many players a partner table seats, in teams of two (sheet 004,
Playing with Partners; RULINGS): two teams with four players, three with six."""


def check_teams(players: Sequence[str], teams: Sequence[Sequence[str]],
                *, restoring: bool = False) -> tuple[tuple[str, ...], ...]:
    """The teams of a partner game, as tuples in the order given, or a ``SettingsError``
    saying in one sentence what is wrong. Every team is two partners, every seated player is
    on exactly one team, the table seats 4 or 6 players (so 2 or 3 teams), and partners sit
    across the table: the player in seat ``i`` (counting from 0) partners the player in
    seat ``i + n/2`` (the refusal counts seats from 1, as players do). A saved game
    (``restoring``) may have lost players, so only the pairs and that every seated player
    is on a team are checked."""
    if not restoring and len(players) not in TEAM_SIZES:
        raise SettingsError("Partner play needs 4 or 6 players, not {n}.", n=len(players))
    if isinstance(teams, str) or any(isinstance(t, str) for t in teams):
        raise SettingsError("A team lists its players by name.")
    out = tuple(tuple(t) for t in teams)
    members = [p for t in out for p in t]
    if not all(isinstance(p, str) and p for p in members):
        raise SettingsError("A team lists its players by name.")
    if len(set(members)) != len(members):
        raise SettingsError("Each player can be on only one team.")
    for t in out:
        if len(t) != 2:
            raise SettingsError("Partners play in pairs: every team is two players, "
                                "not {size}.", size=len(t))
    for p in players:
        if p not in members:
            raise SettingsError("{name} is not on a team.", name=p)
    if restoring:
        return out
    n = len(players)
    for p in members:
        if p not in players:
            raise SettingsError("{name} is on a team but not seated.", name=p)
    seat = {p: i for i, p in enumerate(players)}
    half = n // 2
    for a, b in out:
        if seat[b] != (seat[a] + half) % n:
            first = a if seat[a] < seat[b] else b
            raise SettingsError("Partners sit across the table: {name} sits in seat {seat}, "
                                "so their partner must sit in seat {across}.",
                                name=first, seat=seat[first] + 1,
                                across=(seat[first] + half) % n + 1)
    return out


def score_team_round(game: BaseGame, winner: str) -> RoundWon:
    """Partner play (R-TEAM-SCORE): standard scoring gives the winner's team the cards
    in every opposing hand (all the other teams'; not the partner's); alternative
    scoring (R-TEAM-ALT) gives every team the cards in its own hands. Each seated
    player adds what their team gained, and so does the team's total."""
    s = game.s
    pts = game.card_points
    ours = _team(game, winner)
    gain = [0 for _ in game.teams]
    for q in game.players:
        held = sum(pts(c) for c in s.hands[q])
        if game.settings.scoring == "standard":
            if _team(game, q) != ours:
                gain[ours] += held
        else:
            gain[_team(game, q)] += held
    won = gain[ours] if game.settings.scoring == "standard" else 0
    gained = {q: gain[_team(game, q)] for q in game.players}
    for q, g in gained.items():
        s.scores[q] += g
    for i, g in enumerate(gain):
        s.team_scores[i] += g
    st = game.stats[winner]
    st.rounds_won += 1
    st.best_round = max(st.best_round, won)
    for q in game.teams[ours]:
        if q in game.stats:
            game.stats[q].team_rounds_won += 1
    return RoundWon(winner, won, gained, dict(s.scores), game.round_number,
                    team=game.teams[ours])


def team_game_winners(game: BaseGame, last_round: bool) -> list[str] | None:
    """The team totals race to the target: when one reaches it (or the ``last_round`` is
    played) the highest total wins (alternative scoring: the lowest), and the seated
    players of every team on that total share the win; None: the game goes on."""
    totals = game.s.team_scores
    if any(v >= game.settings.target for v in totals) or last_round:
        top = max(totals) if game.settings.scoring == "standard" else min(totals)
        return [q for q in game.players if totals[_team(game, q)] == top]
    return None


def _team(game: BaseGame, player: str) -> int:
    """The index of ``player``'s team (every player of a partner game has one)."""
    i = game.team_of(player)
    assert i is not None
    return i
