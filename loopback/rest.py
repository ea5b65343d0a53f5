"""REST plumbing of the loopback Discord: one call after routing (:class:`Request`), the route
table, Discord's JSON answers and error messages, and what every route module needs of the
server (:class:`RestServer`)."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from aiohttp import MultipartReader, web

from .encoding import dumps, loads
from .forms import FORM_DATA, FormPart, aiohttp_reader, content_kind, parse_form
from .records import Problem

API_PREFIX = "/api/v10"
JSON_HEADERS = {"Content-Type": "application/json"}

Handler = Callable[["Request"], Awaitable[web.StreamResponse]]


def json_response(data: Any, status: int = 200) -> web.Response:
    """A JSON response with ``Content-Type: application/json`` exactly (no charset)."""
    return web.Response(status=status, body=dumps(data), headers=JSON_HEADERS)


def error_response(status: int, code: int, message: str, errors: Any = None) -> web.Response:
    data: dict[str, Any] = {"message": message, "code": code}
    if errors:
        data["errors"] = errors
    return json_response(data, status)


def rate_limited_response(retry: float, *, global_: bool = False) -> web.Response:
    """A 429 as Discord sends it (body and rate-limit headers)."""
    headers = {
        **JSON_HEADERS,
        "Retry-After": str(max(1, int(retry + 0.999))),
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset-After": str(retry),
        "X-RateLimit-Bucket": "loopback",
        "X-RateLimit-Scope": "global" if global_ else "shared",
        "Via": "1.1 google",  # without it discord.py assumes a Cloudflare ban
    }
    if global_:
        headers["X-RateLimit-Global"] = "true"
    body = {"message": "You are being rate limited.", "retry_after": retry, "global": global_}
    return web.Response(status=429, body=dumps(body), headers=headers)


# the messages Discord sends with these JSON error codes
ERROR_MESSAGES = {
    0: "General error",
    10003: "Unknown Channel",
    10007: "Unknown Member",
    10008: "Unknown Message",
    10013: "Unknown User",
    10014: "Unknown Emoji",
    10015: "Unknown Webhook",
    10062: "Unknown interaction",
    40060: "Interaction has already been acknowledged.",
    30008: "Maximum number of emojis reached (2000)",
    50001: "Missing Access",
    50013: "Missing Permissions",
    50024: "Cannot execute action on this channel type",
    50035: "Invalid Form Body",
    50083: "Thread is archived",
    160004: "A thread has already been created for this message",
}
# statuses discord.py retries by itself (after 1 + 2 * tries seconds; 429 after retry_after)
RETRIED_STATUSES = {429, 500, 502, 504, 524}

UPLOADED_FILES = web.RequestKey("loopback_files", dict)
"""The bytes of the files a multipart request uploaded, by file name."""


@dataclass
class Request:
    """One REST call, after routing and body parsing."""

    method: str
    path: str
    template: str
    params: dict[str, str]
    query: dict[str, str]
    body: Any
    raw: web.Request


def uploaded_files(req: Request) -> dict[str, bytes]:
    """The files uploaded with ``req``, by file name (none for a JSON body)."""
    files: dict[str, bytes] = req.raw.get(UPLOADED_FILES) or {}
    return files


class Router:
    """The REST routes: (method, path template) -> handler."""

    def __init__(self) -> None:
        self.routes: list[tuple[str, re.Pattern[str], str, Handler]] = []
        self._by_start: dict[tuple[str, str], list[int]] = {}
        """The routes (by index) of a method whose template starts with a given segment
        (``channels``, ``webhooks``...): a path is matched against those alone."""
        self._any_start: dict[str, list[int]] = {}
        """The routes of a method whose template starts with a placeholder."""

    def route(self, method: str, template: str) -> Callable[[Handler], Handler]:
        pattern = "^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template)) + "$"

        def deco(fn: Handler) -> Handler:
            start = _first_segment(template)
            index = len(self.routes)
            self.routes.append((method, re.compile(pattern), template, fn))
            if start is None or "{" in start:
                self._any_start.setdefault(method, []).append(index)
            else:
                self._by_start.setdefault((method, start), []).append(index)
            return fn

        return deco

    def find(self, method: str, path: str) -> tuple[str, Handler | None, dict[str, str]]:
        """(template, handler, path parameters) of the route for ``path``: the one with the
        fewest placeholders when several match; ("", None, {}) for none."""
        start = _first_segment(path)
        if start is None:
            indexes: list[int] = list(range(len(self.routes)))
        else:
            indexes = sorted(self._by_start.get((method, start), [])
                             + self._any_start.get(method, []))
        candidates = []
        for i in indexes:
            meth, regex, tmpl, fn = self.routes[i]
            m = regex.match(path)
            if m and meth == method:
                candidates.append((tmpl.count("{"), tmpl, fn, m.groupdict()))
        if not candidates:
            return "", None, {}
        candidates.sort(key=lambda c: c[0])
        _, template, handler, params = candidates[0]
        return template, handler, params


def _first_segment(path: str) -> str | None:
    """``channels`` of ``/channels/1/messages`` (None: not a path that starts with ``/``)."""
    if not path.startswith("/"):
        return None
    return path.split("/", 2)[1]


async def read_body(request: web.Request) -> Any:
    """The JSON body (``payload_json`` of a multipart body, whose files are kept under
    ``UPLOADED_FILES``); ValueError when it is not JSON. The bodies the bot sends are read by
    ``forms`` (no email package); any other by aiohttp, as before."""
    if not request.can_read_body:
        return None
    kind = content_kind(request.headers.get("Content-Type"))
    ctype = kind[0] if kind is not None else request.content_type
    if ctype == FORM_DATA:
        return await _read_form(request, kind[1] if kind is not None else None)
    raw = await request.read()
    if not raw:
        return None
    try:
        return loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{request.method} {request.path}: body is not JSON: {exc}") from exc


async def _read_form(request: web.Request, boundary: str | None) -> Any:
    """``payload_json`` of a multipart/form-data body; its files under ``UPLOADED_FILES``.
    Each part is taken in turn as it is read (a bad ``payload_json`` is refused before a
    later malformed part is seen, as before)."""
    payload: Any = None
    files: dict[str, bytes] = {}

    def take(part: FormPart) -> None:
        nonlocal payload
        if part.name == "payload_json":
            payload = loads(part.data)
        elif part.name and part.name.startswith("files["):
            files[part.filename or part.name] = part.data

    reader: MultipartReader | None = None
    size = request.content_length
    if boundary is not None and size is not None and size <= request.client_max_size:
        raw = await request.read()
        parts = parse_form(raw, boundary)
        if parts is None:
            reader = aiohttp_reader(request, raw)
        else:
            for part in parts:
                take(part)
    else:
        reader = await request.multipart()
    if reader is not None:
        async for got in reader:
            if got is None:
                break
            name = getattr(got, "name", None)
            data = await got.read()  # type: ignore[union-attr]
            take(FormPart(name, getattr(got, "filename", None), bytes(data)))
    # the uploaded bytes, by file name, for the message they end up on
    request[UPLOADED_FILES] = files
    return payload


class RestServer(Protocol):
    """What every route module needs of the server (``server.LoopbackDiscord``)."""

    def route(self, method: str, template: str) -> Callable[[Handler], Handler]: ...

    def problem(
        self, kind: str, message: str, req: Request | None = None, code: int | None = None
    ) -> Problem: ...

    def refuse(
        self, req: Request, status: int, code: int, reason: str, detail: str = ""
    ) -> web.Response:
        """An error that is the bot's honest failure (kept in ``server.refused``)."""
        ...

    def reject(self, req: Request, kind: str, texts: list[str], code: int) -> None:
        """Record ``texts`` as problems of ``kind`` and fail the waiting interaction."""
        ...
