"""The capacity benchmark of the fleet (issue 18): N bot processes on one PostgreSQL against
one process on SQLite, in one run, under the same load.

Each configuration is one run of bench_tables.py's bench (a new loopback Discord, the same
tables, people and paced load of turns: see bench/README.md) with its own bot processes:

* ``sqlite:1``: one bot process on a SQLite file, as bench_tables.py runs it;
* ``pg:N``: N bot processes, shards 0..N-1 of N (``SHARD_COUNT=N``, ``SHARD_IDS=i``), on
  one PostgreSQL database (``DATABASE_URL``), the loopback's guilds spread over the
  shards (guild g on shard g mod N, as Discord routes them);
* ``pg:N/R``: the same with ``DATABASE_READ_POOL=R`` (``pg:1/0``: reads in line with the
  writes, as before the read pool). A configuration named twice is run twice (before and
  after, alternately), its second run named ``pg:1/0 #2``.

The PostgreSQL server is the tests' throwaway one (tests/support/postgres.py: Debian's
``initdb`` and ``pg_ctl``, run as ``nobody`` when root, durability off), started once by
the bench; each configuration gets a fresh migrated database on it.

Each configuration reports what bench_tables.py reports (moves/s, ack p50/p99, errors and
busy answers, REST requests/s and those against the global 50/s) and the CPU per move of
each bot process and of the PostgreSQL server (its processes summed from /proc); the end
compares every configuration with the first (ratios).

Usage (from the repository root)::

    python bench/bench_fleet.py --tables 300 --rate 40 --seconds 40              # all three
    python bench/bench_fleet.py --configs sqlite:1,pg:2 --tables 300 --rate 40 --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_tables import ROOT, Bench, command_of, make_parser, proc_cpu, settle, show

sys.path.insert(0, str(ROOT / "tests"))
from loopback.models import Guild
from support import postgres

COMPARED = ("moves/s", "ack p50 ms", "ack p99 ms", "bot CPU ms/move",
            "CPU ms/move, all of them", "CPU ms/move above idle, all of them",
            "REST requests/s", "global-limit requests/s")


def postgres_pids(server: postgres.PgServer) -> list[int]:
    """The PostgreSQL server's processes: the postmaster and its children (the backends of
    the bots' connections, the checkpointer, the WAL writer...)."""
    first = (server.folder / "data" / "postmaster.pid").read_text().split("\n", 1)[0]
    postmaster = int(first)
    pids = [postmaster]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        if ppid == postmaster:
            pids.append(int(stat.parent.name))
    return pids


class FleetBench(Bench):
    """bench_tables.py's bench with N bot processes (shards) on one PostgreSQL database."""

    def __init__(self, args: argparse.Namespace, processes: int, pg: postgres.PgServer,
                 read_pool: int | None = None) -> None:
        super().__init__(args)
        self.processes = processes
        self.read_pool = read_pool
        self.pg = pg
        self.url = postgres.new_database(pg)
        self.pg_cpu_gone = 0.0

    def make_guilds(self) -> list[Guild]:
        assert self.server is not None
        n = self.processes
        return [self.server.add_guild(f"Bench {g}", shard=(g % n, n))
                for g in range(self.args.guilds)]

    def gc_file_of(self, shard: int) -> Path:
        return self.gc_file if shard == 0 else self.gc_file.with_name(f"gc-{shard}.json")

    async def start_bots(self, env: dict[str, str]) -> None:
        assert self.server is not None
        n = self.processes
        self.server.recommended_shards = n
        self.bots = list(await asyncio.gather(*(self.server.start_bot(
            [self.args.bot_python, "bot.py"], cwd=ROOT, ready_timeout=120.0,
            env={**env, "DATABASE_URL": postgres.real_url(self.url),
                 "SHARD_COUNT": str(n), "SHARD_IDS": str(i),
                 **({} if self.read_pool is None
                    else {"DATABASE_READ_POOL": str(self.read_pool)}),
                 "UNO_GC_STATS": str(self.gc_file_of(i))})
            for i in range(n))))
        self.bot = self.bots[0]

    def cpu_now(self) -> dict[str, float]:
        cpu = {f"bot shard {i}": proc_cpu(b.pid) for i, b in enumerate(self.bots)
               if b.pid is not None}
        total = 0.0
        for pid in postgres_pids(self.pg):
            try:
                total += proc_cpu(pid)
            except (OSError, IndexError):
                continue  # a backend that ended between the listing and now
        cpu["postgres"] = total
        return cpu

    def gc_stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for i in range(self.processes):
            try:
                out[f"shard {i}"] = json.loads(self.gc_file_of(i).read_text())
            except (OSError, ValueError):
                out[f"shard {i}"] = "the bot wrote no GC figures"
        return out

    async def run(self) -> dict[str, Any]:
        try:
            result = await super().run()
        finally:
            postgres.drop_database(self.pg, self.url)
        result["database"] = f"PostgreSQL {self.pg.binaries.parent.name}"
        result["bot processes"] = self.processes
        return result


