"""The loopback Discord harness, exercised with the demo bot as a real subprocess."""

from __future__ import annotations

import asyncio
import json
import sys

import aiohttp
import discord
import pytest

from loopback.fixtures import LoopbackTest
from loopback.limits import check_message_limits
from loopback.openapi import OpenApiValidator
from loopback.users import InteractionFailed

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")  # type: ignore[no-redef]
def loopback_bot_command() -> list[str]:
    return [sys.executable, "loopback/demo_bot.py"]


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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
async def test_rate_limit_enforced_on_request(loopback: LoopbackTest) -> None:
    """Switched on for a running bot: discord.py reads the X-RateLimit-* headers of its
    channel posts and waits out the 5-per-5-s bucket instead of running into a 429."""
    d = loopback.discord
    alice = loopback.member("alice")
    loop = asyncio.get_running_loop()
    d.enforce_rate_limits = True
    try:
        started = loop.time()
        await alice.slash("demo announce", times=6)
        await loopback.channel.wait_for(lambda m: m.content == "announcement 6", timeout=8)
        elapsed = loop.time() - started
    finally:
        d.enforce_rate_limits = False
    assert d.rate_limited == [] and d.take_problems("rate_limited") == []
    assert elapsed >= 4.9, elapsed
    assert [m.content for m in loopback.channel.messages] == [
        f"announcement {i}" for i in range(1, 7)
    ]
    assert loopback.channel.max_writes_per_5s == 5


# -- permission overwrites, refusals, deleted channels, injected faults ----------------


async def rest(
    t: LoopbackTest, method: str, path: str, body: dict[str, object] | None = None
) -> tuple[int, object]:
    """A REST call as the bot would make it, straight to the loopback server."""
    headers = {"Authorization": f"Bot {t.discord.token}"}
    url = t.discord.api_base + path
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, url, json=body, headers=headers) as resp,
    ):
        text = await resp.text()
        return resp.status, (json.loads(text) if text else None)


def gateway_events(t: LoopbackTest, name: str) -> list[dict[str, object]]:
    session = t.discord.current_session
    assert session is not None
    return [f["d"] for f in session.buffer if f["t"] == name]


async def test_overwrites_computed_as_discord_does(loopback: LoopbackTest) -> None:
    ch, guild = loopback.channel, loopback.guild
    alice = loopback.member("alice")
    mods = guild.create_role("mods-perm-test", manage_messages=True)
    helpers = guild.create_role("helpers-perm-test")
    alice.add_role(mods)
    alice.add_role(helpers)
    assert alice.permissions.send_messages and alice.permissions.manage_messages
    ch.deny("@everyone", "send_messages", "add_reactions")
    assert not alice.permissions.send_messages and not alice.permissions.add_reactions
    # role overwrites are applied together: an allow on one role beats a deny on another
    ch.deny(mods, "send_messages")
    ch.allow(helpers, "send_messages")
    assert alice.permissions.send_messages and not alice.permissions.add_reactions
    # the member's own overwrite comes last
    ch.deny(alice, "send_messages")
    ch.allow(alice, "add_reactions")
    assert not alice.permissions.send_messages and alice.permissions.add_reactions
    assert ch.permissions_for(alice) == alice.permissions
    # ADMINISTRATOR and the owner ignore overwrites
    boss = loopback.member("boss-perm-test", administrator=True)
    ch.deny(boss, "view_channel")
    assert ch.permissions_for(boss) == discord.Permissions.all()
    assert ch.permissions_for(guild.owner).send_messages
    # None goes back to neutral; an empty overwrite disappears
    ch.overwrite(alice, send_messages=None, add_reactions=None)
    assert alice.id not in ch.overwrites
    assert alice.permissions.send_messages  # helpers' allow again
    # another channel is unaffected
    assert alice.at(guild.default_channel).permissions.add_reactions
    with pytest.raises(AssertionError, match="no permission named"):
        ch.deny(alice, "send_message")


