"""Cards, colours and towers: small frozen value types with their codes.

Codes follow the project's card-code table (RULES.md, "Card codes"): ``R7``, ``B1U``,
``R+1``, ``Y+2``, ``BS``, ``GR``, ``YG``, ``W``, ``W+4``, ``WG``, ``WV``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Final

from engine.errors import ParseError


class Color(enum.Enum):
    """One of the four card colours."""

    __hash__ = object.__hash__  # members are singletons: identity hashing is exact and fast

    RED = "R"
    BLUE = "B"
    GREEN = "G"
    YELLOW = "Y"

    @property
    def label(self) -> str:
        """Lower-case English name, as players type it ("red")."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Color:
        """Accept ``R``/``red``/``Red`` and friends."""
        t = text.strip()
        for c in cls:
            if t.upper() == c.value or t.lower() == c.label:
                return c
        raise ParseError(f"'{text}' is not a colour: use red, blue, green or yellow.")


class Tower(enum.Enum):
    """The four Power Towers and what each one blocks."""

    __hash__ = object.__hash__

    U = "U"
    """Red tower: blocks Draw One."""
    N = "N"
    """Blue tower: blocks Draw Two."""
    O = "O"  # noqa: E741
    """Green tower: blocks Wild Draw Four."""
    BANG = "!"
    """Yellow tower: blocks Skip."""

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, text: str) -> Tower:
        t = text.strip().upper()
        for tower in cls:
            if t == tower.value:
                return tower
        raise ParseError(f"'{text}' is not a tower: use U, N, O or !.")


class Kind(enum.Enum):
    """What a card does."""

    __hash__ = object.__hash__

    NUMBER = "number"
    DRAW_ONE = "+1"
    DRAW_TWO = "+2"
    SKIP = "S"
    REVERSE = "R"
    GRAB_TWO = "G"
    WILD = "W"
    WILD_DRAW_FOUR = "W+4"
    WILD_GRAB = "WG"
    VICTORY_LAP = "WV"

    @property
    def is_wild(self) -> bool:
        return self.value[0] == "W"  # W, W+4, WG, WV


_WILD_KINDS: Final = frozenset({Kind.WILD, Kind.WILD_DRAW_FOUR, Kind.WILD_GRAB, Kind.VICTORY_LAP})
_COLORED_ACTION_CODES: Final = {
    "+1": Kind.DRAW_ONE,
    "+2": Kind.DRAW_TWO,
    "S": Kind.SKIP,
    "R": Kind.REVERSE,
    "G": Kind.GRAB_TWO,
}
_WILD_CODES: Final = {k.value: k for k in _WILD_KINDS}
_DIGITS: Final = frozenset("0123456789")

#: Which tower blocks which card (RULES.md, "Towers").
BLOCKED_BY: Final[dict[Kind, Tower]] = {
    Kind.DRAW_ONE: Tower.U,
    Kind.DRAW_TWO: Tower.N,
    Kind.WILD_DRAW_FOUR: Tower.O,
    Kind.SKIP: Tower.BANG,
}

