"""Save throughput of ``Database.save_game`` with group commit off and on, in one run.

    python bench/bench_saves.py                       # 200 games x 10 moves, each mode once
    python bench/bench_saves.py --games 500 --moves 20 --repeats 3

Run it from the repository root (it puts the root on ``sys.path`` itself).

Every game saves move after move (its ``save_game`` is awaited before its next move, as the
bot does under a table's lock) and all games play at once. Each save writes a snapshot of
``--state-bytes`` of JSON text and one log entry, like a move in the bot. Every measurement
gets a fresh database file (opened by ``Database.open``: WAL, ``synchronous = NORMAL``) in a
temporary folder. The modes alternate (off, on, off, on, ...) after an unmeasured warm-up,
and for each mode the run with the median saves/s is printed:

* ``saves/s``: all saves over the wall-clock time from the first move to the last commit;
* ``p50 ms`` / ``p99 ms``: latency of one ``save_game`` call, from the call to its return;
* ``commits`` and ``saves/commit``: transactions committed (``COMMIT`` statements counted
  on the connection), and how many saves each carried on average.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from data import Database, LogEntry, SavedGame  # noqa: E402
from data.sqlite import SqliteBackend  # noqa: E402

GUILD = 1


@dataclass(frozen=True, slots=True)
class Run:
    group_commit: bool
    saves: int
    seconds: float
    latencies: list[float]
    commits: int

    @property
    def per_second(self) -> float:
        return self.saves / self.seconds

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _count_commits(db: Database) -> list[int]:
    """Count the COMMITs SQLite runs on the database's connection (its trace callback: a
    save's transaction runs in one go on the event loop's thread, data/sqlite.py)."""
    count = [0]
    backend = db._backend
    assert isinstance(backend, SqliteBackend)

    def traced(sql: str) -> None:
        if sql == "COMMIT":
            count[0] += 1

    await backend.connection.set_trace_callback(traced)
    return count


async def _measure(folder: Path, name: str, *, group_commit: bool, games: int, moves: int,
                   state_bytes: int) -> Run:
    db = await Database.open(str(folder / f"{name}.db"), group_commit=group_commit)
    latencies: list[float] = []
    padding = "x" * max(0, state_bytes - 40)

    async def play(channel: int) -> None:
        game_id = f"g{channel}"
        for move in range(moves):
            state = f'{{"move": {move}, "pad": "{padding}"}}'
            game = SavedGame(channel, GUILD, game_id, state, 1_700_000_000 + move)
            entry = LogEntry(game_id, GUILD, channel, move, f'{{"play": "R{move % 10}"}}',
                             1_700_000_000 + move)
            start = time.perf_counter()
            await db.save_game(game, [entry])
            latencies.append(time.perf_counter() - start)

    try:
        commits = await _count_commits(db)
        start = time.perf_counter()
        await asyncio.gather(*(play(1000 + g) for g in range(games)))
        seconds = time.perf_counter() - start
    finally:
        await db.close()
    return Run(group_commit, games * moves, seconds, latencies, commits[0])


async def _main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-saves-", dir=args.dir) as tmp:
        folder = Path(tmp)
        for mode in (False, True):  # warm-up: imports, the page cache, aiosqlite's thread
            await _measure(folder, f"warm-{mode}", group_commit=mode, games=20, moves=3,
                           state_bytes=args.state_bytes)
        runs: dict[bool, list[Run]] = {False: [], True: []}
        for repeat in range(args.repeats):
            for mode in (False, True):
                runs[mode].append(await _measure(
                    folder, f"run-{repeat}-{mode}", group_commit=mode, games=args.games,
                    moves=args.moves, state_bytes=args.state_bytes))

    print(f"{args.games} games x {args.moves} moves (each game saves in turn, all games at "
          f"once), {args.state_bytes}-byte snapshots, {args.repeats} run(s) per mode, median "
          f"run shown; Python {platform.python_version()}, {platform.system()} "
          f"{platform.machine()}")
    print(f"{'group commit':<13}{'saves':>7}{'saves/s':>10}{'p50 ms':>9}{'p99 ms':>9}"
          f"{'commits':>9}{'saves/commit':>14}")
    chosen: dict[bool, Run] = {}
    for mode in (False, True):
        ordered = sorted(runs[mode], key=lambda run: run.per_second)
        run = chosen[mode] = ordered[len(ordered) // 2]
        print(f"{'on' if mode else 'off':<13}{run.saves:>7}{run.per_second:>10.0f}"
              f"{run.percentile(0.50) * 1000:>9.2f}{run.percentile(0.99) * 1000:>9.2f}"
              f"{run.commits:>9}{run.saves / max(run.commits, 1):>14.1f}")
        if args.repeats > 1:
            rates = ", ".join(f"{r.per_second:.0f}" for r in runs[mode])
            print(f"{'':<13}every run, saves/s: {rates}")
    on, off = chosen[True], chosen[False]
    print(f"on / off: {on.per_second / off.per_second:.2f}x the saves/s; p50 latency "
          f"{on.percentile(0.50) / off.percentile(0.50):.2f}x, p99 latency "
          f"{on.percentile(0.99) / off.percentile(0.99):.2f}x of off")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--state-bytes", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--dir", default=None, help="folder for the database files")
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
