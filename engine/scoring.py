"""The end of a round: who scores what, and whether the game is over or the next round is
dealt (``end_round``, called when a player plays their last card).

Every player for themselves here; partner play's scoring is engine/teams.py's.
"""

from __future__ import annotations

from engine.basegame import BaseGame, player_after
from engine.events import Event, RoundWon
from engine.setup import start_round
from engine.teams import score_team_round, team_game_winners
from engine.turns import game_over


def end_round(game: BaseGame, winner: str) -> list[Event]:
    """``winner`` went out: score the round, then end the game or deal the next round."""
    s = game.s
    last = game.max_rounds is not None and game.round_number >= game.max_rounds
    if game.teams:
        won = score_team_round(game, winner)
        winners = team_game_winners(game, last)
    else:
        won = score_round(game, winner)
        winners = game_winners(game, last)
    if winners is not None:
        s.winners = winners
        return [won, *game_over(game)]
    s.dealer = player_after(game, s.dealer, 1)
    return [won, *start_round(game)]


def score_round(game: BaseGame, winner: str) -> RoundWon:
    """Standard scoring gives the winner the cards in every other hand; alternative
    scoring gives every player the cards in their own hand."""
    s = game.s
    pts = game.card_points
    gained = {p: 0 for p in game.players}
    if game.settings.scoring == "standard":
        won = sum(pts(c) for q in game.players if q != winner for c in s.hands[q])
        gained[winner] = won
    else:
        won = 0
        for q in game.players:
            gained[q] = sum(pts(c) for c in s.hands[q])
    for q, g in gained.items():
        s.scores[q] += g
    st = game.stats[winner]
    st.rounds_won += 1
    st.best_round = max(st.best_round, won)
    return RoundWon(winner, won, gained, dict(s.scores), game.round_number)


def game_winners(game: BaseGame, last_round: bool) -> list[str] | None:
    """When a score reaches the target (or the ``last_round`` is played), the highest score
    wins (alternative scoring: the lowest) and every player on it shares the win; None:
    the game goes on."""
    s = game.s
    if any(v >= game.settings.target for v in s.scores.values()) or last_round:
        if game.settings.scoring == "standard":
            top = max(s.scores.values())
        else:
            top = min(s.scores.values())
        return [q for q in game.players if s.scores[q] == top]
    return None
