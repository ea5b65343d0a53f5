"""The bot's busiest requests on aiohttp's pooled connections without its per-request
objects (``cogs/uno/_wire.py``): the same bytes on the wire as ``session.request`` writes,
Discord's answers read as aiohttp reads them (chunked, gzip, ``Connection: close``), the
same errors and timeouts, TLS, and ``cogs/uno/_rest.py``'s handling of each answer (the
rate-limit hold, a 429 tried again, a 5xx tried again, a 404 raised as
``discord.NotFound``).

A raw HTTP/1.1 server in the test records every request's bytes and answers from a script;
each test runs on asyncio's loop and on uvloop (the bot's)."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import inspect
import json
import re
import ssl
import subprocess
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
import uvloop
from aiohttp.client_proto import ResponseHandler
from discord.http import HTTPClient, Route

from cogs.uno import _rest, _wire

HANG = b"hang"
DROP = b"drop"
LOOPS = {"asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}


def answer(status: int = 200, body: bytes = b"", headers: dict[str, str] | None = None,
           reason: str = "OK") -> bytes:
    head = {"Content-Length": str(len(body)), **(headers or {})}
    if head.get("Transfer-Encoding") == "chunked":
        del head["Content-Length"]
        body = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (body[:7], body[7:]) if c)
        body += b"0\r\n\r\n"
    lines = "".join(f"{k}: {v}\r\n" for k, v in head.items())
    return f"HTTP/1.1 {status} {reason}\r\n{lines}\r\n".encode() + body


def jsoned(data: Any, status: int = 200, headers: dict[str, str] | None = None,
           reason: str = "OK") -> bytes:
    return answer(status, json.dumps(data).encode(),
                  {"Content-Type": "application/json", **(headers or {})}, reason)


NO_CONTENT = answer(204, reason="No Content")


class Wire:
    """A raw HTTP/1.1 server on 127.0.0.1: records each request's bytes, answers with the
    next of ``answers`` (default 204), ``HANG`` never, ``DROP`` by closing the connection."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.tls = tls
        self.requests: list[bytes] = []
        self.answers: list[bytes] = []
        self.connections = 0
        self.heard = asyncio.Event()
        """Set at each request."""
        self.server: asyncio.Server | None = None

    @property
    def base(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{port}/api/v10"

    async def __aenter__(self) -> Wire:
        self.server = await asyncio.start_server(self.serve, "127.0.0.1", 0, ssl=self.tls)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
                body = await reader.readexactly(int(length[1]) if length else 0)
                self.requests.append(head + body)
                self.heard.set()
                reply = self.answers.pop(0) if self.answers else NO_CONTENT
                if reply == HANG:
                    await asyncio.sleep(60)
                if reply == DROP:
                    return
                writer.write(reply)
                await writer.drain()
                if b"\r\nconnection: close" in reply.lower():
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def session(timeout: aiohttp.ClientTimeout | None = None,
            tls: ssl.SSLContext | None = None) -> aiohttp.ClientSession:
    """A session as discord.py makes its own (``HTTPClient.static_login``) for the bot."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=300, ssl=tls if tls else True),
        cookie_jar=aiohttp.DummyCookieJar(), timeout=timeout or aiohttp.ClientTimeout(
            total=300, sock_connect=30))  # aiohttp's default


@contextmanager
def through(fast: bool) -> Iterator[None]:
    _wire.ENABLED = fast
    try:
        yield
    finally:
        _wire.ENABLED = True


def run(loop: str, test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    with asyncio.Runner(loop_factory=LOOPS[loop]) as runner:
        runner.run(test())


MULTIPART = (b'--b0\r\nContent-Disposition: form-data; name="payload_json"\r\n'
             b'Content-Type: application/json\r\n\r\n{"content":"hi"}\r\n--b0\r\n'
             b'Content-Disposition: form-data; name="files[0]"; filename="t.png"\r\n'
             b"Content-Type: image/png\r\n\r\n\x89PNG\x00\xff\r\n--b0--\r\n")
REQUESTS = [
    ("POST", "/interactions/1/tok%2Fen/callback", "application/json", b'{"type":6}'),
    ("PATCH", "/webhooks/2/tok/messages/@original?with_components=1",
     "multipart/form-data; boundary=b0", MULTIPART),
    ("POST", "/webhooks/2/tok?wait=1&with_components=0", "application/json", b"{}"),
]


@pytest.mark.parametrize("loop", LOOPS)
def test_the_bytes_on_the_wire_are_aiohttps(loop: str) -> None:
    async def test() -> None:
        async with Wire() as wire, session() as s:
            for fast in (False, True):
                with through(fast):
                    for method, path, kind, data in REQUESTS:
                        got, raw = await _wire.send(s, method, wire.base, path, kind, data)
                        assert (got.status, raw) == (204, b"")
            assert _wire.fast(s, wire.base)
            half = len(REQUESTS)
            assert wire.requests[half:] == wire.requests[:half]
            assert wire.connections == 1, "one pooled connection for both ways"
            first = wire.requests[0].decode()
            assert first.startswith("POST /api/v10/interactions/1/tok%2Fen/callback HTTP/1.1\r\n")
            assert "\r\nUser-Agent: Python/" in first
            assert "\r\nContent-Type: application/json\r\nAccept: */*\r\n" in first
            assert first.endswith('\r\nContent-Length: 10\r\n\r\n{"type":6}')
    run(loop, test)


@pytest.mark.parametrize("loop", LOOPS)
def test_answers_are_read_as_aiohttp_reads_them(loop: str) -> None:
    body = json.dumps({"id": "123", "content": "é" * 50}).encode()
    big = json.dumps({"id": "124", "content": "x" * 3_000_000}).encode()
    limits = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": "1.5",
              "Content-Type": "application/json"}
    answers = [answer(200, body, {"Transfer-Encoding": "chunked", **limits}),
               answer(200, gzip.compress(body), {"Content-Encoding": "gzip", **limits}),
               answer(404, b'{"message": "Unknown Message", "code": 10008}',
                      {"Content-Type": "application/json"}, "Not Found"),
               answer(200, big, {"Content-Type": "application/json"})]  # in many reads

    async def test() -> None:
        async with Wire() as wire, session() as s:
            seen = []
            for fast in (False, True):
                wire.answers += answers
                with through(fast):
                    for _ in answers:
                        got, raw = await _wire.send(s, "POST", wire.base, "/x", "a/b", b"")
                        seen.append((got.status, got.reason, raw,
                                     got.headers.get("x-ratelimit-reset-after")))
            assert seen[:4] == seen[4:]
            assert [r[:3] for r in seen[:4]] == [
                (200, "OK", body), (200, "OK", body),
                (404, "Not Found", b'{"message": "Unknown Message", "code": 10008}'),
                (200, "OK", big)]
            assert wire.connections == 1
    run(loop, test)


@pytest.mark.parametrize("loop", LOOPS)
def test_connections_are_kept_closed_and_replaced_as_aiohttp_does(loop: str) -> None:
    async def test() -> None:
        async with Wire() as wire, session() as s:
            send = _wire.send
            for _ in range(3):
                await send(s, "POST", wire.base, "/x", "a/b", b"1")
            assert wire.connections == 1
            wire.answers.append(answer(204, headers={"Connection": "close"}))
            await send(s, "POST", wire.base, "/x", "a/b", b"1")
            await send(s, "POST", wire.base, "/x", "a/b", b"1")
            assert wire.connections == 2, "Connection: close: not used again"
            wire.answers.append(DROP)  # closed without an answer, as aiohttp raises it
            with pytest.raises(aiohttp.ServerDisconnectedError):
                await send(s, "POST", wire.base, "/x", "a/b", b"1")
            await send(s, "POST", wire.base, "/x", "a/b", b"1")
            assert wire.connections == 3
            with through(False):
                wire.answers.append(DROP)
                with pytest.raises(aiohttp.ServerDisconnectedError):
                    await send(s, "POST", wire.base, "/x", "a/b", b"1")
    run(loop, test)


@pytest.mark.parametrize("fast", [True, False])
async def test_an_answer_that_is_not_http_raises_what_aiohttp_raises(fast: bool) -> None:
    async with Wire() as wire, session() as s:
        wire.answers.append(b"HTTP/1.1 2x0 What\r\n\r\n")
        with through(fast), pytest.raises(aiohttp.ClientResponseError) as refused:
            await _wire.send(s, "POST", wire.base, "/x?a=1", "a/b", b"1")
        assert refused.value.status == 400
        await _wire.send(s, "POST", wire.base, "/x", "a/b", b"1")
        assert wire.connections == 2


@pytest.mark.parametrize("fast", [True, False])
async def test_the_sessions_total_timeout_holds(fast: bool) -> None:
    async with Wire() as wire, session(aiohttp.ClientTimeout(total=0.3)) as s:
        wire.answers.append(HANG)
        loop = asyncio.get_running_loop()
        started = loop.time()
        with through(fast), pytest.raises(TimeoutError):
            await _wire.send(s, "POST", wire.base, "/x", "a/b", b"1")
        assert 0.25 < loop.time() - started < 2
        await _wire.send(s, "POST", wire.base, "/x", "a/b", b"1")
        assert wire.connections == 2, "the timed out connection is not used again"


@pytest.mark.parametrize("fast", [True, False])
async def test_a_request_cancelled_is_cancelled_not_timed_out(fast: bool) -> None:
    async with Wire() as wire, session(aiohttp.ClientTimeout(total=5)) as s:
        wire.answers.append(HANG)
        with through(fast):
            request = asyncio.ensure_future(
                _wire.send(s, "POST", wire.base, "/x", "a/b", b"1"))
            await asyncio.wait_for(wire.heard.wait(), 5)
            request.cancel()
            with pytest.raises(asyncio.CancelledError):
                await request
            # the caller's own timeout, shorter than the session's, is the caller's
            wire.answers.append(HANG)
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.3):
                    await _wire.send(s, "POST", wire.base, "/x", "a/b", b"1")
            task = asyncio.current_task()
            assert task is not None and task.cancelling() == 0
        await _wire.send(s, "POST", wire.base, "/x", "a/b", b"1")
        assert wire.connections == 3


async def test_a_redirect_is_followed_as_aiohttp_follows_it() -> None:
    async with Wire() as wire, session() as s:
        moved = answer(307, headers={"Location": wire.base + "/y"}, reason="Temporary Redirect")
        wire.answers += [moved, moved, jsoned({"id": "5"})]
        got, raw = await _wire.send(s, "PATCH", wire.base, "/x", "a/b", b"1")
        assert (got.status, json.loads(raw)) == (200, {"id": "5"})
        # the short way read the 307, then aiohttp made the request and followed it
        assert [r.split(b" ")[1] for r in wire.requests] == [
            b"/api/v10/x", b"/api/v10/x", b"/api/v10/y"]
        assert all(r.startswith(b"PATCH ") and r.endswith(b"\r\n\r\n1") for r in wire.requests)


async def test_a_proxy_goes_through_aiohttp() -> None:
    async with Wire() as wire, session() as s:
        # the "proxy" is the server itself: aiohttp sends it the absolute URL
        await _wire.send(s, "POST", wire.base, "/x", "a/b", b"1", proxy=wire.base)
        assert wire.requests[0].startswith(f"POST {wire.base}/x HTTP/1.1".encode())


def certificate(tmp: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    key, cert = tmp / "key.pem", tmp / "cert.pem"
    try:
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                        "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", str(key), "-out", str(cert)], check=True,
                       capture_output=True, timeout=60)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"no openssl to make a certificate: {exc}")
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(cert, key)
    return server, ssl.create_default_context(cafile=str(cert))


@pytest.mark.parametrize("loop", LOOPS)
def test_over_tls(loop: str, tmp_path: Path) -> None:
    server, client = certificate(tmp_path)

    async def test() -> None:
        async with Wire(server) as wire, session(tls=client) as s:
            for fast in (False, True):
                wire.answers.append(jsoned({"id": "7"}))
                with through(fast):
                    method, path, kind, data = REQUESTS[1]
                    got, raw = await _wire.send(s, method, wire.base, path, kind, data)
                assert (got.status, json.loads(raw)) == (200, {"id": "7"})
            assert _wire.fast(s, wire.base)
            assert wire.requests[0] == wire.requests[1] and wire.connections == 1
    run(loop, test)


async def test_discord_pys_session_takes_the_short_way() -> None:
    """The session the bot's requests go through is the one discord.py makes at login."""
    async with Wire() as wire:
        wire.answers.append(jsoned({"id": "1", "username": "UNO", "discriminator": "0",
                                    "avatar": None, "bot": True}))
        http = HTTPClient(asyncio.get_running_loop(), aiohttp.TCPConnector(limit=300))
        before = Route.BASE
        Route.BASE = wire.base
        try:
            await http.static_login("token")
            s = http._HTTPClient__session  # type: ignore[attr-defined]
            assert _wire.fast(s, wire.base)
        finally:
            Route.BASE = before
            await http.close()


# ---------------------------------------------------------------------- _rest's handling
@contextmanager
def discord_at(base: str) -> Iterator[None]:
    before = Route.BASE
    Route.BASE = base
    try:
        yield
    finally:
        Route.BASE = before


async def test_rest_keeps_the_bucket_closed_for_reset_after() -> None:
    async with Wire() as wire, session() as s:
        hook = discord.Webhook.partial(9, "tok", session=s)
        wire.answers.append(answer(200, b'{"id":"1"}', {
            "Content-Type": "application/json", "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset-After": "0.4"}))
        loop = asyncio.get_running_loop()
        with discord_at(wire.base):
            started = loop.time()
            assert await _rest.edit(hook, 1, None, {"content": "a"})
            assert loop.time() - started >= 0.35, "the caller waits with its bucket"
            assert await _rest.edit(hook, 1, None, {"content": "b"})
        assert [r.split(b" ")[:2] for r in wire.requests] == [
            [b"PATCH", b"/api/v10/webhooks/9/tok/messages/1?with_components=0"]] * 2


async def test_rest_quotes_a_token_in_the_path_as_quote_does() -> None:
    async with Wire() as wire, session() as s:
        wire.answers += [NO_CONTENT, jsoned({"id": "3"})]
        with discord_at(wire.base):
            await _rest.edit(discord.Webhook.partial(9, "a/b c%é~_.-Z9", session=s), 1,
                             None, {"content": "a"})
            await _rest.post(discord.Webhook.partial(9, "plain-Tok_en.9~", session=s), None,
                             {"content": "a"})
        assert [r.split(b" ")[1] for r in wire.requests] == [
            b"/api/v10/webhooks/9/a%2Fb%20c%25%C3%A9~_.-Z9/messages/1?with_components=0",
            b"/api/v10/webhooks/9/plain-Tok_en.9~?wait=1&with_components=0"]


async def test_rest_tries_a_429_again_after_retry_after_and_a_5xx_again() -> None:
    async with Wire() as wire, session() as s:
        hook = discord.Webhook.partial(9, "tok", session=s)
        wire.answers += [
            jsoned({"message": "You are being rate limited.", "retry_after": 0.2,
                    "global": False}, 429, {"Via": "1.1 google"}, "Too Many Requests"),
            answer(502, b"bad gateway", {"Content-Type": "text/plain"}, "Bad Gateway"),
            jsoned({"id": "77"})]
        loop = asyncio.get_running_loop()
        with discord_at(wire.base):
            started = loop.time()
            assert await _rest.post(hook, None, {"content": "a"}) == 77
        assert loop.time() - started >= 1.2  # 0.2 s retry_after, then 1 s after the 502
        assert len(wire.requests) == 3 and len(set(wire.requests)) == 1


async def test_rest_raises_refusals_as_discord_py_does() -> None:
    async with Wire() as wire, session() as s:
        hook = discord.Webhook.partial(9, "tok", session=s)
        wire.answers += [
            jsoned({"message": "Unknown Message", "code": 10008}, 404, reason="Not Found"),
            jsoned({"message": "Missing Access", "code": 50001}, 403, reason="Forbidden"),
            jsoned({"message": "You are being blocked."}, 429, reason="Too Many Requests"),
            jsoned({"message": "Invalid Form Body", "code": 50035, "errors": {
                "content": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH",
                                         "message": "Too long."}]}}}, 400,
                   reason="Bad Request")]
        with discord_at(wire.base):
            with pytest.raises(discord.NotFound) as nf:
                await _rest.edit(hook, 1, None, {"content": "a"})
            with pytest.raises(discord.Forbidden) as fb:
                await _rest.edit(hook, 1, None, {"content": "a"})
            with pytest.raises(discord.HTTPException) as ban:  # no Via: Cloudflare's
                await _rest.edit(hook, 1, None, {"content": "a"})
            with pytest.raises(discord.HTTPException) as bad:
                await _rest.edit(hook, 1, None, {"content": "a"})
        assert str(nf.value) == "404 Not Found (error code: 10008): Unknown Message"
        assert (fb.value.status, fb.value.code) == (403, 50001)
        assert type(ban.value) is discord.HTTPException and ban.value.status == 429
        assert bad.value.code == 50035 and "In content: Too long." in bad.value.text
        assert len(wire.requests) == 4


