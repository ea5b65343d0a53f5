"""pytest fixtures for the loopback Discord (import them in tests/conftest.py).

One server and one bot process per test module (``loop_scope="module"``), a fresh channel
per test. Test modules using them need ``pytestmark = pytest.mark.asyncio(loop_scope="module")``
so that tests run in the loop the bot's server lives in.

Override ``loopback_bot_command`` / ``loopback_bot_env`` / ``loopback_bot_cwd`` in a module
or conftest to start a different bot.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from .bot_process import BotProcess
from .models import Channel, Guild
from .server import DEFAULT_CWD, LoopbackDiscord
from .users import Member


class LoopbackTest:
    """Per-test handle: the server, the bot, the guild and a fresh channel."""

    def __init__(self, discord_: LoopbackDiscord, bot: BotProcess, channel: Channel) -> None:
        self.discord = discord_
        self.bot = bot
        self.channel = channel
        assert channel.guild is not None
        self.guild: Guild = channel.guild

    def member(self, name: str, **permissions: bool) -> Member:
        """A guild member acting in this test's channel."""
        return Member(self.discord, self.guild, self.guild.enrol(name, **permissions),
                      self.channel)

    def check(self) -> None:
        """Fail if the bot did something Discord would reject or logged a traceback."""
        problems = self.discord.take_problems()
        tracebacks = self.bot.take_tracebacks()
        lines = [str(p) for p in problems] + [f"bot traceback:\n{t}" for t in tracebacks]
        if lines:
            pytest.fail("loopback Discord saw problems:\n  " + "\n  ".join(lines), pytrace=False)


@pytest.fixture(scope="module")
def loopback_bot_command() -> list[str]:
    """The command line that starts the bot (cwd: ``loopback_bot_cwd``)."""
    return [sys.executable, "bot.py"]


@pytest.fixture(scope="module")
def loopback_bot_cwd() -> Path:
    return DEFAULT_CWD


@pytest.fixture(scope="module")
def loopback_bot_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Extra environment for the bot (DISCORD_* are filled in by the server)."""
    db = tmp_path_factory.mktemp("loopback-db") / "bot.db"
    return {"DATABASE_PATH": str(db), "LOG_LEVEL": "INFO"}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def loopback_discord() -> AsyncIterator[LoopbackDiscord]:
    """A running LoopbackDiscord with one guild named "Test"."""
    async with LoopbackDiscord() as discord_:
        discord_.add_guild("Test")
        yield discord_


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def loopback_bot(
    loopback_discord: LoopbackDiscord,
    loopback_bot_command: list[str],
    loopback_bot_cwd: Path,
    loopback_bot_env: dict[str, str],
) -> AsyncIterator[BotProcess]:
    """The bot process, started once per module and ready (on_ready has fired)."""
    bot = await loopback_discord.start_bot(
        loopback_bot_command, env=loopback_bot_env, cwd=loopback_bot_cwd
    )
    yield bot
    await bot.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def loopback(
    loopback_discord: LoopbackDiscord, loopback_bot: BotProcess
) -> AsyncIterator[LoopbackTest]:
    """A fresh channel in the shared guild; fails the test at teardown if the bot sent
    anything Discord would reject (bad bodies, unknown routes, late or double acks...)
    or logged a traceback, unless the test took them (``discord.take_problems``,
    ``bot.take_tracebacks``). ``discord.refused`` starts empty for each test, and injected
    faults do not outlive the test."""
    t = LoopbackTest(loopback_discord, loopback_bot, loopback_discord.guilds[0].new_channel())
    t.check()  # anything left over belongs to start-up or an earlier test: report it here
    loopback_discord.refused.clear()
    loopback_discord.clear_faults()
    yield t
    loopback_discord.clear_faults()
    if not loopback_bot.running:
        await loopback_bot.start()
    t.check()
