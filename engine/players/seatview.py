"""What one seat can know: ``SeatView`` (a picklable snapshot for a search) and ``Notes``
(what the table has shown so far, kept beside a game from its events).

A view holds the seat's own hand, every card played (the discard pile), how many cards
every other hand and the draw pile hold, the towers, scores and whose turn it is, the
public challenge record, and what the events showed: the colours a player is known not to
hold (an innocent Wild Draw Four challenge proves it, RULES.md R-WD4-CHALLENGE), the
colours a player drew on rather than play (only likely: a player may draw instead of
playing, R-DRAW), and the hand a challenge showed this seat (R-WD4-CHALLENGE: the
challenger alone sees it), less the cards played since. Nothing else: no other hand, not
the order of the draw pile, not whether a pending Wild Draw Four is a bluff.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.basegame import BaseGame
from engine.cards import Card, Color, Kind, Tower
from engine.events import (
    ChallengeResolved,
    ColorChosen,
    Drew,
    Event,
    InstantUno,
    LapKept,
    Opened,
    Played,
    RoundStarted,
    Turn,
)
from engine.settings import Settings
from engine.state import Decision

Face = tuple[Kind, int | None]
"""What a card shows besides its colour: its kind and, for a number card, the number."""


def face(card: Card) -> Face:
    """``card``'s face (``Face``)."""
    return (card.kind, card.number)


@dataclass(slots=True)
class Notes:
    """What a table's events showed, per player: kept by whoever watches a game (the bot
    keeps one per game in memory, the simulator one per game) and read by ``seat_view``.

    ``observe`` reads only what the table sees, except the challenged hand, which it
    files under the challenger (``shown``): ``seat_view`` gives a seat only its own."""

    void: dict[str, set[Color]] = field(default_factory=dict)
    """Colours a player is known not to hold (an innocent Wild Draw Four challenge)."""
    shy: dict[str, set[Color]] = field(default_factory=dict)
    """Colours a player drew on rather than play: likely, not known, not to be held."""
    shown: dict[tuple[str, str], list[Card]] = field(default_factory=dict)
    """(viewer, player): cards of ``player``'s hand a challenge showed ``viewer``, less
    the ones played since."""
    color: Color | None = None
    """The colour in play, followed from the events (None until a card shows it)."""
    w4_color: Color | None = None
    """The colour in play before the last Wild Draw Four (what a challenge is about)."""
    drawer: str | None = None
    """Who just drew one card by choice, until the next turn shows whether it matched."""
    wildless: set[str] = field(default_factory=set)
    """Players who drew by choice since they last took cards otherwise: likely, not known,
    to hold no wild (one who holds a card they may play plays it rather than draw; a
    drawn wild may always be played)."""
    faces: dict[str, Face] = field(default_factory=dict)
    """The face (kind and number) of the top card a player last drew on rather than play:
    likely, not known, not to be held in any colour."""
    top: Face | None = None
    """The face of the top card a draw is matched against (None: a wild, or the opening
    card, which may allow colour only)."""
    draw_face: Face | None = None
    """``top`` when ``drawer`` drew."""
    deciding: str | None = None
    """Who drew a card they may play and has yet to say whether they play it."""

    def observe(self, events: list[Event] | tuple[Event, ...]) -> None:
        """Take in the events of one move (or of a deal)."""
        for e in events:
            if isinstance(e, RoundStarted | LapKept | InstantUno):
                # new hands (or hands swapped, or a hand discarded down): start again
                self.void.clear()
                self.shy.clear()
                self.shown.clear()
                self.wildless.clear()
                self.faces.clear()
            if isinstance(e, Played):
                self._played(e.player, e.card)
                for (_viewer, q), cards in self.shown.items():
                    if q == e.player and e.card in cards:
                        cards.remove(e.card)
                if e.card.color is not None:
                    self.void.get(e.player, set()).discard(e.card.color)
                    self.shy.get(e.player, set()).discard(e.card.color)
                if e.card.kind is Kind.WILD_DRAW_FOUR:
                    self.w4_color = self.color
                self.color = e.color
            elif isinstance(e, ColorChosen):
                self.color = e.color
            elif isinstance(e, Opened):
                self.color = e.card.color
                self.top = None
            elif isinstance(e, Drew):
                self._drew(e)
            elif isinstance(e, ChallengeResolved):
                if not e.guilty and self.w4_color is not None:
                    self.void.setdefault(e.against, set()).add(self.w4_color)
                self.shown[(e.by, e.against)] = list(e.hand)
            elif isinstance(e, Turn) and self.deciding is not None \
                    and e.player != self.deciding:
                # they kept the card they drew, which may be anything they could play
                self.wildless.discard(self.deciding)
                self.faces.pop(self.deciding, None)
                self.deciding = None
            elif isinstance(e, Turn) and self.drawer is not None:
                drawer, self.drawer = self.drawer, None
                if e.player != drawer:
                    # R-DRAW-UNPLAYABLE: the turn went on, so the drawn card did not
                    # match; they drew rather than play: likely they had none either
                    if self.color is not None:
                        self.shy.setdefault(drawer, set()).add(self.color)
                    self._lacked(drawer)
                else:  # they drew a card they may play: it may be of any colour
                    self.void.pop(drawer, None)
                    self.shy.pop(drawer, None)
                    self.deciding = drawer

    def _played(self, player: str, card: Card) -> None:
        """``player`` played ``card``: what it says of the rest of their hand."""
        if player == self.deciding:
            # the card they drew: the hand they drew with is theirs again
            self.deciding = None
            self._lacked(player)
        elif card.is_wild:
            self.wildless.discard(player)  # they had one after all
        elif self.faces.get(player) == face(card):
            del self.faces[player]
        self.top = None if card.is_wild else face(card)

    def _lacked(self, player: str) -> None:
        """``player`` drew by choice on ``draw_face``: likely they held no wild and no
        card of that face."""
        self.wildless.add(player)
        if self.draw_face is not None:
            self.faces[player] = self.draw_face

    def _drew(self, e: Drew) -> None:
        color = self.color
        by_choice = e.reason == "draw" and e.count == 1
        self.faces.pop(e.player, None)
        if by_choice:
            self.draw_face = self.top
        else:
            self.wildless.discard(e.player)
        if by_choice and color is not None:
            # the card is of the colour in play only if it could be played: known at the
            # next turn; any other colour it may be
            self.drawer = e.player
            for table in (self.void, self.shy):
                if e.player in table:
                    table[e.player] &= {color}
        else:
            self.void.pop(e.player, None)
            self.shy.pop(e.player, None)


