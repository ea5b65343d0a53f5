"""How long a read waits on PostgreSQL while saves stream in, with the read pool and without.

    python bench/bench_pg_reads.py                       # pool 0 and 2, alternately, 3 rounds
    python bench/bench_pg_reads.py --rate 300 --seconds 8 --rounds 2

One process's database (``Database.open`` on the tests' throwaway PostgreSQL server,
tests/support/postgres.py: durability off, on this machine) takes ``--rate`` saves a second
(``--games`` games in turn, each a snapshot of ``--state-bytes`` and one log entry, as a
move in the bot; group commit as in the bot) and, meanwhile, ``--reads`` reads a second (a
server's settings, a player's: ``get_guild_settings`` / ``get_user_settings``, as a
leaderboard, a lobby or a hand picture asks). Printed for ``DATABASE_READ_POOL`` 0 (reads
wait in line with the saves, as before the pool) and 2 (the default), alternately, each
``--rounds`` times in one session: a read's latency (from the call to its return) and a
save's, p50 / p99 / max in ms. The figures are for comparing the two in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))


def _percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    if not ordered:
        return "-"

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000

    return f"{at(0.5):.1f} / {at(0.99):.1f} / {ordered[-1] * 1000:.1f}"


async def _one(url: str, pool: int, args: argparse.Namespace) -> tuple[str, str]:
    from data import Database, LogEntry, SavedGame

    db = await Database.open(url, read_pool=pool)
    padding = "x" * max(0, args.state_bytes - 40)
    saves: list[float] = []
    reads: list[float] = []
    seq = [0] * args.games
    tasks: set[asyncio.Task[None]] = set()

    async def save(g: int) -> None:
        seq[g] += 1
        state = f'{{"seq": {seq[g]}, "pad": "{padding}"}}'
        started = time.perf_counter()
        await db.save_game(SavedGame(1000 + g, 1 + g % 20, f"g{g}", state, int(time.time())),
                           [LogEntry(f"g{g}", 1 + g % 20, 1000 + g, seq[g], "{}", 0)])
        saves.append(time.perf_counter() - started)

    async def read(i: int) -> None:
        started = time.perf_counter()
        if i % 2:
            await db.get_guild_settings(1 + i % 20)
        else:
            await db.get_user_settings(500 + i % 100)
        reads.append(time.perf_counter() - started)

    def spawn(coro: object) -> None:
        task = asyncio.ensure_future(coro)  # type: ignore[arg-type]
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    loop = asyncio.get_running_loop()
    start = loop.time()
    n_save = n_read = 0
    while (now := loop.time() - start) < args.seconds:
        while n_save < now * args.rate:
            spawn(save(n_save % args.games))
            n_save += 1
        while n_read < now * args.reads:
            spawn(read(n_read))
            n_read += 1
        await asyncio.sleep(0.002)
    await asyncio.gather(*tasks)
    await db.close()
    return _percentiles(reads), _percentiles(saves)


async def _main(args: argparse.Namespace) -> None:
    from support import postgres

    server = await asyncio.to_thread(postgres.start_server)
    try:
        print(f"{args.rate} saves/s and {args.reads} reads/s for {args.seconds} s each, "
              f"{args.games} games; latency p50 / p99 / max ms")
        print("| DATABASE_READ_POOL | round | read | save |\n|---:|---:|---|---|")
        for round_ in range(1, args.rounds + 1):
            for pool in (0, 2):
                url = postgres.new_database(server)
                try:
                    read, save = await _one(postgres.real_url(url), pool, args)
                finally:
                    postgres.drop_database(server, url)
                print(f"| {pool} | {round_} | {read} | {save} |", flush=True)
    finally:
        await asyncio.to_thread(postgres.stop_server, server)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=200, help="saves a second (200)")
    parser.add_argument("--reads", type=float, default=50, help="reads a second (50)")
    parser.add_argument("--seconds", type=float, default=8, help="each run's length (8)")
    parser.add_argument("--games", type=int, default=300, help="games saving in turn (300)")
    parser.add_argument("--state-bytes", type=int, default=6000,
                        help="a snapshot's size (6000, about a 4-player game's)")
    parser.add_argument("--rounds", type=int, default=3, help="pool 0 then 2, this often (3)")
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
