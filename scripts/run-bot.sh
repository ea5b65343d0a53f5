#!/usr/bin/env bash
# Install what the bot needs into .venv (once) and run it. Settings come from .env.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements.txt -c requirements.lock
exec "$VENV/bin/python" bot.py "$@"
