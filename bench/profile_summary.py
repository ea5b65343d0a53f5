"""Summarise py-spy's collapsed stacks (``--format raw``): where the bot's time went.

    python bench/profile_summary.py FILE [--top 25]

Prints the share of samples by top-level area (our engine, data, cogs; discord.py; aiohttp;
asyncio; sqlite; GC) and the functions with the most "self" and "inclusive" samples.

    python bench/profile_summary.py FILE --activities [--cpu-ms-per-move X]
    python bench/profile_summary.py FILE --share panel_key Panels.changed [--cpu-ms-per-move X]

groups the samples by what the bot was doing instead (pictures by what called them, the
rest by the innermost frame that names an activity) and, given the bench's "bot CPU
ms/move", shares it out in ms per move. Take the profile with ``--profile-gil`` (samples
holding the GIL: threads waiting for it are not counted; C code that releases it, such as
zlib in a PNG, is not seen). ``--share`` gives, for each text, the busy samples whose stack
names it anywhere (inclusive: ``Panels.changed`` counts the panel keys and menus it builds).
"""

from __future__ import annotations

import argparse
from collections import Counter

AREAS = (
    ("engine/", "engine"), ("data/", "data (ours)"), ("cogs/", "cogs (ours)"),
    ("discord/", "discord.py"), ("aiohttp/", "aiohttp"), ("aiosqlite", "aiosqlite"),
    ("sqlite3", "sqlite3"), ("asyncio/", "asyncio"), ("json/", "json"), ("yarl", "yarl"),
    ("multidict", "multidict"), ("zlib", "zlib"), ("ssl", "ssl"),
)


IDLE = ("EpollSelector.select", "_worker (concurrent/futures/thread.py:81)",
        "Condition.wait", "SimpleQueue.get", "queue.py")
ACTIVITIES = (  # by the innermost frame that matches, in this order
    ("JSON", ("json/", "orjson")),
    ("SQLite (the aiosqlite thread, data/)", ("aiosqlite", "sqlite3", "(data/")),
    ("GC (the collector's watch)", ("GcWatch",)),
    ("engine", ("(engine/",)),
    ("building tables, menus, views (our layout/render/menus/components, discord.ui, embeds)",
     ("_layout.py", "_render.py", "_menus.py", "discord/ui/", "discord/embeds.py",
      "discord/components.py", "_components.py")),
    ("HTTP requests (discord.py, aiohttp client)",
     ("discord/http.py", "discord/webhook/", "aiohttp/", "yarl", "multidict",
      "discord/interactions.py", "discord/file.py")),
    ("gateway and state (discord.py)", ("discord/",)),
    ("our code (the rest)", ("(cogs/", "(bot.py", "(runtime/")),
    ("asyncio loop, threads", ("asyncio/", "selectors", "threading", "concurrent/", "uvloop")),
)


def activity(stack: str) -> str:
    if "GcWatch._dump" in stack:
        return "GC figures for the bench (UNO_GC_STATS only)"
    if "table_image" in stack:
        return "table picture: palette and PNG" if "png_bytes" in stack else \
            "table picture: drawing"
    if "hand_image" in stack:
        return "hand picture: palette and PNG" if "png_bytes" in stack else \
            "hand picture: drawing"
    for frame in reversed(stack.split(";")):
        for name, needles in ACTIVITIES:
            if any(n in frame for n in needles):
                return name
    return "other"


def activities(path: str, cpu_ms_per_move: float | None) -> None:
    counts: Counter[str] = Counter()
    with open(path) as fh:
        for line in fh:
            stack, _, count = line.rstrip().rpartition(" ")
            if not count.isdigit():
                continue
            if any(x in stack.rpartition(";")[2] for x in IDLE):
                continue  # waiting, not working
            counts[activity(stack)] += int(count)
    busy = sum(counts.values())
    print(f"{busy} busy samples")
    for name, n in counts.most_common():
        per_move = (f"  {n / busy * cpu_ms_per_move:6.2f} ms/move"
                    if cpu_ms_per_move is not None else "")
        print(f"  {n / busy:6.1%}{per_move}  {name}")


def shares(path: str, needles: list[str], cpu_ms_per_move: float | None) -> None:
    counts: Counter[str] = Counter()
    busy = 0
    with open(path) as fh:
        for line in fh:
            stack, _, count = line.rstrip().rpartition(" ")
            if not count.isdigit():
                continue
            if any(x in stack.rpartition(";")[2] for x in IDLE):
                continue
            busy += int(count)
            for needle in needles:
                if needle in stack:
                    counts[needle] += int(count)
    print(f"{busy} busy samples")
    for needle in needles:
        n = counts[needle]
        per_move = (f"  {n / max(busy, 1) * cpu_ms_per_move:6.2f} ms/move"
                    if cpu_ms_per_move is not None else "")
        print(f"  {n / max(busy, 1):6.1%}{per_move}  {needle}")


def area(frame: str) -> str | None:
    for needle, name in AREAS:
        if needle in frame:
            return name
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--activities", action="store_true",
                        help="group the samples by what the bot was doing")
    parser.add_argument("--cpu-ms-per-move", type=float,
                        help="with --activities: the bench's bot CPU ms/move, shared out")
    parser.add_argument("--share", nargs="+", metavar="TEXT",
                        help="the share of the busy samples whose stack names each TEXT")
    args = parser.parse_args()
    if args.share:
        shares(args.file, args.share, args.cpu_ms_per_move)
        return
    if args.activities:
        activities(args.file, args.cpu_ms_per_move)
        return
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    areas: Counter[str] = Counter()
    total = 0
    with open(args.file) as fh:
        for line in fh:
            stack, _, count = line.rstrip().rpartition(" ")
            if not count.isdigit():
                continue
            n = int(count)
            total += n
            frames = stack.split(";")
            own[frames[-1]] += n
            for frame in set(frames):
                inclusive[frame] += n
            # the innermost frame that belongs to a known area names the sample's area
            for frame in reversed(frames):
                name = area(frame)
                if name:
                    areas[name] += n
                    break
            else:
                areas["other"] += n
    print(f"{total} samples")
    print("by area (innermost known frame):")
    for name, n in areas.most_common():
        print(f"  {name:14} {n / total:6.1%}")
    print("self:")
    for frame, n in own.most_common(args.top):
        print(f"  {n / total:6.1%}  {frame[:150]}")
    print("inclusive:")
    for frame, n in inclusive.most_common(args.top):
        print(f"  {n / total:6.1%}  {frame[:150]}")


if __name__ == "__main__":
    main()
