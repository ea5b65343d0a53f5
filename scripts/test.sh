#!/usr/bin/env bash
# Install what the tests need into .venv (once) and run lint, type checks and the tests.
# Usage: scripts/test.sh [pytest args...]   e.g. -k lobby -x, -m "not slow" (no end-to-end
# tests), -n 0 (one process: --pdb, -s). In parallel by default (pyproject.toml addopts).
# The runtime dependencies are the ones requirements.lock names; DEPS=oldest takes the oldest
# releases requirements.txt admits instead (requirements-oldest.txt, in .venv-oldest).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${DEPS:-locked}" in
  locked) CONSTRAINTS=requirements.lock; VENV="${VENV:-.venv}" ;;
  oldest) CONSTRAINTS=requirements-oldest.txt; VENV="${VENV:-.venv-oldest}" ;;
  *) echo "DEPS must be locked or oldest" >&2; exit 2 ;;
esac
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements-dev.txt \
  -c "$CONSTRAINTS"
"$VENV/bin/python" -c 'import aiohttp, discord; print("discord.py", discord.__version__, "· aiohttp", aiohttp.__version__)'
"$VENV/bin/ruff" check .
"$VENV/bin/mypy" engine data cogs loopback runtime bot.py settings.py
"$VENV/bin/python" -m pytest "$@"
