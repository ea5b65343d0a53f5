"""Where the hard computer players think: a small pool of worker processes, off the event
loop.

A search is CPU-bound Python: in a thread it would hold the GIL and delay every click of
the process, so it runs in another process (``concurrent.futures.ProcessPoolExecutor``,
a fixed number of workers, started on the first search). It is given the seat's view
(``engine.players.SeatView``, pickled) and gives back a move; it spends at most
``engine.players.search.BUDGET`` seconds of its process's CPU.

At most ``queue`` searches are under way at once (running or waiting for a worker); past
that a hard player plays that move as the normal player does, and the log says so at most
once a minute. A search that fails (the pool broke, a worker died) or takes far longer
than its budget does the same. On shutdown the pool is closed without waiting: searches
still queued are cancelled, and their players are not asked again (the bot is stopping).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import time
from concurrent.futures.process import BrokenProcessPool

from engine import Move
from engine.players.search import BUDGET, think
from engine.players.seatview import SeatView

log = logging.getLogger(__name__)

FULL_LOG_EVERY = 60.0
"""Seconds between two log lines saying the searches are full."""
WAIT_LIMIT = 10.0
"""A search not answered after this many seconds is given up (the player plays normal)."""
FIRST_WAIT_LIMIT = 60.0
"""The same for the first search, which waits for the worker processes to start (a fresh
interpreter each, importing the bot's modules)."""


class Thinkers:
    """The pool of processes where hard computer players search (see the module)."""

    def __init__(self, workers: int = 1, queue: int | None = None) -> None:
        self.workers = max(0, workers)
        self.queue = queue if queue is not None else 2 * self.workers
        """Searches under way at once, at most (running or waiting for a worker)."""
        self.busy = 0
        self.searched = 0
        """Moves the searches gave."""
        self.fallbacks = 0
        """Moves a hard player made as the normal player because the searches were full."""
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._closed = False
        self._last_full = -FULL_LOG_EVERY

    def _executor(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            # spawn: a fresh interpreter, not a copy of this one's event loop and threads
            self._pool = concurrent.futures.ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    async def think(self, view: SeatView, seed: int) -> Move | None:
        """The search's move for ``view``, or None when the player should play normal
        instead (the searches are full, the pool is closed or failed)."""
        if self._closed or self.workers == 0:
            return None
        if self.busy >= self.queue:
            self.fallbacks += 1
            now = time.monotonic()
            if now - self._last_full >= FULL_LOG_EVERY:
                self._last_full = now
                log.warning("%d searches are under way (the most at once): a hard computer "
                            "player plays this move as a normal one (%d such moves so far)",
                            self.busy, self.fallbacks)
            return None
        self.busy += 1
        try:
            loop = asyncio.get_running_loop()
            start = time.monotonic()
            future = loop.run_in_executor(self._executor(), think, view, seed, BUDGET)
            move = await asyncio.wait_for(
                future, WAIT_LIMIT if self.searched else FIRST_WAIT_LIMIT)
            self.searched += 1
            if self.searched == 1:
                log.info("The first search of a hard computer player took %.0f ms (%d worker "
                         "processes started)", (time.monotonic() - start) * 1000, self.workers)
            return move
        except BrokenProcessPool:
            # a worker died: the next search starts a new pool
            log.exception("A search's worker process died: the computer player plays normal")
            self._drop()
            return None
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # our own task is being cancelled (the game ended, the bot stops)
            # the pool cancelled the search (it was closed or replaced)
            log.info("A search was cancelled: the computer player plays normal")
            return None
        except (concurrent.futures.CancelledError, RuntimeError) as exc:
            # the pool was shut down (the bot stops) or could not take the work
            log.info("A search was not made (%s): the computer player plays normal", exc)
            return None
        except TimeoutError:
            log.warning("A search took more than %.0f s: the computer player plays normal",
                        WAIT_LIMIT)
            return None
        except Exception:
            log.exception("A search failed: the computer player plays normal")
            return None
        finally:
            self.busy -= 1

    def _drop(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self) -> None:
        """Stop the workers without waiting (searches still queued are cancelled)."""
        self._closed = True
        self._drop()
