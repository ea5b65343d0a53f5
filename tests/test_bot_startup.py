"""Starting and stopping the real bot process: missing or bad settings get one clear
paragraph and a non-zero exit; SIGTERM closes cleanly."""

from __future__ import annotations

import asyncio
import base64
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from bot import looks_like_token
from loopback.server import LoopbackDiscord

ROOT = Path(__file__).resolve().parents[1]


def run_bot(env: dict[str, str], timeout: float = 30) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DEV_GUILD"))}
    return subprocess.run([sys.executable, "bot.py"], cwd=ROOT, env={**base, **env},
                          capture_output=True, text=True, timeout=timeout, check=False)


def fake_token() -> str:
    first = base64.urlsafe_b64encode(b"123456789012345678").decode().rstrip("=")
    return f"{first}.{secrets.token_urlsafe(5)}.{secrets.token_urlsafe(27)}"


def test_missing_token_exits_2_with_where_to_get_one(tmp_path: Path) -> None:
    result = run_bot({"DISCORD_TOKEN": "", "DATABASE_PATH": str(tmp_path / "x.db")})
    assert result.returncode == 2
    assert "DISCORD_TOKEN is not set" in result.stderr
    assert "Developer Portal" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "x.db").exists(), "nothing is created before the settings are good"


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
