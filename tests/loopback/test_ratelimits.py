"""The loopback Discord's rate limits (loopback/ratelimits.py): the bucket logic on a fake
clock, then the server and the demo bot with ``enforce_rate_limits=True``."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from loopback.fixtures import LoopbackTest
from loopback.ratelimits import RateLimiter, bucket_hash, top_level_resource
from loopback.server import LoopbackDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

APP = 4242
T0 = 1_700_000_000.0
# the server's route templates (placeholder names do not matter to the limiter)
POST_MESSAGE = "/channels/{cid}/messages"
CHANNEL_MESSAGE = "/channels/{cid}/messages/{mid}"
GET_CHANNEL = "/channels/{cid}"
FOLLOWUP = "/webhooks/{app}/{token}"
WEBHOOK_MESSAGE = "/webhooks/{app}/{token}/messages/{mid}"
CALLBACK = "/interactions/{iid}/{token}/callback"
RATE_LIMITED = "You are being rate limited."


class FakeClock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def make_limiter() -> tuple[RateLimiter, FakeClock]:
    clock = FakeClock()
    return RateLimiter(APP, clock=clock), clock


# -- the bucket logic, on a fake clock ---------------------------------------------------


@pytest.mark.parametrize(
    ("path", "resource"),
    [
        ("/channels/11/messages/5", "channel 11"),
        ("/guilds/22/members/3", "guild 22"),
        ("/webhooks/33/tok/messages/@original", "webhook 33/tok"),
        ("/webhooks/33", "webhook 33"),
        ("/interactions/44/tok/callback", "interaction 44/tok"),
        ("/users/@me", ""),
        ("/applications/55/guilds/66/commands", ""),
    ],
)
async def test_top_level_resource(path: str, resource: str) -> None:
    assert top_level_resource(path) == resource


async def test_channel_post_five_per_five_seconds_with_headers() -> None:
    rl, clock = make_limiter()
    bucket = bucket_hash("channel-message-create")
    first = rl.check("POST", "/channels/1/messages", POST_MESSAGE)
    assert first.allowed and first.bucket == "channel-message-create"
    assert first.headers() == {
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "4",
        "X-RateLimit-Reset": f"{T0 + 5:.3f}",
        "X-RateLimit-Reset-After": "5.000",
        "X-RateLimit-Bucket": bucket,
    }
    for remaining in (3, 2, 1, 0):
        clock.advance(0.5)
        decision = rl.check("POST", "/channels/1/messages", POST_MESSAGE)
        assert decision.allowed and decision.remaining == remaining
    clock.advance(0.5)  # 2.5 s into the window
    refused = rl.check("POST", "/channels/1/messages", POST_MESSAGE)
    assert not refused.allowed and refused.scope == "user"
    assert refused.retry_after == 2.5
    assert refused.headers() == {
        "X-RateLimit-Limit": "5",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": f"{T0 + 5:.3f}",
        "X-RateLimit-Reset-After": "2.500",
        "X-RateLimit-Bucket": bucket,
        "Retry-After": "3",
        "X-RateLimit-Scope": "user",
    }
    assert refused.body() == {"message": RATE_LIMITED, "retry_after": 2.5, "global": False}
    clock.advance(2.5)  # the window opened by the first request is over
    again = rl.check("POST", "/channels/1/messages", POST_MESSAGE)
    assert again.allowed and again.remaining == 4 and again.reset == clock.now + 5
    assert rl.requests["channel-message-create"] == 7
    assert rl.routes["POST /channels/{cid}/messages"] == 7


async def test_a_refused_request_uses_up_nothing() -> None:
    rl, clock = make_limiter()
    for _ in range(5):
        assert rl.check("POST", "/channels/1/messages", POST_MESSAGE).allowed
    clock.advance(4.9)
    assert not rl.check("POST", "/channels/1/messages", POST_MESSAGE).allowed
    assert not rl.check("POST", "/channels/1/messages", POST_MESSAGE).allowed
    clock.advance(0.1)
    after = rl.check("POST", "/channels/1/messages", POST_MESSAGE)
    assert after.allowed and after.remaining == 4


async def test_a_refused_request_uses_up_nothing_of_the_global_limit() -> None:
    rl, _ = make_limiter()
    for _ in range(5):
        assert rl.check("POST", "/channels/1/messages", POST_MESSAGE).allowed
    for _ in range(10):
        assert rl.check("POST", "/channels/1/messages", POST_MESSAGE).scope == "user"
    for i in range(45):  # 5 + 45 allowed in this second
        assert rl.check("GET", f"/channels/{100 + i}", GET_CHANNEL).allowed, i
    assert rl.check("GET", "/channels/999", GET_CHANNEL).scope == "global"


async def test_buckets_of_other_channels_and_routes_are_independent() -> None:
    rl, _ = make_limiter()
    for _ in range(5):
        rl.check("POST", "/channels/1/messages", POST_MESSAGE)
    assert not rl.check("POST", "/channels/1/messages", POST_MESSAGE).allowed
    other = rl.check("POST", "/channels/2/messages", POST_MESSAGE)
    assert other.allowed and other.remaining == 4
    assert other.headers()["X-RateLimit-Bucket"] == bucket_hash("channel-message-create")
    # edits and deletes share one bucket per channel, apart from posts
    for method in ("PATCH", "PATCH", "DELETE", "PATCH", "DELETE"):
        decision = rl.check(method, "/channels/1/messages/9", CHANNEL_MESSAGE)
        assert decision.allowed and decision.bucket == "channel-message-modify"
    refused = rl.check("DELETE", "/channels/1/messages/8", CHANNEL_MESSAGE)
    assert refused.scope == "user" and refused.bucket == "channel-message-modify"
    assert rl.check("PATCH", "/channels/2/messages/7", CHANNEL_MESSAGE).allowed
    # the bucket string is stable and names the limit, not the resource
    assert bucket_hash("channel-message-create") != bucket_hash("channel-message-modify")
    assert RateLimiter(1).limit_for("POST", "/channels/{x}/messages").name == (
        "channel-message-create"
    )


async def test_webhook_bucket_is_per_token_five_per_two_seconds() -> None:
    rl, clock = make_limiter()
    for _ in range(3):
        assert rl.check("POST", f"/webhooks/{APP}/tokA", FOLLOWUP).allowed
    for method in ("PATCH", "DELETE"):
        path = f"/webhooks/{APP}/tokA/messages/@original"
        decision = rl.check(method, path, WEBHOOK_MESSAGE)
        assert decision.allowed and decision.bucket == "webhook"
    clock.advance(0.5)
    refused = rl.check("POST", f"/webhooks/{APP}/tokA", FOLLOWUP)
    assert refused.scope == "user" and refused.retry_after == 1.5
    assert refused.headers()["X-RateLimit-Limit"] == "5"
    assert rl.check("POST", f"/webhooks/{APP}/tokB", FOLLOWUP).allowed
    clock.advance(1.5)
    assert rl.check("POST", f"/webhooks/{APP}/tokA", FOLLOWUP).allowed


async def test_callbacks_are_counted_but_left_to_the_handler() -> None:
    rl, _ = make_limiter()
    for _ in range(2):  # the handler answers the second 40060
        decision = rl.check("POST", "/interactions/5/tok/callback", CALLBACK)
        assert decision.allowed and decision.headers() == {}
    assert rl.requests["interaction-callback"] == 2


async def test_global_limit_spares_interaction_endpoints() -> None:
    rl, clock = make_limiter()
    assert rl.check("GET", "/users/@me", "/users/@me").allowed
    clock.advance(0.25)
    for i in range(49):  # other channels: only the global window fills up
        assert rl.check("GET", f"/channels/{i}", GET_CHANNEL).allowed
    refused = rl.check("POST", "/channels/1/messages", POST_MESSAGE)
    assert refused.scope == "global" and refused.retry_after == 0.75
    assert refused.headers() == {
        "Retry-After": "1",
        "X-RateLimit-Global": "true",
        "X-RateLimit-Scope": "global",
    }
    assert refused.body() == {"message": RATE_LIMITED, "retry_after": 0.75, "global": True}
    # interaction endpoints are not bound to the global limit...
    assert rl.check("POST", "/interactions/7/tok/callback", CALLBACK).allowed
    assert rl.check("POST", f"/webhooks/{APP}/tok", FOLLOWUP).allowed
    assert rl.check("PATCH", f"/webhooks/{APP}/tok/messages/@original", WEBHOOK_MESSAGE).allowed
    # ...other webhooks are
    assert rl.check("POST", "/webhooks/777/tok", FOLLOWUP).scope == "global"
    clock.advance(0.75)
    assert rl.check("POST", "/channels/1/messages", POST_MESSAGE).allowed


async def test_default_limit_is_fifty_per_second_per_route() -> None:
    rl, clock = make_limiter()
    # GET @original: no named bucket, and exempt from the global limit
    path = f"/webhooks/{APP}/tok/messages/@original"
    for _ in range(50):
        assert rl.check("GET", path, WEBHOOK_MESSAGE).allowed
    refused = rl.check("GET", path, WEBHOOK_MESSAGE)
    assert refused.scope == "user"
    assert refused.bucket == "GET /webhooks/{app}/{token}/messages/{mid}"
    assert refused.headers()["X-RateLimit-Limit"] == "50"
    clock.advance(1.0)
    assert rl.check("GET", path, WEBHOOK_MESSAGE).allowed


# -- the server, without a bot --------------------------------------------------------------


async def call(
    d: LoopbackDiscord, method: str, path: str, body: dict[str, Any] | None = None
) -> tuple[int, dict[str, str], Any]:
    """A REST call with the bot's token: (status, headers, JSON body or None)."""
    headers = {"Authorization": f"Bot {d.token}"}
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, d.api_base + path, json=body, headers=headers) as resp,
    ):
        text = await resp.text()
        return resp.status, dict(resp.headers), (json.loads(text) if text else None)


