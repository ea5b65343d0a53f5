"""The playground: a loopback Discord with a ready guild, shown in a browser (``web``).

``bot.py`` runs the real bot against it in the same process when there is no token (or with
``--playground``); tests start it the same way, with the bot as a subprocess if they like.
"""

from __future__ import annotations

import errno
import ipaddress
import os
import shutil
import tempfile
from pathlib import Path

from .models import Guild
from .server import LoopbackDiscord

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8377
CHANNELS = ("uno-1", "uno-2")
USERS = ("alice", "bob", "carol", "dave")


class PlaygroundError(Exception):
    """The playground cannot start; the message says why."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Playground:
    """A running loopback Discord with the web page and guild "Playground" (channels
    #general, #uno-1, #uno-2; members alice, bob, carol, dave).

    ``port=None`` takes DEFAULT_PORT, or any free port when that one is taken; a port given
    explicitly must be free. ``database_path=None`` makes a file in a fresh temporary folder,
    removed by ``close``.
    """

    def __init__(
        self,
        *,
        host: str = DEFAULT_HOST,
        port: int | None = None,
        database_path: str | Path | None = None,
        action_timeout: float = 5.0,
    ) -> None:
        self.host = host
        self.port = port
        self.action_timeout = action_timeout
        self._tmpdir: str | None = None
        if database_path is None:
            self._tmpdir = tempfile.mkdtemp(prefix="uno-playground-")
            database_path = Path(self._tmpdir) / "playground.db"
        self.database_path = str(database_path)
        self.server: LoopbackDiscord | None = None

    async def start(self) -> LoopbackDiscord:
        ports = [self.port] if self.port is not None else [DEFAULT_PORT, 0]
        last: OSError | None = None
        for port in ports:
            server = LoopbackDiscord(host=self.host, port=port, validate_bodies=False,
                                     web_ui=True, action_timeout=self.action_timeout,
                                     bot_name="UNO Power Grab")
            try:
                await server.start()
            except OSError as exc:
                await server.close()
                last = exc
                continue
            self.server = server
            break
        else:
            assert last is not None
            why = "is in use" if last.errno == errno.EADDRINUSE else f"failed: {last.strerror}"
            raise PlaygroundError(f"The playground cannot listen on {self.host}:{ports[-1]}: "
                                  f"that port {why}. Choose another with --port.")
        guild = self.server.add_guild("Playground")
        for name in CHANNELS:
            guild.new_channel(name)
        for name in USERS:
            guild.member(name)
        return self.server

    @property
    def guild(self) -> Guild:
        assert self.server is not None and self.server.guilds, "start() first"
        return self.server.guilds[0]

    @property
    def url(self) -> str:
        assert self.server is not None, "start() first"
        host = self.host if ":" not in self.host else f"[{self.host}]"
        if self.host in ("0.0.0.0", "::"):
            host = DEFAULT_HOST
        return f"http://{host}:{self.server.port}"

    def bot_env(self) -> dict[str, str]:
        """Environment that points ``python bot.py`` at this playground."""
        assert self.server is not None, "start() first"
        return {**self.server.bot_env(), "DEV_GUILD_ID": str(self.guild.id),
                "DATABASE_PATH": self.database_path}

    def announcement(self, *, token_set: bool) -> str:
        why = ("--playground given" if token_set else "No DISCORD_TOKEN set")
        return (f"{why}: the playground (this bot on a local Discord) is at {self.url} "
                f"(add ?as=NAME to play as NAME; Ctrl-C stops it). To run on real Discord "
                f"instead, put a bot token in DISCORD_TOKEN (.env; see README.md).")

    def warning(self) -> str | None:
        if is_loopback(self.host):
            return None
        return (f"Warning: the playground listens on {self.host}, not 127.0.0.1: anyone who "
                f"can reach port {self.port_or_zero} can act as any user.")

    @property
    def port_or_zero(self) -> int:
        return self.server.port if self.server is not None else (self.port or 0)

    async def close(self) -> None:
        if self.server is not None:
            await self.server.close()
            self.server = None
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None


def settings_from_env(host: str | None, port: int | None) -> tuple[str, int | None]:
    """``--host``/``--port``, else PLAYGROUND_HOST / PLAYGROUND_PORT, else the defaults."""
    host = host or os.environ.get("PLAYGROUND_HOST", "").strip() or DEFAULT_HOST
    if port is None:
        raw = os.environ.get("PLAYGROUND_PORT", "").strip()
        if raw:
            if not raw.isdigit() or int(raw) > 65535:
                raise PlaygroundError("PLAYGROUND_PORT must be a port number (0 for any).")
            port = int(raw)
    return host, port
