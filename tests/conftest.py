"""Shared pytest setup for every test module.

- The test database (``db_path``, ``db``): ``support.data``.
- The loopback Discord (``loopback_discord``, ``loopback_bot``, ``loopback``...): the
  fixtures of ``loopback/fixtures.py``, one server and one bot process per module. The bot's
  environment is ``loopback_bot_env`` below: a fresh database per module, plus what the
  module's ``bot_env`` marker says, e.g.
  ``pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.bot_env(**FAST_ENV)]``.
- ``slow``: every test of ``tests/e2e/`` (each module starts the real bot), and the other
  slow ones, marked where they are; ``scripts/test.sh -m "not slow"`` leaves them out.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loopback.fixtures import (  # noqa: F401  (fixtures: pytest finds them here)
    loopback,
    loopback_bot,
    loopback_bot_command,
    loopback_bot_cwd,
    loopback_discord,
)
from support.e2e import FRESH_DIR

pytest_plugins = ["support.data"]

E2E = Path(__file__).parent / "e2e"


@pytest.fixture(scope="module")
def loopback_bot_env(request: pytest.FixtureRequest,
                     tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The bot's environment (DISCORD_* are filled in by the server): its own database
    file (never a DATABASE_URL of the environment; tests/e2e/test_postgres_bot.py sets its
    own), LOG_LEVEL=INFO, and the module's ``bot_env`` marker (``FRESH_DIR``: a new empty folder,
    for a cache the module must not share)."""
    name = request.node.name.removesuffix(".py")
    env = {"DATABASE_PATH": str(tmp_path_factory.mktemp(f"{name}-db") / "bot.db"),
           "DATABASE_URL": "", "LOG_LEVEL": "INFO"}
    for marker in reversed(list(request.node.iter_markers("bot_env"))):
        assert not marker.args, "bot_env takes NAME=value only"
        env.update({k: str(tmp_path_factory.mktemp(f"{name}-{k.lower()}"))
                    if v == FRESH_DIR else v for k, v in marker.kwargs.items()})
    return env


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker a core, and one more. Much of an end-to-end test is waiting
    (a bot's timers, a browser, downloads for the image), so a third worker on two cores
    fills the waits: the whole suite took 494 s instead of 611 s on this project's 2-core
    machine. ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when set."""
    del config
    chosen = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if chosen:
        return int(chosen)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every end-to-end test is slow: its module starts the real bot. Files with slow tests
    run first (a stable sort: each file's tests stay together and in order), so that in
    parallel runs (``-n auto --dist loadfile``) the long files start early and the short
    ones fill in around them."""
    for item in items:
        if item.path.is_relative_to(E2E):
            item.add_marker(pytest.mark.slow)
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)
