"""The GC watch: collections are timed and reported; start-up settles the collector."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

import gcwatch


@pytest.fixture
def restore_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_settle_freezes_start_up_and_sets_the_young_thresholds(
        restore_gc: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNO_GC_YOUNG", raising=False)
    monkeypatch.setenv("UNO_GC_MIDDLE", "not a number")
    old = gc.get_threshold()[2]
    gcwatch.settle()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (gcwatch.YOUNG_THRESHOLD, gcwatch.MIDDLE_THRESHOLD, old)


async def test_collections_are_timed_and_written(tmp_path: Path) -> None:
    path = tmp_path / "gc.json"
    watch = gcwatch.GcWatch(str(path))
    watch.start()
    try:
        gc.collect(0)
        gc.collect()
        await asyncio.sleep(1.2)  # the figures are written every second
    finally:
        watch.stop()
    figures = json.loads(path.read_text())
    assert figures["collections"]["0"] >= 1 and figures["collections"]["2"] >= 1
    assert figures["total ms"]["2"] > 0
    assert watch.figures()["collections"]["2"] == watch.count[2] >= 1
    assert watch._callback not in gc.callbacks, "stop removes the callback"


class _Node:
    def __init__(self) -> None:
        self.other: object = self


def test_census_counts_live_objects_by_type_and_the_saved_garbage(restore_gc: None) -> None:
    kept = [_Node() for _ in range(50)]
    debug = gc.get_debug()
    gc.set_debug(debug | gc.DEBUG_SAVEALL)
    try:
        for _ in range(30):
            _Node()  # a cycle: only the collector frees it (here: saves it)
        found = gcwatch.census(top=1000)
    finally:
        gc.set_debug(debug)
        gc.garbage.clear()
    name = f"{__name__}._Node"
    live = dict(kv for gen in found["generations"] for kv in gen["top"])
    assert live[name] >= 50, "the live ones, by module-qualified type"
    assert dict(found["garbage"]["top"])[name] == 30
    assert found["full collection ms"] >= 0
    assert len(kept) == 50


def test_census_names_coroutines_and_tasks_by_their_code() -> None:
    async def sleeper() -> None:
        await asyncio.sleep(10)

    async def main() -> dict[str, int]:
        task = asyncio.get_running_loop().create_task(sleeper())
        await asyncio.sleep(0)
        try:
            return dict(kv for gen in gcwatch.census(top=100000)["generations"]
                        for kv in gen["top"])
        finally:
            task.cancel()

    counts = asyncio.run(main())
    qual = "test_census_names_coroutines_and_tasks_by_their_code.<locals>.sleeper"
    assert counts[f"_asyncio.Task {qual}"] == 1
    assert counts[f"coroutine {qual}"] == 1


async def test_sigusr1_appends_a_census(tmp_path: Path) -> None:
    path = tmp_path / "census.jsonl"
    watch = gcwatch.GcWatch(None, str(path))
    watch.start()
    try:
        os.kill(os.getpid(), signal.SIGUSR1)
        for _ in range(50):
            await asyncio.sleep(0.02)
            if path.exists():
                break
    finally:
        watch.stop()
    lines = path.read_text().splitlines()
    assert len(lines) == 1 and "generations" in json.loads(lines[0])
