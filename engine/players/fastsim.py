"""A compact simulator of one hand for playouts (issue 19): ``FastSim``.

The same rules as ``Game`` (engine/effects.py, engine/lap.py, engine/turns.py,
engine/scoring.py, engine/teams.py) on small integers: a card is an index into ``CARDS``, a
hand a list of them, a seat an index into ``players``, a tower holder a seat (-1: none), the
UNO calls a bit mask, a move one ``int`` (``play_move``, ``DRAW``, ...). No events, no
validation (``step`` is ``Game.push``: it trusts a move taken from
``playouts.legal_moves``), no Card objects, no statistics but the public challenge record
(``record``, which the normal player reads to answer a Wild Draw Four); ``clone`` copies a
few lists. A hand ends with ``pending`` == ``OVER`` and ``gained``: what each seat scored
for the hand (with partners, every seat its team's figure). It never deals the next hand and
never reads a clock.

``FastSim.from_game(game)`` reads a ``Game`` (or a seat's sampled view of one: a Game whose
hidden cards were replaced; or pass ``hands=`` / ``draw=``); ``FastSim.deal`` deals a new
hand as ``Game`` does. The policies that play it forward are engine/players/playouts.py's.
tests/engine/players/test_fastsim.py plays it against ``Game`` move for move.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Final

from engine.basegame import BaseGame
from engine.cards import Card
from engine.editions import Edition
from engine.players.fastcards import (
    ACCEPT,
    BLOCK,
    CALL,
    CARD_ID,
    CATCH,
    CHALLENGE,
    CHALLENGED,
    CHOOSE,
    COLOR,
    COLOR_ID,
    COLOR_OF,
    DECISION_ID,
    DRAW,
    DRAWN,
    DRAWS,
    FACE,
    ICON,
    K_DRAW1,
    K_DRAW2,
    K_GRAB2,
    K_LAP,
    K_NUMBER,
    K_REVERSE,
    K_SKIP,
    K_W4,
    K_WILD,
    K_WILD_GRAB,
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
    TAG,
    TOWERS,
    UNO_BIT,
    WILD,
    card_points,
    deck_of,
)
from engine.settings import Settings

_DEFAULT: Final = Settings()
_TAG_MASK: Final = ~(TAG - 1)
_PLAIN: Final = frozenset({K_NUMBER, K_GRAB2, K_WILD, K_WILD_GRAB})
"""Kinds that only end the turn: a number, Grab-2-Towers, Wild, Wild Grab-A-Tower."""

_BITS: Final = tuple(n.bit_length() for n in range(200))


def shuffle(cards: list[int], rng: random.Random) -> None:
    """``rng.shuffle(cards)``, the same order from the same generator, in about half the
    time: CPython's Fisher-Yates with its ``_randbelow`` (one ``getrandbits`` call a card,
    again while the number is too large) written out in the loop. ``random.Random``'s own
    shuffle is used for a generator of another class or a pile past 200 cards."""
    n = len(cards)
    if type(rng) is not random.Random or n > 200:
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    for i in range(n - 1, 0, -1):
        k = _BITS[i + 1]
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


class FastSim:
    """One hand of UNO on integers, from a ``Game`` or a deal to its end (module doc)."""

    __slots__ = ("after_keep", "alternative", "called", "catchable", "color", "color_only",
                 "direction", "discard", "draw", "drawn", "gained", "hands", "lap_player",
                 "lap_step", "moves", "n", "pending", "players", "points", "record", "rng",
                 "team_of", "towers", "towers_on", "turn", "w4_color", "w4_guilty",
                 "w4_player", "w4_victim", "winner")

    players: tuple[str, ...]
    """The seats' player names (to speak of moves in the engine's terms)."""
    n: int
    towers_on: bool
    points: tuple[int, ...]
    team_of: tuple[int, ...] | None
    alternative: bool
    rng: random.Random
    """Shuffles the discard pile when the draw pile runs out (shared by clones)."""
    hands: list[list[int]]
    draw: list[int]
    """The draw pile; its top is the end of the list."""
    discard: list[int]
    color: int
    towers: list[int]
    turn: int
    direction: int
    pending: int
    drawn: int
    color_only: bool
    w4_player: int
    w4_victim: int
    w4_guilty: bool
    w4_color: int
    """The colour in play before the pending Wild Draw Four (what a challenge is about)."""
    record: tuple[tuple[int, int], ...]
    """Per seat: Wild Draw Fours challenged, guilty of them (``PlayerStats``, public)."""
    after_keep: int
    lap_player: int
    lap_step: int
    called: int
    """Bit ``1 << seat`` set: that seat called UNO."""
    catchable: int
    winner: int
    gained: list[int]
    """At the end of the hand: what each seat scored (zeros before)."""
    moves: int
    """How many moves ``playouts.playout`` made on it (and on the one it was cloned from)."""

    # ------------------------------------------------------------------ building
    @classmethod
    def _empty(cls, players: Sequence[str], towers_on: bool, settings: Settings,
               team_of: tuple[int, ...] | None, rng: random.Random) -> FastSim:
        sim = cls.__new__(cls)
        sim.players = tuple(players)
        sim.n = len(players)
        sim.towers_on = towers_on
        sim.points = card_points(settings)
        sim.team_of = team_of
        sim.alternative = settings.scoring != "standard"
        sim.rng = rng
        sim.towers = [-1, -1, -1, -1]
        sim.direction = 1
        sim.pending = PLAY
        sim.drawn = -1
        sim.color_only = False
        sim.w4_player = sim.w4_victim = -1
        sim.w4_guilty, sim.w4_color, sim.record = False, NO_COLOR, ((0, 0),) * sim.n
        sim.after_keep = sim.lap_player = -1
        sim.lap_step = 0
        sim.called = 0
        sim.catchable = sim.winner = -1
        sim.gained = [0] * sim.n
        sim.moves = 0
        return sim

    @classmethod
    def from_game(cls, game: BaseGame, rng: random.Random | None = None, *,
                  hands: Mapping[str, Sequence[Card]] | None = None,
                  draw: Sequence[Card] | None = None) -> FastSim:
        """The hand ``game`` is playing, as it stands. ``rng`` shuffles the discard pile
        when the draw pile runs out (default: a copy of ``game.rng``, so the simulator
        shuffles as the game would). ``hands`` (player -> cards) and ``draw`` (bottom to
        top, as ``game.s.draw``) replace those of the game: a seat's sampled view. A pending
        Wild Draw Four's guilt is then judged on the sampled hand of its player, and a drawn
        card waiting to be played or kept is the last card of its player's sampled hand."""
        s = game.s
        players = list(game.players)
        seat = {p: i for i, p in enumerate(players)}
        if rng is None:
            rng = random.Random()
            rng.setstate(game.rng.getstate())
        team_of = tuple(game.team_of(p) or 0 for p in players) if game.teams else None
        sim = cls._empty(players, game.edition.towers, game.settings, team_of, rng)
        held = dict(s.hands) if hands is None else {**s.hands, **hands}
        sim.hands = [[CARD_ID[c] for c in held[p]] for p in players]
        sim.draw = [CARD_ID[c] for c in (s.draw if draw is None else draw)]
        sim.discard = [CARD_ID[c] for c in s.discard]
        sim.color = NO_COLOR if s.color is None else COLOR_ID[s.color]
        sim.towers = [seat.get(h, -1) if h is not None else -1 for h in
                      (s.towers[t] for t in TOWERS)]
        sim.turn = seat.get(s.turn, 0)
        sim.direction = s.direction
        sim.pending = DECISION_ID[s.pending]
        sim.drawn = -1 if s.drawn is None else CARD_ID[s.drawn]
        if hands is not None and s.turn in hands and sim.pending == DRAWN:
            sim.drawn = sim.hands[sim.turn][-1]
        sim.color_only = s.color_only
        if s.w4 is not None:
            sim.w4_player, sim.w4_victim = seat[s.w4.player], seat[s.w4.victim]
            sim.w4_guilty = s.w4.guilty
            prev = sim.w4_color = NO_COLOR if s.w4.color is None else COLOR_ID[s.w4.color]
            if hands is not None and s.w4.player in hands:
                sim.w4_guilty = any(COLOR_OF[c] == prev for c in sim.hands[sim.w4_player])
        sim.record = tuple((game.stats[p].w4_challenged, game.stats[p].bluffs_caught)
                           for p in players)
        sim.after_keep = seat.get(s.after_keep, -1) if s.after_keep is not None else -1
        if s.lap is not None:
            sim.lap_player, sim.lap_step = seat[s.lap.player], s.lap.step
        sim.called = sum(1 << seat[p] for p in s.called if p in seat)
        sim.catchable = seat.get(s.catchable, -1) if s.catchable is not None else -1
        return sim

    @classmethod
    def deal(cls, edition: Edition, players: Sequence[str], rng: random.Random, *,
             dealer: int = -1, settings: Settings | None = None,
             teams: Sequence[Sequence[str]] | None = None) -> FastSim:
        """A new hand dealt by seat ``dealer`` (default: the last seat) as ``Game`` deals
        one (engine/setup.py's ``start_round``: the same shuffles of ``rng``, the same
        first-card rules)."""
        team_of = None
        if teams:
            where = {p: i for i, t in enumerate(teams) for p in t}
            team_of = tuple(where[p] for p in players)
        sim = cls._empty(players, edition.towers, settings or _DEFAULT, team_of, rng)
        n = sim.n
        dealer %= n
        deck = deck_of(edition)
        shuffle(deck, rng)
        # one card at a time from the top, starting left of the dealer
        dealt = deck[:-7 * n - 1:-1]
        del deck[-7 * n:]
        hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            hands[(dealer + 1 + i) % n] = dealt[i::n]
        sim.hands = hands
        sim.draw = deck
        pop = deck.pop
        while True:
            card = pop()
            if KIND[card] != K_W4:
                break
            deck.append(card)  # R-FIRST-W4: returned and reshuffled
            shuffle(deck, rng)
        sim.discard = [card]
        sim.color = COLOR_OF[card]
        first = (dealer + 1) % n
        kind = KIND[card]
        sim.turn = first
        if kind in (K_DRAW1, K_DRAW2):
            sim._draw_cards(first, DRAWS[kind])
            sim.turn = (first + 1) % n
        elif kind == K_SKIP:
            sim.turn = (first + 1) % n
        elif kind == K_REVERSE:
            sim.direction = -1
            sim.turn = dealer
        elif kind == K_GRAB2:
            sim.color_only = True
        elif WILD[card]:
            sim.pending = COLOR
        return sim

    def clone(self) -> FastSim:
        """An independent copy (the random generator is shared)."""
        c = FastSim.__new__(FastSim)
        c.players = self.players
        c.n = self.n
        c.towers_on = self.towers_on
        c.points = self.points
        c.team_of = self.team_of
        c.alternative = self.alternative
        c.rng = self.rng
        c.hands = [h[:] for h in self.hands]
        c.draw = self.draw[:]
        c.discard = self.discard[:]
        c.color = self.color
        c.towers = self.towers[:]
        c.turn = self.turn
        c.direction = self.direction
        c.pending = self.pending
        c.drawn = self.drawn
        c.color_only = self.color_only
        c.w4_player = self.w4_player
        c.w4_victim = self.w4_victim
        c.w4_guilty = self.w4_guilty
        c.w4_color = self.w4_color
        c.record = self.record
        c.after_keep = self.after_keep
        c.lap_player = self.lap_player
        c.lap_step = self.lap_step
        c.called = self.called
        c.catchable = self.catchable
        c.winner = self.winner
        c.gained = self.gained[:]
        c.moves = self.moves
        return c

    # ------------------------------------------------------------------ questions
    def fits(self) -> tuple[bool, ...]:
        """``fits()[card]``: whether ``card`` may be played on the discard pile now."""
        face = NO_FACE if self.color_only else FACE[self.discard[-1]]
        return MATCH[self.color * 16 + face]

    def team_points(self) -> list[int]:
        """Partner play: what each team scored for the hand, in the order of the teams."""
        assert self.team_of is not None
        out = [0] * (max(self.team_of) + 1)
        for i, t in enumerate(self.team_of):
            out[t] = self.gained[i]
        return out

    # ------------------------------------------------------------------ moves
    def step(self, m: int) -> None:
        """Make move ``m``, known to be legal (``Game.push``)."""
        if m < TAG:
            p = self.turn
            if self.catchable >= 0 and self.catchable != p:
                self.catchable = -1  # a move by anyone else closes the catch window
            if m < 128:  # the play of a card that needs no choice
                self.play(p, m, NO_COLOR, 0, False)
            else:
                self.play(p, m & 127, ((m >> 7) & 7) ^ 4, (m >> 10) & 15, m & UNO_BIT != 0)
            return
        tag = m & _TAG_MASK
        if tag == CALL:
            self.call(m & 15)
            return
        if tag == CATCH:
            self.catch(m >> 4 & 15)
            return
        p = self.turn
        if self.catchable >= 0 and self.catchable != p:
            self.catchable = -1
        if tag == DRAW:
            self.draw_one(p)
        elif tag == PASS:
            self.drawn = -1
            self._end_turn(p)
        elif tag == ACCEPT:
            self.accept(p)
        elif tag == CHALLENGE:
            self.challenge(p)
        elif tag == KEEP:
            self.keep(p, m & 127, m & UNO_BIT != 0)
        elif tag == CHOOSE:
            self.color = m & 7
            self.pending = PLAY
        elif tag == LAP_KEEP:
            self.lap_keep(p, ((m >> 7) & 7) ^ 4)
        else:
            assert tag == LAP_PASS, m
            self._lap_step()
            if self.lap_step >= self.n:
                # R-VL-OWN-HAND: the pass brought the player's own hand back: kept at once
                # (naming the colour if the card named none)
                self.lap_keep(p, ((m >> 7) & 7) ^ 4)

    def _close(self, actor: int) -> None:
        """A move by anyone but the player at risk closes the UNO catch window."""
        if self.catchable >= 0 and self.catchable != actor:
            self.catchable = -1

    def call(self, seat: int) -> None:
        """``seat`` calls UNO."""
        self.called |= 1 << seat
        if self.catchable == seat:
            self.catchable = -1

    def catch(self, target: int) -> None:
        """The player at risk, ``target``, is caught: two cards."""
        self.catchable = -1
        self._draw_cards(target, 2)

    def play(self, p: int, card: int, color: int, towers: int, uno: bool) -> None:
        """``p``, the turn's player, plays ``card`` (engine/effects.py's ``_do_play``; the
        catch window is closed by ``step``)."""
        hand = self.hands[p]
        hand.remove(card)
        kind = KIND[card]
        guilty = False
        if kind == K_W4:
            prev = self.w4_color = self.color
            for c in hand:
                if COLOR_OF[c] == prev:
                    guilty = True
                    break
        self.discard.append(card)
        self.color = color if WILD[card] else COLOR_OF[card]
        self.drawn = -1
        self.color_only = False
        left = len(hand)
        if left > 1:
            if self.called:
                self.called &= ~(1 << p)
        elif left == 1 and kind != K_LAP:
            if uno or self.called >> p & 1:
                self.called |= 1 << p
            else:
                self.catchable = p
        if self.towers_on:
            t = self.towers
            if ICON[card] >= 0:
                t[ICON[card]] = p
            if towers:
                for i in range(4):
                    if towers >> i & 1:
                        t[i] = p
            if left and t[0] == p and t[1] == p and t[2] == p and t[3] == p:
                if left >= 2:
                    self.pending = KEEPING
                    self.after_keep = (p + self.direction) % self.n
                    return
                self.towers = [-1, -1, -1, -1]  # instant UNO with one card left
        if not left:
            n = DRAWS[kind]
            if n:
                victim = (p + self.direction) % self.n
                if not (self.towers_on and self.towers[BLOCK[kind]] == victim):
                    self._draw_cards(victim, n)
            self._end_hand(p)
        elif kind in _PLAIN:
            # _end_turn(p) for the turn's player, whose call, if any, still stands (it was
            # dropped above unless one card is left)
            self.turn = (p + self.direction) % self.n
            self.pending = PLAY
        else:
            self._effect(p, kind, guilty)

    def _effect(self, p: int, kind: int, guilty: bool) -> None:
        """What a played card does to the next player (``_card_effect``), but for a card
        that only ends the turn."""
        victim = (p + self.direction) % self.n
        if kind == K_REVERSE:
            self.direction = -self.direction
            self._end_turn(victim if self.n == 2 else p)
            return
        if kind == K_LAP:
            self.called = 0
            self.catchable = -1
            self.lap_player = p
            self.lap_step = 0
            self._lap_step()
            return
        if self.towers_on and self.towers[BLOCK[kind]] == victim:
            self._end_turn(p)  # blocked
            return
        if kind == K_W4:
            self.w4_player = p
            self.w4_victim = victim
            self.w4_guilty = guilty
            self.turn = victim
            self.pending = CHALLENGED
            return
        n = DRAWS[kind]
        if n:
            self._draw_cards(victim, n)
        self._end_turn(victim)

    def _end_turn(self, p: int) -> None:
        """The turn passes to the player after ``p`` (engine/turns.py's ``end_turn``)."""
        ending = self.turn
        if self.called >> ending & 1 and len(self.hands[ending]) >= 2:
            self.called &= ~(1 << ending)
        self.turn = (p + self.direction) % self.n
        self.pending = PLAY
        self.color_only = False

    def _draw_cards(self, p: int, count: int) -> int:
        """``p`` draws ``count`` cards, fewer when both piles run out; returns how many."""
        hand = self.hands[p]
        got = 0
        for _ in range(count):
            if not self.draw:
                discard = self.discard
                if len(discard) <= 1:
                    break
                top = discard.pop()
                shuffle(discard, self.rng)
                self.draw = discard
                self.discard = [top]
            hand.append(self.draw.pop())
            got += 1
        if got:
            self.called &= ~(1 << p)
            if self.catchable == p:
                self.catchable = -1
        return got

    def draw_one(self, p: int) -> None:
        """``p`` draws instead of playing; a card that fits waits to be played or kept."""
        if self.draw:
            card = self.draw.pop()
            self.hands[p].append(card)
            if self.called:
                self.called &= ~(1 << p)
            if self.catchable == p:
                self.catchable = -1
        elif self._draw_cards(p, 1):
            card = self.hands[p][-1]
        else:
            self._end_turn(p)
            return
        face = NO_FACE if self.color_only else FACE[self.discard[-1]]
        if MATCH[self.color * 16 + face][card]:
            self.pending = DRAWN
            self.drawn = card
        else:
            self._end_turn(p)

    def accept(self, p: int) -> None:
        self.w4_player = self.w4_victim = -1
        self._draw_cards(p, 4)
        self._end_turn(p)

    def challenge(self, p: int) -> None:
        against = self.w4_player
        self.w4_player = self.w4_victim = -1
        c, g = self.record[against]
        self.record = (*self.record[:against], (c + 1, g + self.w4_guilty),
                       *self.record[against + 1:])
        if self.w4_guilty:
            self._draw_cards(against, 4)
            self.pending = PLAY
            self.turn = p
            return
        self._draw_cards(p, 6)
        self._end_turn(p)

    def keep(self, p: int, card: int, uno: bool) -> None:
        """Instant UNO: ``p`` keeps ``card``, the rest go under the top card."""
        others = self.hands[p]
        others.remove(card)
        self.hands[p] = [card]
        discard = self.discard
        top = discard.pop()
        discard += others
        discard.append(top)
        self.towers = [-1, -1, -1, -1]
        if not self.called >> p & 1:
            if uno:
                self.called |= 1 << p
            else:
                self.catchable = p
        self.turn = self.after_keep
        self.after_keep = -1
        self.pending = PLAY

    def _lap_step(self) -> None:
        """Every hand moves one seat in the direction of play (engine/lap.py)."""
        n, d, hands = self.n, self.direction, self.hands
        self.hands = [hands[(i - d) % n] for i in range(n)]
        self.lap_step += 1
        self.turn = self.lap_player
        self.pending = LAP

    def lap_keep(self, p: int, color: int) -> None:
        self.lap_player = -1
        if color != NO_COLOR:
            self.color = color
        if len(self.hands[p]) == 1:
            self.catchable = p
        self._end_turn(p)

    def _end_hand(self, winner: int) -> None:
        """``winner`` went out: the hand's points (engine/scoring.py, engine/teams.py)."""
        pts = self.points
        held = [sum(pts[c] for c in h) for h in self.hands]
        gained = self.gained = [0] * self.n
        team_of = self.team_of
        if team_of is None:
            if self.alternative:
                gained[:] = held
            else:
                gained[winner] = sum(held)
        else:
            gain = [0] * (max(team_of) + 1)
            ours = team_of[winner]
            for q in range(self.n):
                if self.alternative:
                    gain[team_of[q]] += held[q]
                elif team_of[q] != ours:
                    gain[ours] += held[q]
            for q in range(self.n):
                gained[q] = gain[team_of[q]]
        self.winner = winner
        self.pending = OVER
        self.catchable = -1
