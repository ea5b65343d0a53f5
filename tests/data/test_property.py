"""Property: recording any sequence of games only ever adds, and totals equal the sums, on
each backend (SQLite, and PostgreSQL with fewer examples: each one empties the database)."""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import astuple
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from data import Database, GameResult, PlayerResult, PlayerStats
from support import postgres

GUILDS = (1, 2)
USERS = (101, 102, 103, 104, 105)

players = st.lists(
    st.builds(
        PlayerResult,
        user_id=st.sampled_from(USERS),
        score=st.integers(0, 2000),
        won=st.booleans(),
        rounds_won=st.integers(0, 10),
        towers_grabbed=st.integers(0, 8),
        best_round=st.integers(0, 600),
    ),
    max_size=4,
    unique_by=lambda p: p.user_id,
).map(tuple)

games = st.builds(
    GameResult,
    game_id=st.sampled_from([f"g{i}" for i in range(10)]),  # repeats test idempotency
    guild_id=st.sampled_from(GUILDS),
    channel_id=st.integers(1, 3),
    edition=st.sampled_from(["power-grab", "classic"]),
    finished_at=st.integers(0, 2**40),
    rounds=st.integers(0, 30),
    players=players,
)

Key = tuple[int, int]


def expected_totals(recorded: list[GameResult]) -> dict[Key, PlayerStats]:
    totals: dict[Key, list[int]] = {}
    for result in recorded:
        for p in result.players:
            t = totals.setdefault((result.guild_id, p.user_id), [0, 0, 0, 0, 0, 0])
            t[0] += 1
            t[1] += int(p.won)
            t[2] += p.rounds_won
            t[3] += p.score
            t[4] += p.towers_grabbed
            t[5] = max(t[5], p.best_round)
    return {key: PlayerStats(key[0], key[1], *t) for key, t in totals.items()}


async def snapshot(db: Database) -> dict[Key, PlayerStats]:
    out: dict[Key, PlayerStats] = {}
    for guild in GUILDS:
        for stats in await db.leaderboard(guild, "wins", limit=100):
            out[(stats.guild_id, stats.user_id)] = stats
        assert await db.leaderboard_size(guild) == len([k for k in out if k[0] == guild])
    return out


async def run(sequence: list[GameResult], reopen_after: int, path: str) -> None:
    db = await Database.open(path)
    seen: set[str] = set()
    recorded: list[GameResult] = []
    try:
        before = await snapshot(db)
        for index, result in enumerate(sequence):
            if index == reopen_after:
                await db.close()
                db = await Database.open(path)
            is_new = result.game_id not in seen
            assert await db.record_game(result) is is_new
            if is_new:
                seen.add(result.game_id)
                recorded.append(result)
            after = await snapshot(db)
            for key, old in before.items():
                new = after[key]  # a leaderboard row never disappears
                # games_played, games_won, rounds_won, points, towers, best_round: never down
                assert all(n >= o for n, o in zip(astuple(new)[2:], astuple(old)[2:])), (old, new)
            before = after
        assert before == expected_totals(recorded)
    finally:
        await db.close()


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(sequence=st.lists(games, max_size=15), reopen_after=st.integers(0, 15))
def test_recording_games_only_adds_and_totals_match(
    sequence: list[GameResult], reopen_after: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(run(sequence, reopen_after, str(Path(tmp) / "bot.db")))


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(sequence=st.lists(games, max_size=15), reopen_after=st.integers(0, 15))
def test_recording_games_only_adds_and_totals_match_on_postgresql(
    pg_shared_url: str, sequence: list[GameResult], reopen_after: int
) -> None:
    postgres.empty_tables(pg_shared_url)
    asyncio.run(run(sequence, reopen_after, pg_shared_url))
