"""Events: what happened, returned by every move for the Discord layer to render.

``to_dict()`` is the full record (the replay tool prints it). ``public_dict()`` drops the
fields that show cards of a hand, so it is safe for a channel; ``owner`` names the one
player who may see those private fields (the drawer, the challenger...).
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any, ClassVar

from engine.cards import Card, Color, Tower


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Color):
        return value.label
    if isinstance(value, Tower):
        return value.value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(_plain(k)): _plain(v) for k, v in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events."""

    kind: ClassVar[str] = "event"
    private: ClassVar[tuple[str, ...]] = ()
    """Fields that show cards of a hand: only ``owner`` may see them."""
    owner_field: ClassVar[str | None] = None

    @property
    def owner(self) -> str | None:
        if self.owner_field is None:
            return None
        value = getattr(self, self.owner_field)
        assert isinstance(value, str)
        return value

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None and f.metadata.get("omit_none"):
                continue
            out[f.metadata.get("key", f.name)] = _plain(value)
        return out

    def public_dict(self) -> dict[str, Any]:
        out = self.to_dict()
        for name in self.private:
            out.pop(name, None)
        return out

    def visible_to(self, viewer: str | None) -> dict[str, Any]:
        """What ``viewer`` may see of this event (everything if they own it)."""
        if viewer is not None and viewer == self.owner:
            return self.to_dict()
        return self.public_dict()


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    kind: ClassVar[str] = "round_started"
    round: int
    dealer: str


@dataclass(frozen=True, slots=True)
class DealerDraw(Event):
    """A card drawn to choose the dealer (shown to all, then returned)."""

    kind: ClassVar[str] = "dealer_draw"
    player: str
    card: Card


@dataclass(frozen=True, slots=True)
class DealerChosen(Event):
    kind: ClassVar[str] = "dealer"
    player: str


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    kind: ClassVar[str] = "dealt"
    private: ClassVar[tuple[str, ...]] = ("cards",)
    owner_field: ClassVar[str | None] = "player"
    player: str
    count: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Opened(Event):
    """The first card turned up to start the discard pile."""

    kind: ClassVar[str] = "opened"
    card: Card


@dataclass(frozen=True, slots=True)
class Returned(Event):
    """A Wild Draw Four turned up first goes back into the deck."""

    kind: ClassVar[str] = "returned"
    card: Card


@dataclass(frozen=True, slots=True)
class Played(Event):
    kind: ClassVar[str] = "played"
    player: str
    card: Card
    color: Color | None


@dataclass(frozen=True, slots=True)
class Drew(Event):
    kind: ClassVar[str] = "drew"
    private: ClassVar[tuple[str, ...]] = ("cards",)
    owner_field: ClassVar[str | None] = "player"
    player: str
    count: int
    cards: tuple[Card, ...]
    reason: str = "draw"
    """"draw" (chose or had to), "card" (a draw card), "catch", "challenge", "timeout"."""


@dataclass(frozen=True, slots=True)
class Skipped(Event):
    kind: ClassVar[str] = "skipped"
    player: str


@dataclass(frozen=True, slots=True)
class Reversed(Event):
    kind: ClassVar[str] = "reversed"
    direction: int


@dataclass(frozen=True, slots=True)
class TowerGrabbed(Event):
    kind: ClassVar[str] = "tower"
    player: str
    tower: Tower
    from_: str | None = field(default=None, metadata={"key": "from"})


@dataclass(frozen=True, slots=True)
class Blocked(Event):
    kind: ClassVar[str] = "blocked"
    player: str
    card: Card
    tower: Tower


@dataclass(frozen=True, slots=True)
class UnoCalled(Event):
    kind: ClassVar[str] = "uno"
    player: str


@dataclass(frozen=True, slots=True)
class Caught(Event):
    kind: ClassVar[str] = "caught"
    player: str
    by: str


