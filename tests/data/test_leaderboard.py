"""record_game (one transaction, idempotent), leaderboard order and paging, guild isolation."""

from __future__ import annotations

import asyncio

import pytest

from data import (
    Database,
    DatabaseWriteError,
    GameResult,
    PlayerResult,
    PlayerStats,
    SavedGame,
    queries,
)
from support.data import FAILED, REJECTED, count_rows, opened

GUILD_A = 111
GUILD_B = 222




def player(
    user_id: int,
    score: int = 0,
    won: bool = False,
    rounds_won: int = 0,
    towers: int = 0,
    best: int = 0,
) -> PlayerResult:
    return PlayerResult(user_id, score, won, rounds_won, towers, best)


def game(
    game_id: str,
    *players: PlayerResult,
    guild_id: int = GUILD_A,
    channel_id: int = 5,
    rounds: int = 3,
) -> GameResult:
    return GameResult(game_id, guild_id, channel_id, "power-grab", 1_700_000_000, rounds, players)


async def all_stats(db: Database, guild_id: int) -> list[PlayerStats]:
    return await db.leaderboard(guild_id, "points", limit=100)


# --- record_game ------------------------------------------------------------------------


async def test_partner_games_and_tournaments_are_counted_apart_and_once(db: Database) -> None:
    """Issue 9 (sheet 004): the leaderboard counts partner games, team wins and tournament
    wins per player; recording the same game again changes nothing."""
    partners = GameResult("p1", GUILD_A, 5, "classic", 1, 2,
                          (PlayerResult(1, 90, True, 2, 0, 60, team=0),
                           PlayerResult(2, 0, False, 0, 0, 0, team=1)), kind="partners")
    rotating = GameResult("r1", GUILD_A, 5, "classic", 2, 3,
                          (PlayerResult(1, 10, False, 1, 0, 10),
                           PlayerResult(2, 70, True, 2, 0, 50)), kind="rotating")
    tournament = GameResult("t1", GUILD_A, 5, "power-grab", 3, 28,
                            (PlayerResult(1, 400, True, 9, 4, 99),
                             PlayerResult(2, 150, False, 5, 2, 60)), kind="tournament")
    for result in (partners, rotating, tournament):
        assert await db.record_game(result) is True
        assert await db.record_game(result) is False
    one = await db.player_stats(GUILD_A, 1)
    two = await db.player_stats(GUILD_A, 2)
    assert one is not None and two is not None
    assert (one.games_played, one.games_won, one.team_games, one.team_wins,
            one.tournaments_played, one.tournament_wins) == (3, 2, 2, 1, 1, 1)
    assert (two.games_played, two.games_won, two.team_games, two.team_wins,
            two.tournaments_played, two.tournament_wins) == (3, 1, 2, 1, 1, 0)
    with pytest.raises(ValueError, match="kind"):
        GameResult("x", GUILD_A, 5, "classic", 1, 1, (), kind="league")
    with pytest.raises(ValueError, match="team"):
        PlayerResult(1, 0, False, 0, 0, 0, team=-1)



async def test_record_game_adds_up_and_keeps_the_best_round(db: Database, db_path: str) -> None:
    assert await db.record_game(
        game("g1", player(1, 120, True, 2, 3, 80), player(2, 40, False, 1, 1, 40))
    )
    assert await db.record_game(game("g2", player(1, 30, False, 1, 0, 30), player(2, 300, True)))
    assert await db.player_stats(GUILD_A, 1) == PlayerStats(GUILD_A, 1, 2, 1, 3, 150, 3, 80)
    assert await db.player_stats(GUILD_A, 2) == PlayerStats(GUILD_A, 2, 2, 1, 1, 340, 1, 40)
    assert count_rows(db_path, "game_results") == 2
    assert count_rows(db_path, "game_players") == 4


async def test_player_stats_of_an_unknown_player_is_none(db: Database) -> None:
    await db.record_game(game("g1", player(1, 10)))
    assert await db.player_stats(GUILD_A, 2) is None
    assert await db.player_stats(GUILD_B, 1) is None


async def test_record_game_deletes_the_saved_game_of_that_game_only(db: Database) -> None:
    await db.save_game(SavedGame(5, GUILD_A, "g1", "{}", 1))
    await db.save_game(SavedGame(6, GUILD_A, "g2", "{}", 1))
    assert await db.record_game(game("g1", player(1, 10), channel_id=5))
    assert await db.load_game(5) is None
    assert await db.load_game(6) is not None
    # A newer game already saved in the same channel is not the finished one: kept.
    await db.save_game(SavedGame(6, GUILD_A, "g3", "{}", 2))
    assert await db.record_game(game("g2", player(1, 10), channel_id=6))
    assert await db.load_game(6) == SavedGame(6, GUILD_A, "g3", "{}", 2)


