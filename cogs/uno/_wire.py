"""One request of ``_rest.py`` on aiohttp's own pooled connection, without the objects
``ClientSession.request`` builds around it.

Why. aiohttp's ``ClientSession._request`` costs about 150 µs of CPU a request before a
byte is written or after the last is read: a ``ClientRequest`` (its headers merged into a
``CIMultiDict``, auto headers, the payload registry, a body-writer task for any body),
a ``ClientResponse``, the timeout handles and timer contexts, the redirect and cookie
machinery (bench/README.md, "The bot's requests"). The bot makes about 4.4 of these
requests a move, each the same kind of POST or PATCH to one origin.

What stays aiohttp's: the session's connector (its pool and limit, TLS, DNS cache,
keep-alive and the closing of idle connections), the connection's protocol and its
parser (chunked bodies, gzip and deflate, ``Connection: close``, a lost connection raised as
``ServerDisconnectedError`` or ``ClientOSError``), the session's timeouts (connect,
``sock_read``, and ``total`` over the whole request) and the errors it raises.
What is ours: the request's bytes, the very ones aiohttp writes (its header block is taken
from a ``ClientRequest`` aiohttp builds once per origin: ``Host``, ``Content-Type``,
``Accept``, ``Accept-Encoding``, ``User-Agent``, ``Content-Length``, in its order), and the
answer read from the protocol as ``ClientResponse.start`` and ``read`` read it.

Through ``session.request`` instead, as before: a request with a proxy, a session that
does more per request than that (trace configs, a cookie jar, middlewares,
``raise_for_status``, ``trust_env``, default headers, auth or proxy, another HTTP
version, a connector that closes every connection), and a redirect (a 3xx answer is read,
then the request is made again through aiohttp, which follows it).

Pinned to aiohttp 3.14.5: tests/table/test_rest_wire.py checks that the bytes on the wire are
aiohttp's, and fails when the aiohttp code this repeats changes (its source).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import aiohttp
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

ENABLED = True
"""Off: every request goes through ``session.request`` (bench/bench_requests.py compares)."""

_MARK = "\x00content-type\x00"


class Answer:
    """What the bot reads of Discord's answer, under ``aiohttp.ClientResponse``'s names (a
    ``discord.HTTPException`` keeps it as its ``response``)."""

    __slots__ = ("headers", "method", "reason", "status", "url")

    def __init__(self, method: str, url: URL | str, status: int, reason: str | None,
                 headers: CIMultiDictProxy[str]) -> None:
        self.method = method
        self.url = url
        self.status = status
        self.reason = reason
        self.headers = headers


class _Origin:
    """One origin's requests on one session: the connection key and the header block."""

    __slots__ = ("after", "base", "before", "params", "prefix", "request")

    def __init__(self, session: aiohttp.ClientSession, base: str) -> None:
        self.base = base
        url = URL(base)
        self.prefix = url.raw_path.rstrip("/")
        origin = url.origin()
        self.request = aiohttp.ClientRequest(
            "POST", origin, headers={"Content-Type": _MARK}, loop=asyncio.get_running_loop(),
            ssl=True)  # (without the session, which _origins holds weakly)
        lines = [f"{k}: {v}\r\n" for k, v in self.request.headers.items()
                 if k.lower() != "content-length"]
        at = lines.index(f"Content-Type: {_MARK}\r\n")
        self.before = "".join(lines[:at])
        self.after = "".join(lines[at + 1:])
        connector = session.connector
        self.params: dict[str, Any] = {
            "read_until_eof": True, "auto_decompress": session.auto_decompress,
            "read_timeout": session.timeout.sock_read,
            "read_bufsize": session._read_bufsize,
            "timeout_ceil_threshold": connector._timeout_ceil_threshold,  # type: ignore[union-attr]
            "max_line_size": session._max_line_size,
            "max_field_size": session._max_field_size,
            "max_headers": session._max_headers,
        }


_origins: weakref.WeakKeyDictionary[aiohttp.ClientSession, dict[str, _Origin | None]] = (
    weakref.WeakKeyDictionary())


def _plain(session: aiohttp.ClientSession) -> bool:
    """The session does nothing per request but what :func:`send` does."""
    connector = session.connector
    return (isinstance(session.cookie_jar, aiohttp.DummyCookieJar)
            and not session.trace_configs and not session.trust_env
            and session.auth is None and not session.headers
            and not session.skip_auto_headers
            and session.version == aiohttp.HttpVersion11
            and connector is not None and not connector.force_close
            and getattr(session, "_default_proxy", True) is None
            and getattr(session, "_default_proxy_auth", True) is None
            and not getattr(session, "_middlewares", True)
            and getattr(session, "_raise_for_status", True) is False
            and getattr(session, "_base_url", True) is None
            and getattr(session, "_request_class", None) is aiohttp.ClientRequest
            and getattr(session, "_response_class", None) is aiohttp.ClientResponse
            and all(hasattr(session, a) for a in (
                "_read_bufsize", "_max_line_size", "_max_field_size", "_max_headers"))
            and hasattr(connector, "_timeout_ceil_threshold"))


