"""What the bot's metrics cost, in one process, by piece (bench/README.md, "Metrics").

- **counted move**: the calls one move makes on the bot's counts (its interaction's kind
  and outcome, its acknowledgement's age, the move saved and its save): with the real
  ``Metrics`` and with ``NO_COUNTS`` (METRICS_PORT unset), the difference is what counting
  costs a move;
- **scrape**: one ``GET /metrics`` served by the real ``Monitor`` (aiohttp) on 127.0.0.1,
  the registry filled as after a busy hour (every outcome, 30 routes of 429s, 8 shards),
  read by an aiohttp client in the same process: the CPU of both sides, so an upper bound
  of the server's share.

The rows take turns (one batch of each, then the next), CPU time (``process_time``), the
median of the batches.

    python bench/bench_metrics.py                 # ~10 s
    python bench/bench_metrics.py --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp

from runtime.metrics import NO_COUNTS, OUTCOMES, Counts, Metrics
from runtime.monitor import Monitor


def count_moves(counts: Counts, n: int) -> float:
    """CPU seconds of ``n`` moves' counting calls."""
    start = time.process_time()
    for _ in range(n):
        counts.interaction("component", "answered")
        counts.acked(0.012)
        counts.moved(1)
        counts.saved(True)
    return time.process_time() - start


def busy(metrics: Metrics) -> None:
    """Every label set a busy hour gives the registry."""
    for kind in ("component", "application_command", "autocomplete"):
        for outcome in OUTCOMES:
            metrics.interaction(kind, outcome)
    for i in range(30):
        metrics.rate_limited(f"/channels/{{id}}/messages/route{i}")
    for level in ("easy", "normal", "hard"):
        metrics.thought(level, 0.01)
    for i in range(1000):
        metrics.acked(i / 1000)
        metrics.lag(i / 10000)
    metrics.count_games(lambda: {"game": 1000, "lobby": 20})
    metrics.gateway(lambda: [(s, 0.05) for s in range(8)])


class _Bot:
    """What ``Monitor`` needs of a bot, for the scrape alone."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics: Counts = metrics
        self.latencies = [(s, 0.05) for s in range(8)]

    @property
    def db(self) -> Any:
        raise AssertionError("/metrics reads no database")

    def add_listener(self, func: Any, name: str = "") -> None:
        pass

    def remove_listener(self, func: Any, name: str = "") -> None:
        pass


async def scrapes(http: aiohttp.ClientSession, url: str, n: int) -> tuple[float, int]:
    start = time.process_time()
    size = 0
    for _ in range(n):
        async with http.get(url) as r:
            size = len(await r.read())
    return time.process_time() - start, size


async def main(args: argparse.Namespace) -> dict[str, Any]:
    metrics = Metrics()
    busy(metrics)
    monitor = Monitor(_Bot(metrics), lambda: ())
    await monitor.start("127.0.0.1", 0)
    url = f"http://127.0.0.1:{monitor.port}/metrics"
    rows: dict[str, list[float]] = {"counted move, Metrics": [], "counted move, NO_COUNTS": [],
                                    "scrape": []}
    size = 0
    async with aiohttp.ClientSession() as http:
        await scrapes(http, url, 20)  # warm
        for _ in range(args.batches):
            rows["counted move, Metrics"].append(count_moves(metrics, args.moves) / args.moves)
            rows["counted move, NO_COUNTS"].append(
                count_moves(NO_COUNTS, args.moves) / args.moves)
            took, size = await scrapes(http, url, args.scrapes)
            rows["scrape"].append(took / args.scrapes)
    await monitor.close()
    per = {k: statistics.median(v) for k, v in rows.items()}
    counting = per["counted move, Metrics"] - per["counted move, NO_COUNTS"]
    result = {
        "counted move µs (Metrics)": round(per["counted move, Metrics"] * 1e6, 2),
        "counted move µs (NO_COUNTS)": round(per["counted move, NO_COUNTS"] * 1e6, 2),
        "counting µs a move": round(counting * 1e6, 2),
        "scrape CPU ms (server and client)": round(per["scrape"] * 1000, 3),
        "scrape KB": round(size / 1024, 1),
        "at 20 moves/s, scraped every second: ms a move": round(
            (counting + per["scrape"] / 20) * 1000, 4),
        "command": "python bench/bench_metrics.py" + " ".join(sys.argv[1:]),
    }
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=7)
    parser.add_argument("--moves", type=int, default=20000)
    parser.add_argument("--scrapes", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    out = asyncio.run(main(options))
    if options.json:
        print(json.dumps(out, ensure_ascii=False, indent=1))
    else:
        for key, value in out.items():
            print(f"{key:<50} {value}")
