"""The process's log lines: readable text by default, or one JSON object a line
(``LOG_FORMAT=json``) for a fleet's log collector.

A JSON line holds ``time`` (UTC, ISO 8601 with milliseconds), ``level``, ``logger``,
``message`` (its %-arguments applied), ``exception`` (the traceback's text, when the record
has one), and ``shard`` and ``game`` where they are known: set for the time a change of a
game is made (``Tables.change``: the game's id; the click's shard, ``_reply.answer``)
through :func:`about`, a context variable, so every line logged meanwhile, by any module,
says which game it was about. A record's own ``extra={"game": ..., "shard": ...}`` wins.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

GAME: ContextVar[str | None] = ContextVar("uno_log_game", default=None)
"""The game the code running now is about (its public id)."""
SHARD: ContextVar[int | None] = ContextVar("uno_log_shard", default=None)
"""The shard whose event the code running now handles."""

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


@contextlib.contextmanager
def about(*, game: str | None = None, shard: int | None = None) -> Iterator[None]:
    """Log lines written inside the block name ``game`` and ``shard`` (those given)."""
    game_token = GAME.set(game) if game is not None else None
    shard_token = SHARD.set(shard) if shard is not None else None
    try:
        yield
    finally:
        if shard_token is not None:
            SHARD.reset(shard_token)
        if game_token is not None:
            GAME.reset(game_token)


class JsonFormatter(logging.Formatter):
    """One JSON object a line (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        seconds = time.gmtime(record.created)
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", seconds)
                    + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        shard = getattr(record, "shard", None)
        shard = SHARD.get() if shard is None else shard
        if shard is not None:
            line["shard"] = shard
        game = getattr(record, "game", None) or GAME.get()
        if game is not None:
            line["game"] = game
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(level: str, fmt: str = "text") -> None:
    """The root logger at ``level``, to standard error, as text or JSON (``fmt``). In JSON
    Python's warnings go through the log too, so that every line is one object."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level, handlers=[handler])
    if fmt == "json":
        logging.captureWarnings(True)
