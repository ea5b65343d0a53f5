"""The table service as one process of a fleet (docs/deploy.md "Running several processes"): at
start it restores only the saved games of its shards' servers, leaves the others' (even an
unreadable one: its owner sets it aside) and prunes old move logs only when asked (the
process of shard 0)."""

from __future__ import annotations

import time

import pytest

from cogs.uno.table.session import Session
from data import Database, SavedGame
from runtime.fleet import Shards
from support.games import install, scenario_session
from support.service import ALICE, BOB, make_service

SHARDS = Shards(2, (0,))
MINE = (1000 << 22) | 1   # shard 1000 % 2 == 0: this process's
THEIRS = (1001 << 22) | 1  # shard 1: another process's


def game(channel_id: int, guild_id: int) -> SavedGame:
    s = scenario_session(channel_id, [ALICE, BOB], guild_id=guild_id, seed=3,
                         hands={ALICE: "R3 R4", BOB: "R6 G1"}, discard="R9", turn=ALICE)
    return SavedGame(channel_id=s.channel_id, guild_id=guild_id, game_id=s.game_id,
                     state=s.to_json(), updated_at=int(time.time()))


@pytest.mark.parametrize("prune", [True, False])
async def test_restore_takes_only_this_processes_servers(db: Database, prune: bool) -> None:
    assert SHARDS.owns(MINE) and not SHARDS.owns(THEIRS)
    await db.save_game(game(1, MINE))
    await db.save_game(game(2, THEIRS))
    await db.save_game(SavedGame(channel_id=3, guild_id=THEIRS, game_id="x",
                                 state="{not json", updated_at=int(time.time())))
    service, outbox = make_service(db)
    pruned: list[int] = []
    real_prune = db.prune_logs

    async def spy(older_than: int) -> int:
        pruned.append(older_than)
        return await real_prune(older_than)

    service.store.prune_logs = spy  # type: ignore[method-assign]
    assert await service.restore(SHARDS.owns, prune=prune) == 1
    assert set(service.sessions) == {1}
    assert {c for c, *_ in outbox.announced} == {1}, "only its own table goes on"
    assert outbox.notices == [], "another process's unreadable game is its owner's"
    assert {g.channel_id for g in await db.load_games()} == {1, 2, 3}, "nothing set aside"
    assert bool(pruned) == prune
    await service.close()


async def test_without_a_filter_every_game_is_restored(db: Database) -> None:
    await install(db)
    await db.save_game(game(1, MINE))
    await db.save_game(game(2, THEIRS))
    service, _outbox = make_service(db)
    assert await service.restore() == 2
    await service.close()


async def test_a_group_dms_game_is_restored_by_the_process_of_shard_0(db: Database) -> None:
    """A group DM has no server: its game is keyed by its channel (a game that lives in
    replies, R-BOT-REPLIES), and Discord sends a DM's interactions to shard 0, whose process
    restores it, whatever shard the channel's id would give. A game of a server keeps its
    server's shard, even where the channel's id is the server's (an old #general)."""
    group = THEIRS  # (a channel id whose shard would be another process's)
    dm = game(group, group)
    session = Session.from_json(dm.state)
    session.replies = True
    await db.save_game(SavedGame(channel_id=group, guild_id=group, game_id=dm.game_id,
                                 state=session.to_json(), updated_at=int(time.time())))
    await db.save_game(game(THEIRS + 1, THEIRS + 1))  # a server's #general, not in replies
    lead, _outbox = make_service(db)
    assert await lead.restore(SHARDS.owns) == 1
    assert set(lead.sessions) == {group} and lead.sessions[group].replies
    await lead.close()
    other, _outbox = make_service(db)
    assert await other.restore(Shards(2, (1,)).owns) == 1
    assert set(other.sessions) == {THEIRS + 1}
    await other.close()
