"""Starting and stopping the real bot process: no token opens the playground (and Ctrl-C or
SIGTERM closes it cleanly); bad settings get one clear paragraph and a non-zero exit; SIGTERM
closes cleanly."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from loopback.server import LoopbackDiscord
from settings import looks_like_token
from support.e2e import ROOT, fake_token, run_bot


def start_playground(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """``python bot.py`` with no token: the playground; returns the process and its URL."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DEV_GUILD"))}
    proc = subprocess.Popen([sys.executable, "bot.py"], cwd=ROOT, env={**base, **env},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not match:
        proc.kill()
        raise AssertionError(f"no playground URL in {line!r}; stderr: {proc.stderr.read()!r}")
    assert "No DISCORD_TOKEN set" in line and "real Discord" in line and "DISCORD_TOKEN" in line
    return proc, match.group(0)


def get_json(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as resp:
        data: dict[str, Any] = json.loads(resp.read())
        return data


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_missing_token_opens_the_playground_and_stops_cleanly(
        tmp_path: Path, sig: signal.Signals) -> None:
    real_db = tmp_path / "real.db"
    proc, url = start_playground({"DISCORD_TOKEN": "", "DATABASE_PATH": str(real_db),
                                  "PLAYGROUND_PORT": "0"})
    try:
        with urllib.request.urlopen(url + "/", timeout=10) as resp:
            assert "UNO Power Grab playground" in resp.read().decode()
        deadline = time.monotonic() + 30
        while True:  # the bot, in the same process, connects and syncs its commands
            state = get_json(url + "/ui/state?as=alice")
            if state["bot"]["online"] and state["commands"]:
                break
            assert time.monotonic() < deadline, f"the bot never came online: {state}"
            time.sleep(0.2)
        assert {"general", "uno-1", "uno-2"} <= {c["name"] for c in state["channels"]}
        assert {"alice", "bob"} <= {u["name"] for u in state["users"]}
        assert any(c["name"] == "uno" for c in state["commands"])
    finally:
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "The playground has stopped." in out
    assert "Traceback" not in err
    assert not real_db.exists(), "the playground never touches the real database"


def test_malformed_token_exits_2(tmp_path: Path) -> None:
    result = run_bot({"DISCORD_TOKEN": "not-a-token", "DATABASE_PATH": str(tmp_path / "x.db")})
    assert result.returncode == 2
    assert "does not look like a bot token" in result.stderr
    assert "not-a-token" not in result.stderr, "the token is never echoed"


def test_token_shape() -> None:
    assert looks_like_token(fake_token())
    assert not looks_like_token("abc.def")
    assert not looks_like_token("YWJj.def.ghi")  # first part is not a user id


def test_bad_log_level_is_a_clear_error(tmp_path: Path) -> None:
    result = run_bot({"DISCORD_TOKEN": fake_token(), "LOG_LEVEL": "LOUD",
                      "DATABASE_PATH": str(tmp_path / "x.db")})
    assert result.returncode == 2 and "LOG_LEVEL must be" in result.stderr


def test_a_bad_lag_limit_is_a_clear_error(tmp_path: Path) -> None:
    result = run_bot({"DISCORD_TOKEN": fake_token(), "UNO_MAX_LAG_MS": "fast",
                      "DATABASE_PATH": str(tmp_path / "x.db")})
    assert result.returncode == 2
    assert "UNO_MAX_LAG_MS must be a whole number" in result.stderr


def test_no_channel_writes_at_all_is_a_clear_error(tmp_path: Path) -> None:
    result = run_bot({"DISCORD_TOKEN": fake_token(), "UNO_CHANNEL_WRITES": "0",
                      "DATABASE_PATH": str(tmp_path / "x.db")})
    assert result.returncode == 2 and "UNO_CHANNEL_WRITES must be more than 0" in result.stderr


@pytest.mark.parametrize(("shards", "says"), [
    ({"SHARD_COUNT": "2", "SHARD_IDS": "5"},
     "SHARD_IDS=5 names shard 5, but SHARD_COUNT=2 numbers the shards 0 to 1."),
    ({"SHARD_COUNT": "two"}, "SHARD_COUNT must be a whole number of 1 or more, not 'two'."),
    ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be a whole number of 1 or more, not '0'."),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "3-1"}, "SHARD_IDS must be shard numbers and ranges"),
    ({"SHARD_COUNT": "4", "SHARD_IDS": "0,,1"}, "SHARD_IDS must be shard numbers and ranges"),
    ({"SHARD_IDS": "0-1"}, "SHARD_IDS=0-1 needs SHARD_COUNT"),
])
def test_bad_shard_settings_are_one_line_and_exit_2(
        tmp_path: Path, shards: dict[str, str], says: str) -> None:
    """Discord would close the connection with 4010 (invalid shard): the bot says what is
    wrong before connecting, in one line."""
    result = run_bot({"DISCORD_TOKEN": fake_token(), "DATABASE_PATH": str(tmp_path / "x.db"),
                      **shards})
    assert result.returncode == 2, result.stderr
    assert says in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_shard_ids_read_as_ranges_and_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    from settings import Config, parse_shard_ids

    assert parse_shard_ids("0-3") == (0, 1, 2, 3)
    assert parse_shard_ids("4,5") == (4, 5)
    assert parse_shard_ids(" 6, 0-1 ,1") == (0, 1, 6)
    assert parse_shard_ids("a") is None and parse_shard_ids("1-") is None
    monkeypatch.setenv("DISCORD_TOKEN", fake_token())
    monkeypatch.setenv("SHARD_COUNT", "8")
    monkeypatch.setenv("SHARD_IDS", "4-7")
    config = Config.from_env()
    assert config.shard_count == 8 and config.shard_ids == (4, 5, 6, 7)
    monkeypatch.delenv("SHARD_IDS")
    monkeypatch.delenv("SHARD_COUNT")
    config = Config.from_env()
    assert config.shard_count is None and config.shard_ids is None


def test_the_lag_limit_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from settings import Config, ConfigError

    monkeypatch.setenv("DISCORD_TOKEN", fake_token())
    monkeypatch.setenv("UNO_MAX_LAG_MS", "40")
    assert Config.from_env().max_lag_ms == 40
    monkeypatch.setenv("UNO_MAX_LAG_MS", "")
    assert Config.from_env().max_lag_ms == 100
    monkeypatch.setenv("UNO_MAX_LAG_MS", "²")  # a digit to str.isdigit, not to int()
    with pytest.raises(ConfigError, match="UNO_MAX_LAG_MS must be a whole number"):
        Config.from_env()


def test_the_table_bury_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """UNO_TABLE_BURY: messages below the table after which it is posted anew (8 unless
    set; a whole number)."""
    from settings import Config, ConfigError

    monkeypatch.setenv("DISCORD_TOKEN", fake_token())
    monkeypatch.setenv("UNO_TABLE_BURY", "")
    assert Config.from_env().table_bury == 8
    monkeypatch.setenv("UNO_TABLE_BURY", "20")
    assert Config.from_env().table_bury == 20
    monkeypatch.setenv("UNO_TABLE_BURY", "-1")
    with pytest.raises(ConfigError, match="UNO_TABLE_BURY must be a whole number"):
        Config.from_env()


def test_uvloop_runs_the_loop_when_installed_unless_turned_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """UNO_UVLOOP (on by default): uvloop's event loop when the package is there (a
    stand-in module here), asyncio's own when it is not or the setting is 0."""
    import types

    import bot
    from settings import Config

    monkeypatch.setenv("DISCORD_TOKEN", fake_token())
    monkeypatch.delenv("UNO_UVLOOP", raising=False)
    config = Config.from_env()
    assert config.uvloop
    made: list[asyncio.AbstractEventLoop] = []

    def new_event_loop() -> asyncio.AbstractEventLoop:
        made.append(asyncio.new_event_loop())
        return made[-1]

    stand_in = types.ModuleType("uvloop")
    stand_in.new_event_loop = new_event_loop  # type: ignore[attr-defined]
    stand_in.__version__ = "0"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "uvloop", stand_in)
    factory = bot.loop_factory(config)
    assert factory is not None
    with asyncio.Runner(loop_factory=factory) as runner:
        assert runner.run(asyncio.sleep(0, "ran")) == "ran"
    assert len(made) == 1
    monkeypatch.setenv("UNO_UVLOOP", "0")
    assert bot.loop_factory(Config.from_env()) is None
    monkeypatch.delenv("UNO_UVLOOP")
    monkeypatch.setitem(sys.modules, "uvloop", None)  # not installed: import fails
    assert bot.loop_factory(Config.from_env()) is None


@pytest.mark.asyncio
async def test_corrupt_database_exits_1_with_one_sentence(tmp_path: Path) -> None:
    db = tmp_path / "broken.db"
    db.write_bytes(b"this is not a database" * 100)
    async with LoopbackDiscord() as discord_:
        discord_.add_guild("Test")
        env = {**discord_.bot_env(), "DATABASE_PATH": str(db)}
        result = await asyncio.to_thread(run_bot, env)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "broken.db" in result.stderr


@pytest.mark.asyncio
async def test_sigterm_closes_cleanly(tmp_path: Path) -> None:
    async with LoopbackDiscord() as discord_:
        discord_.add_guild("Test")
        bot = await discord_.start_bot(env={"DATABASE_PATH": str(tmp_path / "bot.db")},
                                       cwd=ROOT)
        code = await bot.stop()
        assert code == 0
        assert "Closed cleanly" in bot.log_text()
        assert not bot.take_tracebacks()


async def test_the_bot_keeps_a_bounded_pool_of_http_connections() -> None:
    """After a restart every table's first click is answered at once: the answers share at
    most HTTP_CONNECTIONS connections (discord.py's default has no limit: one new connection,
    a TLS handshake against Discord, per answer in flight)."""
    from runtime.unobot import HTTP_CONNECTIONS, UnoBot
    from settings import Config

    config = Config(token=fake_token(), database_path=":memory:", dev_guild_id=None,
                    log_level="INFO", api_base=None, gateway_url=None, time_scale=1.0,
                    cpu_delay=1.5)
    bot = UnoBot(config)
    try:
        assert bot.http.connector.limit == HTTP_CONNECTIONS
        assert 0 < HTTP_CONNECTIONS <= 500
    finally:
        await bot.http.connector.close()
