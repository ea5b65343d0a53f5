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


def test_a_long_full_collection_freezes_its_survivors(restore_gc: None) -> None:
    gc.unfreeze()
    watch = gcwatch.GcWatch(freeze_after=1e-9)  # every full collection is "long"
    watch.start()
    try:
        kept = [_Node() for _ in range(100)]
        gc.collect(1)
        assert gc.get_freeze_count() == 0, "only a full collection freezes"
        gc.collect()
        assert watch.freezes == 1 and gc.get_freeze_count() > len(kept)
        figures = watch.figures()
        # the figures count the frozen objects as of the freeze (not by walking them)
        assert figures["frozen objects"] == gc.get_freeze_count()
        assert figures["freezes after a long full collection"] == 1
        assert figures["p99 pause ms"]["2"] is not None and figures["p99 pause ms"]["0"] is None
    finally:
        watch.stop()


def test_no_freeze_when_off_or_while_a_census_collects(
        restore_gc: None, tmp_path: Path) -> None:
    gc.unfreeze()
    off = gcwatch.GcWatch(freeze_after=0)
    off.start()
    try:
        gc.collect()
    finally:
        off.stop()
    assert off.freezes == 0 and gc.get_freeze_count() == 0
    watch = gcwatch.GcWatch(None, str(tmp_path / "census.jsonl"), freeze_after=1e-9)
    gc.callbacks.append(watch._callback)
    try:
        watch.write_census()
    finally:
        gc.callbacks.remove(watch._callback)
    assert watch.freezes == 0 and watch.count[2] == 0, "a census is not counted"


def test_the_census_finds_garbage_that_was_frozen(restore_gc: None) -> None:
    gc.collect()
    nodes = [_Node() for _ in range(20)]
    gc.freeze()
    del nodes  # cycles, frozen: only a thawed collection frees them
    found = gcwatch.census(frozen_garbage=True)
    assert found["frozen garbage"]["objects"] >= 20
    assert dict(found["frozen garbage"]["top"])[f"{__name__}._Node"] == 20
    assert not gc.garbage and not gc.get_debug() & gc.DEBUG_SAVEALL
    assert gc.get_freeze_count() > 0, "the survivors are frozen again"


def test_freeze_after_reads_milliseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNO_GC_FREEZE_MS", "0")
    assert gcwatch.freeze_after() == 0
    monkeypatch.setenv("UNO_GC_FREEZE_MS", "40")
    assert gcwatch.freeze_after() == 0.04
    monkeypatch.setenv("UNO_GC_FREEZE_MS", "soon")
    assert gcwatch.freeze_after() == gcwatch.FREEZE_AFTER_MS / 1000


async def test_a_grown_oldest_generation_is_collected_and_frozen_at_once(
        restore_gc: None, monkeypatch: pytest.MonkeyPatch) -> None:
    gc.unfreeze()
    gc.collect()
    monkeypatch.setattr(gcwatch, "OLD_LIMIT", len(gc.get_objects(2)) + 500)
    watch = gcwatch.GcWatch(freeze_after=60.0)  # no full collection is "long"
    watch.start()
    try:
        gc.collect(1)
        await asyncio.sleep(0.01)
        assert watch.freezes == 0, "below the limit: nothing"
        kept = [_Node() for _ in range(1000)]
        gc.collect(1)  # promoted into the oldest generation, now past the limit
        assert watch.freezes == 0, "the full collection runs on the loop, not in the callback"
        await asyncio.sleep(0.01)
        assert watch.freezes == 1 and watch.count[2] == 1
        assert gc.get_freeze_count() > len(kept)
        gc.collect(1)
        await asyncio.sleep(0.01)
        assert watch.freezes == 1, "frozen: the oldest generation is small again"
    finally:
        watch.stop()


async def test_a_forced_freeze_waits_for_nothing_in_flight(
        restore_gc: None, monkeypatch: pytest.MonkeyPatch) -> None:
    gc.unfreeze()
    gc.collect()
    monkeypatch.setattr(gcwatch, "OLD_LIMIT", len(gc.get_objects(2)) + 500)
    watch = gcwatch.GcWatch(freeze_after=60.0)
    busy = [True]
    watch.busy = lambda: busy[0]
    watch.start()
    try:
        kept = [_Node() for _ in range(1000)]
        gc.collect(1)
        await asyncio.sleep(0.05)
        assert watch.freezes == 0, "in flight: it waits"
        busy[0] = False
        await asyncio.sleep(0.05)
        assert watch.freezes == 1 and watch.busy_freezes == 0
        assert gc.get_freeze_count() > len(kept)
        gc.unfreeze()
        busy[0] = True
        more = [_Node() for _ in range(1000)]
        gc.collect(1)
        await asyncio.sleep(gcwatch.BUSY_WAIT + 0.3)
        assert watch.freezes == 2 and watch.busy_freezes == 1, "it waits a second at most"
        assert len(more) == 1000
    finally:
        watch.stop()
