"""The collector's settings and watch: start-up settles the collector once, collections are
timed and reported, and nothing made during play is ever frozen."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import weakref
from collections.abc import Iterator
from pathlib import Path

import discord
import pytest

from runtime import collector
from runtime.collector import GcWatch, settle


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
    collector.settle()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (collector.YOUNG_THRESHOLD, collector.MIDDLE_THRESHOLD, old)


@pytest.mark.slow
async def test_collections_are_timed_and_written(tmp_path: Path) -> None:
    path = tmp_path / "gc.json"
    watch = collector.GcWatch(str(path))
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


@pytest.mark.slow
def test_census_counts_live_objects_by_type_and_the_saved_garbage(restore_gc: None) -> None:
    kept = [_Node() for _ in range(50)]
    debug = gc.get_debug()
    gc.set_debug(debug | gc.DEBUG_SAVEALL)
    try:
        for _ in range(30):
            _Node()  # a cycle: only the collector frees it (here: saves it)
        found = collector.census(top=1000)
    finally:
        gc.set_debug(debug)
        gc.garbage.clear()
    name = f"{__name__}._Node"
    live = dict(kv for gen in found["generations"] for kv in gen["top"])
    assert live[name] >= 50, "the live ones, by module-qualified type"
    assert dict(found["garbage"]["top"])[name] == 30
    assert found["full collection ms"] >= 0
    assert len(kept) == 50


@pytest.mark.slow
def test_census_names_coroutines_and_tasks_by_their_code() -> None:
    async def sleeper() -> None:
        await asyncio.sleep(10)

    async def main() -> dict[str, int]:
        task = asyncio.get_running_loop().create_task(sleeper())
        await asyncio.sleep(0)
        try:
            return dict(kv for gen in collector.census(top=100000)["generations"]
                        for kv in gen["top"])
        finally:
            task.cancel()

    counts = asyncio.run(main())
    qual = "test_census_names_coroutines_and_tasks_by_their_code.<locals>.sleeper"
    assert counts[f"_asyncio.Task {qual}"] == 1
    assert counts[f"coroutine {qual}"] == 1


@pytest.mark.slow
async def test_sigusr1_appends_a_census(tmp_path: Path) -> None:
    path = tmp_path / "census.jsonl"
    watch = collector.GcWatch(None, str(path))
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


class _Answer:
    error: Exception | None = None


def _refused() -> _Answer:
    """An answer that keeps the exception it caught: the exception's traceback holds this
    frame, whose locals hold the answer: a cycle."""
    answer = _Answer()
    try:
        raise ValueError("a refusal")
    except ValueError as exc:
        answer.error = exc
    return answer


def test_a_clicks_reference_cycles_are_collected_though_alive_at_a_full_collection(
        restore_gc: None) -> None:
    """Nothing is frozen during play: the cycles a click makes (a view and its items, an
    exception kept with its traceback), alive while a full collection runs (the click in
    flight), are freed once dropped. The old policy froze whatever survived a long full
    collection, and such a cycle then stayed for the life of the process."""
    settle()  # as the bot does at start-up
    frozen = gc.get_freeze_count()
    watch = GcWatch.from_env()  # as bot.py makes it
    watch.start()
    try:
        view = discord.ui.View(timeout=None)
        view.add_item(discord.ui.Button(label="R7", custom_id="uno:pc:ab12:3:R7"))
        kept = _refused()
        refs = [weakref.ref(view), weakref.ref(view.children[0]), weakref.ref(kept)]
        for _ in range(3):
            gc.collect()  # full collections while the click is in flight
        assert all(ref() is not None for ref in refs)
        del view, kept
        gc.collect(0)  # (alive at the full collections: now in the oldest generation)
        assert any(ref() is not None for ref in refs), "cycles: not freed by their counts"
        gc.collect()
        assert [ref() for ref in refs] == [None, None, None]
        assert gc.get_freeze_count() == frozen, "nothing frozen after start-up"
        assert sum(watch.collected.values()) >= 3, "the watch counts what collections free"
    finally:
        watch.stop()