async def test_record_game_is_idempotent_also_after_reopen(db_path: str) -> None:
    result = game("g1", player(1, 100, True, 2, 1, 60), player(2, 5))
    async with opened(db_path) as db:
        assert await db.record_game(result) is True
        snapshot = await all_stats(db, GUILD_A)
        await db.save_game(SavedGame(5, GUILD_A, "g1", "{}", 9))  # e.g. a late save
        assert await db.record_game(result) is False
        assert await all_stats(db, GUILD_A) == snapshot
        assert await db.load_game(5) is not None  # "nothing changes" includes the saved game
    async with opened(db_path) as db:
        changed = game("g1", player(1, 999, True), player(3, 7))
        assert await db.record_game(changed) is False
        assert await db.record_game(result) is False
        assert await all_stats(db, GUILD_A) == snapshot
    assert count_rows(db_path, "game_results") == 1
    assert count_rows(db_path, "game_players") == 2


async def test_a_failure_mid_way_changes_nothing(db: Database, db_path: str) -> None:
    await db.record_game(game("g0", player(1, 50, True, 1, 1, 50)))
    await db.save_game(SavedGame(5, GUILD_A, "g1", '{"x": 1}', 3))
    before = await all_stats(db, GUILD_A)

    bad = player(3, 10)
    object.__setattr__(bad, "score", -10)  # violates CHECK (score >= 0) in the schema
    # Player 1 and 2 are written (result row, player rows, leaderboard) before 3 fails.
    broken = game("g1", player(1, 70, True, 2, 2, 70), player(2, 20), bad)
    with pytest.raises(DatabaseWriteError) as info:
        await db.record_game(broken)
    assert isinstance(info.value.__cause__, REJECTED)

    assert await all_stats(db, GUILD_A) == before
    assert await db.player_stats(GUILD_A, 2) is None
    assert await db.load_game(5) == SavedGame(5, GUILD_A, "g1", '{"x": 1}', 3)
    assert count_rows(db_path, "game_results") == 1
    assert count_rows(db_path, "game_players") == 1
    # The game id is not burnt: the corrected result is recorded normally.
    assert await db.record_game(game("g1", player(1, 70, True, 2, 2, 70), player(2, 20)))
    assert (await db.player_stats(GUILD_A, 1)) == PlayerStats(GUILD_A, 1, 2, 2, 3, 120, 3, 70)


