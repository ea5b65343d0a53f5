"""A TCP proxy in front of the tests' PostgreSQL server that can cut a connection the moment
its client sends COMMIT: the COMMIT is passed on to the server (which commits), then the
client's side is closed before the server's answer reaches it, as a network cut at that
instant would. The client cannot know whether its transaction was stored."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit, urlunsplit

COMMIT = b"Q\x00\x00\x00\x0bCOMMIT\x00"
"""A simple-protocol query message "COMMIT" (what asyncpg sends for ``execute("COMMIT")``)."""


class CommitCutter:
    """``await start()``; ``url`` is the database's URL through the proxy. ``armed``: the
    next COMMIT seen is passed on, then its connection cut (once); ``cuts`` counts them."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._parts = parts
        self._server: asyncio.Server | None = None
        self.armed = False
        self.cuts = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self.url = ""

    async def start(self) -> CommitCutter:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        netloc = self._parts.netloc.rpartition("@")
        host = f"127.0.0.1:{port}"
        self.url = urlunsplit(self._parts._replace(
            netloc=f"{netloc[0]}@{host}" if netloc[1] else host))
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, client_r: asyncio.StreamReader,
                     client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection(*self._target)
        cut = asyncio.Event()

        async def up() -> None:  # client -> server
            while data := await client_r.read(65536):
                server_w.write(data)
                await server_w.drain()
                if self.armed and COMMIT in data:
                    self.armed = False
                    self.cuts += 1
                    cut.set()
                    client_w.transport.abort()  # the client never hears the answer
                    await asyncio.sleep(1)  # the server has read COMMIT and commits
                    return

        async def down() -> None:  # server -> client
            while data := await server_r.read(65536):
                if cut.is_set():
                    return
                client_w.write(data)
                await client_w.drain()

        tasks = [asyncio.ensure_future(up()), asyncio.ensure_future(down())]
        for task in tasks:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for writer in (client_w, server_w):
                writer.close()
                with contextlib.suppress(Exception):
                    await writer.wait_closed()
