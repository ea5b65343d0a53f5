"""Replay a scenario file and print what happens, one JSON object per line.

    python -m engine.tools.replay FILE.json
    python -m engine.tools.replay - < FILE.json

The format is documented in docs/tools.md ("Replay files") and read by engine/replay.py. A
malformed file exits with status 2 and one line saying what is wrong and where.
"""

from __future__ import annotations

import json
import sys

from engine.replay import ReplayFormatError, replay


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m engine.tools.replay FILE.json   (or - for standard input)",
              file=sys.stderr)
        return 2
    path = args[0]
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except OSError as exc:
        print(f"{path}: cannot read the file ({exc.strerror}).", file=sys.stderr)
        return 2
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.",
              file=sys.stderr)
        return 2
    try:
        lines = list(replay(data))
    except ReplayFormatError as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return 2
    out = sys.stdout
    for line in lines:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
