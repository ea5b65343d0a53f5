"""The GC watch: collections are timed and reported; start-up settles the collector."""

from __future__ import annotations

import asyncio
import gc
import json
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
