"""runtime/metrics.py, runtime/monitor.py's 429 counter and runtime/logs.py, without a bot:
the route a 429 is counted under (from the warning discord.py logs), the JSON log line,
and the settings that turn them on. The bot's own endpoints, scraped during a game, are
tests/e2e/test_metrics.py."""

from __future__ import annotations

import json
import logging
import sys

import pytest

from runtime.logs import JsonFormatter, about
from runtime.metrics import Metrics, route_of
from runtime.monitor import RateLimitCounter
from settings import Config, ConfigError
from support.e2e import fake_token

TOKEN = fake_token()
"""A token of the right shape, made up at each run (none is ever committed)."""


@pytest.mark.parametrize(("url", "route"), [
    ("https://discord.com/api/v10/channels/1577560086916628495/messages",
     "/channels/{id}/messages"),
    ("https://discord.com/api/v10/channels/1577560086916628495/messages/1577560086916628496",
     "/channels/{id}/messages/{id}"),
    ("http://127.0.0.1:8080/api/v10/interactions/1577560086916628495/aW50ZXJhY3Rpb246/callback"
     "?with_response=true", "/interactions/{id}/{token}/callback"),
    ("https://discord.com/api/v10/webhooks/1577560086916628495/aW50ZXJhY3Rpb246/messages/"
     "@original", "/webhooks/{id}/{token}/messages/@original"),
    ("https://discord.com/api/v10/applications/1577560086916628495/emojis",
     "/applications/{id}/emojis"),
])
def test_a_route_has_no_ids_nor_tokens(url: str, route: str) -> None:
    assert route_of(url) == route


def test_discord_py_429_warnings_are_counted_by_route() -> None:
    """The warnings as discord.py's HTTP client and webhook adapter log them (their
    formats, discord/http.py and discord/webhook/async_.py), through their loggers."""
    metrics = Metrics()
    counter = RateLimitCounter(metrics)
    http, webhook = logging.getLogger("discord.http"), logging.getLogger("discord.webhook.async_")
    http.addFilter(counter)
    webhook.addFilter(counter)
    try:
        for _ in range(2):
            http.warning("We are being rate limited. %s %s responded with 429. Retrying in "
                         "%.2f seconds.", "POST",
                         "https://discord.com/api/v10/channels/1577560086916628495/messages",
                         0.5)
        webhook.warning("Webhook ID %s is rate limited. Retrying in %.2f seconds.",
                        1577560086916628495, 0.2)
        http.warning("Global rate limit has been hit. Retrying in %.2f seconds.", 1.0)
    finally:
        http.removeFilter(counter)
        webhook.removeFilter(counter)
    text = metrics.exposition().decode()
    assert 'uno_discord_rate_limited_total{route="/channels/{id}/messages"} 2.0' in text
    assert 'uno_discord_rate_limited_total{route="/webhooks/{id}/{token}"} 1.0' in text
    assert text.count("uno_discord_rate_limited_total{") == 2, text


def test_each_bot_counts_in_a_registry_of_its_own() -> None:
    one, two = Metrics(), Metrics()
    one.moved(3)
    assert "uno_moves_total 3.0" in one.exposition().decode()
    assert "uno_moves_total 0.0" in two.exposition().decode()


def record(msg: str, *args: object, exc: bool = False) -> logging.LogRecord:
    info = None
    if exc:
        try:
            raise ValueError("boom")
        except ValueError:
            info = sys.exc_info()
    return logging.LogRecord("cogs.uno.table.tables", logging.WARNING, __file__, 1, msg,
                             args, info)


def test_a_json_line_has_its_fields_and_the_game_it_is_about() -> None:
    formatter = JsonFormatter()
    plain = json.loads(formatter.format(record("Saving the game in channel %s failed", 42)))
    assert plain["message"] == "Saving the game in channel 42 failed"
    assert (plain["level"], plain["logger"]) == ("WARNING", "cogs.uno.table.tables")
    assert "game" not in plain and "shard" not in plain and "exception" not in plain
    with about(game="ab12cd34ef56", shard=3):
        line = formatter.format(record("It failed", exc=True))
    assert "\n" not in line
    parsed = json.loads(line)
    assert (parsed["game"], parsed["shard"]) == ("ab12cd34ef56", 3)
    assert parsed["exception"].startswith("Traceback") and "ValueError: boom" in \
        parsed["exception"]
    after = json.loads(formatter.format(record("after")))
    assert "game" not in after, "the context ends with its block"


def test_the_settings_turn_them_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", TOKEN)
    for name in ("METRICS_PORT", "METRICS_HOST", "LOG_FORMAT"):
        monkeypatch.delenv(name, raising=False)
    config = Config.from_env()
    assert (config.metrics_port, config.log_format) == (None, "text")
    monkeypatch.setenv("METRICS_PORT", "9150")
    monkeypatch.setenv("LOG_FORMAT", "JSON")
    config = Config.from_env()
    assert (config.metrics_port, config.metrics_host, config.log_format) == \
        (9150, "0.0.0.0", "json")
    for name, value, said in (("METRICS_PORT", "70000", "port number from 1 to 65535"),
                              ("METRICS_PORT", "x", "port number"),
                              ("LOG_FORMAT", "xml", "text or json")):
        monkeypatch.setenv("METRICS_PORT", "9150")
        monkeypatch.setenv("LOG_FORMAT", "text")
        monkeypatch.setenv(name, value)
        with pytest.raises(ConfigError, match=said):
            Config.from_env()
