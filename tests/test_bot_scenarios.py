"""End to end: exact positions installed as saved games, then played through the UI."""

from __future__ import annotations

import pytest

from e2e_support import FAST_ENV, install, saved_state, scenario_session
from loopback.fixtures import *  # noqa: F403
from loopback.fixtures import LoopbackTest

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")  # type: ignore[no-redef]
def loopback_bot_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    db = tmp_path_factory.mktemp("scenario-db") / "bot.db"
    return {"DATABASE_PATH": str(db), **FAST_ENV}


async def test_wild_asks_for_colour_then_plays(loopback: LoopbackTest,
                                               loopback_bot_env: dict[str, str]) -> None:
    """A Wild Grab-A-Tower is committed only once its colour and tower are chosen."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(loopback.channel, [alice, bob],
                               hands={alice: "WG R3 B4", bob: "G5 G6 G7"},
                               discard="Y9", draw="R1 R2 R4 R5", turn=alice)
    db = loopback_bot_env["DATABASE_PATH"]
    await install(db, session)
    await loopback.bot.restart()
    await loopback.channel.wait_for(lambda m: "goes on" in m.text(), timeout=10)
    await alice.click("My hand")
    await alice.select("WG")
    assert "colour" in alice.latest_ephemeral().text()
    await alice.click("Blue")
    assert "tower" in alice.latest_ephemeral().text()
    assert (await saved_state(loopback_bot_env["DATABASE_PATH"], loopback.channel) or {})[
        "game"]["discard"] == ["Y9"], "nothing is played before the choice is complete"
    await alice.select("Tower N")
    state = await saved_state(db, loopback.channel)
    assert state is not None
    assert state["game"]["color"] == "B"
    assert state["game"]["hands"][str(alice.id)] == ["R3", "B4"]
    assert state["game"]["towers"]["N"] == str(alice.id)
    await loopback.channel.wait_for(lambda m: "picks blue" in m.text(), timeout=10)
