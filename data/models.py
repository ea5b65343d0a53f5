"""Frozen dataclasses for the rows the storage layer reads and writes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from engine.editions import EDITIONS as ENGINE_EDITIONS
from engine.settings import GRAB2_POINTS, SCORING_MODES, TARGET_RANGE, Settings


class RowLike(Protocol):
    """A database row addressable by column name (sqlite3.Row, asyncpg.Record, dict)."""

    def __getitem__(self, key: str, /) -> Any: ...


# One source of truth for every setting: the game's rules come from the engine; the table's
# own settings (the turn timer, mentions) are defined here. The SQL CHECK constraints in
# migrations/ mirror them (a new value needs a migration).
SCORINGS = SCORING_MODES
EDITIONS = tuple(ENGINE_EDITIONS)
TARGET_MIN, TARGET_MAX = TARGET_RANGE
TURN_TIMER_MIN, TURN_TIMER_MAX = 10, 600
MISSED_TURNS_MIN, MISSED_TURNS_MAX = 1, 10
DEFAULT_MISSED_TURNS = 2
_RULES = Settings()
DEFAULT_TURN_TIMER = 90
DEFAULT_EDITION = "power-grab"
_EDITION_NAMES = ", ".join(repr(e) for e in EDITIONS)
GAME_KINDS = ("solo", "partners", "rotating", "tournament")
LANGUAGES = ("en", "fr")
"""The languages a server can choose for its public game text (runtime/i18n.py has them)."""
"""What a finished game was: everyone for themselves, fixed partners, the rotating-partners
match, or a tournament (recorded once, as a whole)."""
TEAM_KINDS = frozenset({"partners", "rotating"})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _require_int(name: str, value: object) -> None:
    if not _is_int(value):
        raise ValueError(f"{name} must be an integer, got {value!r}.")


def _require_non_negative(name: str, value: object) -> None:
    if not _is_int(value) or value < 0:  # type: ignore[operator]
        raise ValueError(f"{name} must be an integer of 0 or more, got {value!r}.")


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """Per-server defaults for new games."""

    guild_id: int
    target: int = _RULES.target
    scoring: str = _RULES.scoring
    grab2_points: int = _RULES.grab2_points
    edition: str = DEFAULT_EDITION
    turn_timer: int = DEFAULT_TURN_TIMER
    mention_turn: bool = True
    shuffle_seats: bool = _RULES.shuffle_seats
    threads: bool = False
    """Whether /uno new opens its game in a new thread (the command's option overrides it)."""
    language: str | None = None
    """The language of public game text ("en", "fr"); None follows the server's Discord
    locale."""
    missed_turns: int = DEFAULT_MISSED_TURNS
    """Turns in a row a person may miss before a computer player keeps their seat warm."""

    def __post_init__(self) -> None:
        _require_int("guild_id", self.guild_id)
        if not _is_int(self.target) or not TARGET_MIN <= self.target <= TARGET_MAX:
            raise ValueError(
                f"target must be a whole number of points from {TARGET_MIN} to {TARGET_MAX}, "
                f"got {self.target!r}."
            )
        if self.scoring not in SCORINGS:
            raise ValueError(
                f"scoring must be 'standard' or 'alternative', got {self.scoring!r}."
            )
        if not _is_int(self.grab2_points) or self.grab2_points not in GRAB2_POINTS:
            raise ValueError(f"grab2_points must be 20 or 50, got {self.grab2_points!r}.")
        if self.edition not in EDITIONS:
            raise ValueError(f"edition must be one of {_EDITION_NAMES}, got {self.edition!r}.")
        if not _is_int(self.turn_timer) or not (
            TURN_TIMER_MIN <= self.turn_timer <= TURN_TIMER_MAX
        ):
            raise ValueError(
                f"turn_timer must be a whole number of seconds from {TURN_TIMER_MIN} to "
                f"{TURN_TIMER_MAX} (it cannot be turned off), got {self.turn_timer!r}."
            )
        if not isinstance(self.mention_turn, bool):
            raise ValueError(f"mention_turn must be True or False, got {self.mention_turn!r}.")
        if not isinstance(self.shuffle_seats, bool):
            raise ValueError(f"shuffle_seats must be True or False, got {self.shuffle_seats!r}.")
        if not isinstance(self.threads, bool):
            raise ValueError(f"threads must be True or False, got {self.threads!r}.")
        if not _is_int(self.missed_turns) or not (
            MISSED_TURNS_MIN <= self.missed_turns <= MISSED_TURNS_MAX
        ):
            raise ValueError(
                f"missed_turns must be a whole number from {MISSED_TURNS_MIN} to "
                f"{MISSED_TURNS_MAX}, got {self.missed_turns!r}."
            )
        if self.language is not None and self.language not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)} or None, got "
                             f"{self.language!r}.")

    @classmethod
    def from_row(cls, row: RowLike) -> GuildSettings:
        return cls(
            guild_id=int(row["guild_id"]),
            target=int(row["target"]),
            scoring=str(row["scoring"]),
            grab2_points=int(row["grab2_points"]),
            edition=str(row["edition"]),
            turn_timer=int(row["turn_timer"]),
            mention_turn=bool(row["mention_turn"]),
            shuffle_seats=bool(row["shuffle_seats"]),
            threads=bool(row["threads"]),
            language=str(row["language"]) if row["language"] is not None else None,
            missed_turns=int(row["missed_turns"]),
        )


