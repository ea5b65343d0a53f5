"""Discord's rate limits, as the loopback Discord enforces them (``enforce_rate_limits``).

Discord does not publish exact per-route numbers: its documentation says not to hard-code
them and to read the ``X-RateLimit-*`` headers instead. The figures below are the ones
those headers commonly report.

Per-route limits (one bucket per route limit and top-level resource of the path):

=======================================================  ========================  =========
route                                                    bucket name               limit
=======================================================  ========================  =========
POST /channels/{channel_id}/messages                     channel-message-create    5 / 5 s
PATCH, DELETE /channels/{channel_id}/messages/{id}       channel-message-modify    5 / 5 s
POST /webhooks/{webhook_id}/{token},                     webhook                   5 / 2 s
PATCH, DELETE /webhooks/{webhook_id}/{token}/messages/…
POST /interactions/{interaction_id}/{token}/callback     interaction-callback      1 (*)
any other route                                          "METHOD /route"           50 / 1 s
=======================================================  ========================  =========

Global limit: 50 requests per second for the bot, over every route except the
interaction endpoints (``/interactions/{id}/{token}/callback`` and
``/webhooks/{application_id}/{interaction_token}…``), which Discord exempts.

Top-level resources: ``channel_id`` for ``/channels/{id}/…``, ``guild_id`` for
``/guilds/{id}/…``, webhook id + token for ``/webhooks/{id}/{token}/…`` (interaction
followups and @original edits: one bucket per interaction token), interaction id + token
for the callback. Buckets of different resources are independent.

(*) One callback per interaction: the second is answered 400 code 40060 by the callback
handler, so the limiter only counts callbacks. Their responses carry no rate-limit
headers: with ``X-RateLimit-Remaining: 0`` discord.py's webhook adapter would hold every
callback call for ``X-RateLimit-Reset-After`` seconds.

Each bucket is a fixed window, as the headers describe it: the window opens at the
bucket's first request, allows ``limit`` requests, and resets ``period`` seconds after it
opened. A refused request (429) consumes nothing.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limit:
    """``limit`` requests per ``period`` seconds. ``enforced`` False: only counted (no
    429, no headers)."""

    name: str
    limit: int
    period: float
    enforced: bool = True


CHANNEL_MESSAGE_CREATE = Limit("channel-message-create", 5, 5.0)
CHANNEL_MESSAGE_MODIFY = Limit("channel-message-modify", 5, 5.0)
WEBHOOK = Limit("webhook", 5, 2.0)
# a token lives 15 minutes; the handler refuses a second callback (40060)
INTERACTION_CALLBACK = Limit("interaction-callback", 1, 900.0, enforced=False)
GLOBAL = Limit("global", 50, 1.0)
DEFAULT_LIMIT = 50
DEFAULT_PERIOD = 1.0

ROUTE_LIMITS: dict[tuple[str, str], Limit] = {
    ("POST", "/channels/{channel_id}/messages"): CHANNEL_MESSAGE_CREATE,
    ("PATCH", "/channels/{channel_id}/messages/{message_id}"): CHANNEL_MESSAGE_MODIFY,
    ("DELETE", "/channels/{channel_id}/messages/{message_id}"): CHANNEL_MESSAGE_MODIFY,
    ("POST", "/webhooks/{webhook_id}/{webhook_token}"): WEBHOOK,
    ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"): WEBHOOK,
    ("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"): WEBHOOK,
    ("POST", "/interactions/{interaction_id}/{interaction_token}/callback"): INTERACTION_CALLBACK,
}

RATE_LIMITED_MESSAGE = "You are being rate limited."


def normalize(template: str) -> str:
    """A route template with its placeholder names dropped: ``/channels/{}/messages``."""
    return re.sub(r"\{[^}]*\}", "{}", template.rstrip("/"))


_LIMITS_BY_ROUTE = {(m, normalize(t)): limit for (m, t), limit in ROUTE_LIMITS.items()}
_RESOURCE = re.compile(
    r"^/(?:(?P<kind>channels|guilds)/(?P<id>[^/]+)"
    r"|webhooks/(?P<wid>[^/]+)(?:/(?P<wtoken>[^/]+))?"
    r"|interactions/(?P<iid>[^/]+)/(?P<itoken>[^/]+)/callback$)"
)


def top_level_resource(path: str) -> str:
    """The path's top-level resource ("channel 12", "webhook 3/tok", "" for none)."""
    m = _RESOURCE.match(path)
    if m is None:
        return ""
    if m["kind"]:
        return f"{m['kind'][:-1]} {m['id']}"
    if m["wid"]:
        return f"webhook {m['wid']}" + (f"/{m['wtoken']}" if m["wtoken"] else "")
    return f"interaction {m['iid']}/{m['itoken']}"


@functools.lru_cache(maxsize=1024)
def bucket_hash(name: str) -> str:
    """``X-RateLimit-Bucket``: opaque, stable per bucket name, without the resource."""
    return hashlib.sha256(f"loopback {name}".encode()).hexdigest()[:32]


def _ceil_ms(seconds: float) -> float:
    """Rounded up to the millisecond, so that waiting that long is always enough."""
    return math.ceil(seconds * 1000 - 1e-6) / 1000


