"""The hard computer player: a search over what its seat can know.

``decide(view)`` is given a ``SeatView`` (engine/players/seatview.py) and nothing else. It deals
the cards the seat has not seen at random, consistently with the view (``sample``: the
other hands' sizes, the colours a player is known, or likely, not to hold, the cards a
challenge showed), plays each candidate move forward in every such world to the end of the
hand (a ``Playout``), and picks the move with the best mean outcome: the points the hand
brings its side against the best other side, and the game itself when the hand ends it.
Every candidate is played in the same worlds with the same playout seeds (common random
numbers), so the comparison is fair with few samples.

A ``Playout`` is anything that takes a sampled ``Game`` and plays it to the end of the hand:
``FastPlayout`` (the default) with the compact simulator (engine/players/fastsim.py) and its greedy
policy, ``EnginePlayout`` with this engine and ``quick_move`` (about four times slower).

The search is deterministic for a view, a seed and a number of samples; with a time
budget it stops early when the process's CPU time runs out (``think``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from engine.cards import BLOCKED_BY, DRAW_COUNT, Card, Kind
from engine.editions import get_edition
from engine.events import Event, RoundWon
from engine.game import Game, most_common_color
from engine.legal import enumerate_moves
from engine.moves import Accept, Challenge, Draw, Move, Pass, Play
from engine.players.challenges import challenge_pays, guilt_odds
from engine.players.fastcards import encode_move
from engine.players.fastsim import FastSim
from engine.players.heuristic import HeuristicPlayer, seen_guilt
from engine.players.playouts import Policy, greedy_policy, playout
from engine.players.seatview import Notes, SeatView, seat_view
from engine.state import Decision, PlayerStats, State, W4Record

SEARCHED = (Decision.PLAY, Decision.DRAWN, Decision.CHALLENGE)
"""The decisions the search makes; the others (a colour to open, a card to keep after an
instant UNO, a Victory Lap's keep or pass) are the normal player's."""
SAMPLES = 64
"""Worlds sampled per decision, at most (fewer when the time budget runs out)."""
BUDGET = 0.25
"""Seconds of CPU per decision, at most (the budget is checked after each world)."""
MAX_CANDIDATES = 7
"""Plays searched per decision (the best variant of each card first), besides drawing."""
GAME_BONUS = 400.0
"""What winning (or losing) the game is worth, in points of a hand."""
CRITICAL_CARDS = 5
"""The search is made once a hand holds this many cards or fewer (see ``critical``)."""
CONFIDENCE = 1.0
"""How many standard errors better than the normal player's choice a move must look, at a
table of two."""
CROWD_CONFIDENCE = 2.0
"""The same at a table of more: the playouts of more hands are noisier, and with several
candidates one of them passes a one-standard-error test by chance more often than not."""
BLUFF_CONFIDENCE = 3.0
"""How many standard errors better than the first candidate a bluff must look (``is_bluff``):
its playouts answer it as the normal player would, who seldom challenges a clean record,
so it often looks about as good as the honest move, and it is not taken on noise."""
CHECK_FROM = 16
"""After this many worlds (and every ``CHECK_EVERY`` more) the search stops playing a
candidate that cannot catch up: one not better than the first by ``DROP_Z`` standard
errors even at best. When only the first is left, it is the move."""
CHECK_EVERY = 8
DROP_Z = 2.0
MAX_STEPS = 1500
"""A playout longer than this is scored as a draw (it never happens in practice)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a playout's hand ended: each seat's points from it and the totals after it."""

    gained: Mapping[str, int]
    scores: Mapping[str, int]


class Playout(Protocol):
    """Makes ``first`` (the candidate move, legal) in a sampled world, then plays on to the
    end of the hand (``seed``: the policy's random choices) and says how it ended. One
    that leaves the world unchanged may say so with a true ``keeps_world`` attribute: the
    search then builds one world per sample for all its candidates."""

    def run(self, world: Game, first: Move, seed: int) -> Outcome: ...


class EnginePlayout:
    """A playout with this engine: every seat plays ``quick_move``."""

    def run(self, world: Game, first: Move, seed: int) -> Outcome:
        rng = random.Random(seed)
        move = first
        for _step in range(MAX_STEPS):
            for e in world.push(move):
                if isinstance(e, RoundWon):
                    return Outcome(dict(e.gained), dict(world.s.scores))
            if world.is_over:
                break
            move = quick_move(world, world.s.turn, rng)
        return Outcome({q: 0 for q in world.players}, dict(world.s.scores))


class FastPlayout:
    """A playout with the compact simulator (engine/players/fastsim.py): the world as a
    ``FastSim`` (its reshuffles those ``world`` would make, from the same generator), the
    candidate made, then every seat plays ``policy`` (default ``greedy_policy``) to the end
    of the hand; nobody forgets to call UNO (engine/players/playouts.py). The ``Outcome`` means
    what ``EnginePlayout``'s does: each seat's points from the hand (with partners, each
    seat its team's, as ``RoundWon.gained``) and the totals after it."""

    keeps_world = True
    """``run`` leaves the world as it was: the search gives every candidate the same one
    (and this playout reads it once)."""

    def __init__(self, policy: Policy = greedy_policy) -> None:
        self.policy = policy
        self._world: Game | None = None
        self._sim: FastSim | None = None
        self._reshuffles = random.Random(0)
        """The generator each candidate's simulator reshuffles with, set every time to
        the world's state (``_state``): one object for all, since a playout's simulator
        is dropped after it."""
        self._state: tuple[object, ...] = ()
        self._choices = random.Random(0)
        """The policy's generator, set to ``seed``'s state (``_seeded``) for each run."""
        self._seeded: tuple[int, tuple[object, ...]] | None = None

    def run(self, world: Game, first: Move, seed: int) -> Outcome:
        players = world.players
        if world is not self._world or self._sim is None:
            self._world, self._sim = world, FastSim.from_game(world)
            self._state = self._sim.rng.getstate()
        sim = self._sim.clone()
        sim.rng = self._reshuffles  # each candidate's reshuffles are the world's own
        sim.rng.setstate(self._state)
        if self._seeded is None or self._seeded[0] != seed:
            self._choices.seed(seed)
            self._seeded = (seed, self._choices.getstate())
        else:
            self._choices.setstate(self._seeded[1])
        sim.step(encode_move(first, players))
        gained = playout(sim, self.policy, self._choices.random, MAX_STEPS)
        scores = world.s.scores
        return Outcome({q: gained[i] for i, q in enumerate(players)},
                       {q: scores[q] + gained[i] for i, q in enumerate(players)})


def quick_move(game: Game, p: str, rng: random.Random) -> Move:
    """A quick, sensible move for playouts: the normal player's habits at a fraction of
    its cost (attack a player close to going out, keep wilds, name the colour held most,
    take towers from others, spare a partner, always call UNO, challenge a Wild Draw Four
    as the normal player does)."""
    s = game.s
    pending = s.pending
    if pending is Decision.CHALLENGE:
        against = game.challenge_against
        pays = against is not None and not game.are_partners(p, against) \
            and challenge_pays(seen_guilt(game, p), len(game.players))
        return Challenge(p) if pays else Accept(p)
    if pending is Decision.COLOR or pending is Decision.KEEP or pending is Decision.LAP:
        return game.timeout_moves()[0]
    hand = s.hands[p]
    if pending is Decision.DRAWN:
        card = s.drawn
        assert card is not None
        if card.is_wild and len(hand) > 2:
            return Pass(p)
        return _play(game, p, card, hand)
    playable = game.playable_cards(p)
    if not playable:
        return Draw(p)
    nxt = game.next_player(p)
    partner = game.are_partners(p, nxt)
    danger = len(s.hands[nxt]) <= 2 and not partner
    best: Card | None = None
    best_score = -1e9
    for c in playable:
        kind = c.kind
        score = rng.random()
        if c.is_wild:
            score -= 30 if len(hand) > 2 else 0
            if kind is Kind.WILD_DRAW_FOUR:
                score += 25 if danger else 0
        elif c.color is s.color:
            score += 2
        if kind in BLOCKED_BY:
            if partner:
                score -= 10  # never at a partner
            elif game.edition.towers and s.towers[BLOCKED_BY[kind]] == nxt:
                score -= 10
            else:
                score += (8 + 4 * DRAW_COUNT.get(kind, 0)) if danger else 3
        if c.icon is not None and s.towers[c.icon] != p:
            score += 4
        score += game.card_points(c) * 0.1
        if score > best_score:
            best, best_score = c, score
    assert best is not None
    return _play(game, p, best, hand)


def _play(game: Game, p: str, card: Card, hand: list[Card]) -> Play:
    color = None
    if card.is_wild:
        color = most_common_color(c for c in hand if c is not card)
    need, free = game.tower_choices(p, card)
    towers = tuple(sorted(free, key=lambda t: game.s.towers[t] is None)[:need]) if need else ()
    return Play(p, card, color, towers, len(hand) == 2)


# ---------------------------------------------------------------------- sampling
def sample(view: SeatView, rng: random.Random) -> tuple[dict[str, list[Card]], list[Card]]:
    """The other hands and the draw pile (top last), dealt at random from the cards the seat
    has not seen, so that every hand has its size, holds the cards the seat knows it holds
    and, where the deal allows it, none it is known (or likely) not to hold: ``Sampler``,
    for one deal."""
    return Sampler(view).deal(rng)


class Sampler:
    """Deals the cards ``view`` has not seen, as ``sample`` describes, as often as asked
    (``deal``); what stays the same from one deal to the next is worked out once."""

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.pool = list(view.unseen(get_edition(view.edition).deck).elements())
        others = [q for q in view.players if q != view.me]
        # the most constrained first, so they find the cards they may hold
        others.sort(key=lambda q: -(len(view.void.get(q, ())) + len(view.shy.get(q, ()))))
        kinds = set(self.pool)
        self.plan: list[tuple[str, list[Card], int, frozenset[Card], frozenset[Card]]] = []
        """Per other player: the cards known held, how many more, the cards they likely
        lack, the cards they are known to lack."""
        for q in others:
            known = list(view.known.get(q, ()))
            void = view.void.get(q, frozenset())
            self.plan.append((q, known, max(0, view.counts[q] - len(known)),
                              frozenset(c for c in kinds if view.likely_lacks(q, c)),
                              frozenset(c for c in kinds if c.color is not None
                                        and c.color in void)))

    def deal(self, rng: random.Random) -> tuple[dict[str, list[Card]], list[Card]]:
        """One deal: the hands (this seat's own included) and the draw pile."""
        view = self.view
        pool = list(self.pool)
        rng.shuffle(pool)
        hands: dict[str, list[Card]] = {view.me: list(view.hand)}
        for q, known, need, likely, lacks in self.plan:
            split = _first(pool, need, likely) or _first(pool, need, lacks)
            taken, pool = split if split is not None else (pool[:need], pool[need:])
            hands[q] = known + taken
        return hands, pool[:view.draw_count]


def _first(pool: list[Card], need: int, forbid: frozenset[Card]
           ) -> tuple[list[Card], list[Card]] | None:
    """The first ``need`` cards of ``pool`` not in ``forbid`` and the rest of the pool in
    its order, or None when there are not that many."""
    taken: list[Card] = []
    rest: list[Card] = []
    for c in pool:
        if len(taken) < need and c not in forbid:
            taken.append(c)
        else:
            rest.append(c)
    return (taken, rest) if len(taken) == need else None


def world(view: SeatView, hands: Mapping[str, list[Card]], draw: list[Card],
          seed: int) -> Game:
    """A game as the view shows it, with the hidden cards as dealt; it ends with this hand."""
    game = Game(list(view.players), edition=view.edition, settings=view.settings, seed=seed,
                teams=[list(t) for t in view.teams] or None,
                max_rounds=max(1, view.round_number), _restoring=True)
    game.round_number = view.round_number
    game.started = True
    w4 = None
    if view.w4 is not None:
        player, victim, color = view.w4
        held = tuple(hands[player])
        w4 = W4Record(player, victim, any(c.color is color for c in held), color, held)
    game.s = State(
        hands={q: list(hands[q]) for q in view.players},
        draw=list(draw),
        discard=list(view.discard),
        color=view.color,
        towers=dict(view.towers),
        turn=view.turn,
        direction=view.direction,
        dealer=view.dealer,
        scores=dict(view.scores),
        pending=view.pending,
        drawn=view.drawn,
        color_only=view.color_only,
        w4=w4,
        after_keep=view.after_keep,
        called=set(view.called),
        catchable=view.catchable,
        team_scores=list(view.team_scores),
    )
    for q, (challenged, guilty) in view.record.items():
        game.stats[q] = PlayerStats(w4_challenged=challenged, bluffs_caught=guilty)
    return game


# ---------------------------------------------------------------------- the search
def candidates(game: Game, me: str, seed: int) -> list[Move]:
    """The moves worth searching: first the normal player's own choice, then the best
    variant of each playable card by its judgement (colour, towers, an UNO call when it
    leaves one card), then each card's variants with other towers or another colour, at
    most ``MAX_CANDIDATES`` plays; then draw or pass. A challenge has its two answers."""
    judge = HeuristicPlayer(seed)
    first = judge.choose(game, me)
    assert first is not None
    moves = enumerate_moves(game, me)
    if game.s.pending is Decision.CHALLENGE:
        rest = [m for m in moves if isinstance(m, Accept | Challenge) and m != first]
        return [first, *rest]
    two = len(game.s.hands[me]) == 2
    plays = [m for m in moves if isinstance(m, Play) and m.uno == two]
    scored = sorted(plays, key=lambda m: -judge.score(game, me, m))
    firsts: list[Move] = []
    others: list[Move] = []
    seen: set[tuple[Card, object]] = set()
    for m in scored:
        if (m.card, None) not in seen:
            firsts.append(m)
        elif (m.card, m.towers) not in seen or (m.card, m.color) not in seen:
            others.append(m)
        seen |= {(m.card, None), (m.card, m.towers), (m.card, m.color)}
    out = [first, *[m for m in firsts + others if m != first][:MAX_CANDIDATES - 1]]
    out += [m for m in moves if isinstance(m, Draw | Pass) and m != first]
    return out


class Value:
    """What a hand's outcome is worth to the view's seat (its team's, with partners):
    ``Value(view)(outcome)``. The sides are worked out once for the players an outcome
    names (again for an outcome that names others)."""

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.standard = view.settings.scoring == "standard"
        self.target = view.settings.target
        self.named: tuple[str, ...] | None = None
        self.sides: list[list[str]] = []
        self.mine = 0

    def _sides(self, named: tuple[str, ...]) -> None:
        view = self.view
        sides = [list(t) for t in view.teams] or [[q] for q in view.players]
        sides = [[q for q in side if q in named] for side in sides]
        self.sides = [side for side in sides if side]
        self.mine = next(i for i, side in enumerate(self.sides) if view.me in side)
        self.named = named

    def __call__(self, out: Outcome) -> float:
        named = tuple(out.gained)
        if named != self.named:
            self._sides(named)
        sides, mine = self.sides, self.mine
        gained, scores = out.gained, out.scores
        gains = [max(gained[q] for q in side) for side in sides]
        totals = [max(scores.get(q, 0) for q in side) for side in sides]
        others = [g for i, g in enumerate(gains) if i != mine]
        if not others:
            return 0.0
        if self.standard:
            value: float = gains[mine] - max(others)
        else:  # everyone adds their own hand; the lowest total wins
            value = sum(others) / len(others) - gains[mine]
        if max(totals) >= self.target:
            best = max(totals) if self.standard else min(totals)
            winners = [i for i, t in enumerate(totals) if t == best]
            value += GAME_BONUS / len(winners) if mine in winners else -GAME_BONUS
        return value


def decide(view: SeatView, *, seed: int | None = None, samples: int = SAMPLES,
           budget: float | None = None, playout: Playout | None = None,
           clock: Callable[[], float] = time.process_time) -> Move:
    """The search's move for the decision ``view.me`` owes (``view.pending`` is one of
    ``SEARCHED``). ``seed`` defaults to one taken from the view; ``budget``: stop sampling
    once this many seconds of ``clock`` have gone (None: all ``samples``).

    The first candidate is the normal player's own choice (``undominated``: an honest one
    rather than a bluff; no move the rules show worse); another is taken only when the
    worlds show it better by more than ``confidence`` standard errors, ``BLUFF_CONFIDENCE``
    for a bluff (paired: each world plays every candidate), so the search changes a move
    only where it sees why. A candidate that cannot get there (``DROP_Z``) stops being
    played after ``CHECK_FROM`` worlds, and the search ends when none is left but the
    first."""
    start = clock()
    seed = view.fingerprint() if seed is None else seed
    rng = random.Random(seed)
    playout = playout if playout is not None else FastPlayout()
    keeps = bool(getattr(playout, "keeps_world", False))
    sampler = Sampler(view)
    value = Value(view)
    hands, draw = sampler.deal(rng)
    guilt = _guilt(view) if view.pending is Decision.CHALLENGE else None
    moves = undominated(view, candidates(world(view, hands, draw, 0), view.me, seed), guilt)
    if len(moves) == 1 or not critical(view):
        return moves[0]
    bluffs: list[int] = []
    """Per world: whether the pending Wild Draw Four was a bluff in it."""
    values: list[list[float]] = [[] for _m in moves]
    """Per candidate, its outcome in each world (while it is in the running)."""
    alive = list(range(len(moves)))
    for i in range(samples):
        if i:
            hands, draw = sampler.deal(rng)
        wseed = rng.randrange(1 << 30)
        bluff = 0
        if view.w4 is not None and guilt is not None:
            player, _victim, color = view.w4
            bluff = int(any(c.color is color for c in hands[player]))
        bluffs.append(bluff)
        shared = world(view, hands, draw, wseed) if keeps else None
        for j in alive:
            here = shared if shared is not None else world(view, hands, draw, wseed)
            values[j].append(value(playout.run(here, moves[j], wseed)))
        if budget is not None and clock() - start > budget:
            break
        if i + 1 >= CHECK_FROM and (i + 1 - CHECK_FROM) % CHECK_EVERY == 0:
            weights = _weights(bluffs, guilt)
            alive = [0] + [j for j in alive[1:]
                           if _bound(_diffs(values, j), weights, DROP_Z) > 0]
            if len(alive) == 1:
                return moves[0]
    weights = _weights(bluffs, guilt)
    best, best_score = 0, 0.0
    z = confidence(view)
    for j in alive[1:]:
        need = max(z, BLUFF_CONFIDENCE) if is_bluff(view, moves[j]) else z
        score = _bound(_diffs(values, j), weights, -need)
        if score > best_score:
            best, best_score = j, score
    return moves[best]


def is_bluff(view: SeatView, move: Move) -> bool:
    """Whether ``move`` is a Wild Draw Four its victim may challenge and find guilty: the
    seat holds a card of the colour in play (R-WD4-ANYTIME), so it is not the last card
    (R-WD4-LAST), and the victim does not hold the tower that blocks it (R-WD4-BLOCKED)."""
    if not isinstance(move, Play) or move.card.kind is not Kind.WILD_DRAW_FOUR \
            or view.color is None or not any(c.color is view.color for c in view.hand):
        return False
    seat = view.players.index(view.me)
    victim = view.players[(seat + view.direction) % len(view.players)]
    return view.towers.get(BLOCKED_BY[Kind.WILD_DRAW_FOUR]) != victim


def undominated(view: SeatView, moves: list[Move], guilt: float | None) -> list[Move]:
    """The candidates less those the rules show worse than another, whatever the worlds
    say, and an honest move first where there is one. Going out (the last card played,
    R-GO-OUT) beats drawing; a challenge of a Wild Draw Four the view shows could not be a
    bluff (``guilt`` 0: R-WD4-CHALLENGE, the challenger draws 6 instead of 4) is never
    made. A bluff (``is_bluff``) chosen by the normal player gives its place to the next
    candidate that is not one, and must then look better than it (``BLUFF_CONFIDENCE``)."""
    if view.pending is Decision.PLAY and len(view.hand) == 1 \
            and any(isinstance(m, Play) for m in moves):
        moves = [m for m in moves if isinstance(m, Play)]
    if guilt == 0.0:
        moves = [m for m in moves if not isinstance(m, Challenge)]
    if is_bluff(view, moves[0]):
        honest = next((m for m in moves if not is_bluff(view, m)), None)
        if honest is not None:
            moves = [honest, *[m for m in moves if m != honest]]
    return moves


def _diffs(values: list[list[float]], j: int) -> list[float]:
    """Candidate ``j``'s outcome less the first candidate's, world by world."""
    return [v - v0 for v, v0 in zip(values[j], values[0], strict=True)]


def confidence(view: SeatView) -> float:
    """How many standard errors better a move must look to replace the normal player's:
    ``CONFIDENCE`` at a table of two, ``CROWD_CONFIDENCE`` at a bigger one."""
    return CONFIDENCE if len(view.players) <= 2 else CROWD_CONFIDENCE


def critical(view: SeatView) -> bool:
    """Whether the search may change the normal player's move: a Wild Draw Four to answer,
    or a hand close to its end (someone holds ``CRITICAL_CARDS`` or fewer). Early in a
    hand a move changes the outcome less than the deal does, and the worlds cannot tell
    the moves apart; near the end they can, and the playouts are short."""
    return view.pending is Decision.CHALLENGE or min(view.counts.values()) <= CRITICAL_CARDS


def _weights(bluffs: list[int], guilt: float | None) -> list[float]:
    """Each world's weight: 1, or for a challenge the odds the table's record gives that
    the card is a bluff (the deal alone knows nothing of how often a player bluffs),
    shared among the worlds where it was one, and the rest among the others."""
    if guilt is None:
        return [1.0] * len(bluffs)
    n_bluff = sum(bluffs)
    n_honest = len(bluffs) - n_bluff
    return [(guilt / n_bluff if b else (1 - guilt) / n_honest) * len(bluffs)
            for b in bluffs]


def _bound(diffs: list[float], weights: list[float], z: float) -> float:
    """The weighted mean of ``diffs`` plus ``z`` standard errors (``weights``: the
    worlds' first ``len(diffs)``)."""
    weights = weights[:len(diffs)]
    total = sum(weights)
    if total <= 0:
        return 0.0
    mean = sum(w * d for w, d in zip(weights, diffs, strict=True)) / total
    var = sum(w * (d - mean) ** 2 for w, d in zip(weights, diffs, strict=True)) / total
    n_eff = total * total / max(sum(w * w for w in weights), 1e-12)
    return float(mean + z * (var / max(n_eff - 1, 1)) ** 0.5)


def _guilt(view: SeatView) -> float:
    """The chance the pending Wild Draw Four is a bluff, from the view (the normal
    player's reasoning: could they have bluffed, and do they, by their record)."""
    assert view.w4 is not None
    player, _victim, color = view.w4
    unseen = view.unseen(get_edition(view.edition).deck)
    known = view.known.get(player, ())
    if any(c.color is color for c in known):
        return 1.0
    if color is not None and color in view.void.get(player, ()):
        return 0.0
    total = sum(unseen.values())
    same = sum(n for c, n in unseen.items() if c.color is color)
    challenged, guilty = view.record.get(player, (0, 0))
    return guilt_odds(total, same, view.counts[player] - len(known), challenged, guilty)


def think(view: SeatView, seed: int | None = None, budget: float | None = BUDGET) -> Move:
    """The entry point for another process: the move for ``view``, within ``budget`` seconds
    of this process's CPU time."""
    return decide(view, seed=seed, budget=budget)


class SearchPlayer:
    """The hard computer player as a ``Strategy``: the search for the decisions it makes
    (given only ``seat_view``), the normal player for the rest and for calling UNO and
    catching. ``observe`` takes every move's events (what the table showed)."""

    name = "hard"

    def __init__(self, seed: int | None = None, *, samples: int = SAMPLES,
                 budget: float | None = BUDGET, playout: Playout | None = None) -> None:
        self.seed = seed
        self.samples = samples
        self.budget = budget
        self.playout = playout
        self.notes = Notes()
        self.normal = HeuristicPlayer(seed)
        self.thought: list[float] = []
        """Seconds of CPU each search took (for the simulator's figures)."""
        self.waited: list[float] = []
        """Seconds of wall time each search took."""

    def observe(self, events: list[Event]) -> None:
        self.notes.observe(events)

    def react(self, game: Game, player: str) -> Move | None:
        return self.normal.react(game, player)

    def choose(self, game: Game, player: str) -> Move | None:
        if game.is_over or game.turn != player:
            return None
        if game.pending not in SEARCHED:
            return self.normal.choose(game, player)
        view = seat_view(game, player, self.notes)
        start, wall = time.process_time(), time.perf_counter()
        seed = None if self.seed is None else self.seed ^ view.fingerprint()
        move = decide(view, seed=seed, samples=self.samples, budget=self.budget,
                      playout=self.playout)
        self.thought.append(time.process_time() - start)
        self.waited.append(time.perf_counter() - wall)
        return move