def configurations(text: str) -> list[tuple[str, int, int | None]]:
    out: list[tuple[str, int, int | None]] = []
    for item in text.split(","):
        kind, _sep, rest = item.strip().partition(":")
        count, slash, pool = rest.partition("/")
        if kind not in ("sqlite", "pg") or not count.isdigit() or int(count) < 1 \
                or (kind == "sqlite" and (int(count) != 1 or slash)) \
                or (slash and not pool.isdigit()):
            raise argparse.ArgumentTypeError(
                f"{item!r}: write sqlite:1, pg:N (N bot processes on PostgreSQL) or pg:N/R "
                "(R: DATABASE_READ_POOL)")
        out.append((kind, int(count), int(pool) if slash else None))
    return out


def compare(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each configuration's figures that matter side by side, and their ratio to the
    first configuration's."""
    names = list(results)
    base = results[names[0]]
    table: dict[str, Any] = {}
    for name in names:
        r = results[name]
        row: dict[str, Any] = {key: r.get(key, r.get("bot CPU ms/move")) for key in COMPARED}
        row["errors as people see them"] = r["errors as people see them"]
        row["loopback problems"] = r["errors"]["loopback problems"]
        row["CPU ms/move by process"] = r.get("CPU ms/move by process",
                                              {"bot": r["bot CPU ms/move"]})
        row["CPU % by process"] = r.get("CPU % by process", {"bot": r["bot CPU %"]})
        row["CPU % idle by process"] = r["CPU % idle by process"]
        row["generator CPU %"] = r["generator CPU %"]
        row[f"ratio to {names[0]}"] = {
            key: round(row[key] / base_value, 2) if (base_value := base.get(
                key, base.get("bot CPU ms/move"))) else None
            for key in COMPARED}
        table[name] = row
    return table


async def run_all(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, dict[str, Any]] = {}
    pg: postgres.PgServer | None = None
    try:
        for kind, count, pool in args.configs:
            name = f"{kind}:{count}" + ("" if pool is None else f"/{pool}")
            again = 2
            while name in results:
                name = f"{name.split(' #')[0]} #{again}"
                again += 1
            if kind == "pg" and pg is None:
                pg = await asyncio.to_thread(postgres.start_server)
            bench = FleetBench(args, count, pg, pool) if pg is not None and kind == "pg" \
                else Bench(args)
            bench.note(f"--- {name}")
            results[name] = await bench.run()
            results[name]["configuration"] = name
    finally:
        if pg is not None:
            await asyncio.to_thread(postgres.stop_server, pg)
    return {"compared": compare(results), "machine": {"cpus": os.cpu_count(),
                                                      "load average": os.getloadavg()},
            "runs": results}


def main() -> None:
    parser = make_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--configs", type=configurations,
                        default=configurations("sqlite:1,pg:1,pg:2"),
                        help="the configurations, in this order, the first the one the "
                        "others are compared with: sqlite:1 (one process on SQLite) or pg:N "
                        "(N processes, shards 0..N-1, on one PostgreSQL); default "
                        "sqlite:1,pg:1,pg:2")
    args = settle(parser.parse_args())
    # every process gets guilds to serve, and every configuration the same guilds
    args.guilds = max(args.guilds, *(count for _kind, count, _pool in args.configs))
    unsupported = [o for o in ("restart", "profile", "census", "bot_dir", "tracemalloc")
                   if getattr(args, o)]
    if unsupported:
        parser.error(f"bench_fleet.py does not take --{unsupported[0].replace('_', '-')}: "
                     "use bench_tables.py for it")
    result = asyncio.run(run_all(args))
    result["command"] = command_of("bench/bench_fleet.py", args)
    show(result, as_json=args.json)


if __name__ == "__main__":
    main()