@dataclass
class Window:
    """A fixed window: opens at the first request, resets ``period`` s after it opened."""

    limit: int
    period: float
    opened: float | None = None
    used: int = 0

    def current(self, now: float) -> tuple[float, int]:
        """(opened, used) as of ``now``: a window that has run out counts as new."""
        if self.opened is None or now >= self.opened + self.period:
            return now, 0
        return self.opened, self.used

    def take(self, now: float) -> None:
        opened, used = self.current(now)
        self.opened, self.used = opened, used + 1


@dataclass(frozen=True)
class Decision:
    """The limiter's answer for one request (the server keeps the refused ones).

    ``scope`` is None when allowed, "user" for a per-route 429, "global" for the global
    limit. ``limit`` is None for a bucket that sends no headers (the callback)."""

    method: str
    path: str
    route: str
    bucket: str
    resource: str
    at: float
    limit: int | None
    remaining: int
    reset: float
    reset_after: float
    scope: str | None = None
    retry_after: float = 0.0

    @property
    def allowed(self) -> bool:
        return self.scope is None

    def headers(self) -> dict[str, str]:
        """The rate-limit headers of the response (on a 429 also Retry-After, Scope)."""
        headers: dict[str, str] = {}
        if self.scope == "global":
            # as Discord's example of an exceeded global limit: no route headers
            return {
                "Retry-After": str(math.ceil(self.retry_after)),
                "X-RateLimit-Global": "true",
                "X-RateLimit-Scope": "global",
            }
        if self.limit is not None:
            headers = {
                "X-RateLimit-Limit": str(self.limit),
                "X-RateLimit-Remaining": str(self.remaining),
                "X-RateLimit-Reset": f"{self.reset:.3f}",
                "X-RateLimit-Reset-After": f"{self.reset_after:.3f}",
                "X-RateLimit-Bucket": bucket_hash(self.bucket),
            }
        if self.scope is not None:
            headers["Retry-After"] = str(math.ceil(self.retry_after))
            headers["X-RateLimit-Scope"] = self.scope
        return headers

    def body(self) -> dict[str, Any]:
        """The JSON body of the 429."""
        return {
            "message": RATE_LIMITED_MESSAGE,
            "retry_after": self.retry_after,
            "global": self.scope == "global",
        }


class RateLimiter:
    """Buckets, the global window and request counts for one bot.

    ``requests`` counts every request per bucket name, ``routes`` per "METHOD /route"
    (both also when refused, and through :meth:`count` when nothing is enforced).
    ``clock`` gives epoch seconds (``X-RateLimit-Reset`` is the window's end on it)."""

    def __init__(
        self, application_id: int | str, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.application_id = str(application_id)
        self.clock = clock
        self.requests: Counter[str] = Counter()
        self.routes: Counter[str] = Counter()
        self._global = Window(GLOBAL.limit, GLOBAL.period)
        self._windows: dict[tuple[str, str], Window] = {}

    @staticmethod
    def limit_for(method: str, template: str) -> Limit:
        """The route's limit from ``ROUTE_LIMITS``, else the default one of that route."""
        found = _LIMITS_BY_ROUTE.get((method, normalize(template)))
        if found is not None:
            return found
        return Limit(f"{method} {template}", DEFAULT_LIMIT, DEFAULT_PERIOD)

    def is_interaction_endpoint(self, path: str) -> bool:
        """Exempt from the global limit: the callback, and webhooks of the application."""
        parts = path.strip("/").split("/")
        if parts[0] == "interactions":
            return parts[-1] == "callback"
        return parts[0] == "webhooks" and len(parts) >= 3 and parts[1] == self.application_id

    def count(self, method: str, path: str, template: str) -> Limit:
        """Count a request without deciding it (rate limits not enforced)."""
        limit = self.limit_for(method, template)
        self.requests[limit.name] += 1
        self.routes[f"{method} {template}"] += 1
        return limit

    def check(self, method: str, path: str, template: str) -> Decision:
        """Count a request and decide it; an allowed one uses up one request of its
        bucket and of the global window, a refused one nothing."""
        now = self.clock()
        limit = self.count(method, path, template)
        resource = top_level_resource(path)
        window = self._windows.setdefault((limit.name, resource), Window(limit.limit, limit.period))
        opened, used = window.current(now)
        reset = opened + limit.period
        decision = Decision(
            method=method,
            path=path,
            route=f"{method} {template}",
            bucket=limit.name,
            resource=resource,
            at=now,
            limit=limit.limit if limit.enforced else None,
            remaining=max(0, limit.limit - used - 1),
            reset=reset,
            reset_after=_ceil_ms(reset - now),
        )
        global_bound = not self.is_interaction_endpoint(path)
        if global_bound:
            g_opened, g_used = self._global.current(now)
            if g_used >= GLOBAL.limit:
                g_reset = g_opened + GLOBAL.period
                retry = _ceil_ms(g_reset - now)
                log.debug("global rate limit: %s %s, retry after %.3f s", method, path, retry)
                return replace(
                    decision,
                    remaining=0,
                    reset=g_reset,
                    reset_after=retry,
                    scope="global",
                    retry_after=retry,
                )
        if limit.enforced and used >= limit.limit:
            log.debug(
                "rate limit %s (%s): %s %s, retry after %.3f s",
                limit.name,
                resource,
                method,
                path,
                decision.reset_after,
            )
            return replace(decision, remaining=0, scope="user", retry_after=decision.reset_after)
        window.take(now)
        if global_bound:
            self._global.take(now)
        return decision
