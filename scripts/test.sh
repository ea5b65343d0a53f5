#!/usr/bin/env bash
# Install what the tests need into .venv (once) and run lint, type checks and the tests.
# Usage: scripts/test.sh [pytest args...]   e.g. -k lobby -x, -m "not slow" (no end-to-end
# tests), -n 0 (one process: --pdb, -s). In parallel by default (pyproject.toml addopts).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements-dev.txt
"$VENV/bin/ruff" check .
"$VENV/bin/mypy" engine data cogs loopback bot.py settings.py gcwatch.py
"$VENV/bin/python" -m pytest "$@"