async def test_channel_update_carries_overwrites(loopback: LoopbackTest) -> None:
    ch, guild = loopback.channel, loopback.guild
    before = len(gateway_events(loopback, "CHANNEL_UPDATE"))
    ch.set_bot_permissions(send_messages=False, embed_links=True)
    updates = gateway_events(loopback, "CHANNEL_UPDATE")[before:]
    assert len(updates) == 1
    event = updates[0]
    assert event["id"] == str(ch.id) and event["guild_id"] == str(guild.id)
    send, embed = discord.Permissions(send_messages=True), discord.Permissions(embed_links=True)
    assert event["permission_overwrites"] == [
        {
            "id": str(guild.bot_member.id),
            "type": 1,
            "allow": str(embed.value),
            "deny": str(send.value),
        }
    ]
    status, body = await rest(loopback, "GET", f"/channels/{ch.id}")
    assert status == 200 and isinstance(body, dict)
    assert body["permission_overwrites"] == event["permission_overwrites"]
    ch.clear_overwrites()
    assert gateway_events(loopback, "CHANNEL_UPDATE")[-1]["permission_overwrites"] == []


async def test_interaction_permissions_are_channel_permissions(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    alice = loopback.member("alice")
    result = await alice.slash("demo perms")
    assert result.text == "app send=True member send=True cached send=True"
    ch.set_bot_permissions(send_messages=False)
    ch.deny(alice, "send_messages")
    result = await alice.slash("demo perms")
    # the payload, the bot's reading of it, and its cache updated by CHANNEL_UPDATE
    assert result.text == "app send=False member send=False cached send=False"
    payload = result.state.payload
    bot_perms = ch.permissions_for("bot")
    assert payload["app_permissions"] == str(bot_perms.value)
    assert payload["member"]["permissions"] == str(alice.permissions.value)
    assert payload["channel"]["permissions"] == str(alice.permissions.value)
    # the guild-level permissions still have SEND_MESSAGES
    assert loopback.guild.permissions_of(loopback.guild.bot_member).send_messages
    assert loopback.discord.refused == []  # an interaction response needs no channel perms


async def test_members_cannot_act_where_they_cannot_see(loopback: LoopbackTest) -> None:
    alice = loopback.member("alice")
    loopback.channel.deny(alice, "view_channel")
    with pytest.raises(AssertionError, match="no VIEW_CHANNEL"):
        await alice.slash("demo ping")
    loopback.channel.deny(alice, "use_application_commands")
    loopback.channel.allow(alice, "view_channel")
    with pytest.raises(AssertionError, match="USE_APPLICATION_COMMANDS"):
        await alice.slash("demo ping")


async def test_rest_refuses_without_send_or_view(loopback: LoopbackTest) -> None:
    d, ch = loopback.discord, loopback.channel
    path = f"/channels/{ch.id}/messages"
    status, body = await rest(loopback, "POST", path, {"content": "first"})
    assert status == 200 and isinstance(body, dict)
    own = body["id"]
    ch.set_bot_permissions(send_messages=False)
    assert await rest(loopback, "POST", path, {"content": "no"}) == (
        403,
        {"message": "Missing Permissions", "code": 50013},
    )
    assert await rest(loopback, "POST", f"/channels/{ch.id}/typing") == (
        403,
        {"message": "Missing Permissions", "code": 50013},
    )
    # Discord lets the author edit and delete without SEND_MESSAGES (VIEW_CHANNEL is enough)
    status, _ = await rest(loopback, "PATCH", f"{path}/{own}", {"content": "edited"})
    assert status == 200 and ch.messages[-1].content == "edited"
    d.edit_requires_send_messages = True
    try:
        status, body = await rest(loopback, "PATCH", f"{path}/{own}", {"content": "again"})
        assert (status, body) == (403, {"message": "Missing Permissions", "code": 50013})
    finally:
        d.edit_requires_send_messages = False
    ch.set_bot_permissions(send_messages=None, attach_files=False)
    files = {"content": "f", "attachments": [{"id": 0, "filename": "a.txt"}]}
    assert (await rest(loopback, "POST", path, files))[0] == 403
    ch.set_bot_permissions(view_channel=False)
    missing_access = (403, {"message": "Missing Access", "code": 50001})
    assert await rest(loopback, "POST", path, {"content": "no"}) == missing_access
    assert await rest(loopback, "PATCH", f"{path}/{own}", {"content": "x"}) == missing_access
    assert await rest(loopback, "GET", f"/channels/{ch.id}") == missing_access
    assert [m.content for m in ch.messages] == ["edited"]
    assert [(r.status, r.code) for r in d.refused] == [(403, 50013)] * 4 + [(403, 50001)] * 3
    assert len(d.take_refused(code=50013)) == 4 and len(d.refused) == 3
    assert d.problems == []


async def test_bot_fails_honestly_without_send_messages(loopback: LoopbackTest) -> None:
    d, ch = loopback.discord, loopback.channel
    alice = loopback.member("alice")
    ch.set_bot_permissions(send_messages=False)
    # the interaction response goes through the webhook: no channel permission needed
    result = await alice.slash("demo announce", times=2)
    assert result.text == "announcing"
    for _ in range(100):
        if d.refused:
            break
        await asyncio.sleep(0.02)
    refused = d.take_refused()
    assert [(r.status, r.code, r.message) for r in refused] == [(403, 50013, "Missing Permissions")]
    assert refused[0].path == f"/channels/{ch.id}/messages"
    await asyncio.sleep(0.2)
    take_tracebacks_with(loopback, "50013")
    assert ch.messages == []
    final = await (await alice.slash("demo later")).wait_done()  # followups work too
    assert final.content == "done thinking"


async def test_deleted_channel(loopback: LoopbackTest) -> None:
    d, ch, guild = loopback.discord, loopback.channel, loopback.guild
    alice = loopback.member("alice")
    assert (await alice.slash("demo ping")).text == "pong"
    mid = ch.messages[-1].id
    await ch.delete()
    assert ch.deleted and ch not in guild.channels
    event = gateway_events(loopback, "CHANNEL_DELETE")[-1]
    assert event["id"] == str(ch.id) and event["guild_id"] == str(guild.id)
    unknown = (404, {"message": "Unknown Channel", "code": 10003})
    assert await rest(loopback, "GET", f"/channels/{ch.id}") == unknown
    assert await rest(loopback, "POST", f"/channels/{ch.id}/messages", {"content": "x"}) == unknown
    assert await rest(loopback, "DELETE", f"/channels/{ch.id}/messages/{mid}") == unknown
    assert len(d.take_refused(code=10003, reason="unknown_channel")) == 3
    with pytest.raises(AssertionError, match="was deleted"):
        await alice.slash("demo ping")
    with pytest.raises(AssertionError, match="already deleted"):
        guild.delete_channel(ch)


async def test_channel_deleted_while_bot_is_thinking(loopback: LoopbackTest) -> None:
    d, ch = loopback.discord, loopback.channel
    result = await loopback.member("alice").slash("demo later")
    assert result.response_type == 5
    await ch.delete()
    for _ in range(100):
        if d.refused:
            break
        await asyncio.sleep(0.02)
    refused = d.take_refused()
    assert [(r.status, r.code, r.method) for r in refused] == [(404, 10003, "PATCH")]
    assert "/messages/@original" in refused[0].path
    await asyncio.sleep(0.2)
    take_tracebacks_with(loopback, "10003")


async def test_fail_next_direct(loopback: LoopbackTest) -> None:
    d, ch = loopback.discord, loopback.channel
    path = f"/channels/{ch.id}/messages"
    fault = d.fail_next("POST", "/channels/{channel.id}/messages", 500, count=2)
    server_error = (500, {"message": "500: Internal Server Error", "code": 0})
    assert await rest(loopback, "POST", path, {"content": "a"}) == server_error
    assert await rest(loopback, "GET", path) == (200, [])  # other methods untouched
    assert await rest(loopback, "POST", path, {"content": "b"}) == server_error
    assert (await rest(loopback, "POST", path, {"content": "c"}))[0] == 200
    assert fault.remaining == 0 and len(fault.hits) == 2
    assert [m.content for m in ch.messages] == ["c"]
    d.fail_next("*", lambda req: req.path.endswith("/typing"), 403, code=50013)
    assert await rest(loopback, "POST", f"/channels/{ch.id}/typing") == (
        403,
        {"message": "Missing Permissions", "code": 50013},
    )
    d.fail_next(None, "/channels/{cid}", 503)
    assert await rest(loopback, "GET", f"/channels/{ch.id}") == (
        503,
        {"message": "503: Service Unavailable", "code": 0},
    )
    d.fail_next("GET", f"/channels/{ch.id}", 429, retry_after=0.25)
    async with (
        aiohttp.ClientSession() as http,
        http.get(d.api_base + f"/channels/{ch.id}") as resp,
    ):
        assert resp.status == 429 and resp.headers["Retry-After"] == "1"
        assert json.loads(await resp.text()) == {
            "message": "You are being rate limited.",
            "retry_after": 0.25,
            "global": False,
        }
    assert [(r.status, r.reason) for r in d.take_refused()] == [
        (500, "injected"),
        (500, "injected"),
        (403, "injected"),
        (503, "injected"),
        (429, "injected"),
    ]
    unused = d.fail_next("POST", "/channels/{cid}/messages", 500)
    assert d.clear_faults() == [unused]


async def test_delay_next_direct(loopback: LoopbackTest) -> None:
    d, ch = loopback.discord, loopback.channel
    d.delay_next("GET", "/channels/{cid}", 0.4)
    loop = asyncio.get_running_loop()
    start = loop.time()
    assert (await rest(loopback, "GET", f"/channels/{ch.id}"))[0] == 200
    assert loop.time() - start >= 0.4
    start = loop.time()
    assert (await rest(loopback, "GET", f"/channels/{ch.id}"))[0] == 200
    assert loop.time() - start < 0.3
    assert d.refused == []


@pytest.mark.slow
async def test_bot_retries_a_500_and_gives_up_on_a_503(loopback: LoopbackTest) -> None:
    d, ch = loopback.discord, loopback.channel
    alice = loopback.member("alice")
    d.fail_next("POST", "/channels/{cid}/messages", 500)
    mark = ch.mark()
    await alice.slash("demo announce")
    # discord.py retries a 500 by itself after a second
    await ch.wait_for(lambda m: m.content == "announcement 1", after=mark, timeout=5)
    assert [(r.status, r.code) for r in d.take_refused()] == [(500, 0)]
    d.fail_next("POST", "/channels/{cid}/messages", 503)
    await alice.slash("demo announce")
    for _ in range(100):
        if d.refused:
            break
        await asyncio.sleep(0.02)
    assert [(r.status, r.message) for r in d.take_refused()] == [(503, "503: Service Unavailable")]
    await asyncio.sleep(0.2)
    take_tracebacks_with(loopback, "503")
    assert [m.content for m in ch.messages] == ["announcement 1"]


async def test_injected_callback_failure_fails_the_action(loopback: LoopbackTest) -> None:
    d = loopback.discord
    alice = loopback.member("alice")
    d.fail_next("POST", "/interactions/{iid}/{token}/callback", 400, code=50035)
    with pytest.raises(InteractionFailed, match="injected 400") as info:
        await alice.slash("demo ping")
    assert info.value.code == 50035
    assert [r.code for r in d.take_refused()] == [50035]
    await asyncio.sleep(0.2)
    take_tracebacks_with(loopback, "50035")
    assert (await alice.slash("demo ping")).text == "pong"


@pytest.mark.slow
async def test_delayed_callback_is_a_late_ack(loopback: LoopbackTest) -> None:
    d = loopback.discord
    alice = loopback.member("alice")
    deadline, d.ack_deadline = d.ack_deadline, 0.3  # Discord's 3 s, shortened to be quick
    try:
        d.delay_next("POST", "/interactions/{iid}/{token}/callback", 0.5)
        with pytest.raises(InteractionFailed, match="10062"):
            await alice.slash("demo ping")
    finally:
        d.ack_deadline = deadline
    assert d.take_problems("late_ack", code=10062)
    await asyncio.sleep(0.2)
    take_tracebacks_with(loopback, "10062")
    assert (await alice.slash("demo ping")).text == "pong"