#: How many cards each drawing card makes the next player take.
DRAW_COUNT: Final[dict[Kind, int]] = {
    Kind.DRAW_ONE: 1,
    Kind.DRAW_TWO: 2,
    Kind.WILD_DRAW_FOUR: 4,
}


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card. A wild's chosen colour lives on the game, never on the card.

    Cards are interned: ``Card(Kind.NUMBER, Color.RED, 7)`` always returns the same object,
    so equality and hashing are identity (as fast as Python gets) and exact.
    Cards sort by colour (red, blue, green, yellow, then wilds), kind, number and icon.
    """

    kind: Kind
    color: Color | None = None
    number: int | None = None
    icon: Tower | None = None
    is_wild: bool = field(init=False, repr=False, compare=False)
    """Wild Draw Four, Wild Grab-A-Tower, Wild or Victory Lap (computed once)."""
    code: str = field(init=False, repr=False, compare=False)
    """The card code (``R7``, ``B1U``, ``W+4``): computed once."""

    def __new__(cls, kind: Kind, color: Color | None = None, number: int | None = None,
                icon: Tower | None = None) -> Card:
        card = _INTERNED.get((kind, color, number, icon))
        if card is not None:
            return card
        return object.__new__(cls)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (Card.parse, (self.code,))

    @classmethod
    def of(cls, kind: Kind, color: Color | None = None, number: int | None = None,
           icon: Tower | None = None) -> Card:
        """The card with these features (the same object every time)."""
        return cls(kind, color, number, icon)

    def __post_init__(self) -> None:
        object.__setattr__(self, "is_wild", self.kind.is_wild)
        if self.kind.is_wild:
            if self.color is not None or self.number is not None or self.icon is not None:
                raise ParseError("A wild card has no colour, number or icon.")
        elif self.color is None:
            raise ParseError("A coloured card needs a colour.")
        if self.kind is Kind.NUMBER:
            if self.number is None or not 0 <= self.number <= 9:
                raise ParseError("A number card needs a number from 0 to 9.")
        elif self.number is not None or self.icon is not None:
            raise ParseError("Only number cards carry a number or a Power Icon.")
        object.__setattr__(self, "code", self._make_code())
        _INTERNED.setdefault((self.kind, self.color, self.number, self.icon), self)

    @classmethod
    def parse(cls, code: str) -> Card:
        """Read a card code such as ``R7``, ``B1U``, ``G+2`` or ``W+4`` (case-insensitive)."""
        c = code.strip().upper()
        card = _PARSE_CACHE.get(c)
        if card is not None:
            return card
        if c in _WILD_CODES:
            card = cls.of(_WILD_CODES[c])
        elif len(c) >= 2 and c[0] in "RBGY":
            color = Color(c[0])
            rest = c[1:]
            if rest in _COLORED_ACTION_CODES:
                card = cls.of(_COLORED_ACTION_CODES[rest], color)
            # ASCII digits only: str.isdigit() also takes "²" and "①" (which int() refuses)
            # and "٣" (which it reads as 3), none of them a card code.
            elif rest[0] in _DIGITS and (len(rest) == 1 or (len(rest) == 2 and rest[1] in "UNO!")):
                icon = Tower(rest[1]) if len(rest) == 2 else None
                card = cls.of(Kind.NUMBER, color, int(rest[0]), icon)
        if card is None:
            raise ParseError(f"'{code}' is not a card code (examples: R7, B1U, G+2, YS, W+4).")
        _PARSE_CACHE[c] = card
        return card

    def _make_code(self) -> str:
        if self.kind.is_wild:
            return self.kind.value
        assert self.color is not None
        if self.kind is Kind.NUMBER:
            return f"{self.color.value}{self.number}{self.icon.value if self.icon else ''}"
        return f"{self.color.value}{self.kind.value}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card.parse({self.code!r})"

    @property
    def sort_key(self) -> tuple[int, int, int, int]:
        """Hand order: colour, then kind, number and icon (wilds last)."""
        return (
            _COLOR_ORDER[self.color] if self.color is not None else len(_COLOR_ORDER),
            _KIND_ORDER[self.kind],
            -1 if self.number is None else self.number,
            -1 if self.icon is None else _TOWER_ORDER[self.icon],
        )

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.sort_key < other.sort_key

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.sort_key <= other.sort_key

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.sort_key > other.sort_key

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Card):
            return NotImplemented
        return self.sort_key >= other.sort_key

    def describe(self) -> str:
        """English name for messages: "red 7", "blue Draw Two", "Wild Draw Four"."""
        names = {
            Kind.DRAW_ONE: "Draw One",
            Kind.DRAW_TWO: "Draw Two",
            Kind.SKIP: "Skip",
            Kind.REVERSE: "Reverse",
            Kind.GRAB_TWO: "Grab-2-Towers",
            Kind.WILD: "Wild",
            Kind.WILD_DRAW_FOUR: "Wild Draw Four",
            Kind.WILD_GRAB: "Wild Grab-A-Tower",
            Kind.VICTORY_LAP: "Victory Lap",
        }
        if self.kind.is_wild:
            return names[self.kind]
        assert self.color is not None
        if self.kind is Kind.NUMBER:
            icon = f" ({self.icon.value})" if self.icon else ""
            return f"{self.color.label} {self.number}{icon}"
        return f"{self.color.label} {names[self.kind]}"


_PARSE_CACHE: dict[str, Card] = {}
_INTERNED: dict[tuple[Kind, Color | None, int | None, Tower | None], Card] = {}
_COLOR_ORDER: Final = {c: i for i, c in enumerate(Color)}
_KIND_ORDER: Final = {k: i for i, k in enumerate(Kind)}
_TOWER_ORDER: Final = {t: i for i, t in enumerate(Tower)}
