"""Table pictures as the bot draws them: many tables, each through the successive states of
a real game, one picture at a time in a worker thread (as ``asyncio.to_thread`` does).

    python bench/bench_table_pictures.py                     # 300 tables of four, 30 states
    python bench/bench_table_pictures.py --tables 300 --states 30 --rounds 3 --json
    python bench/bench_table_pictures.py --root ../other-worktree   # another tree's art

Run it from the repository root (it puts ``--root``, by default this tree, on ``sys.path``).

Each table is a Power Grab game of four computer players with their own names (heuristic
players, seeded by the table's number), played until ``--states`` distinct table views were
seen (a view that does not change the picture is skipped, as the bot keeps its picture
then). The pictures are drawn state by state across the tables: state 0 of every table,
then state 1 of every table, and so on, so each table's next picture comes after every
other table's, as at a busy bot. The first ``--warm`` states are not timed (fonts, cards,
text masks, palettes).

Reported per picture: process CPU (``time.process_time``: every thread, zlib included),
the worker thread's CPU (``time.thread_time``) and wall time, and the PNG's mean size.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

NAMES = ("Alice", "Ben", "Chloé", "Dan", "Eve", "Farid", "Gül", "Hana", "Ivan", "Jo",
         "Kofi", "Lena", "Mei", "Noor", "Omar", "Pia", "Quinn", "Rosa", "Sam", "Tariq")


class Stop(Exception):
    pass


def game_views(table: int, states: int) -> list[Any]:
    """``states`` successive distinct picture views of one real game."""
    from cogs.uno.art import TableScene, TableWords
    from engine.game import Game
    from engine.players import HeuristicPlayer
    from engine.tools.simulate import run_game

    rng = random.Random(table)
    ids = [f"{table}{k}" for k in range(4)]
    names = {p: f"{rng.choice(NAMES)} {table}-{k}" for k, p in enumerate(ids)}
    game = Game.new(ids, edition="power-grab", seed=table, names=names)
    game.start()
    views: list[Any] = []
    words = TableWords()

    def seen(g: Game) -> None:
        view = TableScene.from_public_view(g.public_view(), words=words)
        if not views or views[-1] != view:
            views.append(view)
        if len(views) >= states:
            raise Stop

    seen(game)
    strategies = {p: HeuristicPlayer(table * 10 + k) for k, p in enumerate(ids)}
    try:
        while len(views) < states:
            run_game(game, strategies, on_move=seen)
            if game.is_over:
                break
    except Stop:
        pass
    return views


def run(tables: int, states: int, warm: int, rounds: int) -> dict[str, Any]:
    from cogs.uno import art

    all_views = [game_views(t, states) for t in range(tables)]
    n_states = min(len(v) for v in all_views)
    draw = art.table_image

    def state(s: int) -> tuple[float, int]:
        t0 = time.thread_time()
        size = 0
        for t in range(tables):
            size += len(draw(all_views[t][s]))
        return time.thread_time() - t0, size

    out: list[dict[str, float]] = []
    with ThreadPoolExecutor(1) as pool:
        for s in range(warm):
            pool.submit(state, s).result()
        for _r in range(rounds):
            c0, w0 = time.process_time(), time.perf_counter()
            thread = 0.0
            size = 0
            timed = 0
            for s in range(warm, n_states):
                th, sz = pool.submit(state, s).result()
                thread += th
                size += sz
                timed += tables
            out.append({"cpu_ms": (time.process_time() - c0) * 1000 / timed,
                        "thread_ms": thread * 1000 / timed,
                        "wall_ms": (time.perf_counter() - w0) * 1000 / timed,
                        "png_kb": size / timed / 1024, "pictures": timed})
    return {"tables": tables, "states": n_states, "warm": warm, "rounds": out,
            "median_cpu_ms": statistics.median(r["cpu_ms"] for r in out),
            "median_thread_ms": statistics.median(r["thread_ms"] for r in out)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Table pictures of many real games.")
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--states", type=int, default=30)
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(Path(args.root).resolve()))
    result = run(args.tables, args.states, args.warm, args.rounds)
    result["root"] = args.root
    for r in result["rounds"]:
        print(f"{args.root}: {r['pictures']} pictures, cpu {r['cpu_ms']:.3f} ms, thread "
              f"{r['thread_ms']:.3f} ms, wall {r['wall_ms']:.3f} ms, PNG {r['png_kb']:.1f} KB")
    if args.json:
        print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