async def test_server_global_429_changes_nothing() -> None:
    async with LoopbackDiscord(enforce_rate_limits=True) as d:
        channel = d.add_guild("Test").new_channel()
        clock = FakeClock()
        d.rate_limiter.clock = clock
        for _ in range(50):
            assert (await call(d, "GET", f"/channels/{channel.id}"))[0] == 200
        status, headers, body = await call(
            d, "POST", f"/channels/{channel.id}/messages", {"content": "hi"}
        )
        assert status == 429
        assert body == {"message": RATE_LIMITED, "retry_after": 1.0, "global": True}
        assert headers["Retry-After"] == "1" and headers["X-RateLimit-Global"] == "true"
        assert headers["X-RateLimit-Scope"] == "global" and "X-RateLimit-Limit" not in headers
        assert channel.messages == []
        [decision] = d.rate_limited
        assert decision.scope == "global" and decision.route == "POST /channels/{cid}/messages"
        assert [p.code for p in d.take_problems("rate_limited")] == [429]
        # interaction endpoints get through to their handlers (which know no such interaction)
        assert (await call(d, "POST", "/interactions/1/tok/callback", {"type": 1}))[0] == 404
        followup = f"/webhooks/{d.application_id}/tok"
        assert (await call(d, "POST", followup, {"content": "x"}))[0] == 404
        assert len(d.rate_limited) == 1
        assert {p.kind for p in d.take_problems()} == {"unknown_interaction", "unknown_webhook"}
        clock.advance(1.0)
        status, headers, _ = await call(
            d, "POST", f"/channels/{channel.id}/messages", {"content": "hi"}
        )
        assert status == 200 and headers["X-RateLimit-Remaining"] == "4"
        assert [m.content for m in channel.messages] == ["hi"]