@dataclass(frozen=True, slots=True)
class SeatView:
    """Everything one seat can know at one moment (see the module's docstring). Picklable:
    a search in another process is given this and nothing else."""

    me: str
    edition: str
    settings: Settings
    players: tuple[str, ...]
    teams: tuple[tuple[str, ...], ...]
    round_number: int
    hand: tuple[Card, ...]
    counts: dict[str, int]
    discard: tuple[Card, ...]
    """Bottom to top."""
    draw_count: int
    color: Color | None
    color_only: bool
    direction: int
    turn: str
    pending: Decision
    dealer: str
    drawn: Card | None
    """The card this seat just drew and may play (None otherwise)."""
    w4: tuple[str, str, Color | None] | None
    """A pending Wild Draw Four: its player, its victim, the colour in play before it."""
    after_keep: str | None
    towers: dict[Tower, str | None]
    called: frozenset[str]
    catchable: str | None
    scores: dict[str, int]
    team_scores: tuple[int, ...]
    record: dict[str, tuple[int, int]]
    """Per player: Wild Draw Fours challenged, of which guilty (public)."""
    void: dict[str, frozenset[Color]]
    shy: dict[str, frozenset[Color]]
    known: dict[str, tuple[Card, ...]]
    """Cards this seat knows are in another hand (a challenge showed them)."""
    wildless: frozenset[str] = frozenset()
    """Players likely to hold no wild (``Notes.wildless``)."""
    faces: dict[str, Face] = field(default_factory=dict)
    """Per player, a face they are likely not to hold in any colour (``Notes.faces``)."""

    def likely_lacks(self, player: str, card: Card) -> bool:
        """Whether the table suggests ``player`` holds no such card (a colour they drew on
        or were shown not to hold, a wild or the face of a card they drew on)."""
        if card.is_wild:
            return player in self.wildless
        color = card.color
        return (color in self.void.get(player, ()) or color in self.shy.get(player, ())
                or self.faces.get(player) == face(card))

    def unseen(self, deck: tuple[Card, ...]) -> Counter[Card]:
        """The cards this seat has not seen: the deck less its hand, the discard pile and
        the cards it knows are in other hands."""
        pool = Counter(deck)
        pool.subtract(self.hand)
        pool.subtract(self.discard)
        for cards in self.known.values():
            pool.subtract(cards)
        return +pool

    def fingerprint(self) -> int:
        """A number that depends only on the view (a seed for its search)."""
        parts: list[Any] = [self.me, self.round_number, self.turn, self.pending.value,
                            tuple(c.code for c in self.hand), len(self.discard),
                            tuple(sorted(self.counts.items())), self.draw_count]
        text = repr(parts).encode()
        h = 1469598103934665603
        for b in text:
            h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFF
        return h


def seat_view(game: BaseGame, player: str, notes: Notes | None = None) -> SeatView:
    """What ``player`` can know of ``game`` now (``notes``: what the events showed)."""
    s = game.s
    notes = notes if notes is not None else Notes()
    others = [q for q in game.players if q != player]
    known: dict[str, tuple[Card, ...]] = {}
    for (viewer, q), cards in notes.shown.items():
        if viewer == player and q in others and cards:
            # never more than the hand holds (a keep or a lap may have moved cards)
            known[q] = tuple(cards[:len(s.hands[q])])
    return SeatView(
        me=player,
        edition=game.edition.name,
        settings=game.settings,
        players=tuple(game.players),
        teams=tuple(tuple(t) for t in game.teams),
        round_number=game.round_number,
        hand=tuple(s.hands[player]),
        counts={q: len(s.hands[q]) for q in game.players},
        discard=tuple(s.discard),
        draw_count=len(s.draw),
        color=s.color,
        color_only=s.color_only,
        direction=s.direction,
        turn=s.turn,
        pending=s.pending,
        dealer=s.dealer,
        drawn=s.drawn if s.turn == player else None,
        w4=(s.w4.player, s.w4.victim, s.w4.color) if s.w4 is not None else None,
        after_keep=s.after_keep,
        towers=dict(s.towers),
        called=frozenset(s.called),
        catchable=s.catchable,
        scores=dict(s.scores),
        team_scores=tuple(s.team_scores),
        record={q: (st.w4_challenged, st.bluffs_caught) for q, st in game.stats.items()
                if q in game.players},
        void={q: frozenset(notes.void.get(q, ())) for q in others if notes.void.get(q)},
        shy={q: frozenset(notes.shy.get(q, ())) for q in others if notes.shy.get(q)},
        known=known,
        wildless=frozenset(q for q in others if q in notes.wildless),
        faces={q: f for q, f in notes.faces.items() if q in others},
    )
