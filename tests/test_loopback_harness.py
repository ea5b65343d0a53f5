"""The loopback Discord harness, exercised with the demo bot as a real subprocess."""

from __future__ import annotations

import asyncio
import json
import sys

import aiohttp
import pytest

from loopback.fixtures import *  # noqa: F403  (the harness fixtures)
from loopback.fixtures import LoopbackTest
from loopback.limits import check_message_limits
from loopback.openapi import OpenApiValidator
from loopback.users import InteractionFailed

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")  # type: ignore[no-redef]
def loopback_bot_command() -> list[str]:
    return [sys.executable, "tests/loopback/demo_bot.py"]


def take_tracebacks_with(t: LoopbackTest, needle: str) -> list[str]:
    tbs = t.bot.take_tracebacks()
    assert tbs, "expected the bot to log a traceback"
    assert all(needle in tb for tb in tbs), tbs
    return tbs


async def wait_problems(t: LoopbackTest, kind: str, seconds: float = 3.0) -> list[object]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while loop.time() < deadline:
        found = t.discord.take_problems(kind)
        if found:
            return list(found)
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {kind} problem recorded")


# -- pure units (no bot) ---------------------------------------------------------------


async def test_openapi_validator_catches_26_options_and_long_content() -> None:
    v = OpenApiValidator.shared()
    path = "/api/v10/interactions/1/tok/callback"
    options = [{"label": str(i), "value": str(i)} for i in range(26)]
    body = {
        "type": 4,
        "data": {
            "content": "hi",
            "components": [
                {"type": 1, "components": [{"type": 3, "custom_id": "s", "options": options}]}
            ],
        },
    }
    errors = v.validate_body("POST", path, body)
    assert errors and "maxItems 25" in errors[0], errors
    assert v.validate_body("POST", path, {"type": 4, "data": {"content": "ok"}}) == []
    assert (
        "maxLength 2000"
        in v.validate_body("POST", path, {"type": 4, "data": {"content": "x" * 2001}})[0]
    )
    assert v.validate_query("POST", path, {"with_response": "maybe"})


async def test_limits_checker() -> None:
    six_buttons = [{"type": 2, "style": 1, "label": str(i), "custom_id": str(i)} for i in range(6)]
    issues = check_message_limits({"components": [{"type": 1, "components": six_buttons}]})
    assert any("6 buttons" in i for i in issues), issues
    assert check_message_limits({"content": "fine"}) == []


# -- with the demo bot -------------------------------------------------------------------


async def test_login_and_command_sync(loopback: LoopbackTest) -> None:
    d = loopback.discord
    assert d.identify_count >= 1
    cmds = d.commands_for(loopback.guild)
    demo = next(c for c in cmds if c["name"] == "demo")
    subs = {o["name"] for o in demo["options"]}
    assert {"ping", "secret", "pick", "whois", "play", "later", "slow", "counter"} <= subs
    assert demo["guild_id"] == str(loopback.guild.id) and int(demo["id"]) > 0
    called = {(m, p.split("?")[0]) for m, p, _ in d.requests}
    assert ("GET", "/api/v10/users/@me") in called
    assert ("GET", "/api/v10/oauth2/applications/@me") in called


