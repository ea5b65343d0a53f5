"""Summarise py-spy's collapsed stacks (``--format raw``): where the bot's time went.

    python bench/profile_summary.py FILE [--top 25]

Prints the share of samples by top-level area (our engine, data, cogs; discord.py; aiohttp;
asyncio; sqlite; GC) and the functions with the most "self" and "inclusive" samples.
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


def area(frame: str) -> str | None:
    for needle, name in AREAS:
        if needle in frame:
            return name
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
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
