"""How long one ``Database.save_game`` takes while the event loop's thread is busy.

    python bench/bench_save_latency.py                   # 100 saves/s for 10 s, loop busy
    python bench/bench_save_latency.py --root /work/main # the same, against another checkout
    python bench/bench_save_latency.py --no-wal          # a file that cannot be in WAL mode

The bot's loop is busy most of the time under load (issue 17: 80-95 %), and a save that
hands its work to another thread (aiosqlite's) waits for the GIL there. So here a coroutine
burns CPU in slices of ``--slice-ms`` (2 ms) with a pause of ``--pause-ms`` between them,
while ``--games`` games save in turn at ``--rate`` saves a second in all (each a snapshot of
``--state-bytes`` and one log entry, as a move in the bot) on a fresh SQLite file
(``Database.open``: WAL, ``synchronous = NORMAL``). Printed: the latency of a save (from the
call to its return) p50 / p90 / p99 / max, how busy the loop was, and the longest time the
loop's thread was held by anything other than the burner (a save written inline, a
checkpoint...). ``--root`` runs against another checkout's ``data`` package (before/after:
run it both ways in one session, alternating). ``--no-wal`` opens the file through SQLite's
``unix-dotfile`` VFS, which has no shared memory, so SQLite refuses WAL and the file stays
in its rollback journal (``delete``), as on a volume where WAL cannot work: every commit
then syncs the file.
"""

from __future__ import annotations

import _sqlite3
import argparse
import asyncio
import ctypes
import os
import sys
import tempfile
import time
from pathlib import Path


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _without_shared_memory() -> None:
    """New SQLite connections of this process go through the ``unix-dotfile`` VFS (no
    shared memory: no WAL), made the default with SQLite's ``sqlite3_vfs_register``."""
    lib = ctypes.CDLL(_sqlite3.__file__)  # (its symbols and its libsqlite3's)
    lib.sqlite3_vfs_find.restype = ctypes.c_void_p
    lib.sqlite3_vfs_find.argtypes = [ctypes.c_char_p]
    lib.sqlite3_vfs_register.argtypes = [ctypes.c_void_p, ctypes.c_int]
    dotfile = lib.sqlite3_vfs_find(b"unix-dotfile")
    if not dotfile or lib.sqlite3_vfs_register(dotfile, 1) != 0:
        raise SystemExit("this SQLite has no unix-dotfile VFS")


async def _run(args: argparse.Namespace, folder: str) -> None:
    from data import Database, LogEntry, SavedGame

    if args.no_wal:
        _without_shared_memory()
    db = await Database.open(os.path.join(folder, "bench.db"))
    row = await db._backend.fetch_one("PRAGMA journal_mode")
    print(f"journal mode {row[0] if row else '?'}")
    padding = "x" * max(0, args.state_bytes - 40)
    latencies: list[float] = []
    held: list[float] = []  # time between burner slices beyond the pause asked for
    busy = [0.0]
    stop = asyncio.Event()

    async def burner() -> None:
        while not stop.is_set():
            start = time.perf_counter()
            while time.perf_counter() - start < args.slice_ms / 1000:
                pass
            busy[0] += time.perf_counter() - start
            before = time.perf_counter()
            await asyncio.sleep(args.pause_ms / 1000)
            held.append(time.perf_counter() - before - args.pause_ms / 1000)

    async def play(index: int, interval: float) -> None:
        channel = 1000 + index
        game_id = f"g{channel}"
        move = 0
        await asyncio.sleep(interval * index / args.games)  # spread the games out
        while not stop.is_set():
            state = f'{{"move": {move}, "pad": "{padding}"}}'
            game = SavedGame(channel, 1, game_id, state, 1_700_000_000 + move)
            entry = LogEntry(game_id, 1, channel, move, '{"play": "R7"}', 1_700_000_000 + move)
            start = time.perf_counter()
            await db.save_game(game, [entry])
            latencies.append(time.perf_counter() - start)
            move += 1
            await asyncio.sleep(interval)

    try:
        interval = args.games / args.rate
        burn = asyncio.create_task(burner())
        started = time.perf_counter()
        players = [asyncio.create_task(play(g, interval)) for g in range(args.games)]
        await asyncio.sleep(args.seconds)
        stop.set()
        elapsed = time.perf_counter() - started
        await asyncio.gather(burn, *players)
        checkpoints = getattr(db._backend, "checkpoints", None)  # (None before data/wal.py)
    finally:
        await db.close()
    ms = [x * 1000 for x in latencies]
    print(f"{len(ms)} saves in {elapsed:.1f} s ({len(ms) / elapsed:.0f}/s), loop busy burning "
          f"{busy[0] / elapsed:.0%}; save latency ms p50 {_percentile(ms, 0.5):.2f} "
          f"p90 {_percentile(ms, 0.9):.2f} p99 {_percentile(ms, 0.99):.2f} max {max(ms):.2f}; "
          f"loop held by others ms p99 {_percentile(held, 0.99) * 1000:.2f} "
          f"max {max(held) * 1000:.2f}")
    if checkpoints is not None:
        print(f"checkpoints off the loop: {checkpoints.runs}, {checkpoints.held} of them with "
              "the writes held")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                        help="the checkout whose data package is measured")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rate", type=float, default=100.0, help="saves a second, in all")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--state-bytes", type=int, default=3000)
    parser.add_argument("--slice-ms", type=float, default=2.0)
    parser.add_argument("--pause-ms", type=float, default=0.0)
    parser.add_argument("--dir", default=None, help="folder for the database file")
    parser.add_argument("--no-wal", action="store_true",
                        help="a file SQLite cannot switch to WAL (unix-dotfile VFS)")
    args = parser.parse_args()
    sys.path.insert(0, args.root)
    with tempfile.TemporaryDirectory(prefix="bench-save-latency-", dir=args.dir) as folder:
        asyncio.run(_run(args, folder))


if __name__ == "__main__":
    main()
