"""Injected faults: answers (``fail_next``) and delays (``delay_next``) that the loopback
Discord gives matching REST calls instead of handling them, as a test asks
(``server.fail_next``, ``server.delay_next``, ``server.clear_faults``)."""

from __future__ import annotations

import http
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web

from .rest import ERROR_MESSAGES, Request, error_response, rate_limited_response


def normalize_template(template: str) -> str:
    """A route template with its placeholders unnamed ("/channels/{}/messages")."""
    return re.sub(r"\{[^}]*\}", "{}", template.split("?")[0].rstrip("/"))


@dataclass
class Fault:
    """An injected answer (``status``) or delay (``delay``) for matching REST calls."""

    method: str | None
    match: str | Callable[[Request], bool]
    status: int = 0
    code: int | None = None
    message: str | None = None
    delay: float = 0.0
    retry_after: float = 1.0
    remaining: int = 1
    hits: list[Request] = field(default_factory=list)

    def matches(self, req: Request) -> bool:
        if self.remaining <= 0:
            return False
        if self.method not in (None, "*") and self.method.upper() != req.method:
            return False
        if callable(self.match):
            return bool(self.match(req))
        if "{" in self.match:
            return normalize_template(self.match) == normalize_template(req.template)
        return self.match.split("?")[0].rstrip("/") == req.path.rstrip("/")

    def text(self) -> str:
        if self.message is not None:
            return self.message
        if self.status == 429:
            return "You are being rate limited."
        if self.status >= 500:
            try:
                reason = http.HTTPStatus(self.status).phrase
            except ValueError:
                reason = "Server Error"
            return f"{self.status}: {reason}"
        return ERROR_MESSAGES.get(self.code or 0, "")

    def response(self) -> web.Response:
        if self.status == 429:
            return rate_limited_response(self.retry_after)
        return error_response(self.status, self.code or 0, self.text())


class FaultInjector:
    """The faults a test injected, in the order they were asked for."""

    def __init__(self) -> None:
        self.faults: list[Fault] = []

    def fail_next(
        self,
        method: str | None,
        route: str | Callable[[Request], bool],
        status: int,
        *,
        code: int | None = None,
        message: str | None = None,
        count: int = 1,
        retry_after: float = 1.0,
    ) -> Fault:
        """Answer the next ``count`` matching REST calls with ``status`` instead of handling
        them. ``route`` is a template ("/channels/{channel_id}/messages", placeholder names
        do not matter), a concrete path, or a predicate on the Request; ``method`` None or
        "*" matches any. Bodies are Discord's: ``{"code": code, "message": ...}`` (5xx:
        ``{"code": 0, "message": "500: Internal Server Error"}``; 429 with ``retry_after``)."""
        assert status >= 400, "fail_next takes an error status"
        fault = Fault(
            method, route, status, code, message, retry_after=retry_after, remaining=count
        )
        self.faults.append(fault)
        return fault

    def delay_next(
        self,
        method: str | None,
        route: str | Callable[[Request], bool],
        seconds: float,
        *,
        count: int = 1,
    ) -> Fault:
        """Hold the next ``count`` matching REST calls ``seconds`` before handling them
        (the delay counts towards the 3-second interaction deadline)."""
        fault = Fault(method, route, delay=seconds, remaining=count)
        self.faults.append(fault)
        return fault

    def clear(self) -> list[Fault]:
        """Drop the injected faults and delays; return those that were not used up."""
        pending = [f for f in self.faults if f.remaining > 0]
        self.faults = []
        return pending

    def next_for(self, req: Request, *, delay: bool) -> Fault | None:
        """The first fault (``delay``: the first delay) matching ``req``, used up by one."""
        for fault in self.faults:
            if (fault.delay > 0) == delay and fault.matches(req):
                fault.remaining -= 1
                fault.hits.append(req)
                return fault
        return None
