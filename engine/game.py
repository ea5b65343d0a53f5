"""The game: ``Game``, the one object a caller holds: start it, ask it, make moves, save it.

``Game`` is a ``BaseGame`` (engine/basegame.py: a game's parts and every question about
them) with the moves on top; it hands each move to the rules that sit below it, each
answering one question, and none of them imports this module:

* engine/validation.py: may this move be made now (``validate``)?
* engine/effects.py: what does a move do (``push``)?
* engine/legal.py: which moves may a player make (``LegalMoves``, ``PlayNeeds``)?
* engine/turns.py: the turn's own steps (drawing, ending a turn or the game, the refusals
  that say whose turn it is);
* engine/setup.py: the draw for dealer, the deal, the opening card, scenario setups;
* engine/lap.py: the Victory Lap (the hands travelling round the table);
* engine/scoring.py and engine/teams.py: the end of a round, alone or with partners;
* engine/state.py: what a game holds (``Decision``, ``State``) and its saved form.

Here: building a game and checking its line-up, starting it, timeouts, a player leaving,
the views and the saved game (``to_dict`` / ``from_dict``). The public names that lived here
before the split are still importable from here.
"""

from __future__ import annotations

import base64
import random
import struct
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.basegame import BaseGame, is_seated, need_player, player_after, reseat
from engine.cards import Card, Color, Tower
from engine.editions import Edition, get_edition
from engine.effects import push as push_move
from engine.errors import (
    EngineError,
    GameOverError,
    IllegalMoveError,
    NotAPlayerError,
    ParseError,
    SettingsError,
)
from engine.events import Event, Left, SeatAsked, SeatWithdrawn
from engine.lap import do_lap
from engine.legal import LegalMoves as LegalMoves
from engine.legal import PlayNeeds as PlayNeeds
from engine.legal import play_needs as needs_of_play
from engine.moves import Accept, ChooseColor, Draw, Keep, Lap, Move, Pass
from engine.settings import Settings
from engine.setup import HAND_SIZE as HAND_SIZE
from engine.setup import arrange, choose_dealer, start_round
from engine.state import STATE_VERSION as STATE_VERSION
from engine.state import Counters as Counters
from engine.state import Decision as Decision
from engine.state import PlayerStats as PlayerStats
from engine.state import state_from_dict, state_to_dict, stats_to_dict
from engine.teams import TEAM_SIZES as TEAM_SIZES
from engine.teams import check_teams as check_teams
from engine.turns import game_over, turn_event
from engine.validation import validate as validate_move

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

