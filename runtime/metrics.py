"""What the bot counts for its operators: one :class:`Metrics` per bot, with a Prometheus
registry of its own (never prometheus_client's global one), read by ``/metrics``
(runtime/monitor.py). Off unless ``METRICS_PORT`` is set: the bot then has a
:class:`Counts`, whose methods do nothing, so the places that count cost a method call.

The places that count call one method each, named for what happened:

- ``_reply.answer`` (cogs/uno/_reply.py): an interaction's kind and outcome
  (:meth:`Counts.interaction`) and how old it was when its acknowledgement went out
  (:meth:`Counts.acked`);
- ``Tables.commit`` (cogs/uno/table/tables.py): the moves saved, a save and a failed save;
- ``Autoplay`` (cogs/uno/table/autoplay.py): a computer player's think time, by level;
- runtime/monitor.py: the event loop's lag, each shard's gateway latency, Discord's 429s
  by route (from discord.py's own warning), the games open (asked of the cog at each
  scrape through :meth:`Counts.count_games`).

No Discord here, nor aiohttp: the tables (floor 3, which know no Discord) count through it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

ACK_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0)
"""Seconds from an interaction's creation to its acknowledgement: Discord's limit is 3,
and an answer not ready at 1.5 s is deferred (``_reply.DEFER_AFTER``)."""
LAG_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
THINK_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

OUTCOMES = ("answered", "refused", "busy", "late", "failed")
"""An interaction's outcome: answered; refused (a rule, a stale button: one sentence);
busy (the bot past capacity said so at once); late (its answer could not reach Discord in
time); failed (a bug: logged, "something went wrong")."""

_SNOWFLAKE = re.compile(r"/\d{15,21}(?=/|$)")
_TOKEN = re.compile(r"/(interactions|webhooks)/(\{id\})/[^/?]+")


def route_of(url: str) -> str:
    """Discord's route of a request ``url``, its ids and tokens taken out (a metric's label
    must come from a small set): ``https://discord.com/api/v10/channels/123.../messages`` ->
    ``/channels/{id}/messages``; an interaction's or a webhook's token -> ``{token}``."""
    path = url.split("?", 1)[0]
    api = path.find("/api/")
    if api >= 0:
        path = path[api + len("/api/"):]
        path = path[path.find("/"):] if path.startswith("v") and "/" in path else "/" + path
    path = _SNOWFLAKE.sub("/{id}", path)
    return _TOKEN.sub(r"/\1/\2/{token}", path)


class Counts:
    """The counting interface, doing nothing (metrics off: METRICS_PORT unset)."""

    registry: CollectorRegistry | None = None

    def interaction(self, kind: str, outcome: str) -> None:
        """An interaction handled: its kind (``component``, ``application_command``...)
        and its outcome (``OUTCOMES``)."""

    def acked(self, seconds: float) -> None:
        """An interaction acknowledged ``seconds`` after Discord created it."""

    def moved(self, moves: int) -> None:
        """``moves`` moves saved (a player's, a computer's, a timeout's)."""

    def saved(self, ok: bool) -> None:
        """A game's save (or its result's) written, or failed (the change undone)."""

    def rate_limited(self, route: str) -> None:
        """Discord answered 429 on ``route`` (discord.py waits and tries again)."""

    def thought(self, level: str, seconds: float) -> None:
        """A computer player of ``level`` chose its move in ``seconds``."""

    def lag(self, seconds: float) -> None:
        """The event loop ran a tick ``seconds`` late."""

    def count_games(self, count: Callable[[], Mapping[str, int]]) -> None:
        """``count()`` says how many tables are open, by state (``lobby``, ``game``)."""

    def gateway(self, latencies: Callable[[], Iterable[tuple[int, float]]]) -> None:
        """``latencies()`` gives each shard's heartbeat round trip in seconds."""

    def exposition(self) -> bytes:
        """The text ``/metrics`` serves."""
        return b""


class Metrics(Counts):
    """The counts, in a Prometheus registry of this bot's own."""

    def __init__(self) -> None:
        # no ``*_created`` sample beside every counter and histogram (half the text, read
        # by nobody: Prometheus notices a restart by a counter going down)
        disable_created_metrics()  # type: ignore[no-untyped-call]
        registry = CollectorRegistry(auto_describe=True)
        self.registry = registry
        self._registry = registry
        self._interactions = Counter(
            "uno_interactions", "Interactions handled, by kind and outcome",
            ("kind", "outcome"), registry=registry)
        self._ack = Histogram(
            "uno_ack_seconds", "Seconds from an interaction's creation to its acknowledgement",
            buckets=ACK_BUCKETS, registry=registry)
        self._moves = Counter("uno_moves", "Moves saved", registry=registry)
        self._saves = Counter("uno_saves", "Saves of a game (or its result), by outcome",
                              ("outcome",), registry=registry)
        self._limited = Counter("uno_discord_rate_limited",
                                "Discord's 429 answers, by route", ("route",),
                                registry=registry)
        self._think = Histogram("uno_cpu_think_seconds",
                                "Seconds a computer player took to choose its move, by level",
                                ("level",), buckets=THINK_BUCKETS, registry=registry)
        self._lag = Histogram("uno_event_loop_lag_seconds",
                              "How late the event loop ran a tick due every 0.25 s",
                              buckets=LAG_BUCKETS, registry=registry)
        self._lag_now = Gauge("uno_event_loop_lag_last_seconds",
                              "How late the event loop ran its last tick", registry=registry)
        # (children looked up once: ``labels()`` costs more than the count itself)
        self._saved, self._failed = self._saves.labels("saved"), self._saves.labels("failed")
        self._kinds: dict[tuple[str, str], Counter] = {}
        self._games: Callable[[], Mapping[str, int]] | None = None
        self._latencies: Callable[[], Iterable[tuple[int, float]]] | None = None
        registry.register(_Asked(self))

    def interaction(self, kind: str, outcome: str) -> None:
        child = self._kinds.get((kind, outcome))
        if child is None:
            child = self._kinds[kind, outcome] = self._interactions.labels(kind, outcome)
        child.inc()

    def acked(self, seconds: float) -> None:
        self._ack.observe(seconds)

    def moved(self, moves: int) -> None:
        self._moves.inc(moves)

    def saved(self, ok: bool) -> None:
        (self._saved if ok else self._failed).inc()

    def rate_limited(self, route: str) -> None:
        self._limited.labels(route).inc()

    def thought(self, level: str, seconds: float) -> None:
        self._think.labels(level).observe(seconds)

    def lag(self, seconds: float) -> None:
        self._lag.observe(seconds)
        self._lag_now.set(seconds)

    def count_games(self, count: Callable[[], Mapping[str, int]]) -> None:
        self._games = count

    def gateway(self, latencies: Callable[[], Iterable[tuple[int, float]]]) -> None:
        self._latencies = latencies

    def exposition(self) -> bytes:
        return generate_latest(self._registry)

    def asked(self) -> Iterable[GaugeMetricFamily]:
        """The gauges read when scraped: the tables open, each shard's latency."""
        games = GaugeMetricFamily("uno_tables_open", "Tables open in this process, by state",
                                  labels=("state",))
        for state, n in sorted((self._games() if self._games else {}).items()):
            games.add_metric((state,), n)
        yield games
        latency = GaugeMetricFamily("uno_gateway_latency_seconds",
                                    "Each shard's heartbeat round trip", labels=("shard",))
        for shard, seconds in (self._latencies() if self._latencies else ()):
            if seconds == seconds and seconds != float("inf"):  # not NaN: no heartbeat yet
                latency.add_metric((str(shard),), seconds)
        yield latency


class _Asked(Collector):
    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterable[GaugeMetricFamily]:
        return self.metrics.asked()


def metrics_of(bot: object) -> Counts:
    """The bot's counts (``UnoBot.metrics``), or counts that do nothing for anything else
    (a test's client)."""
    counts = getattr(bot, "metrics", None)
    return counts if isinstance(counts, Counts) else NO_COUNTS


NO_COUNTS = Counts()
