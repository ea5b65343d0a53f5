"""The bot as one process of a fleet (runtime/fleet.py): which servers are this process's
(Discord's sharding formula), the fleet's lock on a SQLite file (held between processes,
released when its holder is killed), and IDENTIFY paced per bucket across processes
(Discord: one IDENTIFY per ``shard_id % max_concurrency`` per 5 s)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runtime.fleet import FileLocks, IdentifyPacer, ProcessLocks, Shards, local_locks

HOLDER = """
import asyncio, sys
sys.path.insert(0, {root!r})
from runtime.fleet import FileLocks

async def main():
    async with FileLocks({db!r})("identify:0"):
        print("held", flush=True)
        await asyncio.sleep({hold})

asyncio.run(main())
"""

ROOT = str(Path(__file__).resolve().parents[2])


def holder(db: Path, hold: float) -> subprocess.Popen[str]:
    """Another process that takes the key and keeps it ``hold`` seconds."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER.format(root=ROOT, db=str(db),
                                                                 hold=hold)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_guild_belongs_to_the_shard_of_discords_formula() -> None:
    guild = (123 << 22) | 77  # created at ms 123: shard 123 % 4 == 3
    assert Shards(4).of(guild) == 3
    assert Shards(4, (3,)).owns(guild) and not Shards(4, (0, 1, 2)).owns(guild)
    assert Shards(4).owns(guild), "a process without SHARD_IDS runs every shard"
    assert Shards(4, (0, 1)).leads and not Shards(4, (2, 3)).leads and Shards(1).leads
    assert Shards(8, (0, 1, 2, 3)).describe() == "0-3 of 8"
    assert Shards(8, (4, 6)).describe() == "4,6 of 8"


@pytest.mark.slow
async def test_the_lock_holds_between_processes(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    proc = holder(db, 1.0)
    try:
        start = time.monotonic()
        async with FileLocks(str(db))("identify:0"):
            waited = time.monotonic() - start
        assert waited > 0.5, "the other process held the key"
        async with asyncio.timeout(1):
            async with FileLocks(str(db))("identify:1"):
                pass  # another key is free
    finally:
        proc.wait(5)


async def test_a_killed_holder_releases_the_lock(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    proc = holder(db, 60.0)
    proc.kill()
    proc.wait(5)
    async with asyncio.timeout(2):
        async with FileLocks(str(db))("identify:0"):
            pass


@pytest.mark.slow
async def test_identify_is_paced_per_bucket_across_processes(tmp_path: Path) -> None:
    """Two pacers on one database file, as two processes: the shards of one bucket
    identify ``window`` after the READY of the one before, whichever process runs them;
    another bucket does not wait."""
    db = str(tmp_path / "bot.db")
    first, second = (IdentifyPacer(FileLocks(db), max_concurrency=2, window=0.4)
                     for _ in range(2))
    start = time.monotonic()
    await first.turn(0)
    await second.turn(1)  # bucket 1: at once
    other_bucket = time.monotonic() - start
    await asyncio.sleep(0.3)
    first.identified(0)  # shard 0's READY, 0.3 s after its IDENTIFY
    await second.turn(2)  # bucket 0 again: 0.4 s after that READY
    same_bucket = time.monotonic() - start
    await first.close()
    await second.close()
    assert other_bucket < 0.25 and same_bucket >= 0.7, (other_bucket, same_bucket)


async def test_a_shard_without_ready_frees_its_bucket_in_the_end(tmp_path: Path) -> None:
    """An IDENTIFY refused or lost never gets its READY: the key goes after
    ``ready_wait`` and the window."""
    pacer = IdentifyPacer(FileLocks(str(tmp_path / "bot.db")), max_concurrency=1,
                          window=0.2, ready_wait=0.3)
    start = time.monotonic()
    await pacer.turn(0)
    await pacer.turn(1)
    assert time.monotonic() - start >= 0.5
    await pacer.close()


async def test_an_in_memory_database_locks_in_the_process() -> None:
    locks = local_locks(":memory:")
    assert isinstance(locks, ProcessLocks)
    pacer = IdentifyPacer(locks, max_concurrency=1, window=0.3)
    start = time.monotonic()
    await pacer.turn(0)
    pacer.identified(0)
    await pacer.turn(1)
    assert 0.3 <= time.monotonic() - start < 1
    await pacer.close()