def _origin(session: aiohttp.ClientSession, base: str) -> _Origin | None:
    known = _origins.get(session)
    if known is None:
        _origins[session] = known = {}
    try:
        return known[base]
    except KeyError:
        pass
    plain = _plain(session) and URL(base).scheme in ("http", "https")
    known[base] = origin = _Origin(session, base) if plain else None
    return origin


def fast(session: aiohttp.ClientSession, base: str) -> bool:
    """Requests on ``session`` to ``base`` (without a proxy) go the short way."""
    return ENABLED and not session.closed and _origin(session, base) is not None


async def send(session: aiohttp.ClientSession, method: str, base: str, path: str,
               content_type: str, data: bytes, *, proxy: str | None = None,
               proxy_auth: aiohttp.BasicAuth | None = None) -> tuple[Answer, bytes]:
    """``method`` ``base + path`` (``path`` quoted already, with its query) with ``data``;
    Discord's answer and its whole body. Raises what ``session.request`` would raise."""
    if ENABLED and proxy is None and proxy_auth is None and not session.closed:
        origin = _origin(session, base)
        if origin is not None:
            answer = await _send(session, origin, method, path, content_type, data)
            if answer is not None:
                return answer
    url = URL(base + path, encoded=True)  # quoted already: not parsed again
    async with session.request(method, url, data=data, headers={"Content-Type": content_type},
                               proxy=proxy, proxy_auth=proxy_auth) as response:
        raw = await response.read()
    return Answer(method, response.url, response.status, response.reason,
                  response.headers), raw


async def _send(session: aiohttp.ClientSession, origin: _Origin, method: str, path: str,
                content_type: str, data: bytes) -> tuple[Answer, bytes] | None:
    """The request on a pooled connection, within the session's total timeout; None for a
    redirect (not followed here)."""
    timeout = session.timeout
    if not timeout.total:
        return await _exchange(session, origin, method, path, content_type, data)
    # asyncio.timeout's bookkeeping without its objects (a tenth of this request's CPU)
    task = asyncio.current_task()
    assert task is not None
    cancelling = task.cancelling()
    expired: list[bool] = []
    handle = asyncio.get_running_loop().call_later(timeout.total, _expire, task, expired)
    try:
        return await _exchange(session, origin, method, path, content_type, data)
    except asyncio.CancelledError:
        if expired and task.uncancel() <= cancelling:
            raise TimeoutError from None
        raise
    finally:
        handle.cancel()


def _expire(task: asyncio.Task[Any], expired: list[bool]) -> None:
    expired.append(True)
    task.cancel()


async def _exchange(session: aiohttp.ClientSession, origin: _Origin, method: str, path: str,
                    content_type: str, data: bytes) -> tuple[Answer, bytes] | None:
    target = origin.prefix + path
    head = (f"{method} {target} HTTP/1.1\r\n{origin.before}Content-Type: {content_type}\r\n"
            f"{origin.after}Content-Length: {len(data)}\r\n\r\n").encode()
    timeout = session.timeout
    connector = session.connector
    assert connector is not None
    try:
        conn = await connector.connect(origin.request, [], timeout)
    except TimeoutError as exc:
        raise aiohttp.ConnectionTimeoutError(
            f"Connection timeout to host {origin.request.url}") from exc
    try:
        protocol = conn.protocol
        assert protocol is not None
        protocol.set_response_params(**origin.params)
        transport = conn.transport
        if transport is None or transport.is_closing():
            raise aiohttp.ClientConnectionResetError("Cannot write to closing transport")
        transport.writelines((head, data))
        protocol.start_timeout()
        while True:
            try:
                message, payload = await protocol.read()
            except aiohttp.http.HttpProcessingError as exc:
                raise aiohttp.ClientResponseError(
                    aiohttp.RequestInfo(URL(origin.base + path, encoded=True),
                                        method, CIMultiDictProxy(CIMultiDict())),
                    (), status=exc.code, message=exc.message,
                    headers=exc.headers) from exc
            code = message.code
            if code < 100 or code > 199 or code == 101:
                break
        # (all here already, mostly: read without waiting, as read() would return it)
        raw = payload.read_nowait() if payload.is_eof() else await payload.read()
    except aiohttp.ClientError:
        conn.close()
        raise
    except OSError as exc:
        conn.close()
        if exc.errno is None and isinstance(exc, TimeoutError):
            raise
        raise aiohttp.ClientOSError(*exc.args) from exc
    except BaseException:
        conn.close()
        raise
    if transport.get_write_buffer_size():
        conn.close()  # answered before the body was all sent: not for another request
    else:
        conn.release()
    if code in (301, 302, 303, 307, 308) and message.headers.get("Location"):
        return None
    return Answer(method, origin.base + path, code, message.reason, message.headers), raw