async def test_public_reply(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    result = await alice.slash("demo ping")
    assert result.response_type == 4
    assert result.message is not None and result.message.content == "pong"
    assert not result.ephemeral
    assert [m.content for m in bob.sees()] == ["pong"]
    assert loopback.channel.messages == [result.message]
    assert result.message.payload()["author"]["bot"] is True


async def test_ephemeral_visible_only_to_its_user(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    result = await alice.slash("demo secret")
    assert result.ephemeral
    assert alice.latest_ephemeral().content == "the secret for alice is 42"
    assert alice.can_see("42")
    assert not bob.can_see("42") and bob.sees() == []
    assert loopback.channel.messages == []
    # ephemeral messages produce no gateway event
    session = loopback.discord.current_session
    assert session is not None
    sent = [f["d"].get("id") for f in session.buffer if f["t"] == "MESSAGE_CREATE"]
    assert result.message is not None and str(result.message.id) not in sent


async def test_buttons_and_select(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    picked = await alice.slash("demo pick")
    assert picked.message is not None
    assert picked.message.button_labels() == ["Red", "Blue"]

    red = await bob.click("Red")
    assert red.response_type == 4 and red.message is not None
    assert red.message.content == "bob clicked red"
    assert alice.can_see("bob clicked red")

    chosen = await alice.select("Wild")
    assert chosen.ephemeral and alice.latest_ephemeral().content == "you picked W"
    assert not bob.can_see("you picked W")

    blue = await bob.click("Blue")
    assert blue.response_type == 7 and blue.message is picked.message
    assert picked.message.content == "blue was clicked"
    with pytest.raises(AssertionError, match="disabled"):
        await alice.click("Blue")
    with pytest.raises(AssertionError, match="sees no button 'Green'"):
        await alice.click("Green")


async def test_autocomplete(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    choices = await alice.autocomplete("demo play", "card", "R")
    assert [c["value"] for c in choices] == ["R1", "R7"]
    result = await alice.slash("demo play", card="R7")
    assert result.text == "played R7"
    with pytest.raises(AssertionError, match="unknown option"):
        await alice.slash("demo play", colour="red")


async def test_user_option_with_resolved(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    result = await alice.slash("demo whois", user=bob)
    assert result.message is not None
    assert result.message.embeds[0]["title"] == "whois bob"
    assert f"id {bob.id}" in alice.sees_text()
    data = result.state.payload["data"]
    assert str(bob.id) in data["resolved"]["users"]


async def test_deferred_then_edit_original(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    result = await alice.slash("demo later")
    assert result.response_type == 5
    final = await result.wait_done()
    assert final.content == "done thinking" and not final.loading
    assert bob.can_see("done thinking")
    for _ in range(100):
        if result.followups:
            break
        await asyncio.sleep(0.02)
    assert [m.content for m in result.followups] == ["a followup"]
    assert alice.can_see("a followup") and not bob.can_see("a followup")


async def test_three_second_deadline(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    with pytest.raises(InteractionFailed, match="10062") as info:
        await alice.slash("demo slow")
    assert info.value.code == 10062
    assert loopback.discord.take_problems("late_ack", code=10062)
    await asyncio.sleep(0.3)  # let the bot log its NotFound
    take_tracebacks_with(loopback, "10062")
    assert alice.sees() == []


async def test_double_acknowledgement_rejected(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    result = await alice.slash("demo twice")
    assert result.text == "first"
    problems = await wait_problems(loopback, "double_ack")
    assert "40060" in str(problems[0])
    await asyncio.sleep(0.2)
    take_tracebacks_with(loopback, "40060")
    assert [m.content for m in alice.sees()] == ["first"]


async def test_invalid_body_is_caught(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    with pytest.raises(InteractionFailed, match="26") as info:
        await alice.slash("demo toomany")
    assert info.value.code == 50035
    problems = loopback.discord.take_problems(code=50035)
    assert any("maxItems 25" in str(p) or "26 options" in str(p) for p in problems), problems
    await asyncio.sleep(0.2)
    take_tracebacks_with(loopback, "50035")
    assert alice.sees() == []


async def test_channel_messages_and_rate_window(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    mark = loopback.channel.mark()
    await alice.slash("demo announce", times=3)
    msg = await loopback.channel.wait_for(lambda m: m.content == "announcement 3", after=mark)
    assert msg.author["id"] == str(loopback.discord.application_id)
    assert [m.content for m in loopback.channel.messages] == [
        "announcement 1",
        "announcement 2",
        "announcement 3",
    ]
    assert loopback.channel.max_writes_per_5s == 3
    with pytest.raises(AssertionError, match="no matching message"):
        await loopback.channel.wait_for(lambda m: "never" in m.content, timeout=0.2)


async def test_unknown_route_is_recorded(loopback: LoopbackTest) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.get(loopback.discord.api_base + "/users/@me") as resp:
            assert resp.headers["Content-Type"] == "application/json"
            assert (await resp.json())["id"] == str(loopback.discord.application_id)
        async with http.get(loopback.discord.api_base + "/no/such/route") as resp:
            assert resp.status == 404
            assert json.loads(await resp.text())["message"] == "404: Not Found"
    problems = loopback.discord.take_problems("unknown_route")
    assert len(problems) == 1 and "GET /no/such/route" in str(problems[0])


async def test_gateway_drop_and_resume(loopback: LoopbackTest) -> None:
    d = loopback.discord
    alice = loopback.member("alice")
    resumes, identifies = d.resume_count, d.identify_count
    await d.drop_gateway()
    assert d.resume_count == resumes + 1 and d.identify_count == identifies
    assert (await alice.slash("demo ping")).text == "pong"
    # an interaction sent while the bot is disconnected is replayed on RESUME
    await d.drop_gateway(wait_resume=None)
    result = await alice.slash("demo ping")
    assert result.text == "pong"
    assert d.resume_count == resumes + 2 and d.identify_count == identifies


async def test_kill_and_restart_persistent_button(loopback: LoopbackTest) -> None:
    alice, bob = loopback.member("alice"), loopback.member("bob")
    counter = await alice.slash("demo counter")
    assert counter.message is not None
    await bob.click("Count 0")
    assert counter.message.content == "count is 1"
    await loopback.bot.kill()
    assert not loopback.bot.running
    with pytest.raises(InteractionFailed, match="did not acknowledge"):
        await bob.click("Count 1", timeout=0.5)
    await loopback.bot.start()
    result = await bob.click("Count 1")
    assert result.response_type == 7 and result.message is counter.message
    assert counter.message.content == "count is 2"
    assert counter.message.button_labels() == ["Count 2"]


async def test_file_upload_multipart(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    result = await alice.slash("demo upload")
    assert result.message is not None and result.message.content == "here is a file"
    assert [a["filename"] for a in result.message.attachments] == ["hello.txt"]
    msg = await loopback.channel.wait_for(lambda m: m.content == "and another")
    assert [a["filename"] for a in msg.attachments] == ["x.txt"]


async def test_rate_limit_enforced_on_request(loopback: LoopbackTest) -> None:
    d = loopback.discord
    alice = loopback.member("alice")
    d.enforce_rate_limits = True
    try:
        await alice.slash("demo announce", times=6)
        await loopback.channel.wait_for(lambda m: m.content == "announcement 6", timeout=8)
    finally:
        d.enforce_rate_limits = False
    problems = d.take_problems("rate_limited")
    assert len(problems) == 1 and problems[0].code == 429
    assert [m.content for m in loopback.channel.messages][-1] == "announcement 6"
    assert len(loopback.channel.messages) == 6
