"""The game: ``Game``, its queries and the rules that move it on.

Every rule here is written down in RULES.md with the sheet section or ruling it comes from.
``apply()`` validates a move completely before changing anything, so a refused move leaves
the game exactly as it was: ``validate`` and ``push`` (the rules of each move) live here
together. The rest of the engine's game logic sits beside it:

* engine/state.py: what a game holds (``Decision``, ``State``, ``PlayerStats``,
  ``Counters``) and its saved form;
* engine/legal.py: listing the legal moves (``LegalMoves``, ``PlayNeeds``);
* engine/setup.py: the draw for dealer, the deal, the opening card, scenario setups;
* engine/lap.py: the Victory Lap (the hands travelling round the table);
* engine/teams.py: partner play's teams (``check_teams``) and a partner round's scoring.

The public names that lived here before the split are still importable from here.
"""

from __future__ import annotations

import base64
import random
import struct
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.cards import BLOCKED_BY, DRAW_COUNT, Card, Color, Kind, Tower
from engine.editions import Edition, get_edition
from engine.errors import (
    CardNotInHandError,
    ChoiceError,
    EngineError,
    GameOverError,
    IllegalMoveError,
    NoMatchError,
    NotAPlayerError,
    NotYourTurnError,
    ParseError,
    SettingsError,
    UnoCallError,
)
from engine.events import (
    Accepted,
    Blocked,
    Caught,
    ChallengeResolved,
    ColorChosen,
    Drew,
    Event,
    GameWon,
    InstantUno,
    Left,
    Passed,
    Played,
    Reshuffled,
    Reversed,
    RoundWon,
    Skipped,
    TowerGrabbed,
    TowersReturned,
    Turn,
    UnoCalled,
)
from engine.lap import check_lap, do_lap, start_lap
from engine.legal import LegalMoves as LegalMoves
from engine.legal import PlayNeeds as PlayNeeds
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
from engine.settings import Settings
from engine.setup import HAND_SIZE as HAND_SIZE
from engine.setup import arrange, choose_dealer, start_round
from engine.state import STATE_VERSION as STATE_VERSION
from engine.state import Counters as Counters
from engine.state import Decision as Decision
from engine.state import PlayerStats as PlayerStats
from engine.state import State, W4Record, state_from_dict, state_to_dict, stats_to_dict
from engine.teams import TEAM_SIZES as TEAM_SIZES
from engine.teams import check_teams as check_teams
from engine.teams import end_team_round

READABLE_VERSIONS = (1, 2, STATE_VERSION)
"""Saved games this engine reads: version 1 kept the random generator's state as a list of
625 numbers, version 2 as one compact text, version 3 added partner play (``teams``,
``team_scores``) and the round limit (``max_rounds``); a game saved before version 3 has
neither."""


def _rng_to_text(state: Any) -> str:
    """``random.Random.getstate()`` as text: its version, the 625 words of the Mersenne
    Twister (base64 of little-endian 32-bit words: 3.3 KB instead of 6.5 KB of JSON numbers)
    and the cached Gaussian value."""
    version, internal, gauss = state
    words = base64.b64encode(struct.pack(f"<{len(internal)}I", *internal)).decode("ascii")
    return f"{version}:{words}:{'' if gauss is None else repr(gauss)}"


def _rng_from_saved(saved: Any) -> tuple[Any, ...]:
    """The generator's state from a saved game (either version)."""
    if isinstance(saved, str):
        version, words, gauss = saved.split(":")
        raw = base64.b64decode(words.encode("ascii"), validate=True)
        internal = struct.unpack(f"<{len(raw) // 4}I", raw)
        return (int(version), internal, None if gauss == "" else float(gauss))
    version, internal, gauss = saved
    return (version, tuple(internal), gauss)

