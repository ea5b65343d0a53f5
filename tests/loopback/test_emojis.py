"""The loopback Discord's application emojis (loopback/emojis.py), called over REST."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from loopback.server import LoopbackDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

# a 1×1 transparent PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def data_uri(data: bytes = PNG, kind: str = "png") -> str:
    return f"data:image/{kind};base64," + base64.b64encode(data).decode()


@pytest_asyncio.fixture(loop_scope="module")
async def server() -> AsyncIterator[LoopbackDiscord]:
    async with LoopbackDiscord() as discord_:
        yield discord_


async def rest(server: LoopbackDiscord, method: str, path: str,
               body: Any = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bot {server.token}"}
    async with (
        aiohttp.ClientSession() as http,
        http.request(method, server.api_base + path, json=body, headers=headers) as resp,
    ):
        data = await resp.json() if resp.status != 204 else None
        return resp.status, data


def base(server: LoopbackDiscord) -> str:
    return f"/applications/{server.application_id}/emojis"


async def test_create_list_get_patch_delete(server: LoopbackDiscord) -> None:
    status, listing = await rest(server, "GET", base(server))
    assert (status, listing) == (200, {"items": []})
    status, emoji = await rest(server, "POST", base(server),
                               {"name": "uno_R7", "image": data_uri()})
    assert status == 201
    assert emoji["name"] == "uno_R7" and emoji["animated"] is False
    assert emoji["require_colons"] and emoji["available"] and emoji["roles"] == []
    assert emoji["user"]["id"] == str(server.application_id)
    assert server.emojis.names() == ["uno_R7"]
    assert server.emojis.image("uno_R7") == PNG
    status, gif = await rest(server, "POST", base(server),
                             {"name": "spin", "image": data_uri(kind="gif")})
    assert status == 201 and gif["animated"] is True
    status, listing = await rest(server, "GET", base(server))
    assert status == 200 and [e["name"] for e in listing["items"]] == ["uno_R7", "spin"]
    one = f"{base(server)}/{emoji['id']}"
    assert await rest(server, "GET", one) == (200, emoji)
    status, renamed = await rest(server, "PATCH", one, {"name": "uno_R7_v2"})
    assert status == 200 and renamed["name"] == "uno_R7_v2" and renamed["id"] == emoji["id"]
    assert (await rest(server, "DELETE", one))[0] == 204
    status, err = await rest(server, "GET", one)
    assert status == 404 and err["code"] == 10014
    assert server.emojis.names() == ["spin"]
    assert [r.reason for r in server.take_refused()] == ["unknown_emoji"]
    server.assert_no_problems()


async def test_duplicate_name_refused(server: LoopbackDiscord) -> None:
    status, _ = await rest(server, "POST", base(server), {"name": "dup", "image": data_uri()})
    assert status == 201
    status, err = await rest(server, "POST", base(server), {"name": "dup", "image": data_uri()})
    assert status == 400 and err["code"] == 50035
    assert err["errors"]["name"]["_errors"][0]["code"] == "APPLICATION_EMOJI_NAME_ALREADY_TAKEN"
    status, other = await rest(server, "POST", base(server), {"name": "dup2", "image": data_uri()})
    status, err = await rest(server, "PATCH", f"{base(server)}/{other['id']}", {"name": "dup"})
    assert status == 400 and err["code"] == 50035
    assert server.emojis.names() == ["dup", "dup2"]
    assert [r.reason for r in server.take_refused()] == ["emoji_name_taken"] * 2
    server.assert_no_problems()


@pytest.mark.parametrize("name", ["x", "a" * 33, "uno-R7", "R+1", "é_é"])
async def test_bad_names(server: LoopbackDiscord, name: str) -> None:
    status, err = await rest(server, "POST", base(server), {"name": name, "image": data_uri()})
    assert status == 400 and err["code"] == 50035 and "name" in err["errors"]
    assert server.take_problems()  # the bot's bug: OpenAPI (length) or the name pattern
    assert server.emojis.names() == []


async def test_bad_images(server: LoopbackDiscord) -> None:
    too_big = data_uri(PNG + b"\0" * (256 * 1024))
    for image in ["not a data uri", "data:image/png;base64,***", data_uri(kind="svg+xml"),
                  too_big]:
        status, err = await rest(server, "POST", base(server), {"name": "img", "image": image})
        assert status == 400 and err["code"] == 50035 and "image" in err["errors"]
    status, _ = await rest(server, "POST", base(server),
                           {"name": "img", "image": data_uri(b"\0" * (256 * 1024))})
    assert status == 201  # exactly 256 KiB is allowed
    assert len(server.take_problems(kind="limits")) == 4


async def test_limit_per_application(server: LoopbackDiscord) -> None:
    assert server.emojis.limit == 2000
    server.emojis.limit = 3
    for i in range(3):
        status, _ = await rest(server, "POST", base(server), {"name": f"e{i}", "image": data_uri()})
        assert status == 201
    status, err = await rest(server, "POST", base(server), {"name": "e3", "image": data_uri()})
    assert status == 400 and err["code"] == 30008
    assert [r.reason for r in server.take_refused()] == ["emoji_limit"]
    # another application's emojis are its own
    assert server.emojis.of(server.application_id + 1) == {}
    status, err = await rest(server, "GET", f"/applications/{server.application_id + 1}/emojis")
    assert status == 404 and err["code"] == 10002
    server.take_problems(kind="wrong_application")
    server.assert_no_problems()


async def test_uploads_fail_on_demand(server: LoopbackDiscord) -> None:
    fault = server.fail_next("POST", "/applications/{app}/emojis", 500, count=2)
    for _ in range(2):
        status, _ = await rest(server, "POST", base(server), {"name": "ok", "image": data_uri()})
        assert status == 500
    assert len(fault.hits) == 2 and server.emojis.names() == []
    assert (await rest(server, "POST", base(server), {"name": "ok", "image": data_uri()}))[0] == 201
    server.assert_no_problems()


async def test_web_page_serves_emoji_pictures() -> None:
    async with LoopbackDiscord(web_ui=True) as server:
        status, emoji = await rest(server, "POST", base(server),
                                   {"name": "uno_R7", "image": data_uri()})
        assert status == 201
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{server.url}emojis/{emoji['id']}.png") as resp:
                assert resp.status == 200 and resp.content_type == "image/png"
                assert await resp.read() == PNG
            async with http.get(f"{server.url}emojis/123.png") as resp:
                assert resp.status == 404
        server.assert_no_problems()


async def test_web_page_gets_emoji_ids_as_strings() -> None:
    from loopback.web import _string_ids

    big = 1574173702730285202  # more than JavaScript's numbers hold exactly
    components = [{"type": 1, "components": [{"type": 3, "options": [
        {"label": "3", "value": "R3", "emoji": {"name": "uno_R3", "id": big}},
        {"label": "x", "value": "x", "emoji": {"name": "🟥", "id": None}}]}]}]
    view = _string_ids(components)
    options = view[0]["components"][0]["options"]
    assert options[0]["emoji"] == {"name": "uno_R3", "id": str(big)}
    assert options[1]["emoji"] == {"name": "🟥", "id": None}
    assert components[0]["components"][0]["options"][0]["emoji"]["id"] == big  # a copy
