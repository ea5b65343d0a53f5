"""Playing a ``FastSim`` hand (engine/players/fastsim.py) to its end (issue 19): the legal moves
(``legal_moves``), the policies and ``playout``, and ``describe`` (a simulator's table in
the engine's terms).

A policy is a function ``policy(sim, rand) -> move`` for the decision ``sim.turn`` owes
(``rand`` is a ``random.Random().random``: a float in [0, 1)); it only reads what the
turn's player may see (their hand, the table, the hand sizes), never another hand, the draw
pile or whether a Wild Draw Four was a bluff:

* ``random_policy``: plays a random card that fits (each card held equally likely), draws
  only when none fits, plays the drawn card, names random colours and towers, accepts
  every Wild Draw Four, keeps a random card after an instant UNO, keeps or passes a lap's
  hand by coin toss. What rlcard's rules leave a random player (bench/README.md).
* ``greedy_policy``: a cheap heuristic (below); it answers a Wild Draw Four as the normal
  player does (``answer``: challenges when the odds favour it).
* ``uniform_policy``: uniform among every legal move of the turn (``legal_moves``), as
  bench/bench_engine.py's uniform rows; slow (it lists every move) and long hands.

``playout`` simplifies the UNO calls, which the simulator itself plays exactly: in a
playout nobody forgets. The random and greedy policies call with the play (or the keep)
that leaves one card, and any player at risk (one left catchable when the playout starts,
by a uniform play, or keeping a one-card hand in a Victory Lap) calls before the next
move. A call is always legal there, so this never changes what is legal; it only leaves out
the two-card penalty of a catch, which a search asks about at its root, where the catch is a
move of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from engine.players.challenges import challenge_pays, guilt_odds
from engine.players.fastcards import (
    ACCEPT,
    BLOCK,
    CALL,
    CARDS,
    CATCH,
    CHALLENGE,
    CHALLENGED,
    CHOOSE,
    COLOR,
    COLOR_OF,
    COLORS,
    DECISIONS,
    DRAW,
    DRAWN,
    DRAWS,
    FACE,
    GRABS,
    ICON,
    K_GRAB2,
    K_LAP,
    K_REVERSE,
    K_W4,
    KEEP,
    KEEPING,
    KIND,
    LAP,
    LAP_KEEP,
    LAP_PASS,
    MATCH,
    NO_COLOR,
    NO_FACE,
    OVER,
    PASS,
    PLAY,
    TOWERS,
    UNO_BIT,
    WILD,
    is_turn_move,
    play_move,
)
from engine.players.fastsim import FastSim

Rand = Callable[[], float]
Policy = Callable[[FastSim, Rand], int]

MAX_MOVES = 20_000
"""A playout that has not ended after this many moves (every card held, none fits, both
piles empty: nobody can move on) stops with no winner and nobody scoring."""

_ATTACKS = frozenset({1, 2, 3, K_W4})
"""Kinds that hurt the next player: Draw One, Draw Two, Skip, Wild Draw Four."""


def playout(sim: FastSim, policy: Policy, rand: Rand,
            max_moves: int = MAX_MOVES) -> list[int]:
    """Play ``sim`` to the end of the hand with ``policy`` for every seat; returns what
    each seat scored (``sim.gained``; with partners, each seat its team's points). The
    moves it made are added to ``sim.moves``."""
    if sim.pending == OVER:
        return sim.gained
    if policy is random_policy:
        sim.moves += _random_playout(sim, rand, max_moves)
    else:
        step = sim.step
        for moves in range(1, max_moves + 1):
            if sim.catchable >= 0:
                sim.call(sim.catchable)
            step(policy(sim, rand))
            if sim.pending == OVER:
                sim.moves += moves
                return sim.gained
        sim.moves += max_moves
    if sim.pending != OVER:
        sim.pending = OVER
        sim.gained = [0] * sim.n
    return sim.gained


# ---------------------------------------------------------------------------- legal moves
def legal_moves(sim: FastSim, seat: int) -> list[int]:
    """Every move ``seat`` may make now (``Game.legal_moves``), calls and catches
    included."""
    pending = sim.pending
    if pending == OVER:
        return []
    if pending == LAP:
        if seat != sim.lap_player or seat != sim.turn:
            return []
        if sim.color == NO_COLOR:
            out = [LAP_KEEP | (c ^ 4) << 7 for c in range(4)]
        else:
            out = [LAP_KEEP]
        if sim.lap_step + 1 == sim.n and sim.color == NO_COLOR:
            # R-VL-OWN-HAND: this pass ends the lap, so it names the colour
            out += [lap_pass(sim, c) for c in range(4)]
        elif sim.lap_step < sim.n:
            out.append(LAP_PASS)
        return out
    out = []
    hand = sim.hands[seat]
    size = len(hand)
    if not sim.called >> seat & 1 and (size == 1 or (size == 2 and sim.turn == seat)):
        out.append(CALL | seat)
    if sim.catchable >= 0 and sim.catchable != seat:
        out.append(CATCH | seat | sim.catchable << 4)
    if sim.turn != seat:
        return out
    if pending == PLAY:
        fits = sim.fits()
        for card in dict.fromkeys(hand):
            if fits[card]:
                out += play_variants(sim, seat, card, size == 2)
        out.append(DRAW)
    elif pending == DRAWN:
        out += play_variants(sim, seat, sim.drawn, size == 2)
        out.append(PASS)
    elif pending == COLOR:
        out += [CHOOSE | c for c in range(4)]
    elif pending == CHALLENGED:
        out += [ACCEPT, CHALLENGE]
    elif pending == KEEPING:
        for card in dict.fromkeys(hand):
            out += [KEEP | card, KEEP | card | UNO_BIT]
    return out


def play_variants(sim: FastSim, seat: int, card: int, uno_too: bool) -> list[int]:
    """The plays of ``card`` by ``seat``: each colour (a wild), each set of towers
    (a grab), with and without the UNO call (``uno_too``)."""
    kind = KIND[card]
    colors = [0, 1, 2, 3] if WILD[card] else [NO_COLOR]
    if kind == K_LAP and len(sim.hands[seat]) > 1:
        colors.append(NO_COLOR)
    sets = [0]
    if sim.towers_on and kind in GRABS:
        free = [t for t in range(4) if sim.towers[t] != seat]
        need = min(2 if kind == K_GRAB2 else 1, len(free))
        if need:
            sets = [sum(1 << t for t in ts) for ts in combinations(free, need)]
    out = []
    for col in colors:
        for ts in sets:
            m = play_move(card, col, ts)
            out.append(m)
            if uno_too:
                out.append(m | UNO_BIT)
    return out


# ---------------------------------------------------------------------------- random
def lap_pass(sim: FastSim, color: int) -> int:
    """A Victory Lap pass; the one that brings the player's own hand back ends the lap and
    names ``color`` if the card named none (R-VL-OWN-HAND)."""
    if sim.lap_step + 1 == sim.n and sim.color == NO_COLOR:
        return LAP_PASS | (color ^ 4) << 7
    return LAP_PASS


def random_policy(sim: FastSim, rand: Rand) -> int:
    """Play a random card that fits, else draw; random choices (module doc)."""
    p = sim.turn
    pending = sim.pending
    hand = sim.hands[p]
    if pending == PLAY:
        fits = MATCH[sim.color * 16 + (NO_FACE if sim.color_only else FACE[sim.discard[-1]])]
        ok = [c for c in hand if fits[c]]
        if not ok:
            return DRAW
        return _random_play(sim, p, ok[int(rand() * len(ok))], len(hand) == 2, rand)
    if pending == DRAWN:
        return _random_play(sim, p, sim.drawn, len(hand) == 2, rand)
    if pending == LAP:
        if sim.lap_step < sim.n and rand() < 0.5:
            ends = sim.lap_step + 1 == sim.n and sim.color == NO_COLOR
            return lap_pass(sim, int(rand() * 4)) if ends else LAP_PASS
        return LAP_KEEP | ((int(rand() * 4) if sim.color == NO_COLOR else NO_COLOR) ^ 4) << 7
    if pending == KEEPING:
        return KEEP | hand[int(rand() * len(hand))] | UNO_BIT
    if pending == COLOR:
        return CHOOSE | int(rand() * 4)
    return ACCEPT


def _random_play(sim: FastSim, p: int, card: int, uno: bool, rand: Rand) -> int:
    """The play of ``card`` with random choices: a colour for a wild, towers for a grab."""
    call = UNO_BIT if uno else 0
    kind = KIND[card]
    if WILD[card]:
        color = int(rand() * 4)
    elif not (kind == K_GRAB2 and sim.towers_on):
        return card | call
    else:
        color = NO_COLOR
    towers = 0
    if sim.towers_on and kind in GRABS:
        free = [t for t in range(4) if sim.towers[t] != p]
        need = min(2 if kind == K_GRAB2 else 1, len(free))
        for _ in range(need):
            t = free.pop(int(rand() * len(free)))
            towers |= 1 << t
    return play_move(card, color, towers) | call


def _random_playout(sim: FastSim, rand: Rand, max_moves: int) -> int:
    """``playout`` with ``random_policy`` for every seat, its commonest moves (a plain card
    played, a draw) made straight away instead of as a move number: the same choices from
    the same ``rand``, the same rules (``FastSim.play``, ``draw_one``). Returns the number
    of moves (``max_moves`` when the hand did not end)."""
    step = sim.step
    play = sim.play
    draw_one = sim.draw_one
    towers_on = sim.towers_on
    for moves in range(1, max_moves + 1):
        if sim.catchable >= 0:
            sim.call(sim.catchable)  # the catch window is closed for the move below
        pending = sim.pending
        if pending == PLAY:
            p = sim.turn
            hand = sim.hands[p]
            fits = MATCH[sim.color * 16 + (NO_FACE if sim.color_only else FACE[sim.discard[-1]])]
            ok = [c for c in hand if fits[c]]
            if not ok:
                draw_one(p)
            else:
                card = ok[int(rand() * len(ok))]
                if WILD[card] or (towers_on and KIND[card] == K_GRAB2):
                    step(_random_play(sim, p, card, len(hand) == 2, rand))
                else:
                    play(p, card, NO_COLOR, 0, len(hand) == 2)
        elif pending == DRAWN:
            p = sim.turn
            card = sim.drawn
            if WILD[card] or (towers_on and KIND[card] == K_GRAB2):
                step(_random_play(sim, p, card, len(sim.hands[p]) == 2, rand))
            else:
                play(p, card, NO_COLOR, 0, len(sim.hands[p]) == 2)
        else:
            step(random_policy(sim, rand))
        if sim.pending == OVER:
            return moves
    return max_moves


# ---------------------------------------------------------------------------- greedy
def greedy_policy(sim: FastSim, rand: Rand) -> int:
    """A cheap heuristic: sheds its costliest card that fits, staying in the colour it
    holds most, taking a tower with a card's icon and keeping wilds for last; hits an
    opponent next in turn with a draw card or a Skip (more so when they are low on cards),
    never a partner; names its commonest colour; grabs the towers of the next opponent
    first; answers a Wild Draw Four as the normal player does (``answer``); keeps a wild
    (else its commonest colour) after an instant UNO; keeps a lap's hand of three cards or
    fewer; always calls UNO. Ties go to the first card in the hand."""
    p = sim.turn
    pending = sim.pending
    hand = sim.hands[p]
    counts = [0, 0, 0, 0, 0]
    for c in hand:
        counts[COLOR_OF[c]] += 1
    if pending == PLAY:
        fits = MATCH[sim.color * 16 + (NO_FACE if sim.color_only else FACE[sim.discard[-1]])]
        team_of = sim.team_of
        nxt = (p + sim.direction) % sim.n
        friend = team_of is not None and team_of[nxt] == team_of[p]
        attack = -30 if friend else (25 if len(sim.hands[nxt]) <= 2 else 8)
        held = sim.towers if sim.towers_on else None
        points = sim.points
        card = -1
        best_score = -1000
        for c in hand:
            if not fits[c]:
                continue
            kind = KIND[c]
            if WILD[c]:
                score = -40 if kind == K_W4 else -30
            else:
                score = points[c] + 2 * counts[COLOR_OF[c]]
                if held is not None and ICON[c] >= 0 and held[ICON[c]] != p:
                    score += 6
            if kind in _ATTACKS:
                score += attack
            if score > best_score:
                card, best_score = c, score
        if card < 0:
            return DRAW
    elif pending == DRAWN:
        card = sim.drawn
    elif pending == LAP:
        if len(hand) > 3 and sim.lap_step < sim.n:
            return lap_pass(sim, _commonest(counts))
        color = _commonest(counts) if sim.color == NO_COLOR else NO_COLOR
        return LAP_KEEP | (color ^ 4) << 7
    elif pending == KEEPING:
        best_color = _commonest(counts)
        kept = next((c for c in hand if WILD[c]), -1)
        if kept < 0:
            kept = next(c for c in hand if COLOR_OF[c] == best_color)
        return KEEP | kept | UNO_BIT
    elif pending == COLOR:
        return CHOOSE | _commonest(counts)
    else:
        return answer(sim)
    return _played(sim, p, card, len(hand), counts, rand)


def answer(sim: FastSim) -> int:
    """The victim's answer to the pending Wild Draw Four, the normal player's
    (``HeuristicPlayer``, engine/players/challenges.py): the chance of a bluff from what the
    victim can see (the cards outside its hand and the discard pile, the size of the hand
    the card came from, that player's public record), and a challenge when that chance
    makes it worth more than accepting; a partner's card is accepted."""
    p = sim.turn
    against = sim.w4_player
    team_of = sim.team_of
    if team_of is not None and team_of[against] == team_of[p]:
        return ACCEPT
    prev = sim.w4_color
    unseen = list(sim.draw)
    for q in range(sim.n):
        if q != p:
            unseen += sim.hands[q]
    same = sum(1 for c in unseen if COLOR_OF[c] == prev) if prev != NO_COLOR else 0
    challenged, guilty = sim.record[against]
    odds = guilt_odds(len(unseen), same, len(sim.hands[against]), challenged, guilty)
    return CHALLENGE if challenge_pays(odds, sim.n) else ACCEPT


def _played(sim: FastSim, p: int, card: int, size: int, counts: list[int],
            rand: Rand) -> int:
    """``card`` played from a hand of ``size`` cards, UNO called with the last but one, a
    wild's colour the one counted most in ``counts`` (any when none is) and the towers
    a greedy grab takes."""
    uno = UNO_BIT if size == 2 else 0
    kind = KIND[card]
    grabs = sim.towers_on and kind in GRABS
    if not WILD[card] and not grabs:
        return card | uno
    color = NO_COLOR
    if WILD[card]:
        color = _commonest(counts) if max(counts[:4]) > 0 else int(rand() * 4)
    towers = _greedy_towers(sim, p, kind) if grabs else 0
    return play_move(card, color, towers) | uno


def _commonest(counts: list[int]) -> int:
    """The colour counted most (the first of equals; red when none is)."""
    best = 0
    for c in range(1, 4):
        if counts[c] > counts[best]:
            best = c
    return best


def _greedy_towers(sim: FastSim, p: int, kind: int) -> int:
    """The towers a grab takes: the next opponent's first, then other opponents', then
    free ones, a partner's last."""
    team_of = sim.team_of
    nxt = (p + sim.direction) % sim.n

    def rank(t: int) -> int:
        h = sim.towers[t]
        if h < 0:
            return 1
        if team_of is not None and team_of[h] == team_of[p]:
            return 0
        return 3 if h == nxt else 2

    free = sorted((t for t in range(4) if sim.towers[t] != p), key=rank, reverse=True)
    need = min(2 if kind == K_GRAB2 else 1, len(free))
    return sum(1 << t for t in free[:need])


# ---------------------------------------------------------------------------- normal
def normal_policy(sim: FastSim, rand: Rand) -> int:
    """The normal player's habits (``HeuristicPlayer.score``, engine/players/heuristic.py) in the
    simulator's terms, so that a search's playouts play as its opponents do: sheds points
    and stays in the colour it holds most; an attack (draw card, Skip) is worth more the
    more it draws and the fewer cards the next player holds, is kept when the next player
    holds the tower that blocks it, never aimed at a partner; keeps its wilds while it has
    another card to play and more than three cards (and passes a drawn wild then), a Wild
    Draw Four most of all when it would be a bluff; values the towers a card takes (more
    from a player low on cards or next in turn, none from a partner) and a fourth tower
    above all (an instant UNO); names its commonest colour, answers a Wild Draw Four as the
    normal player does (``answer``), keeps a wild after an instant UNO, keeps a lap's hand
    of three cards or fewer, always calls UNO."""
    p = sim.turn
    pending = sim.pending
    if pending != PLAY and pending != DRAWN:
        return greedy_policy(sim, rand)
    hand = sim.hands[p]
    size = len(hand)
    counts = [0, 0, 0, 0, 0]
    for c in hand:
        counts[COLOR_OF[c]] += 1
    if pending == PLAY:
        fits = MATCH[sim.color * 16 + (NO_FACE if sim.color_only else FACE[sim.discard[-1]])]
        ok = [c for c in hand if fits[c]]
        if not ok:
            return DRAW
    else:
        ok = [sim.drawn]
    n = sim.n
    nxt = (p + sim.direction) % n
    team_of = sim.team_of
    hands = sim.hands
    n_next = len(hands[nxt])
    friend = team_of is not None and team_of[nxt] == team_of[p]
    urgency = 3.0 if n_next <= 2 else (1.5 if n_next <= 4 else 1.0)
    towers = sim.towers if sim.towers_on else None
    points = sim.points
    commonest = _commonest(counts)
    card = -1
    best = -1e9
    for c in ok:
        kind = KIND[c]
        col = COLOR_OF[c]
        score = points[c] * 0.4 + 1.5 * (counts[col] - 1 if col < 4 else 0)
        block = BLOCK[kind]
        if block >= 0:
            if towers is not None and towers[block] == nxt:
                score -= 15.0
            elif friend:
                score -= (DRAWS[kind] * 5 + 8) * 2
            else:
                score += (DRAWS[kind] * 5 + 8) * urgency
        elif kind == K_REVERSE and n > 2:
            score += 4 if len(hands[(p - sim.direction) % n]) > n_next else -2
        if WILD[c]:
            if size > 3 and _other_play(hand, c, fits if pending == PLAY else None,
                                        sim):
                score -= 100.0
            score += 5.0 * counts[commonest]
            if kind == K_W4:
                prev = sim.color
                if any(COLOR_OF[x] == prev for x in hand):
                    score -= 10 if n_next <= 1 else 60
        if towers is not None:
            taken = (1 << ICON[c]) if ICON[c] >= 0 else 0
            if kind in GRABS:
                taken |= _greedy_towers(sim, p, kind)
            if taken:
                mine = 0
                for t in range(4):
                    h = towers[t]
                    if h == p:
                        mine |= 1 << t
                    elif taken >> t & 1:
                        if team_of is not None and h >= 0 and team_of[h] == team_of[p]:
                            score -= 7.0
                            continue
                        score += 7.0
                        if h >= 0 and len(hands[h]) <= 3:
                            score += 4.0
                        if h == nxt:
                            score += 3.0
                if (mine | taken) == 15 and size >= 3:
                    score += 150 + 3 * (size - 1)
        score += rand() * 0.5
        if score > best:
            card, best = c, score
    if pending == DRAWN and best < -25:
        return PASS
    return _played(sim, p, card, size, counts, rand)


def _other_play(hand: list[int], wild: int, fits: Sequence[bool] | None,
                sim: FastSim) -> bool:
    """Whether ``hand`` holds a card other than a wild that fits (``fits`` None: the
    table's)."""
    if fits is None:
        fits = sim.fits()
    return any(fits[c] and not WILD[c] for c in hand if c != wild)


# ---------------------------------------------------------------------------- uniform
def uniform_policy(sim: FastSim, rand: Rand) -> int:
    """Uniform among the legal moves of the turn (no call, no catch)."""
    moves = [m for m in legal_moves(sim, sim.turn) if is_turn_move(m)]
    return moves[int(rand() * len(moves))]


def per_seat(policies: Sequence[Policy]) -> Policy:
    """One policy per seat (``policies[seat]``), as one policy for ``playout``."""
    table = tuple(policies)

    def policy(sim: FastSim, rand: Rand) -> int:
        return table[sim.turn](sim, rand)

    return policy


POLICIES: dict[str, Policy] = {"random": random_policy, "greedy": greedy_policy,
                               "normal": normal_policy, "uniform": uniform_policy}


# ---------------------------------------------------------------------------- describe
def describe(sim: FastSim) -> dict[str, Any]:
    """The simulator's table in the engine's terms (the keys of ``state_to_dict`` it
    keeps; of the Wild Draw Four its player, victim, guilt and colour): for tests and
    debugging."""
    players = sim.players

    def name(seat: int) -> str | None:
        return None if seat < 0 else players[seat]

    def codes(cards: list[int]) -> list[str]:
        return [CARDS[c].code for c in cards]

    return {
        "hands": {p: codes(sim.hands[i]) for i, p in enumerate(players)},
        "draw": codes(sim.draw),
        "discard": codes(sim.discard),
        "color": None if sim.color == NO_COLOR else COLORS[sim.color].value,
        "towers": {t.value: name(h) for t, h in zip(TOWERS, sim.towers, strict=True)},
        "turn": players[sim.turn],
        "direction": sim.direction,
        "pending": DECISIONS[sim.pending].value,
        "drawn": None if sim.drawn < 0 else CARDS[sim.drawn].code,
        "color_only": sim.color_only,
        "w4": None if sim.w4_player < 0 else {
            "player": name(sim.w4_player), "victim": name(sim.w4_victim),
            "guilty": sim.w4_guilty,
            "color": None if sim.w4_color == NO_COLOR else COLORS[sim.w4_color].value},
        "after_keep": name(sim.after_keep),
        "lap": None if sim.lap_player < 0 else {"player": name(sim.lap_player),
                                                "step": sim.lap_step},
        "called": sorted(p for i, p in enumerate(players) if sim.called >> i & 1),
        "catchable": name(sim.catchable),
    }