class Game(BaseGame):
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
        ed = edition if isinstance(edition, Edition) else get_edition(edition)
        settings = settings if settings is not None else Settings()
        players = list(players)
        if len(set(players)) != len(players):
            raise IllegalMoveError("Each player can take only one seat.")
        lo, hi = ed.min_players, ed.max_players
        # A saved game may hold fewer seats than a new one needs: players left (R-LEAVE).
        if not lo <= len(players) <= hi and not (_restoring and 1 <= len(players) <= hi):
            raise IllegalMoveError(
                f"{ed.title} needs {lo} to {hi} players, not {len(players)}."
            )
        for p in players:
            if not isinstance(p, str) or not p:
                raise IllegalMoveError("A player needs a non-empty name.")
        checked = check_teams(players, teams, restoring=_restoring) if teams is not None else ()
        if max_rounds is not None and (isinstance(max_rounds, bool)
                                       or not isinstance(max_rounds, int) or max_rounds < 1):
            raise SettingsError("The number of rounds must be a whole number of at least 1.")
        super().__init__(ed, settings, players, {p: (names or {}).get(p, p) for p in players},
                         rng if rng is not None else random.Random(seed), checked, max_rounds)
        self._rng_text: tuple[Any, str] | None = None
        """The generator's state last written by ``to_dict`` and its text."""

    @property
    def rng(self) -> random.Random:
        """The game's generator (the deal, every reshuffle). Whoever takes it may move it,
        so the next ``to_dict`` reads its state again; a save after a move that shuffled
        nothing (most of them) reuses the text of the last one instead of reading and
        comparing 625 words (about 20 us of each save a move). The engine takes it only to
        use it at once (``game.rng.shuffle(...)``), never to keep."""
        self._rng_taken = True
        return self._rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        self._rng, self._rng_taken = rng, True

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
            reseat(self)
        elif self.settings.shuffle_seats:
            self.rng.shuffle(self.players)
            reseat(self)
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

    # ------------------------------------------------------------------ moves
    def legal_moves(self, player: str) -> LegalMoves:
        return LegalMoves(self, player)

    def play_needs(self, player: str, card: Card) -> PlayNeeds:
        """What ``player`` must choose to play ``card`` now: a colour, how many towers and
        from which. Raises the ``EngineError`` that ``apply(Play(player, card, ...))`` would
        raise whatever the choices (game over, not a player, not their turn or another
        decision pending, a drawn card to play or keep, card not held, no match), so a menu
        can check a card before asking for its choices."""
        return needs_of_play(self, player, card)

    def validate(self, move: Move) -> Move:
        """Check ``move`` against the rules without changing anything.

        Returns the move in normal form (choices a card does not take dropped); raises an
        ``EngineError`` whose message says what is wrong.
        """
        return validate_move(self, move)

    def apply(self, move: Move) -> list[Event]:
        """Make ``move``; returns what happened. Raises ``EngineError`` and changes
        nothing when the move is not allowed."""
        return self.push(self.validate(move))

    def push(self, move: Move) -> list[Event]:
        """Make a move known to be legal (one from ``legal_moves``), without checking it
        again: the fast path for computer players and simulations. A move that is not
        legal corrupts the game; use ``apply`` for anything from outside."""
        return push_move(self, move)

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

    def ask_seat(self, player: str, name: str | None = None) -> list[Event]:
        """``player`` asks for a seat while the game runs (R-JOIN-NEXT): they wait, and sit
        down when the next round is dealt, starting at the worst score at the table
        (R-JOIN-SCORE). Partners and single-hand games keep their seats (R-JOIN-FIXED)."""
        s = self.s
        if not self.started or s.pending is Decision.OVER:
            raise GameOverError("The game is over.")
        if not isinstance(player, str) or not player:
            raise IllegalMoveError("A player needs a non-empty name.")
        if is_seated(self, player):
            raise IllegalMoveError("You're already in this game.")
        if player in s.waiting:
            raise IllegalMoveError("You're already waiting for the next round.")
        if self.teams or self.max_rounds is not None:
            raise IllegalMoveError("This game keeps its seats to the end: wait for the "
                                   "next one.")
        if len(self.players) + len(s.waiting) >= self.edition.max_players:
            raise IllegalMoveError("The table is full.")
        s.waiting.append(player)
        self.names[player] = name or self.names.get(player, player)
        return [SeatAsked(player)]

    def withdraw_seat(self, player: str) -> list[Event]:
        """``player`` no longer waits for a seat (they changed their mind, or the host
        refused them)."""
        if player not in self.s.waiting:
            raise NotAPlayerError("{name} is not waiting for a seat.", name=player)
        self.s.waiting.remove(player)
        return [SeatWithdrawn(player)]

    @property
    def waiting(self) -> tuple[str, ...]:
        """Who waits for a seat at the next round, in the order they asked."""
        return tuple(self.s.waiting)

    def remove_player(self, player: str) -> list[Event]:
        """``player`` leaves: their cards go under the draw pile, their towers back to
        the neutral spot, any decision of theirs passes on. With one player left the game
        ends and they win."""
        need_player(self, player)
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
        successor = player_after(self, player)
        if s.dealer == player:
            s.dealer = player_after(self, player, 1, -1)
        if s.after_keep == player:
            s.after_keep = player_after(self, player)
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
        reseat(self)
        del s.scores[player]
        if len(self.players) == 1 or (
                self.teams and len({self.team_of(q) for q in self.players}) == 1):
            # The last player, or the last team (R-TEAM-LEAVE), wins.
            s.winners = list(self.players)
            events += game_over(self)
            return events
        events.append(turn_event(self))
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
        need_player(self, player)
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
        cached = self._rng_text
        if cached is None or self._rng_taken:
            state = self._rng.getstate()
            if cached is None or cached[0] != state:
                # the generator moves only when something is shuffled: most saves reuse this
                cached = self._rng_text = (state, _rng_to_text(state))
            self._rng_taken = False
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


def most_common_color(cards: Iterable[Card]) -> Color:
    counts = Counter(c.color for c in cards if c.color is not None)
    if not counts:
        return Color.RED
    best = max(counts.values())
    return next(c for c in Color if counts.get(c) == best)