async def test_server_sends_no_rate_limit_headers_unless_enforcing() -> None:
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        for i in range(6):
            status, headers, _ = await call(
                d, "POST", f"/channels/{channel.id}/messages", {"content": str(i)}
            )
            assert status == 200
            assert not [h for h in headers if h.lower().startswith("x-ratelimit")], headers
        assert len(channel.messages) == 6 and d.rate_limited == []
        assert d.rate_limiter.requests["channel-message-create"] == 6


# -- the demo bot (discord.py) against enforced limits --------------------------------------


@pytest.fixture(scope="module")  # type: ignore[no-redef]
def loopback_bot_command() -> list[str]:
    return [sys.executable, "loopback/demo_bot.py"]


@pytest_asyncio.fixture(scope="module", loop_scope="module")  # type: ignore[no-redef]
async def loopback_discord() -> AsyncIterator[LoopbackDiscord]:
    async with LoopbackDiscord(enforce_rate_limits=True) as discord_:
        discord_.add_guild("Test")
        yield discord_


@pytest.mark.slow
async def test_bot_waits_out_a_429_and_its_message_arrives(loopback: LoopbackTest) -> None:
    d, channel = loopback.discord, loopback.channel
    path = f"/channels/{channel.id}/messages"
    started = time.time()
    _, headers, _ = await call(d, "POST", path, {"content": "one"})
    assert headers["X-RateLimit-Limit"] == "5" and headers["X-RateLimit-Remaining"] == "4"
    assert headers["X-RateLimit-Bucket"] == bucket_hash("channel-message-create")
    assert 4.0 < float(headers["X-RateLimit-Reset-After"]) <= 5.0
    assert abs(float(headers["X-RateLimit-Reset"]) - (started + 5)) < 1.0
    for i in range(4):  # the bucket is used up; the bot does not know it
        assert (await call(d, "POST", path, {"content": str(i)}))[0] == 200
    mark = channel.mark()
    await loopback.member("alice").slash("demo announce")
    msg = await channel.wait_for(lambda m: m.content == "announcement 1", after=mark, timeout=8)
    [decision] = d.rate_limited
    assert decision.scope == "user" and decision.bucket == "channel-message-create"
    assert decision.resource == f"channel {channel.id}" and 0 < decision.retry_after <= 5
    assert [p.code for p in d.take_problems("rate_limited")] == [429]
    # the refused post created nothing; the retry came after the window closed
    assert len(channel.messages) == 6 and channel.messages[-1] is msg
    assert time.time() >= started + 5
    d.rate_limited.clear()
