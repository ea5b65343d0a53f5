"""End to end: what an admin's tooling reads of the real bot. ``/metrics`` and ``/healthz``
on their own port (METRICS_PORT) scraped while a game is played against the loopback
Discord: the numbers move as the game does; /healthz says 503 and why when the database
file is gone or the gateway is out of reach, and 200 again once it is back. The bot logs in
JSON (LOG_FORMAT=json): every line one object, a failed save's line names its game, and
the token is never written.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import sys
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest

from loopback.fixtures import LoopbackTest
from support.e2e import FAST_ENV, ROOT, db_of
from support.games import install, scenario_session
from support.tables import LONG_TURNS

ANSWERED = 'uno_interactions_total{kind="%s",outcome="%s"}'
NOT_SAVED = "couldn't be saved, so nothing changed"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


PORT = free_port()
BASE = f"http://127.0.0.1:{PORT}"

pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV, METRICS_PORT=str(PORT),
                                  METRICS_HOST="127.0.0.1", LOG_FORMAT="json")]


async def get(path: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, http.get(BASE + path) as r:
        return r.status, await r.text()


def sample(text: str, name: str) -> float:
    """The value of the sample ``name`` (with its labels) in a scrape; 0 when absent."""
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


async def health_until(ok: Callable[[int, str], bool], what: str) -> tuple[int, str]:
    for _ in range(200):
        status, body = await get("/healthz")
        if ok(status, body):
            return status, body
        await asyncio.sleep(0.1)
    raise AssertionError(f"/healthz never said {what}: {status} {body!r}")


async def started_game(loopback: LoopbackTest) -> tuple[str, str]:
    """Alice to move with R3 (Bob next): installed, the bot restarted; the game's id and
    the database file."""
    alice, bob = loopback.member("alice"), loopback.member("bob")
    session = scenario_session(loopback.channel, [alice, bob],
                               hands={alice: "R3 R4 B4", bob: "R6 G7 G1"}, discard="R9",
                               draw="Y1 Y2 Y3 Y4", turn=alice, options=LONG_TURNS)
    db = db_of(loopback)
    await install(db, session)
    await loopback.bot.restart()
    await loopback.channel.wait_for(lambda m: "goes on" in m.text(), timeout=10)
    return session.game_id, db


async def test_the_numbers_move_as_the_game_does(loopback: LoopbackTest) -> None:
    """A play and a refusal are counted by kind and outcome with their acknowledgement's
    age, the move and its save too; the table is open; a 429 Discord answered is counted
    (discord.py's webhook adapter names no route: under the webhooks'); /healthz says ok."""
    await started_game(loopback)
    alice = loopback.member("alice")
    await health_until(lambda status, body: status == 200, "200")
    status, body = await get("/healthz")
    assert (status, body) == (200, "ok\n")
    _, before = await get("/metrics")
    assert sample(before, 'uno_tables_open{state="game"}') >= 1, before

    # the play's answer meets one 429 first (discord.py waits 0.2 s and sends it again)
    loopback.discord.fail_next("POST", "/interactions/{id}/{token}/callback", 429,
                               retry_after=0.2)
    r = await alice.slash("uno play", card="R3")
    assert NOT_SAVED not in r.text and "not your turn" not in r.text.lower(), r.text
    refused = await alice.slash("uno play", card="R4")  # Bob's turn now
    assert refused.ephemeral, refused.text

    _, after = await get("/metrics")
    command = ANSWERED % ("application_command", "%s")
    assert sample(after, command % "answered") == sample(before, command % "answered") + 1
    assert sample(after, command % "refused") == sample(before, command % "refused") + 1
    assert sample(after, "uno_moves_total") == sample(before, "uno_moves_total") + 1, after
    assert sample(after, 'uno_saves_total{outcome="saved"}') > \
        sample(before, 'uno_saves_total{outcome="saved"}')
    assert sample(after, "uno_ack_seconds_count") >= sample(before, "uno_ack_seconds_count") + 2
    assert sample(after, 'uno_ack_seconds_bucket{le="3.0"}') >= 2
    assert sample(after, 'uno_discord_rate_limited_total{route='
                  '"/webhooks/{id}/{token}"}') == 1, after
    assert sample(after, "uno_event_loop_lag_seconds_count") > 0
    assert "# TYPE uno_gateway_latency_seconds gauge" in after
    assert "# TYPE uno_cpu_think_seconds histogram" in after


async def test_healthz_says_what_is_wrong_until_it_is_put_right(
        loopback: LoopbackTest) -> None:
    """The database file moved away: 503 naming it, a move refused as not saved (a failed
    save counted; its JSON log line names the game); put back: 200. The gateway out of
    reach: 503 naming the shard; back: 200."""
    game_id, db = await started_game(loopback)
    alice = loopback.member("alice")
    _, before = await get("/metrics")
    os.rename(db, db + ".away")
    try:
        _, body = await health_until(lambda s, b: s == 503, "503")
        assert "deleted or replaced" in body and "database" in body, body
        r = await alice.slash("uno play", card="R3")
        assert NOT_SAVED in r.text, r.text
    finally:
        os.rename(db + ".away", db)
    await health_until(lambda s, b: s == 200, "200 once the file is back")
    _, after = await get("/metrics")
    failed = 'uno_saves_total{outcome="failed"}'
    assert sample(after, failed) == sample(before, failed) + 1, after
    assert sample(after, "uno_moves_total") == sample(before, "uno_moves_total")
    lines = [json.loads(line) for line in loopback.bot.log_text().splitlines()
             if line.startswith("{")]
    saving = [x for x in lines if x["message"].startswith("Saving the game in channel")]
    assert saving and saving[-1]["game"] == game_id and saving[-1]["level"] == "WARNING", \
        saving

    gateway = loopback.discord.gateway
    gateway.refusing = True
    try:
        await loopback.discord.drop_gateway(wait_resume=None)
        _, body = await health_until(lambda s, b: s == 503, "503")
        assert re.search(r"shard 0 not connected", body), body
    finally:
        gateway.refusing = False
    await health_until(lambda s, b: s == 200, "200 once the gateway is back")
    loopback.bot.take_tracebacks()  # discord.py logs each refused reconnection's traceback


async def test_the_log_is_json_lines_without_the_token(loopback: LoopbackTest) -> None:
    """Every line the bot wrote (three starts, games, the faults of the tests above: run
    after them) is one JSON object with the time, level, logger and message; an
    exception's text is in ``exception``; the token appears nowhere."""
    text = loopback.bot.log_text()
    token = loopback.discord.token
    assert token and token not in text
    lines = [line for line in text.splitlines() if line and not line.startswith("=====")]
    assert len(lines) > 20
    for line in lines:
        record = json.loads(line)  # (fails on any line that is not JSON)
        assert {"time", "level", "logger", "message"} <= record.keys(), record
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record["time"])
    records = [json.loads(line) for line in lines]
    assert any("Traceback" in r.get("exception", "") for r in records), \
        "the refused reconnections' tracebacks are in exception"
    assert any(r["logger"] == "runtime.monitor" for r in records)


async def test_a_port_in_use_is_one_sentence_and_exit_1(loopback: LoopbackTest,
                                                       tmp_path: Path) -> None:
    """A second bot asked for the port the first one serves: it says so in one sentence
    (no traceback) and exits 1."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
    env.update(loopback.discord.bot_env())
    env.update({"DATABASE_PATH": str(tmp_path / "second.db"), "METRICS_PORT": str(PORT),
                "METRICS_HOST": "127.0.0.1", "UNO_CARD_EMOJIS": "0"})
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "bot.py", cwd=ROOT, env=env, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    _out, err = await asyncio.wait_for(proc.communicate(), 60)
    text = err.decode()
    assert proc.returncode == 1, text
    assert f"could not listen on 127.0.0.1:{PORT}" in text and "METRICS_PORT" in text, text
    assert "Traceback" not in text, text
    status, _ = await get("/healthz")
    assert status == 200, "the first bot serves on"
