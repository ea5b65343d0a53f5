"""Garbage collection: the settings the bot runs with, and its pauses measured.

:func:`settle` runs once, when start-up is done: one full collection, then everything still
alive (the imported modules, the games restored from the database) moves into the permanent
generation, which later collections no longer walk, and the young generations' thresholds
are set so that a click's short-lived reference cycles die young (``YOUNG_THRESHOLD``).
Nothing is ever frozen again: a reference cycle made while the bot plays (a view and its
items, an interaction and its response, an exception kept with its traceback) is freed by
the next collection of its generation (tests/runtime/test_collector.py). What the one
freeze can keep is what start-up loaded and later dies in a cycle: a restored game that
ends. That is bounded by the games restored once, and the census measures it
(``frozen garbage``); ``UNO_GC_FREEZE=0`` turns the freeze off. It helps a little: the
same bench as below, the collector's time 1.00 ms a move with it, 1.05 ms without (its full
collections skip the 61,000 objects start-up left).

:class:`GcWatch` times every collection through ``gc.callbacks``, logs a pause over
``SLOW_PAUSE`` seconds (at most once a minute) and, when given a path (``UNO_GC_STATS``),
writes its figures there as JSON every second for the benchmark. :func:`census` counts the
tracked objects by type (per generation, and the frozen ones) and, when
``gc.DEBUG_SAVEALL`` is on (``UNO_GC_SAVEALL=1``, a throwaway measuring run: nothing is
ever freed), what the collector found to be cyclic garbage since the last census. With
``UNO_GC_CENSUS`` naming a file, the bot writes one there on ``SIGUSR1`` (``SIGUSR2``: with
the frozen garbage).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import signal
import time
import tracemalloc
import types
from collections import Counter, deque
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SLOW_PAUSE = 0.05
YOUNG_THRESHOLD = 10_000
MIDDLE_THRESHOLD = 20
"""CPython collects the youngest generation every 700 allocations and the middle one every
10 of those. Every click makes short-lived reference cycles (discord.py's interaction, its
message and views, our answer) that live across a network round trip: at those defaults
they outlive two young collections, reach the old generation and are freed only by full
collections, which with a thousand tables take 100-200 ms each. Collecting the young
generations less often lets them die young. Measured 2026-12-02 (``bench/bench_tables.py
--tables 1000 --rate 50 --seconds 60 --clicks panel``, V2 table, one run each, the
collector's time per move and the longest pause): CPython's 700/10: 1.74 ms, 23 full
collections, 178 ms; 2,000/20: 1.00 ms, 4, 210 ms; 5,000/20: 0.73 ms, 2, 202 ms;
10,000/20: 0.63-0.67 ms, 1 of 27 ms (its young and middle collections: 27 and 84 ms at
most), and the longest acknowledgement 98-118 ms against 230-249 ms with 2,000.
``UNO_GC_YOUNG``/``UNO_GC_MIDDLE`` override them."""


def settle() -> None:
    """Once, after start-up: collect, move every survivor out of the collector's sight
    (unless ``UNO_GC_FREEZE=0``), and set the young generations' thresholds."""
    gc.collect()
    if os.environ.get("UNO_GC_FREEZE", "").strip() != "0":
        gc.freeze()
    _young, _middle, old = gc.get_threshold()
    young = _int_env("UNO_GC_YOUNG", YOUNG_THRESHOLD)
    middle = _int_env("UNO_GC_MIDDLE", MIDDLE_THRESHOLD)
    gc.set_threshold(young, middle, old)
    log.info("GC: %d objects frozen after start-up", gc.get_freeze_count())


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    if raw:
        log.warning("%s=%r is not a positive whole number: using %d", name, raw, default)
    return default


def census(top: int = 40, *, frozen_garbage: bool = False) -> dict[str, Any]:
    """The tracked objects by type, most numerous first (and the cyclic garbage, if saved).

    A full collection runs first (timed: the pause the live population alone costs), so
    what is counted is alive. With ``frozen_garbage``, the frozen objects are then thawed
    and collected: what that finds is cyclic garbage that was frozen while alive (what
    freezing leaked); everything left is frozen again."""
    before = [len(gc.get_objects(gen)) for gen in range(3)]
    old = Counter(_name(o) for o in gc.get_objects(2))
    started = time.perf_counter()
    gc.collect()  # what is left is alive
    collect_ms = (time.perf_counter() - started) * 1000
    gens = []
    for gen in range(3):
        counted = Counter(_name(o) for o in gc.get_objects(gen))
        gens.append({"objects": sum(counted.values()), "top": counted.most_common(top)})
    old -= counted  # what the oldest generation held that was garbage (as counts by type)
    result: dict[str, Any] = {
        "time": time.time(),
        "tracked before": before,
        "full collection ms": round(collect_ms, 2),
        "frozen": gc.get_freeze_count(),
        "generations": gens,
        "garbage in the oldest generation": {"objects": old.total(),
                                              "top": old.most_common(top)},
    }
    if gc.get_debug() & gc.DEBUG_SAVEALL:
        garbage = Counter(_name(o) for o in gc.garbage)
        result["garbage"] = {"objects": len(gc.garbage), "top": garbage.most_common(top)}
        gc.garbage.clear()
    if frozen_garbage and gc.get_freeze_count():
        gc.unfreeze()
        debug = gc.get_debug()
        gc.set_debug(debug | gc.DEBUG_SAVEALL)
        try:
            started = time.perf_counter()
            found = gc.collect()
            result["thawed full collection ms"] = round(
                (time.perf_counter() - started) * 1000, 2)
            kinds = Counter(_name(o) for o in gc.garbage)
        finally:
            gc.set_debug(debug)
            gc.garbage.clear()
        result["frozen garbage"] = {"objects": found, "top": kinds.most_common(top)}
        gc.freeze()
    return result


def _percentile(counts: Counter[int], q: float) -> float | None:
    """The q-quantile of pauses counted by tenths of a millisecond, in milliseconds."""
    total = sum(counts.values())
    if not total:
        return None
    seen = 0
    for tenths in sorted(counts):
        seen += counts[tenths]
        if seen >= q * total:
            return tenths / 10
    return max(counts) / 10


def _name(obj: object) -> str:
    """A type's name, with the code's name for a function, coroutine or task."""
    kind = type(obj)
    if kind is asyncio.Task:
        obj = obj.get_coro()  # type: ignore[attr-defined]
    code: types.CodeType | None = None
    if isinstance(obj, types.FunctionType):
        code = obj.__code__
    elif isinstance(obj, types.CoroutineType):
        code = obj.cr_code
    elif isinstance(obj, types.GeneratorType):
        code = obj.gi_code
    name = kind.__qualname__ if kind.__module__ == "builtins" \
        else f"{kind.__module__}.{kind.__qualname__}"
    if code is not None:
        return f"{name} {code.co_qualname}"
    return name


class GcWatch:
    def __init__(self, stats_path: str | None = None, census_path: str | None = None
                 ) -> None:
        self.stats_path = Path(stats_path) if stats_path else None
        self.census_path = Path(census_path) if census_path else None
        self.frozen = gc.get_freeze_count()
        """Objects in the permanent generation, counted when a census may change it:
        counting walks every frozen object, too dear for the figures written each second."""
        self.started: float | None = None
        self.started_cpu = 0.0
        self.quiet = False
        """A census is collecting: not counted."""
        self.fulls: deque[tuple[float, float, float, int]] = deque(maxlen=40)
        """The latest full collections: when (time.time()), ms, CPU ms, objects collected."""
        self.pauses: dict[int, Counter[int]] = {0: Counter(), 1: Counter(), 2: Counter()}
        """Pauses by generation, counted by whole tenths of a millisecond."""
        self.max_pause: dict[int, float] = {0: 0.0, 1: 0.0, 2: 0.0}
        self.max_cpu: dict[int, float] = {0: 0.0, 1: 0.0, 2: 0.0}
        """The most CPU time (of the thread that ran it) one collection took: a pause much
        longer than its CPU time is the process waiting for a core, not the collector."""
        self.total: dict[int, float] = {0: 0.0, 1: 0.0, 2: 0.0}
        self.count: dict[int, int] = {0: 0, 1: 0, 2: 0}
        self.collected: dict[int, int] = {0: 0, 1: 0, 2: 0}
        """Objects each generation's collections found to be garbage (cycles freed)."""
        self.over: int = 0
        self._last_warning = 0.0
        self._task: asyncio.Task[None] | None = None

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
            self.started_cpu = time.thread_time()
            return
        if self.started is None:
            return
        pause = time.perf_counter() - self.started
        cpu = time.thread_time() - self.started_cpu
        self.started = None
        if self.quiet:
            return
        gen = int(info.get("generation", 2))
        if gen == 2:
            self.fulls.append((round(time.time(), 2), round(pause * 1000, 2),
                               round(cpu * 1000, 2), int(info.get("collected", 0))))
        self.count[gen] += 1
        self.collected[gen] += int(info.get("collected", 0))
        self.pauses[gen][int(pause * 10000)] += 1
        self.total[gen] += pause
        self.max_pause[gen] = max(self.max_pause[gen], pause)
        self.max_cpu[gen] = max(self.max_cpu[gen], cpu)
        if pause > SLOW_PAUSE:
            self.over += 1
            now = time.monotonic()
            if now - self._last_warning > 60:
                self._last_warning = now
                log.warning("GC: a generation-%d collection paused the bot %.0f ms, %.0f ms "
                            "of its CPU (%d objects tracked, %d frozen)", gen, pause * 1000,
                            cpu * 1000, len(gc.get_objects()), gc.get_freeze_count())

    def figures(self) -> dict[str, Any]:
        top: list[str] = []
        if tracemalloc.is_tracing():  # PYTHONTRACEMALLOC=1: where the memory went
            stats = tracemalloc.take_snapshot().statistics("lineno")[:12]
            top = [f"{s.size / 1024:.0f} KB {s.count} blocks {s.traceback}" for s in stats]
        return {
            "tracemalloc top": top,
            "collections": {str(g): self.count[g] for g in self.count},
            "collected": {str(g): self.collected[g] for g in self.count},
            "max pause ms": {str(g): round(self.max_pause[g] * 1000, 2) for g in self.count},
            "max pause CPU ms": {str(g): round(self.max_cpu[g] * 1000, 2) for g in self.count},
            "p99 pause ms": {str(g): _percentile(self.pauses[g], 0.99) for g in self.count},
            "total ms": {str(g): round(self.total[g] * 1000, 1) for g in self.count},
            "full collections (time, ms, CPU ms, collected)": list(self.fulls),
            f"pauses over {SLOW_PAUSE * 1000:.0f} ms": self.over,
            "frozen objects": self.frozen,
        }

    def start(self) -> None:
        gc.callbacks.append(self._callback)
        if self.census_path is not None:
            if os.environ.get("UNO_GC_SAVEALL", "").strip() == "1":
                gc.set_debug(gc.DEBUG_SAVEALL)
                log.warning("GC: DEBUG_SAVEALL is on: cyclic garbage is kept, for measuring")
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGUSR1, self.write_census)
            loop.add_signal_handler(signal.SIGUSR2, self.write_census, True)
        if self.stats_path is not None:
            self._task = asyncio.get_running_loop().create_task(self._write(), name="gc-stats")

    @classmethod
    def from_env(cls) -> GcWatch:
        """The watch the bot runs: ``UNO_GC_STATS`` and ``UNO_GC_CENSUS`` name its files."""
        return cls(os.environ.get("UNO_GC_STATS", "").strip() or None,
                   os.environ.get("UNO_GC_CENSUS", "").strip() or None)

    def write_census(self, frozen_garbage: bool = False) -> None:
        """Append a census to the census file, as one JSON line (SIGUSR1; SIGUSR2: with
        the frozen garbage, which leaves every survivor frozen)."""
        if self.census_path is None:
            return
        self.quiet = True
        try:
            found = census(frozen_garbage=frozen_garbage)
        finally:
            self.quiet = False
            self.frozen = gc.get_freeze_count()  # a census may unfreeze and freeze again
        try:
            with self.census_path.open("a", encoding="utf-8") as out:
                out.write(json.dumps(found) + "\n")
        except OSError:
            log.warning("GC: could not write a census to %s", self.census_path)

    def stop(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._callback)
        if self.census_path is not None:
            with contextlib.suppress(RuntimeError, ValueError):
                asyncio.get_running_loop().remove_signal_handler(signal.SIGUSR1)
                asyncio.get_running_loop().remove_signal_handler(signal.SIGUSR2)
        if self._task is not None:
            self._task.cancel()
        self._dump()

    async def _write(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            self._dump()

    def _dump(self) -> None:
        if self.stats_path is None:
            return
        tmp = self.stats_path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(self.figures()))
            os.replace(tmp, self.stats_path)
        except OSError:
            log.warning("GC: could not write figures to %s", self.stats_path)