@dataclass(frozen=True, slots=True)
class ChallengeResolved(Event):
    """A Wild Draw Four challenge; only the challenger sees the challenged hand."""

    kind: ClassVar[str] = "challenge"
    private: ClassVar[tuple[str, ...]] = ("hand",)
    owner_field: ClassVar[str | None] = "by"
    by: str
    against: str
    guilty: bool
    hand: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Accepted(Event):
    kind: ClassVar[str] = "accepted"
    player: str


@dataclass(frozen=True, slots=True)
class InstantUno(Event):
    kind: ClassVar[str] = "instant_uno"
    private: ClassVar[tuple[str, ...]] = ("kept",)
    owner_field: ClassVar[str | None] = "player"
    player: str
    kept: Card
    discarded: int


@dataclass(frozen=True, slots=True)
class TowersReturned(Event):
    kind: ClassVar[str] = "towers_returned"


@dataclass(frozen=True, slots=True)
class Reshuffled(Event):
    kind: ClassVar[str] = "reshuffled"
    count: int


@dataclass(frozen=True, slots=True)
class ColorChosen(Event):
    kind: ClassVar[str] = "color_chosen"
    player: str
    color: Color


@dataclass(frozen=True, slots=True)
class Passed(Event):
    kind: ClassVar[str] = "passed"
    player: str


@dataclass(frozen=True, slots=True)
class LapPassed(Event):
    """Victory Lap: the card's player passed the hand in front of them on (every hand moves
    one more seat). ``cards`` is how many cards that hand holds (public, as any hand's size);
    ``step`` is how many seats the hands had moved when it was passed (1 for the first)."""

    kind: ClassVar[str] = "lap_passed"
    player: str
    cards: int
    step: int


@dataclass(frozen=True, slots=True)
class LapKept(Event):
    """Victory Lap: the card's player kept the hand in front of them; everyone takes the
    hand in front of them. ``step`` is how many seats the hands moved (the number of
    players when the player's own hand came back)."""

    kind: ClassVar[str] = "lap_kept"
    player: str
    step: int


@dataclass(frozen=True, slots=True)
class RoundWon(Event):
    kind: ClassVar[str] = "round_won"
    player: str
    points: int
    """Points the winner scores (standard scoring; 0 under alternative scoring)."""
    gained: dict[str, int]
    """Points each player added this round."""
    scores: dict[str, int]
    """Running totals after this round."""
    round: int = 0
    """Which round this was (1 for the first)."""
    team: tuple[str, ...] | None = field(default=None, metadata={"omit_none": True})
    """Partner play: the winning team (the player who went out and their partner, in the
    order the team was given); absent (not null) from ``to_dict`` in a game without teams."""


@dataclass(frozen=True, slots=True)
class GameWon(Event):
    kind: ClassVar[str] = "game_won"
    players: tuple[str, ...]
    scores: dict[str, int]


@dataclass(frozen=True, slots=True)
class Turn(Event):
    kind: ClassVar[str] = "turn"
    player: str
    decision: str


@dataclass(frozen=True, slots=True)
class Left(Event):
    """A player left the game; their cards went under the draw pile."""

    kind: ClassVar[str] = "left"
    player: str
    cards: int


@dataclass(frozen=True, slots=True)
class SeatAsked(Event):
    """A person asked for a seat while the game runs: they sit down when the next round is
    dealt (``Game.ask_seat``; RULES.md R-JOIN-NEXT)."""

    kind: ClassVar[str] = "seat_asked"
    player: str


@dataclass(frozen=True, slots=True)
class SeatWithdrawn(Event):
    """A person waiting for a seat no longer waits (they changed their mind, or the host
    refused them: ``Game.withdraw_seat``)."""

    kind: ClassVar[str] = "seat_withdrawn"
    player: str


@dataclass(frozen=True, slots=True)
class Seated(Event):
    """A person who waited sat down as the round was dealt, starting at ``score``
    (R-JOIN-SCORE)."""

    kind: ClassVar[str] = "seated"
    player: str
    score: int