# ---------------------------------------------------------------------- what is repeated
PINNED = {
    # what _wire.py repeats of aiohttp 3.14.5 (sha256 of the source): a request's steps
    # from the connection to the answer's body, the header block, the protocol's reading.
    # If one changes, read it again against cogs/uno/_wire.py, then update its hash here.
    aiohttp.ClientSession._request: "32986b81",
    aiohttp.ClientRequest.__init__: "8636fdb3",
    aiohttp.ClientRequest.update_headers: "4443c95d",
    aiohttp.ClientRequest.update_auto_headers: "bce84510",
    aiohttp.ClientRequest.update_body_from_data: "05b09c13",
    aiohttp.ClientRequest.send: "82b495aa",
    aiohttp.ClientRequest.write_bytes: "f3b5cbcb",
    aiohttp.ClientResponse.start: "bcbf178d",
    aiohttp.ClientResponse.read: "87a96c28",
    aiohttp.ClientResponse.release: "91ea7fef",
    ResponseHandler.set_response_params: "2eb047e3",
    ResponseHandler.data_received: "9bf7ecf8",
    ResponseHandler.should_close.fget: "fef595ed",  # type: ignore[attr-defined]
    aiohttp.BaseConnector.connect: "b9fe1f4d",
    aiohttp.BaseConnector._release: "105426e5",
}


def digest(function: Any) -> str:
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:8]


def test_what_is_repeated_is_aiohttp_3_14_5s() -> None:
    assert aiohttp.__version__ == "3.14.5"
    assert {f.__qualname__: digest(f) for f in PINNED} == {
        f.__qualname__: h for f, h in PINNED.items()}
