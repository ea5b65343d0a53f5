"""What the public table's picture shows: ``TableScene`` (no hand: only the top card, and
counts), its seats and its words."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from engine.cards import Card, Color, Tower
from engine.editions import EDITIONS


@dataclass(frozen=True, slots=True)
class SeatScene:
    """One seat as the table shows it: a name and counts, never cards."""

    name: str
    cards: int
    uno: bool = False
    """Has called UNO."""
    cpu: bool = False
    """A computer player."""


@dataclass(frozen=True, slots=True)
class TableWords:
    """The words the table's picture shows, in the game's language (English here; the
    bot passes its translations). ``cards`` takes ``{n}``, ``colour`` takes ``{color}``,
    ``player`` (a name the font cannot show) takes ``{n}``."""

    top_card: str = "Top card"
    draw_pile: str = "Draw pile"
    direction: str = "Direction"
    play_goes: str = "play goes"
    down: str = "down the list"
    up: str = "up the list"
    towers: str = "Towers"
    players: str = "Players"
    cpu: str = "CPU"
    uno: str = "UNO!"
    one_card: str = "{n} card"
    cards: str = "{n} cards"
    zero_cards: str = "{n} cards"
    """The count's plural forms (``ngettext`` of 1, 2 and 0: French says "0 carte")."""
    colour: str = "colour: {color}"
    red: str = "red"
    blue: str = "blue"
    green: str = "green"
    yellow: str = "yellow"
    player: str = "Player {n}"

    def color_name(self, color: Color) -> str:
        return {Color.RED: self.red, Color.BLUE: self.blue, Color.GREEN: self.green,
                Color.YELLOW: self.yellow}[color]

    def count(self, n: int) -> str:
        return (self.one_card if n == 1 else self.zero_cards if n == 0
                else self.cards).format(n=n)


@dataclass(frozen=True, slots=True)
class TableScene:
    """What the public table shows (no hand: the top card, counts, towers, turn).

    ``turn`` and the towers' holders are indexes into ``seats``; ``direction`` is +1 when
    play goes down the list of seats, −1 when it goes up.
    """

    top: Card | None
    seats: tuple[SeatScene, ...]
    turn: int | None = None
    direction: int = 1
    color: Color | None = None
    """The colour in play (the one named, when the top card is a wild)."""
    has_towers: bool = False
    towers: tuple[tuple[Tower, int | None], ...] = ()
    """Each tower and the seat that holds it (None: in the tray)."""
    draw_count: int = 0
    title: str = ""
    contrast: bool = False
    words: TableWords = TableWords()

    def __post_init__(self) -> None:
        if self.turn is not None and not 0 <= self.turn < len(self.seats):
            raise ValueError("turn must be the index of a seat")
        if self.direction not in (1, -1):
            raise ValueError("direction must be 1 or -1")
        for _t, holder in self.towers:
            if holder is not None and not 0 <= holder < len(self.seats):
                raise ValueError("a tower's holder must be the index of a seat")

    @classmethod
    def from_public_view(cls, view: Mapping[str, Any], *, title: str = "",
                         cpu: Collection[str] = (), contrast: bool = False,
                         words: TableWords = TableWords()) -> TableScene:
        """From ``Game.public_view()`` (which holds no hand either)."""
        players = list(view["players"])
        index = {p["id"]: i for i, p in enumerate(players)}
        seats = tuple(SeatScene(name=str(p["name"]), cards=int(p["cards"]),
                               uno=bool(p["uno"]) and int(p["cards"]) == 1,
                               cpu=p["id"] in cpu) for p in players)
        edition = EDITIONS.get(str(view.get("edition")))
        has_towers = edition.towers if edition is not None else bool(view.get("towers"))
        towers = tuple((Tower(code), index.get(holder) if holder is not None else None)
                       for code, holder in dict(view.get("towers") or {}).items()
                       ) if has_towers else ()
        top = Card.parse(view["top"]) if view.get("top") else None
        color = Color.parse(view["color"]) if view.get("color") else None
        return cls(top=top, seats=seats, turn=index.get(view.get("turn")),
                   direction=1 if int(view.get("direction", 1)) >= 0 else -1, color=color,
                   has_towers=has_towers, towers=towers,
                   draw_count=int(view.get("draw_count", 0)), title=title, contrast=contrast,
                   words=words)