async def test_a_failure_at_the_last_statement_changes_nothing(
    db: Database, db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:  # (on both backends: the SQL of the last statement is replaced)
    await db.save_game(SavedGame(5, GUILD_A, "g1", "{}", 3))
    monkeypatch.setattr(queries, "DELETE_FINISHED_GAME", "DELETE FROM no_such_table")
    with pytest.raises(DatabaseWriteError) as info:
        await db.record_game(game("g1", player(1, 70, True), player(2, 20)))
    assert isinstance(info.value.__cause__, FAILED)
    assert await all_stats(db, GUILD_A) == []
    assert count_rows(db_path, "game_results") == 0
    assert await db.load_game(5) is not None
    # And the connection is usable afterwards (no transaction left open).
    monkeypatch.undo()
    assert await db.record_game(game("g1", player(1, 70, True), player(2, 20)))
    assert await db.load_game(5) is None


async def test_concurrent_calls_do_not_interleave_transactions(db: Database) -> None:
    results = [game(f"g{i}", player(1, 10, i % 2 == 0), player(2 + i % 3, 5)) for i in range(30)]
    saves = [db.save_game(SavedGame(100 + i, GUILD_A, f"s{i}", "{}", i)) for i in range(30)]
    outcome = await asyncio.gather(*(db.record_game(r) for r in results), *saves)
    assert outcome[:30] == [True] * 30
    stats = await db.player_stats(GUILD_A, 1)
    assert stats is not None
    assert (stats.games_played, stats.games_won, stats.points) == (30, 15, 300)
    assert len(await db.load_games()) == 30


def test_game_result_rejects_a_player_listed_twice() -> None:
    with pytest.raises(ValueError, match="once"):
        game("g1", player(1), player(1))


@pytest.mark.parametrize("field", ["score", "rounds_won", "towers_grabbed", "best_round"])
def test_player_result_rejects_negative_numbers(field: str) -> None:
    values = {"score": 0, "rounds_won": 0, "towers_grabbed": 0, "best_round": 0, field: -1}
    with pytest.raises(ValueError, match=field):
        PlayerResult(user_id=1, won=False, **values)


# --- isolation --------------------------------------------------------------------------


async def test_guilds_never_see_each_other(db: Database) -> None:
    await db.record_game(game("a1", player(1, 100, True), player(2, 10), guild_id=GUILD_A))
    await db.record_game(game("b1", player(1, 5), player(3, 500, True), guild_id=GUILD_B))

    assert await db.leaderboard_size(GUILD_A) == 2
    assert await db.leaderboard_size(GUILD_B) == 2
    assert await db.leaderboard_size(333) == 0
    for order in ("wins", "points"):
        a = await db.leaderboard(GUILD_A, order)  # type: ignore[arg-type]
        b = await db.leaderboard(GUILD_B, order)  # type: ignore[arg-type]
        assert {s.guild_id for s in a} == {GUILD_A}
        assert {s.guild_id for s in b} == {GUILD_B}
        assert {s.user_id for s in a} == {1, 2}
        assert {s.user_id for s in b} == {1, 3}
    assert await db.player_stats(GUILD_A, 1) == PlayerStats(GUILD_A, 1, 1, 1, 0, 100, 0, 0)
    assert await db.player_stats(GUILD_B, 1) == PlayerStats(GUILD_B, 1, 1, 0, 0, 5, 0, 0)
    assert await db.player_stats(GUILD_A, 3) is None
    assert await db.leaderboard(333, "wins") == []


# --- ordering and paging ----------------------------------------------------------------


@pytest.fixture
async def ranked(db: Database) -> Database:
    # user: (wins, points) after the games below
    #  10: (2, 100)  11: (2, 300)  12: (0, 500)  13: (1, 500)  14: (2, 300)  15: (0, 0)
    # Every tie-break matters: 11/14 tie on both keys, 12/13 tie on points only and the
    # lower user id has fewer wins, 10/11 tie on wins only.
    await db.record_game(game("r1", player(10, 50, True), player(11, 100, True), player(12, 500)))
    await db.record_game(game("r2", player(10, 50, True), player(11, 200, True), player(13, 500)))
    await db.record_game(game("r3", player(14, 150, True), player(13, 0, True), player(15, 0)))
    await db.record_game(game("r4", player(14, 150, True)))
    return db


async def test_leaderboard_by_wins(ranked: Database) -> None:
    order = [s.user_id for s in await ranked.leaderboard(GUILD_A, "wins")]
    assert order == [11, 14, 10, 13, 12, 15]


async def test_leaderboard_by_points(ranked: Database) -> None:
    order = [s.user_id for s in await ranked.leaderboard(GUILD_A, "points")]
    assert order == [13, 12, 11, 14, 10, 15]


async def test_leaderboard_paging(ranked: Database) -> None:
    assert await ranked.leaderboard_size(GUILD_A) == 6
    for order in ("wins", "points"):
        full = await ranked.leaderboard(GUILD_A, order, limit=100)  # type: ignore[arg-type]
        pages = [
            await ranked.leaderboard(GUILD_A, order, limit=4, offset=0),  # type: ignore[arg-type]
            await ranked.leaderboard(GUILD_A, order, limit=4, offset=4),  # type: ignore[arg-type]
        ]
        assert [len(p) for p in pages] == [4, 2]
        assert pages[0] + pages[1] == full
        assert await ranked.leaderboard(GUILD_A, order, limit=4, offset=6) == []  # type: ignore[arg-type]
    assert len(await ranked.leaderboard(GUILD_A, "wins")) == 6  # default limit 10


@pytest.mark.parametrize(
    ("order", "limit", "offset"),
    [("best", 10, 0), ("wins", 0, 0), ("wins", 101, 0), ("points", 10, -1)],
)
async def test_leaderboard_rejects_bad_arguments(
    db: Database, order: str, limit: int, offset: int
) -> None:
    with pytest.raises(ValueError):
        await db.leaderboard(GUILD_A, order, limit=limit, offset=offset)  # type: ignore[arg-type]


def test_every_leaderboard_order_ends_with_the_user_id_tie_break() -> None:
    # SQLite's index happens to return ties by user_id anyway; PostgreSQL would not.
    for sql in queries.LEADERBOARD.values():
        assert sql.split("ORDER BY", 1)[1].split("LIMIT", 1)[0].strip().endswith("user_id ASC")
