"""The computer players that decide from the position in front of them, without looking
ahead: ``HeuristicPlayer`` (the normal level), ``EasyPlayer``, and ``RandomPlayer`` and
``BasicPlayer`` to measure them against; ``Strategy``, what every computer player offers.
They see only what their seat may see (``Game.player_view`` facts).

``choose(game, player)`` returns the move for the decision ``player`` owes now (or None);
``react(game, player)`` returns an out-of-turn move (calling UNO, catching) or None.
Both are deterministic under the player's seed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import ClassVar, Protocol

from engine.cards import BLOCKED_BY, DRAW_COUNT, Card, Color, Kind, Tower
from engine.game import Game, most_common_color
from engine.legal import enumerate_moves
from engine.moves import (
    Accept,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Draw,
    Keep,
    Lap,
    Move,
    Pass,
    Play,
)
from engine.players.challenges import challenge_pays, guilt_odds
from engine.state import Decision


class Strategy(Protocol):
    name: str

    def choose(self, game: Game, player: str) -> Move | None: ...

    def react(self, game: Game, player: str) -> Move | None: ...


def seen_guilt(game: Game, player: str) -> float:
    """Chance that the pending Wild Draw Four is a bluff, from what ``player``'s seat shows:
    the cards it has not seen (the deck less its hand and the discard pile), the size of
    the hand the card was played from and that player's public challenge record
    (engine/players/challenges.py's ``guilt_odds``)."""
    color = game.challenge_color
    against = game.challenge_against
    if color is None or against is None:
        return 0.0
    unseen = Counter(game.edition.deck)
    unseen.subtract(game.hand(player))
    unseen.subtract(game.discard_pile)
    total = sum(v for v in unseen.values() if v > 0)
    same = sum(v for c, v in unseen.items() if v > 0 and c.color is color)
    record = game.stats[against]
    return guilt_odds(total, same, len(game.hand(against)), record.w4_challenged,
                      record.bluffs_caught)


class RandomPlayer:
    """Picks uniformly among its legal moves; catches and calls UNO by coin toss."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: Game, player: str) -> Move | None:
        if game.is_over or game.turn != player:
            return None
        moves = [m for m in enumerate_moves(game, player) if not isinstance(m, CallUno | Catch)]
        return self.rng.choice(moves) if moves else None

    def react(self, game: Game, player: str) -> Move | None:
        if game.is_over or game.pending is Decision.LAP:
            return None
        target = game.catchable
        if target is not None and target != player and self.rng.random() < 0.5:
            return Catch(player, target)
        return None


class BasicPlayer:
    """A plain player to measure strategies against: plays the first card that matches
    (wilds last, naming its most common colour), draws otherwise, always calls UNO,
    accepts every Wild Draw Four and never catches anyone."""

    name = "basic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def react(self, game: Game, player: str) -> Move | None:
        return None

    def choose(self, game: Game, player: str) -> Move | None:
        if game.is_over or game.turn != player:
            return None
        hand = game.hand(player)
        pending = game.pending
        if pending is Decision.COLOR:
            return ChooseColor(player, most_common_color(hand))
        if pending is Decision.CHALLENGE:
            return Accept(player)
        if pending is Decision.KEEP:
            return Keep(player, hand[0], uno=True)
        if pending is Decision.LAP:  # keeps the first hand it is shown
            return Lap(player, True, most_common_color(hand) if game.color is None else None)
        plays = [m for m in enumerate_moves(game, player) if isinstance(m, Play)
                 and (m.uno or len(hand) != 2)
                 and (not m.card.is_wild or m.color is most_common_color(hand))]
        plays.sort(key=lambda m: m.card.is_wild)
        if plays:
            return plays[0]
        return Draw(player) if pending is Decision.PLAY else Pass(player)


class EasyPlayer:
    """The easy computer player: plays a card it may play, any one, with no plan (a wild's
    colour, a grab's towers and whether to play a drawn card by chance); draws only when
    it has nothing to play; calls UNO most of the time; accepts every Wild Draw Four and
    catches nobody. It keeps towers only as chance gives them to it."""

    name = "easy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def react(self, game: Game, player: str) -> Move | None:
        if game.is_over or game.pending is Decision.LAP:
            return None
        if len(game.hand(player)) == 1 and not game.has_called(player) \
                and game.catchable == player and self.rng.random() < 0.5:
            return CallUno(player)
        return None

    def choose(self, game: Game, player: str) -> Move | None:
        if game.is_over or game.turn != player:
            return None
        pending = game.pending
        if pending not in (Decision.PLAY, Decision.DRAWN):
            return game.timeout_moves()[0]
        moves = enumerate_moves(game, player)
        call = self.rng.random() < 0.8
        plays = [m for m in moves if isinstance(m, Play)
                 and (m.uno == call or len(game.hand(player)) != 2)]
        if plays and (pending is Decision.PLAY or self.rng.random() < 0.7):
            return self.rng.choice(plays)
        return Draw(player) if pending is Decision.PLAY else Pass(player)


class HeuristicPlayer:
    """A player who uses towers, holds blockers, challenges when the odds favour it,
    calls UNO and catches others.

    In partner play (``partner_aware``, the default) it does not attack its partners (no
    draw card, Skip or Wild Draw Four at them, no catch, no challenge, no tower grab from
    them unless it makes an instant UNO) and helps a partner who is low on cards go out:
    it prefers the Skip and draw cards that hand the turn to that partner, and the colours
    it has seen the partner play (and not the ones it has seen the partner draw on).
    Each player has one partner, sitting across (``Game.partners``); with six players the
    two other teams are both opponents. ``partner_aware=False`` plays as if every other
    player were an opponent."""

    name = "heuristic"
    weights: ClassVar[Mapping[str, float]] = {
        "points": 0.4, "same_color": 1.5, "blocked": -15.0, "attack": 8.0,
        "attack_per_card": 5.0, "wild_hold": -100.0, "wild_color": 5.0, "tower": 7.0,
        "lap": 9.0,
    }
    """How much each consideration weighs when choosing a play."""

    def __init__(self, seed: int | None = None, partner_aware: bool = True) -> None:
        self.rng = random.Random(seed)
        self.partner_aware = partner_aware
        self._seen: tuple[int, int, str, dict[str, int], Color | None] | None = None
        """The table when this player last looked: game, round, turn, hand counts, colour."""
        self._affinity: Counter[tuple[str, Color]] = Counter()
        """Per partner and colour: +1 for each card of it seen played, -1 for each draw
        on it (this round)."""

    def _partners(self, game: Game, player: str) -> tuple[str, ...]:
        return game.partners(player) if self.partner_aware else ()

    def _watch(self, game: Game, player: str) -> None:
        """Note what the partners' last turns showed about their colours."""
        partners = self._partners(game, player)
        if not partners:
            return
        counts = game.hand_counts()
        now = (id(game), game.round_number, game.turn, counts, game.color)
        seen = self._seen
        self._seen = now
        if seen is None or seen[:2] != now[:2]:
            self._affinity.clear()
            return
        mover = seen[2]
        if mover not in partners or mover == game.turn or mover not in counts:
            return
        before, after = seen[3].get(mover, 0), counts[mover]
        if after < before and game.color is not None:
            self._affinity[(mover, game.color)] += 1
        elif after > before and seen[4] is not None:
            self._affinity[(mover, seen[4])] -= 1

    # -------------------------------------------------------------- out of turn
    def react(self, game: Game, player: str) -> Move | None:
        if game.is_over or game.pending is Decision.LAP:
            return None  # during a Victory Lap the hands are face down: nothing to do
        self._watch(game, player)
        target = game.catchable
        if target is not None and target != player and target not in self._partners(
                game, player):
            return Catch(player, target)
        if len(game.hand(player)) == 1 and not game.has_called(player):
            return CallUno(player)
        return None

    # -------------------------------------------------------------- decisions
    def choose(self, game: Game, player: str) -> Move | None:
        if game.is_over or game.turn != player:
            return None
        pending = game.pending
        hand = game.hand(player)
        if pending is Decision.COLOR:
            return ChooseColor(player, most_common_color(hand))
        if pending is Decision.CHALLENGE:
            against = game.challenge_against
            if against is not None and against in self._partners(game, player):
                return Accept(player)
            return Challenge(player) if self._challenge_pays(game, player) else Accept(player)
        if pending is Decision.KEEP:
            return Keep(player, self._card_to_keep(game, hand), uno=True)
        if pending is Decision.LAP:
            return self._lap_choice(game, player, hand)
        plays = [m for m in enumerate_moves(game, player) if isinstance(m, Play)]
        if len(hand) == 2:
            plays = [m for m in plays if m.uno]
        if not plays:
            return Draw(player) if pending is Decision.PLAY else Pass(player)
        scored = [(self.score(game, player, m), i, m) for i, m in enumerate(plays)]
        best_score, _, best = max(scored, key=lambda t: (t[0], -t[1]))
        if pending is Decision.DRAWN and best_score < -25:
            return Pass(player)
        return best

    def _challenge_pays(self, game: Game, player: str) -> bool:
        """Challenge only when it is worth more than accepting, in cards
        (engine/players/challenges.py's ``challenge_pays``)."""
        return challenge_pays(self._guilt_odds(game, player), len(game.players))

    def _guilt_odds(self, game: Game, player: str) -> float:
        return seen_guilt(game, player)

    def _lap_choice(self, game: Game, player: str, hand: tuple[Card, ...]) -> Lap:
        """Victory Lap: keep the hand in front of us unless a hand still to come is smaller
        (their sizes are public); on equal sizes, keep the one we can see. Our own hand,
        the last to come, is kept as it comes back (R-VL-OWN-HAND): the pass that brings it
        names its colour if none was named."""
        color = most_common_color(hand) if game.color is None else None
        lap = game.lap
        assert lap is not None
        steps_left = int(lap["steps_left"])
        if steps_left <= 0:
            return Lap(player, True, color)
        counts = game.hand_counts()
        seats = game.players
        i = seats.index(player)
        n = len(seats)
        # the hand j seats behind us (against the direction of play) comes to us in j passes
        to_come = [counts[seats[(i - j * game.direction) % n]] for j in range(1, steps_left + 1)]
        if len(hand) <= min(to_come):
            return Lap(player, True, color)
        if steps_left == 1 and color is not None:
            own = game.hand(seats[(i - game.direction) % n])  # ours, coming back
            return Lap(player, False, most_common_color(own))
        return Lap(player, False)

    def _card_to_keep(self, game: Game, hand: tuple[Card, ...]) -> Card:
        order = {Kind.WILD_DRAW_FOUR: 4, Kind.WILD_GRAB: 3, Kind.WILD: 3, Kind.VICTORY_LAP: 2}
        wilds = [c for c in hand if c.is_wild]
        if wilds:
            return max(wilds, key=lambda c: order.get(c.kind, 0))
        matching = [c for c in hand if game.can_play_on_top(c)]
        return (matching or list(hand))[0]

    def score(self, game: Game, player: str, move: Play) -> float:
        """How much this player likes ``move`` (higher is better; a little noise breaks
        ties)."""
        w = self.weights
        card = move.card
        hand = game.hand(player)
        counts = game.hand_counts()
        nxt = game.next_player(player)
        n_next = counts[nxt]
        urgency = 3.0 if n_next <= 2 else (1.5 if n_next <= 4 else 1.0)
        score = game.card_points(card) * w["points"]
        rest = list(hand)
        rest.remove(card)
        same_color_left = sum(1 for c in rest if c.color is not None and c.color is card.color)
        score += same_color_left * w["same_color"]
        kind = card.kind
        holder_next = game.towers
        partners = self._partners(game, player)
        if kind in BLOCKED_BY:
            blocked = holder_next[BLOCKED_BY[kind]] == nxt
            if blocked:
                score += w["blocked"]
            elif nxt in partners:
                score -= (DRAW_COUNT.get(kind, 0) * w["attack_per_card"] + w["attack"]) * 2
            else:
                score += (DRAW_COUNT.get(kind, 0) * w["attack_per_card"] + w["attack"]) * urgency
                after = game.next_player(nxt)
                if after in partners and counts[after] <= 2:
                    score += w["attack"]  # the partner, close to going out, plays next
        if partners:
            score += self._partner_colour_bonus(game, partners, counts, move)
        if kind is Kind.REVERSE and len(game.players) > 2:
            prev = _previous(game, player)
            score += 4 if counts[prev] > n_next else -2
        lap_gain = 0
        if kind is Kind.VICTORY_LAP and rest:
            # The lap can bring us the smallest hand at the table (ours included).
            lap_gain = len(rest) - min(n for q, n in counts.items() if q != player)
            score += w["lap"] * lap_gain
        if card.is_wild:
            others_playable = any(
                c for c in rest if not c.is_wild and game.can_play_on_top(c)
            )
            if others_playable and len(hand) > 3 and lap_gain < 2:
                score += w["wild_hold"]
            if move.color is not None:
                score += w["wild_color"] * sum(1 for c in rest if c.color is move.color)
        if kind is Kind.WILD_DRAW_FOUR and not game.wild_draw_four_is_legal(player):
            score -= 10 if n_next <= 1 else 60
        if game.edition.towers:
            grabbed: list[Tower] = list(move.towers)
            if card.icon is not None:
                grabbed.append(card.icon)
            mine_after = {t for t, h in holder_next.items() if h == player} | set(grabbed)
            for t in set(grabbed):
                h = holder_next[t]
                if h == player:
                    continue
                if h in partners:
                    score -= w["tower"]
                    continue
                score += w["tower"]
                if h is not None and counts[h] <= 3:
                    score += 4
                if h == nxt:
                    score += 3
            if len(mine_after) == 4 and len(rest) >= 2:
                score += 150 + 3 * len(rest)
        score += self.rng.random() * 0.5
        return score

    def _partner_colour_bonus(self, game: Game, partners: tuple[str, ...],
                              counts: Mapping[str, int], move: Play) -> float:
        """Leave a partner with two cards or fewer a colour they seem to hold."""
        color = move.color if move.card.is_wild else move.card.color
        if color is None:
            return 0.0
        bonus = 0.0
        for q in partners:
            if counts.get(q, 99) <= 2:
                bonus += 3.0 * max(-2, min(2, self._affinity[(q, color)]))
        return bonus


def _previous(game: Game, player: str) -> str:
    i = game.players.index(player)
    return game.players[(i - game.direction) % len(game.players)]


__all__ = ["BasicPlayer", "EasyPlayer", "HeuristicPlayer", "RandomPlayer", "Strategy",
           "guilt_odds", "seen_guilt"]
