"""The bot under test as a real subprocess (``python bot.py``)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import tempfile
from pathlib import Path
from typing import Any, Protocol

_TRACEBACK = re.compile(r"^Traceback \(most recent call last\):", re.MULTILINE)

SHARED_ART_CACHE = Path(tempfile.gettempdir()) / f"uno-art-cache-{os.getuid()}"
"""The card art's disk cache shared by the bots the loopback starts (tests, benchmarks)."""


class BotHost(Protocol):
    """What a bot process needs of the server it logs in to (``server.LoopbackDiscord``)."""

    @property
    def identify_count(self) -> int: ...

    def shard_sessions(self) -> dict[tuple[int, int], str]:
        """The session id identified last for each shard ``(id, count)``."""
        ...

    @property
    def global_commands(self) -> list[dict[str, Any]]: ...

    @property
    def guild_commands(self) -> dict[int, list[dict[str, Any]]]: ...

    @property
    def command_syncs(self) -> int: ...

    def bot_env(self) -> dict[str, str]:
        """DISCORD_TOKEN, DISCORD_API_BASE... pointing the bot at the server."""
        ...


class BotProcess:
    """A bot process pointed at a LoopbackDiscord.

    Ready means: IDENTIFY done, READY and every GUILD_CREATE sent, commands synced (first
    start only) and ``guild_ready_delay`` seconds passed (none by default: anything sent
    to the bot after that reaches it after its guilds, on one ordered socket). discord.py
    fires ``on_ready`` 2 s later (its ``guild_ready_timeout``): a test that needs it waits
    for the bot's "Ready as" log line, or passes ``guild_ready_delay=2.1``. A process of
    a fleet (``SHARD_COUNT``) is ready when each of its shards has identified,
    not at another process's IDENTIFY (the fleet's processes start at once and pace their
    IDENTIFYs five seconds apart).
    """

    def __init__(
        self,
        server: BotHost,
        command: list[str],
        *,
        env: dict[str, str],
        cwd: Path,
        guild_ready_delay: float = 0.0,
    ) -> None:
        self.server = server
        self.command = command
        self.cwd = cwd
        self.guild_ready_delay = guild_ready_delay
        self.workdir = Path(tempfile.mkdtemp(prefix="loopback-bot-"))
        self.log_path = self.workdir / "bot.log"
        self.extra_env = dict(env)
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0
        self._traceback_offset = 0

    # -- environment -----------------------------------------------------------
    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        for key in list(env):
            if key.startswith("DISCORD_"):
                del env[key]
        env.update(
            {
                "DATABASE_PATH": str(self.workdir / "bot.db"),
                "LOG_LEVEL": "INFO",
                "PYTHONUNBUFFERED": "1",
                # Cards drawn once for every bot these tests start; card emojis only where a
                # test asks for them (UNO_CARD_EMOJIS=1): each start would upload 96.
                "UNO_ART_CACHE": str(SHARED_ART_CACHE),
                "UNO_CARD_EMOJIS": "0",
            }
        )
        env.update(self.server.bot_env())
        env.update(self.extra_env)
        return {k: v for k, v in env.items() if v != ""}

    # -- lifecycle -------------------------------------------------------------
    async def start(self, *, ready_timeout: float = 30.0) -> None:
        assert not self.running, "bot already running"
        identifies = self.server.identify_count
        shards = self.shards()
        sessions = self.server.shard_sessions()
        # the process that runs shard 0 syncs the commands (a fleet's others never do)
        need_sync = (not (self.server.global_commands or self.server.guild_commands)
                     and self.runs_shard_0())
        syncs = self.server.command_syncs
        self.starts += 1
        with self.log_path.open("ab") as log:
            log.write(f"\n===== start {self.starts}: {' '.join(self.command)}\n".encode())
            log.flush()
            self.proc = await asyncio.create_subprocess_exec(
                *self.command,
                cwd=str(self.cwd),
                env=self.environment(),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
            )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ready_timeout

        def check_alive(what: str) -> None:
            if self.proc is not None and self.proc.returncode is not None:
                raise AssertionError(
                    f"bot exited with code {self.proc.returncode} before {what}; log tail:\n"
                    + self.log_tail()
                )
            if loop.time() > deadline:
                raise AssertionError(
                    f"bot not ready after {ready_timeout} s (waiting for {what}); log tail:\n"
                    + self.log_tail()
                )

        def identified() -> bool:
            if shards is None:
                return self.server.identify_count > identifies
            now = self.server.shard_sessions()
            return all(now.get(s, "") not in ("", sessions.get(s, "")) for s in shards)

        while not identified():
            check_alive("gateway IDENTIFY")
            await asyncio.sleep(0.02)
        ready_at = loop.time() + self.guild_ready_delay
        while need_sync and self.server.command_syncs <= syncs:
            check_alive("command sync")
            await asyncio.sleep(0.02)
        while loop.time() < ready_at:
            check_alive("on_ready")
            await asyncio.sleep(0.02)
        check_alive("ready")

    def shards(self) -> list[tuple[int, int]] | None:
        """The shards ``(id, count)`` this process identifies as (``SHARD_COUNT``, with
        ``SHARD_IDS`` or all of them); None without ``SHARD_COUNT`` (it may use Discord's
        recommended count: any IDENTIFY is taken as its own)."""
        env = self.environment()
        count = env.get("SHARD_COUNT", "").strip()
        if not count.isdigit():
            return None
        ids: set[int] = set()
        for part in env.get("SHARD_IDS", "").split(","):
            first, _dash, last = part.strip().partition("-")
            if first.strip().isdigit():
                ids.update(range(int(first), int(last or first) + 1))
        return [(i, int(count)) for i in sorted(ids or range(int(count)))]

    def runs_shard_0(self) -> bool:
        """Whether this process runs shard 0 (no SHARD_IDS: it runs them all)."""
        ids = self.environment().get("SHARD_IDS", "").strip()
        return not ids or any(part.strip().split("-")[0].strip() == "0"
                              for part in ids.split(","))

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    async def kill(self) -> None:
        """SIGKILL, as a crash or an OOM kill would."""
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGKILL)
            await self.proc.wait()

    async def stop(self, timeout: float = 10.0) -> int | None:  # noqa: ASYNC109
        """SIGTERM and wait for a clean exit (SIGKILL after ``timeout``)."""
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                await self.kill()
        return self.proc.returncode if self.proc else None

    async def restart(self, *, kill: bool = True, ready_timeout: float = 30.0) -> None:
        """Kill (or stop) and start again with the same environment and database."""
        if kill:
            await self.kill()
        else:
            await self.stop()
        await self.start(ready_timeout=ready_timeout)

    # -- output ----------------------------------------------------------------
    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def take_tracebacks(self) -> list[str]:
        """Tracebacks the bot logged since the last call (each with a little context)."""
        text = self.log_text()
        new = text[self._traceback_offset :]
        self._traceback_offset = len(text)
        found = []
        for match in _TRACEBACK.finditer(new):
            start = new.rfind("\n", 0, max(0, match.start() - 1)) + 1
            found.append(new[start : match.start() + 3000])
        return found
