"""What a game is made of and what anyone may ask of it: ``BaseGame``, and its seats
(``player_after``, ``need_player``).

``BaseGame`` holds a game's parts: its edition and house rules, the seated players in seat
order, the random generator, the figures it keeps and the table (``State``, as ``game.s``).
Its methods only read. The rules that move it on are functions that take it: the turn's own
steps (engine/turns.py), checking a move (engine/validation.py), making it
(engine/effects.py), the deal (engine/setup.py), the Victory Lap (engine/lap.py), the end of
a round (engine/scoring.py). ``Game`` (engine/game.py) is a ``BaseGame`` with the moves on
top, as python-chess's ``Board`` is a ``BaseBoard``: it imports those rules, and none of
them imports it.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine.cards import Card, Color, Kind, Tower
from engine.editions import Edition
from engine.errors import NotAPlayerError
from engine.settings import Settings
from engine.state import Counters, Decision, PlayerStats, State


class BaseGame:
    """One game's parts and the questions they answer (``Game`` adds the moves)."""

    def __init__(
        self,
        edition: Edition,
        settings: Settings,
        players: list[str],
        names: dict[str, str],
        rng: random.Random,
        teams: tuple[tuple[str, ...], ...],
        max_rounds: int | None,
    ) -> None:
        """A game not started for ``players`` (checked already: ``Game`` does it)."""
        self.edition = edition
        self.settings = settings
        self.teams: tuple[tuple[str, ...], ...] = teams
        """Partner play: the teams of two (two with four players, three with six) in the
        order given (empty: every player for themselves). Players who leave stay listed."""
        self._team_of: dict[str, int] = {p: i for i, t in enumerate(self.teams) for p in t}
        self.max_rounds: int | None = max_rounds
        """The game ends after this many rounds even if nobody reached the target (one:
        a single hand, as a match plays them); None: play to the target."""
        self.players: list[str] = players
        self._seat: dict[str, int] = {p: i for i, p in enumerate(players)}
        self.names: dict[str, str] = names
        self.rng = rng
        self.round_number = 0
        self.stats: dict[str, PlayerStats] = {p: PlayerStats() for p in players}
        self.counters = Counters()
        self.started = False
        self.s = State(
            hands={p: [] for p in players},
            draw=[],
            discard=[],
            color=None,
            towers={t: None for t in Tower},
            turn=players[0],
            direction=1,
            dealer=players[-1],
            scores={p: 0 for p in players},
            team_scores=[0 for _ in self.teams],
        )

    # ------------------------------------------------------------------ the table
    @property
    def turn(self) -> str:
        """The player who must act now (the turn, or a pending decision)."""
        return self.s.turn

    @property
    def pending(self) -> Decision:
        return self.s.pending

    @property
    def is_over(self) -> bool:
        return self.s.pending is Decision.OVER

    @property
    def winners(self) -> list[str]:
        return list(self.s.winners)

    @property
    def top(self) -> Card:
        return self.s.discard[-1]

    @property
    def color(self) -> Color | None:
        return self.s.color

    @property
    def direction(self) -> int:
        return self.s.direction

    @property
    def dealer(self) -> str:
        return self.s.dealer

    @property
    def towers(self) -> dict[Tower, str | None]:
        return dict(self.s.towers)

    @property
    def scores(self) -> dict[str, int]:
        return dict(self.s.scores)

    @property
    def drawn_card(self) -> Card | None:
        return self.s.drawn

    @property
    def draw_pile(self) -> list[Card]:
        """The draw pile, top first (a copy)."""
        return list(reversed(self.s.draw))

    @property
    def discard_pile(self) -> list[Card]:
        """The discard pile, bottom to top (a copy)."""
        return list(self.s.discard)

    @property
    def catchable(self) -> str | None:
        """The player who holds one card, did not call UNO and can still be caught."""
        return self.s.catchable

    @property
    def challenge_victim(self) -> str | None:
        return self.s.w4.victim if self.s.w4 else None

    @property
    def challenge_against(self) -> str | None:
        return self.s.w4.player if self.s.w4 else None

    @property
    def challenge_color(self) -> Color | None:
        """The colour in play before the pending Wild Draw Four."""
        return self.s.w4.color if self.s.w4 else None

    @property
    def lap(self) -> dict[str, Any] | None:
        """The Victory Lap under way (``player``, ``step``: seats the hands have moved,
        ``steps_left``: passes left before the player's own hand is back), or None."""
        lap = self.s.lap
        if lap is None:
            return None
        return {"player": lap.player, "step": lap.step,
                "steps_left": len(self.players) - lap.step}

    @property
    def team_scores(self) -> list[int]:
        """Partner play: one running total per team, in the order of ``teams``."""
        return list(self.s.team_scores)

    # ------------------------------------------------------------------ the players
    def team_of(self, player: str) -> int | None:
        """The index in ``teams`` of ``player``'s team (None without teams)."""
        return self._team_of.get(player)

    def partners(self, player: str) -> tuple[str, ...]:
        """The seated partners of ``player`` (none without teams)."""
        i = self._team_of.get(player)
        if i is None:
            return ()
        return tuple(q for q in self.teams[i] if q != player and q in self._seat)

    def are_partners(self, a: str, b: str) -> bool:
        """True when ``a`` and ``b`` are two different players on the same team."""
        i = self._team_of.get(a)
        return a != b and i is not None and i == self._team_of.get(b)

    def name(self, player: str) -> str:
        return self.names.get(player, player)

    def hand(self, player: str) -> tuple[Card, ...]:
        need_player(self, player)
        return tuple(self.s.hands[player])

    def hand_counts(self) -> dict[str, int]:
        return {p: len(self.s.hands[p]) for p in self.players}

    def towers_of(self, player: str) -> list[Tower]:
        return [t for t, h in self.s.towers.items() if h == player]

    def has_called(self, player: str) -> bool:
        return player in self.s.called

    def next_player(self, player: str | None = None) -> str:
        return player_after(self, player if player is not None else self.s.turn)

    # ------------------------------------------------------------------ the cards
    def card_points(self, card: Card) -> int:
        return self.edition.points(card, self.settings)

    def can_play_on_top(self, card: Card) -> bool:
        """Whether ``card`` matches the discard pile now (a Wild Draw Four always does)."""
        s = self.s
        if card.is_wild or card.color is s.color:
            return True
        if s.color_only:
            return False
        top = s.discard[-1]
        if top.is_wild or card.kind is not top.kind:
            return False
        return card.kind is not Kind.NUMBER or top.number == card.number

    def wild_draw_four_is_legal(self, player: str) -> bool:
        """True when ``player`` holds no card of the current colour."""
        return not any(c.color is self.s.color for c in self.s.hands[player])

    def playable_cards(self, player: str) -> list[Card]:
        """Distinct cards ``player`` could play now (for menus and autocomplete)."""
        s = self.s
        if s.pending is Decision.DRAWN and s.turn == player:
            return [s.drawn] if s.drawn is not None else []
        if s.pending is not Decision.PLAY or s.turn != player:
            return []
        # The matching rule of can_play_on_top, with the table read once (a hot path).
        color = s.color
        top = s.discard[-1]
        by_symbol = not s.color_only and not top.is_wild
        top_kind = top.kind
        top_number = top.number
        out: list[Card] = []
        seen: set[Card] = set()
        for c in s.hands[player]:
            if c in seen:
                continue
            seen.add(c)
            if (c.is_wild or c.color is color
                    or (by_symbol and c.kind is top_kind
                        and (top_kind is not Kind.NUMBER or c.number == top_number))):
                out.append(c)
        return out

    def tower_choices(self, player: str, card: Card) -> tuple[int, list[Tower]]:
        """How many towers ``card`` grabs by choice, and which ones ``player`` may pick."""
        if not self.edition.towers:
            return 0, []
        free = [t for t in Tower if self.s.towers[t] != player]
        if card.kind is Kind.GRAB_TWO:
            return min(2, len(free)), free
        if card.kind is Kind.WILD_GRAB:
            return min(1, len(free)), free
        return 0, []

    def all_cards(self) -> Counter[Card]:
        """Every card in hands, draw and discard piles (for conservation checks)."""
        s = self.s
        c: Counter[Card] = Counter(s.draw)
        c.update(s.discard)
        for h in s.hands.values():
            c.update(h)
        return c


# ---------------------------------------------------------------------- the seats
def need_player(game: BaseGame, player: str) -> None:
    """Raise ``NotAPlayerError`` unless ``player`` is seated in ``game``."""
    if player not in game._seat:
        raise NotAPlayerError("{name} is not playing in this game.", name=player)


def is_seated(game: BaseGame, player: str) -> bool:
    return player in game._seat


def player_after(game: BaseGame, player: str, direction: int | None = None,
                 steps: int = 1) -> str:
    """The player ``steps`` seats after ``player`` in ``direction`` (default: the
    direction of play; -1 counts back)."""
    d = game.s.direction if direction is None else direction
    return game.players[(game._seat[player] + d * steps) % len(game.players)]


def reseat(game: BaseGame) -> None:
    """The seats follow ``game.players`` again (after a seat shuffle or a departure)."""
    game._seat = {p: i for i, p in enumerate(game.players)}