@dataclass(frozen=True, slots=True)
class UserSettings:
    """A person's own display preferences (the same in every server)."""

    user_id: int
    high_contrast: bool = False
    """Cards drawn in the high-contrast look (stronger palette, thicker outlines)."""

    def __post_init__(self) -> None:
        _require_int("user_id", self.user_id)
        if not isinstance(self.high_contrast, bool):
            raise ValueError(f"high_contrast must be True or False, got {self.high_contrast!r}.")

    @classmethod
    def from_row(cls, row: RowLike) -> UserSettings:
        return cls(user_id=int(row["user_id"]), high_contrast=bool(row["high_contrast"]))


@dataclass(frozen=True, slots=True)
class SavedGame:
    """A game in progress; ``state`` is the engine's JSON text, stored as is."""

    channel_id: int
    guild_id: int
    game_id: str
    state: str
    updated_at: int  # unix time, seconds

    def __post_init__(self) -> None:
        _require_int("channel_id", self.channel_id)
        _require_int("guild_id", self.guild_id)
        _require_int("updated_at", self.updated_at)
        if not isinstance(self.game_id, str) or not self.game_id:
            raise ValueError(f"game_id must be a non-empty string, got {self.game_id!r}.")
        if not isinstance(self.state, str):
            raise ValueError(f"state must be the engine state as JSON text, got {self.state!r}.")

    @classmethod
    def from_row(cls, row: RowLike) -> SavedGame:
        return cls(
            channel_id=int(row["channel_id"]),
            guild_id=int(row["guild_id"]),
            game_id=str(row["game_id"]),
            state=str(row["state"]),
            updated_at=int(row["updated_at"]),
        )


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One human player's line in a finished game."""

    user_id: int
    score: int
    won: bool
    rounds_won: int
    towers_grabbed: int
    best_round: int
    team: int | None = None
    """The player's team (0, 1, ...) in a game with fixed partners, else None."""

    def __post_init__(self) -> None:
        _require_int("user_id", self.user_id)
        if self.team is not None:
            _require_non_negative("team", self.team)
        if not isinstance(self.won, bool):
            raise ValueError(f"won must be True or False, got {self.won!r}.")
        for name in ("score", "rounds_won", "towers_grabbed", "best_round"):
            _require_non_negative(name, getattr(self, name))

    @classmethod
    def from_row(cls, row: RowLike) -> PlayerResult:
        return cls(
            user_id=int(row["user_id"]),
            score=int(row["score"]),
            won=bool(row["won"]),
            rounds_won=int(row["rounds_won"]),
            towers_grabbed=int(row["towers_grabbed"]),
            best_round=int(row["best_round"]),
            team=None if row["team"] is None else int(row["team"]),
        )


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game, as recorded for the leaderboard (human players only)."""

    game_id: str
    guild_id: int
    channel_id: int
    edition: str
    finished_at: int  # unix time, seconds
    rounds: int
    players: tuple[PlayerResult, ...]
    kind: str = "solo"
    """One of GAME_KINDS."""

    def __post_init__(self) -> None:
        if not isinstance(self.game_id, str) or not self.game_id:
            raise ValueError(f"game_id must be a non-empty string, got {self.game_id!r}.")
        _require_int("guild_id", self.guild_id)
        _require_int("channel_id", self.channel_id)
        _require_int("finished_at", self.finished_at)
        _require_non_negative("rounds", self.rounds)
        if self.edition not in EDITIONS:
            raise ValueError(f"edition must be one of {_EDITION_NAMES}, got {self.edition!r}.")
        if self.kind not in GAME_KINDS:
            raise ValueError(f"kind must be one of {GAME_KINDS}, got {self.kind!r}.")
        if not isinstance(self.players, tuple):
            raise ValueError("players must be a tuple of PlayerResult.")
        user_ids = [p.user_id for p in self.players]
        if len(set(user_ids)) != len(user_ids):
            raise ValueError(f"players must list each user once, got user ids {user_ids}.")


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """A player's leaderboard row in one guild."""

    guild_id: int
    user_id: int
    games_played: int
    games_won: int
    rounds_won: int
    points: int
    towers_grabbed: int
    best_round: int
    team_games: int = 0
    """Games played with partners (fixed or rotating), also counted in games_played."""
    team_wins: int = 0
    """... and of those, the ones won (also counted in games_won)."""
    tournaments_played: int = 0
    tournament_wins: int = 0

    @classmethod
    def from_row(cls, row: RowLike) -> PlayerStats:
        return cls(
            guild_id=int(row["guild_id"]),
            user_id=int(row["user_id"]),
            games_played=int(row["games_played"]),
            games_won=int(row["games_won"]),
            rounds_won=int(row["rounds_won"]),
            points=int(row["points"]),
            towers_grabbed=int(row["towers_grabbed"]),
            best_round=int(row["best_round"]),
            team_games=int(row["team_games"]),
            team_wins=int(row["team_wins"]),
            tournaments_played=int(row["tournaments_played"]),
            tournament_wins=int(row["tournament_wins"]),
        )


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One event of a game's move log; ``entry`` is JSON text, stored as is.

    ``seq`` 0 is the game's header (its start), then 1, 2, 3 ... one per move.
    """

    game_id: str
    guild_id: int
    channel_id: int
    seq: int
    entry: str
    created_at: int  # unix time, seconds

    def __post_init__(self) -> None:
        if not isinstance(self.game_id, str) or not self.game_id:
            raise ValueError(f"game_id must be a non-empty string, got {self.game_id!r}.")
        _require_int("guild_id", self.guild_id)
        _require_int("channel_id", self.channel_id)
        _require_non_negative("seq", self.seq)
        if not isinstance(self.entry, str):
            raise ValueError(f"entry must be JSON text, got {self.entry!r}.")
        _require_int("created_at", self.created_at)

    @classmethod
    def from_row(cls, row: RowLike) -> LogEntry:
        return cls(
            game_id=str(row["game_id"]),
            guild_id=int(row["guild_id"]),
            channel_id=int(row["channel_id"]),
            seq=int(row["seq"]),
            entry=str(row["entry"]),
            created_at=int(row["created_at"]),
        )


@dataclass(frozen=True, slots=True)
class SetAsideGame:
    """A saved game taken out of play and kept; ``state`` is the engine's JSON text as saved."""

    channel_id: int
    guild_id: int
    game_id: str
    state: str
    reason: str
    set_aside_at: int  # unix time, seconds

    @classmethod
    def from_row(cls, row: RowLike) -> SetAsideGame:
        return cls(
            channel_id=int(row["channel_id"]),
            guild_id=int(row["guild_id"]),
            game_id=str(row["game_id"]),
            state=str(row["state"]),
            reason=str(row["reason"]),
            set_aside_at=int(row["set_aside_at"]),
        )