class Game:
    """One game of UNO (an edition), from the first deal to the winner."""

    def __init__(
        self,
        players: Sequence[str],
        *,
        edition: str | Edition = "power-grab",
        settings: Settings | None = None,
        rng: random.Random | None = None,
        seed: int | None = None,
        names: Mapping[str, str] | None = None,
        teams: Sequence[Sequence[str]] | None = None,
        max_rounds: int | None = None,
        _restoring: bool = False,
    ) -> None:
        self.edition = edition if isinstance(edition, Edition) else get_edition(edition)
        self.settings = settings if settings is not None else Settings()
        players = list(players)
        if len(set(players)) != len(players):
            raise IllegalMoveError("Each player can take only one seat.")
        lo, hi = self.edition.min_players, self.edition.max_players
        # A saved game may hold fewer seats than a new one needs: players left (R-LEAVE).
        if not lo <= len(players) <= hi and not (_restoring and 1 <= len(players) <= hi):
            raise IllegalMoveError(
                f"{self.edition.title} needs {lo} to {hi} players, not {len(players)}."
            )
        for p in players:
            if not isinstance(p, str) or not p:
                raise IllegalMoveError("A player needs a non-empty name.")
        self.teams: tuple[tuple[str, ...], ...] = (
            check_teams(players, teams, restoring=_restoring) if teams is not None else ())
        """Partner play: the teams of two (two with four players, three with six) in the
        order given (empty: every player for themselves). Players who leave stay listed."""
        self._team_of: dict[str, int] = {p: i for i, t in enumerate(self.teams) for p in t}
        if max_rounds is not None and (isinstance(max_rounds, bool)
                                       or not isinstance(max_rounds, int) or max_rounds < 1):
            raise SettingsError("The number of rounds must be a whole number of at least 1.")
        self.max_rounds: int | None = max_rounds
        """The game ends after this many rounds even if nobody reached the target (one:
        a single hand, as a match plays them); None: play to the target."""
        self.players: list[str] = players
        self._seat: dict[str, int] = {p: i for i, p in enumerate(players)}
        self.names: dict[str, str] = {p: (names or {}).get(p, p) for p in players}
        self.rng = rng if rng is not None else random.Random(seed)
        self._rng_text: tuple[Any, str] | None = None
        """The generator's state last written by ``to_dict`` and its text."""
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

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(
        cls,
        players: Sequence[str],
        edition: str | Edition = "power-grab",
        settings: Settings | None = None,
        seed: int | None = None,
        names: Mapping[str, str] | None = None,
        teams: Sequence[Sequence[str]] | None = None,
        max_rounds: int | None = None,
    ) -> Game:
        return cls(players, edition=edition, settings=settings, seed=seed, names=names,
                   teams=teams, max_rounds=max_rounds)

    def start(self) -> list[Event]:
        """Shuffle seats if asked, choose the dealer by draw, deal the first round."""
        if self.started:
            raise IllegalMoveError("The game has already started.")
        self.started = True
        if self.settings.shuffle_seats and self.teams:
            # Partners keep sitting across (R-TEAM-SEATS): shuffle within each pair and
            # which pair takes which seats; the first partners fill the first half of the
            # table in that order, their partners the second half.
            pairs = [list(t) for t in self.teams]
            for pair in pairs:
                self.rng.shuffle(pair)
            self.rng.shuffle(pairs)
            self.players[:] = [pair[0] for pair in pairs] + [pair[1] for pair in pairs]
            self._seat = {p: i for i, p in enumerate(self.players)}
        elif self.settings.shuffle_seats:
            self.rng.shuffle(self.players)
            self._seat = {p: i for i, p in enumerate(self.players)}
        events = choose_dealer(self)
        events += start_round(self)
        return events

    @classmethod
    def from_setup(
        cls,
        players: Sequence[str],
        *,
        edition: str = "power-grab",
        settings: Settings | None = None,
        seed: int = 0,
        hands: Mapping[str, Sequence[Card]] | None = None,
        draw: Sequence[Card] | None = None,
        discard: Sequence[Card] | None = None,
        color: Color | None = None,
        towers: Mapping[Tower, str | None] | None = None,
        turn: str | None = None,
        direction: int = 1,
        dealer: str | None = None,
        scores: Mapping[str, int] | None = None,
        teams: Sequence[Sequence[str]] | None = None,
    ) -> tuple[Game, list[Event]]:
        """A game set up as a scenario describes it (the replay tool's ``setup``).

        ``draw`` is given top first. Cards not placed anywhere are not in play. When
        ``discard`` is empty, the top of ``draw`` is turned up and the first-card rules apply.
        With ``teams``, partners share one score: each team starts at the highest score
        ``scores`` gives one of its players, and so do its players.
        """
        game = cls(players, edition=edition, settings=settings, seed=seed, teams=teams)
        events = arrange(game, hands=hands, draw=draw, discard=discard, color=color,
                         towers=towers, turn=turn, direction=direction, dealer=dealer,
                         scores=scores)
        for i, team in enumerate(game.teams):
            # Partners share one total: the highest score the setup gives a member.
            total = max(game.s.scores[q] for q in team)
            game.s.team_scores[i] = total
            for q in team:
                game.s.scores[q] = total
        return game, events

    # ------------------------------------------------------------------ queries
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
    def team_scores(self) -> list[int]:
        """Partner play: one running total per team, in the order of ``teams``."""
        return list(self.s.team_scores)

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
        self._need_player(player)
        return tuple(self.s.hands[player])

    def hand_counts(self) -> dict[str, int]:
        return {p: len(self.s.hands[p]) for p in self.players}

    def towers_of(self, player: str) -> list[Tower]:
        return [t for t, h in self.s.towers.items() if h == player]

    def has_called(self, player: str) -> bool:
        return player in self.s.called

    def next_player(self, player: str | None = None) -> str:
        return self._next(player if player is not None else self.s.turn)

    def card_points(self, card: Card) -> int:
        return self.edition.points(card, self.settings)

    def can_play_on_top(self, card: Card) -> bool:
        """Whether ``card`` matches the discard pile now (a Wild Draw Four always does)."""
        return self._matches(card)

    def wild_draw_four_is_legal(self, player: str) -> bool:
        """True when ``player`` holds no card of the current colour."""
        return not any(c.color is self.s.color for c in self.s.hands[player])

    def legal_moves(self, player: str) -> LegalMoves:
        return LegalMoves(self, player)

    def playable_cards(self, player: str) -> list[Card]:
        """Distinct cards ``player`` could play now (for menus and autocomplete)."""
        s = self.s
        if s.pending is Decision.DRAWN and s.turn == player:
            return [s.drawn] if s.drawn is not None else []
        if s.pending is not Decision.PLAY or s.turn != player:
            return []
        # The matching rule of _matches, with the table read once (a hot path).
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

    def play_needs(self, player: str, card: Card) -> PlayNeeds:
        """What ``player`` must choose to play ``card`` now: a colour, how many towers and
        from which. Raises the ``EngineError`` that ``apply(Play(player, card, ...))`` would
        raise whatever the choices (game over, not a player, not their turn or another
        decision pending, a drawn card to play or keep, card not held, no match), so a menu
        can check a card before asking for its choices."""
        s = self.s
        if s.pending is Decision.OVER:
            raise GameOverError("The game is over.")
        self._need_player(player)
        if s.turn != player:
            raise self._not_your_turn(player)
        self._check_card(player, card)
        need, free = self.tower_choices(player, card)
        later = card.kind is Kind.VICTORY_LAP and len(s.hands[player]) > 1
        return PlayNeeds(color=card.is_wild, towers=need, free=tuple(free) if need else (),
                         color_later=later)

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

    # ------------------------------------------------------------------ helpers
    def _need_player(self, player: str) -> None:
        if player not in self._seat:
            raise NotAPlayerError("{name} is not playing in this game.", name=player)

    def _next(self, player: str, direction: int | None = None, steps: int = 1) -> str:
        d = self.s.direction if direction is None else direction
        return self.players[(self._seat[player] + d * steps) % len(self.players)]

    def _matches(self, card: Card) -> bool:
        s = self.s
        if card.is_wild or card.color is s.color:
            return True
        if s.color_only:
            return False
        top = s.discard[-1]
        if top.is_wild or card.kind is not top.kind:
            return False
        return card.kind is not Kind.NUMBER or top.number == card.number

    def _blocks(self, player: str, kind: Kind) -> Tower | None:
        if not self.edition.towers:
            return None
        tower = BLOCKED_BY.get(kind)
        if tower is not None and self.s.towers[tower] == player:
            return tower
        return None

    def _turn_event(self) -> Turn:
        return Turn(self.s.turn, self.s.pending.value)

    def _not_your_turn(self, player: str) -> NotYourTurnError:
        s = self.s
        who = self.name(s.turn)
        if s.pending is Decision.CHALLENGE:
            return NotYourTurnError("{name} must accept or challenge the Wild Draw Four first.",
                                    name=who)
        if s.pending is Decision.KEEP:
            return NotYourTurnError("{name} must choose the card to keep first.", name=who)
        if s.pending is Decision.COLOR:
            return NotYourTurnError("{name} must name the starting colour first.", name=who)
        if s.pending is Decision.LAP:
            return NotYourTurnError("{name} must keep or pass a hand in the Victory Lap first.",
                                    name=who)
        return NotYourTurnError("It's {name}'s turn.", name=who)

    def _no_match(self, card: Card) -> NoMatchError:
        s = self.s
        top = s.discard[-1]
        if s.color_only:
            return NoMatchError("{code} does not match the {top}: the first play on it must be "
                                "{color}.", code=card, top=top, color=s.color)
        if top.is_wild:
            return NoMatchError("{code} does not match the {top} (colour {color}).",
                                code=card, top=top, color=s.color)
        return NoMatchError("{code} does not match the {top}.", code=card, top=top)

    # ------------------------------------------------------------------ validation
    def validate(self, move: Move) -> Move:
        """Check ``move`` against the rules without changing anything.

        Returns the move in normal form (choices a card does not take dropped); raises an
        ``EngineError`` whose message says what is wrong.
        """
        s = self.s
        if s.pending is Decision.OVER:
            raise GameOverError("The game is over.")
        self._need_player(move.player)
        p = move.player
        if s.pending is Decision.LAP:
            return check_lap(self, move)
        if isinstance(move, CallUno):
            return self._check_call(p)
        if isinstance(move, Catch):
            return self._check_catch(p, move.target)
        if s.turn != p:
            raise self._not_your_turn(p)
        if isinstance(move, Play):
            return self._check_play(move)
        if isinstance(move, Draw):
            if s.pending is Decision.DRAWN:
                raise IllegalMoveError("You already drew: play the drawn card or keep it.")
            if s.pending is not Decision.PLAY:
                raise self._wrong_decision()
            return move
        if isinstance(move, Pass):
            if s.pending is not Decision.DRAWN:
                raise IllegalMoveError("You can keep a card only right after drawing it.")
            return move
        if isinstance(move, Accept | Challenge):
            if s.pending is not Decision.CHALLENGE:
                raise IllegalMoveError("There is no Wild Draw Four to accept or challenge.")
            return move
        if isinstance(move, Keep):
            if s.pending is not Decision.KEEP:
                raise IllegalMoveError("You can choose a card to keep only after an instant UNO.")
            if move.card not in s.hands[p]:
                raise CardNotInHandError("You don't have {code}.", code=move.card)
            return move
        if isinstance(move, ChooseColor):
            if s.pending is not Decision.COLOR:
                raise IllegalMoveError("There is no colour to name now.")
            return move
        if isinstance(move, Lap):
            raise IllegalMoveError("There is no Victory Lap hand to keep or pass now.")
        raise ParseError("Unknown move.")  # pragma: no cover

    def _wrong_decision(self) -> IllegalMoveError:
        s = self.s
        if s.pending is Decision.CHALLENGE:
            return IllegalMoveError("Accept or challenge the Wild Draw Four first.")
        if s.pending is Decision.KEEP:
            return IllegalMoveError("Choose the card to keep first.")
        if s.pending is Decision.COLOR:
            return IllegalMoveError("Name the starting colour first.")
        if s.pending is Decision.LAP:
            return IllegalMoveError("Keep or pass the hand in front of you first.")
        return IllegalMoveError("You can't do that now.")

    def _check_card(self, p: str, card: Card) -> None:
        """What a play of ``card`` by the turn player needs, whatever the choices."""
        s = self.s
        if s.pending is Decision.DRAWN:
            if card != s.drawn:
                raise IllegalMoveError(
                    "After drawing you can only play the card you drew ({code}) or keep it.",
                    code=s.drawn,
                )
        elif s.pending is not Decision.PLAY:
            raise self._wrong_decision()
        if card not in s.hands[p]:
            raise CardNotInHandError("You don't have {code}.", code=card)
        if not self._matches(card):
            raise self._no_match(card)

    def _check_play(self, move: Play) -> Play:
        p = move.player
        card = move.card
        self._check_card(p, card)
        color = move.color
        if card.is_wild:
            # R-VL-COLOR: a Victory Lap that is not the last card may leave its colour to
            # the keep.
            lap_follows = card.kind is Kind.VICTORY_LAP and len(self.s.hands[p]) > 1
            if color is None and not lap_follows:
                raise ChoiceError("Choose a colour for the {card}.", card=card)
        else:
            color = None
        towers: tuple[Tower, ...] = ()
        need, free = self.tower_choices(p, card)
        if need:
            towers = move.towers
            if len(towers) != need or len(set(towers)) != need:
                if need == 1:
                    raise ChoiceError("Choose one tower to grab with the {card}.", card=card)
                raise ChoiceError("Choose {n} different towers to grab with the {card}.",
                                  n=need, card=card)
            for t in towers:
                if t not in free:
                    raise ChoiceError("You already hold the {tower} tower: grab another one.",
                                      tower=t)
        if color is move.color and towers == move.towers:
            return move
        return replace(move, color=color, towers=towers)

    def _may_call(self, p: str) -> bool:
        # R-UNO-CALL: one card at any time; two cards on your turn, which includes a
        # decision of yours still pending (a card to keep, accept or challenge, a colour).
        s = self.s
        if p in s.called:
            return False
        n = len(s.hands[p])
        return n == 1 or (n == 2 and s.turn == p)

    def _check_call(self, p: str) -> CallUno:
        if p in self.s.called:
            raise UnoCallError("You already called UNO.")
        if self._may_call(p):
            return CallUno(p)
        raise UnoCallError(
            "You can call UNO on your turn with two cards, or when you hold one card."
        )

    def _check_catch(self, p: str, target: str) -> Catch:
        s = self.s
        self._need_player(target)
        if target == p:
            raise UnoCallError("You can't catch yourself: call UNO instead.")
        if s.catchable != target:
            who = self.name(target)
            if len(s.hands[target]) != 1:
                raise UnoCallError("{name} doesn't hold exactly one card.", name=who)
            if target in s.called:
                raise UnoCallError("{name} already called UNO.", name=who)
            raise UnoCallError("Too late: {name} can't be caught any more.", name=who)
        return Catch(p, target)

    # ------------------------------------------------------------------ moves
    def apply(self, move: Move) -> list[Event]:
        """Make ``move``; returns what happened. Raises ``EngineError`` and changes
        nothing when the move is not allowed."""
        return self.push(self.validate(move))

    def push(self, move: Move) -> list[Event]:
        """Make a move known to be legal (one from ``legal_moves``), without checking it
        again: the fast path for computer players and simulations. A move that is not
        legal corrupts the game; use ``apply`` for anything from outside."""
        self.counters.moves += 1
        p = move.player
        if isinstance(move, CallUno):
            self.s.called.add(p)
            if self.s.catchable == p:
                self.s.catchable = None
            return [UnoCalled(p)]
        if isinstance(move, Catch):
            return self._do_catch(p, move.target)
        self._close_window(p)
        if isinstance(move, Play):
            return self._do_play(move)
        if isinstance(move, Draw):
            return self._do_draw(p)
        if isinstance(move, Pass):
            self.s.drawn = None
            return [Passed(p), *self._end_turn(p)]
        if isinstance(move, Accept):
            return self._do_accept(p)
        if isinstance(move, Challenge):
            return self._do_challenge(p)
        if isinstance(move, Keep):
            return self._do_keep(move)
        if isinstance(move, Lap):
            return do_lap(self, move)
        assert isinstance(move, ChooseColor)
        self.s.color = move.color
        self.s.pending = Decision.PLAY
        return [ColorChosen(p, move.color), self._turn_event()]

    def _close_window(self, actor: str) -> None:
        """A move by anyone but the player at risk closes the UNO catch window."""
        if self.s.catchable is not None and self.s.catchable != actor:
            self.s.catchable = None

    def _draw_cards(self, p: str, count: int, reason: str) -> list[Event]:
        s = self.s
        events: list[Event] = []
        got: list[Card] = []
        hand = s.hands[p]
        for _ in range(count):
            if not s.draw:
                if len(s.discard) <= 1:
                    break
                top = s.discard.pop()
                pile = s.discard
                self.rng.shuffle(pile)
                s.draw = pile
                s.discard = [top]
                events.append(Reshuffled(len(pile)))
            card = s.draw.pop()
            hand.append(card)
            got.append(card)
        if got:
            s.called.discard(p)
            if s.catchable == p:
                s.catchable = None
        events.append(Drew(p, len(got), tuple(got), reason))
        return events

    def _end_turn(self, p: str) -> list[Event]:
        s = self.s
        # R-UNO-CALL: a call covers the turn it is made in; a caller whose turn ends with
        # two or more cards (a drawn card kept, nothing to draw) must call again later.
        ending = s.turn
        if ending in s.called and len(s.hands[ending]) >= 2:
            s.called.discard(ending)
        s.turn = self._next(p)
        s.pending = Decision.PLAY
        s.color_only = False
        self.counters.turns += 1
        return [self._turn_event()]

    def _grab(self, p: str, tower: Tower) -> list[Event]:
        s = self.s
        holder = s.towers[tower]
        if holder == p:
            return []
        s.towers[tower] = p
        self.stats[p].towers_grabbed += 1
        self.counters.grabs += 1
        return [TowerGrabbed(p, tower, holder)]

    def _do_play(self, move: Play) -> list[Event]:
        s = self.s
        p = move.player
        card = move.card
        hand = s.hands[p]
        prev_color = s.color
        hand.remove(card)
        guilty = card.kind is Kind.WILD_DRAW_FOUR and any(c.color is prev_color for c in hand)
        s.discard.append(card)
        s.color = move.color if card.is_wild else card.color
        s.drawn = None
        s.color_only = False
        events: list[Event] = [Played(p, card, s.color)]
        left = len(hand)
        # R-VL-UNO: a call made with a Victory Lap does not count (the hands move on).
        if left == 1 and card.kind is not Kind.VICTORY_LAP:
            if move.uno or p in s.called:
                if move.uno and p not in s.called:
                    events.append(UnoCalled(p))
                s.called.add(p)
            else:
                s.catchable = p
        elif left > 1:
            s.called.discard(p)
        if self.edition.towers:
            if card.icon is not None:
                events += self._grab(p, card.icon)
            for t in move.towers:
                events += self._grab(p, t)
        if left == 0:
            return events + self._last_card_effect(p, card) + self._end_round(p)
        if self.edition.towers and all(h == p for h in s.towers.values()):
            if left >= 2:
                s.pending = Decision.KEEP
                s.after_keep = self._next(p)
                events.append(self._turn_event())
                return events
            events += self._instant_uno(p, hand[0], 0)
        return events + self._effect(p, card, guilty, prev_color)

    def _instant_uno(self, p: str, kept: Card, discarded: int) -> list[Event]:
        self.s.towers = {t: None for t in Tower}
        self.stats[p].instant_unos += 1
        self.counters.instant_unos += 1
        return [InstantUno(p, kept, discarded), TowersReturned()]

    def _effect(
        self, p: str, card: Card, guilty: bool, prev_color: Color | None
    ) -> list[Event]:
        """What a played card does to the next player; ends with the next Turn."""
        s = self.s
        kind = card.kind
        victim = self._next(p)
        events: list[Event] = []
        if kind is Kind.REVERSE:
            s.direction = -s.direction
            events.append(Reversed(s.direction))
            if len(self.players) == 2:
                events.append(Skipped(victim))
                return events + self._end_turn(victim)
            return events + self._end_turn(p)
        if kind in (Kind.SKIP, Kind.DRAW_ONE, Kind.DRAW_TWO, Kind.WILD_DRAW_FOUR):
            tower = self._blocks(victim, kind)
            if tower is not None:
                self.stats[victim].blocks += 1
                self.counters.blocks += 1
                events.append(Blocked(victim, card, tower))
                return events + self._end_turn(p)
            if kind is Kind.WILD_DRAW_FOUR:
                s.w4 = W4Record(p, victim, guilty, prev_color, tuple(s.hands[p]))
                s.turn = victim
                s.pending = Decision.CHALLENGE
                return [*events, self._turn_event()]
            if kind in DRAW_COUNT:
                events += self._draw_cards(victim, DRAW_COUNT[kind], "card")
            events.append(Skipped(victim))
            return events + self._end_turn(victim)
        if kind is Kind.VICTORY_LAP:
            return events + start_lap(self, p)
        return events + self._end_turn(p)

    # ------------------------------------------------------------------ Victory Lap
    # Its rules (start, step, keep or pass, what may be done meanwhile): engine/lap.py.
    @property
    def lap(self) -> dict[str, Any] | None:
        """The Victory Lap under way (``player``, ``step``: seats the hands have moved,
        ``steps_left``: passes left before the player's own hand is back), or None."""
        lap = self.s.lap
        if lap is None:
            return None
        return {"player": lap.player, "step": lap.step,
                "steps_left": len(self.players) - lap.step}

    def _last_card_effect(self, p: str, card: Card) -> list[Event]:
        """A drawing card played as the last card still makes the next player draw."""
        if card.kind not in DRAW_COUNT:
            return []
        victim = self._next(p)
        tower = self._blocks(victim, card.kind)
        if tower is not None:
            self.stats[victim].blocks += 1
            self.counters.blocks += 1
            return [Blocked(victim, card, tower)]
        return self._draw_cards(victim, DRAW_COUNT[card.kind], "card")

    def _do_draw(self, p: str) -> list[Event]:
        s = self.s
        events = self._draw_cards(p, 1, "draw")
        drew = events[-1]
        assert isinstance(drew, Drew)
        if drew.count == 1 and self._matches(drew.cards[0]):
            s.pending = Decision.DRAWN
            s.drawn = drew.cards[0]
            events.append(self._turn_event())
            return events
        return events + self._end_turn(p)

    def _do_accept(self, p: str) -> list[Event]:
        s = self.s
        s.w4 = None
        events: list[Event] = [Accepted(p)]
        events += self._draw_cards(p, 4, "card")
        events.append(Skipped(p))
        return events + self._end_turn(p)

    def _do_challenge(self, p: str) -> list[Event]:
        s = self.s
        w4 = s.w4
        assert w4 is not None
        s.w4 = None
        self.counters.challenges += 1
        against = w4.player
        # The hand as it was when the card was played: not the cards drawn since (a catch
        # in the UNO window) nor the penalty below (R-WD4-CHALLENGE).
        events: list[Event] = [ChallengeResolved(p, against, w4.guilty, w4.hand)]
        self.stats[against].w4_challenged += 1
        if w4.guilty:
            self.stats[against].bluffs_caught += 1
            self.stats[p].challenges_won += 1
            events += self._draw_cards(against, 4, "challenge")
            s.pending = Decision.PLAY
            s.turn = p
            self.counters.turns += 1
            return [*events, self._turn_event()]
        events += self._draw_cards(p, 6, "challenge")
        events.append(Skipped(p))
        return events + self._end_turn(p)

    def _do_keep(self, move: Keep) -> list[Event]:
        s = self.s
        p = move.player
        hand = s.hands[p]
        hand.remove(move.card)
        others = list(hand)
        s.hands[p] = [move.card]
        top = s.discard.pop()
        s.discard.extend(others)
        s.discard.append(top)
        events = self._instant_uno(p, move.card, len(others))
        if move.uno and p not in s.called:
            s.called.add(p)
            events.append(UnoCalled(p))
        elif p not in s.called:
            # A call made before the keep (holding two cards) covers it (R-UNO-CALL).
            s.catchable = p
        nxt = s.after_keep
        assert nxt is not None
        s.after_keep = None
        s.turn = nxt
        s.pending = Decision.PLAY
        self.counters.turns += 1
        events.append(self._turn_event())
        return events

    def _do_catch(self, p: str, target: str) -> list[Event]:
        self.s.catchable = None
        self.stats[target].caught += 1
        self.counters.catches += 1
        return [Caught(target, p), *self._draw_cards(target, 2, "catch")]

    # ------------------------------------------------------------------ round end
    def _end_round(self, winner: str) -> list[Event]:
        s = self.s
        if self.teams:
            return end_team_round(self, winner)
        pts = self.card_points
        gained = {p: 0 for p in self.players}
        if self.settings.scoring == "standard":
            won = sum(pts(c) for q in self.players if q != winner for c in s.hands[q])
            gained[winner] = won
        else:
            won = 0
            for q in self.players:
                gained[q] = sum(pts(c) for c in s.hands[q])
        for q, g in gained.items():
            s.scores[q] += g
        st = self.stats[winner]
        st.rounds_won += 1
        st.best_round = max(st.best_round, won)
        events: list[Event] = [RoundWon(winner, won, gained, dict(s.scores),
                                         self.round_number)]
        target = self.settings.target
        if any(v >= target for v in s.scores.values()) or self._last_round():
            if self.settings.scoring == "standard":
                top = max(s.scores.values())
            else:
                top = min(s.scores.values())
            s.winners = [q for q in self.players if s.scores[q] == top]
            return events + self._game_over()
        s.dealer = self._next(s.dealer, 1)
        return events + start_round(self)

    def _last_round(self) -> bool:
        return self.max_rounds is not None and self.round_number >= self.max_rounds

    def _game_over(self) -> list[Event]:
        s = self.s
        s.pending = Decision.OVER
        s.catchable = None
        for q in s.winners:
            if q in self._team_of:
                self.stats[q].team_games_won += 1
        return [GameWon(tuple(s.winners), dict(s.scores))]

    # ------------------------------------------------------------------ out-of-band
    def timeout_moves(self) -> list[Move]:
        """What to do for the player who let their time run out: draw and keep, accept a
        Wild Draw Four, name the colour they hold most, keep their best card."""
        s = self.s
        p = s.turn
        hand = s.hands[p]
        if s.pending is Decision.PLAY:
            return [Draw(p)]
        if s.pending is Decision.DRAWN:
            return [Pass(p)]
        if s.pending is Decision.CHALLENGE:
            return [Accept(p)]
        if s.pending is Decision.COLOR:
            return [ChooseColor(p, most_common_color(hand))]
        if s.pending is Decision.KEEP:
            return [Keep(p, max(hand, key=self.card_points))]
        if s.pending is Decision.LAP:
            # R-VL-TIMEOUT: the hand in front of them is kept (a colour as for a wild).
            return [Lap(p, True, most_common_color(hand) if s.color is None else None)]
        return []

    def apply_timeout(self) -> list[Event]:
        """Apply the default for the player who must act (the turn timer ran out)."""
        events: list[Event] = []
        for move in self.timeout_moves():
            events += self.apply(move)
            if self.s.pending is Decision.DRAWN and self.s.turn == move.player:
                events += self.apply(Pass(move.player))
        return events

    def remove_player(self, player: str) -> list[Event]:
        """``player`` leaves: their cards go under the draw pile, their towers back to
        the neutral spot, any decision of theirs passes on. With one player left the game
        ends and they win."""
        self._need_player(player)
        s = self.s
        if s.pending is Decision.OVER:
            raise GameOverError("The game is over.")
        events: list[Event] = []
        if s.pending is Decision.LAP:
            # R-LEAVE: a Victory Lap under way ends first, as on a timeout.
            lap_keep = self.timeout_moves()[0]
            assert isinstance(lap_keep, Lap)
            events += do_lap(self, lap_keep)
        cards = s.hands.pop(player)
        s.draw[0:0] = cards
        events.append(Left(player, len(cards)))
        for t, h in s.towers.items():
            if h == player:
                s.towers[t] = None
        s.called.discard(player)
        if s.catchable == player:
            s.catchable = None
        successor = self._next(player)
        if s.dealer == player:
            s.dealer = self._next(player, 1, -1)
        if s.after_keep == player:
            s.after_keep = self._next(player)
        turn_moves = False
        if s.w4 is not None and player in (s.w4.player, s.w4.victim):
            # The Wild Draw Four is void: its victim (if still here) simply plays.
            victim = s.w4.victim
            s.w4 = None
            if victim != player:
                s.turn = victim
                s.pending = Decision.PLAY
            else:
                turn_moves = True
        elif s.turn == player:
            turn_moves = True
        if turn_moves:
            if s.pending is Decision.KEEP:
                s.turn = s.after_keep or successor
            else:
                s.turn = successor
            if s.pending is not Decision.COLOR:
                s.pending = Decision.PLAY
            s.drawn = None
            s.after_keep = None
        self.players.remove(player)
        self._seat = {p: i for i, p in enumerate(self.players)}
        del s.scores[player]
        if len(self.players) == 1 or (
                self.teams and len({self._team_of[q] for q in self.players}) == 1):
            # The last player, or the last team (R-TEAM-LEAVE), wins.
            s.winners = list(self.players)
            events += self._game_over()
            return events
        events.append(self._turn_event())
        return events

    # ------------------------------------------------------------------ views
    def public_view(self) -> dict[str, Any]:
        """What the table shows: no card of any hand."""
        s = self.s
        return {
            "edition": self.edition.name,
            "round": self.round_number,
            "players": [
                {
                    "id": p,
                    "name": self.name(p),
                    "cards": len(s.hands[p]),
                    "towers": [t.value for t in self.towers_of(p)],
                    "score": s.scores[p],
                    "uno": p in s.called,
                }
                for p in self.players
            ],
            "top": s.discard[-1].code if s.discard else None,
            "color": s.color.label if s.color else None,
            "direction": s.direction,
            "dealer": s.dealer,
            "turn": s.turn,
            "pending": s.pending.value,
            "lap": self.lap,
            "draw_count": len(s.draw),
            "discard_count": len(s.discard),
            "towers": {t.value: h for t, h in s.towers.items()},
            "scores": dict(s.scores),
            "winners": list(s.winners),
            "target": self.settings.target,
            **({"teams": [list(t) for t in self.teams], "team_scores": list(s.team_scores)}
               if self.teams else {}),
        }

    def player_view(self, player: str) -> dict[str, Any]:
        """The public view plus what ``player`` alone may see."""
        self._need_player(player)
        view = self.public_view()
        view["you"] = player
        lap = self.s.lap
        if lap is not None and lap.player != player:
            # R-VL-VIEWS: during a lap only the card's player looks at a hand.
            view["hand"] = []
            view["face_down"] = len(self.s.hands[player])
        else:
            view["hand"] = [c.code for c in self.s.hands[player]]
        view["playable"] = [c.code for c in self.playable_cards(player)]
        view["drawn"] = (
            self.s.drawn.code if self.s.drawn is not None and self.s.turn == player else None
        )
        return view

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict[str, Any]:
        state = self.rng.getstate()
        cached = self._rng_text
        if cached is None or cached[0] != state:
            # the generator moves only when something is shuffled: most saves reuse this
            cached = self._rng_text = (state, _rng_to_text(state))
        return {
            "version": STATE_VERSION,
            "edition": self.edition.name,
            "settings": self.settings.to_dict(),
            "players": list(self.players),
            "names": dict(self.names),
            "rng": cached[1],
            "round": self.round_number,
            "started": self.started,
            "teams": [list(t) for t in self.teams] if self.teams else None,
            "max_rounds": self.max_rounds,
            **state_to_dict(self.s),
            "stats": {p: stats_to_dict(st) for p, st in self.stats.items()},
            "counters": stats_to_dict(self.counters),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Game:
        """Rebuild a game saved with ``to_dict`` (raises ``ParseError`` if malformed)."""
        try:
            if d.get("version") not in READABLE_VERSIONS:
                raise ParseError("This saved game comes from an unknown version.")
            game = cls(
                d["players"],
                edition=d["edition"],
                settings=Settings.from_dict(d["settings"]),
                names=d.get("names"),
                teams=d.get("teams"),  # version 3; None before
                max_rounds=d.get("max_rounds"),
                _restoring=True,
            )
            # names may include players who have left (their events still name them)
            game.names.update(d.get("names") or {})
            game.rng.setstate(_rng_from_saved(d["rng"]))
            game.round_number = int(d["round"])
            game.started = bool(d["started"])
            game.s = state_from_dict(d)
            game.stats = {p: PlayerStats(**st) for p, st in d["stats"].items()}
            game.counters = Counters(**d["counters"])
        except EngineError:
            raise
        except (KeyError, TypeError, ValueError, struct.error) as exc:
            raise ParseError(f"This saved game is damaged ({exc!r}).") from None
        return game

    def copy(self) -> Game:
        return Game.from_dict(self.to_dict())

    def all_cards(self) -> Counter[Card]:
        """Every card in hands, draw and discard piles (for conservation checks)."""
        s = self.s
        c: Counter[Card] = Counter(s.draw)
        c.update(s.discard)
        for h in s.hands.values():
            c.update(h)
        return c


def most_common_color(cards: Iterable[Card]) -> Color:
    counts = Counter(c.color for c in cards if c.color is not None)
    if not counts:
        return Color.RED
    best = max(counts.values())
    return next(c for c in Color if counts.get(c) == best)
