"""The loopback Discord's Components V2 rules (IS_COMPONENTS_V2): only components, at most
40 of them counted with the nested ones, at most 4,000 characters of text displays, media
``attachment://`` references that name one of the message's files; checked on posts and on
edits, besides the OpenAPI description's schema for each component; and Discord's open bug
(discord-api-docs issue 7529): an edit whose media gallery shows a file uploaded with it is
refused when it brings a gallery into a message that had none."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from loopback.limits import IS_COMPONENTS_V2, check_message_limits
from loopback.server import LoopbackDiscord

pytestmark = pytest.mark.asyncio(loop_scope="module")

V2 = IS_COMPONENTS_V2
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 32


def text(content: str) -> dict[str, Any]:
    return {"type": 10, "content": content}


def gallery(*names: str) -> dict[str, Any]:
    return {"type": 12, "items": [{"media": {"url": f"attachment://{n}"}} for n in names]}


def buttons(*ids: str) -> dict[str, Any]:
    return {"type": 1, "components": [{"type": 2, "style": 2, "label": i, "custom_id": i}
                                      for i in ids]}


def table(*names: str, words: str = "Top card: Red 7") -> dict[str, Any]:
    """A table as the bot posts it: one container with text, a picture and buttons."""
    inner = [text(words)] + ([gallery(*names)] if names else []) + [buttons("hand", "draw")]
    return {"flags": V2, "components": [{"type": 17, "components": inner}]}


# -- the checker alone -------------------------------------------------------------------


async def test_v2_body_is_fine() -> None:
    assert check_message_limits(table("table.png"), {"table.png"}) == []
    assert check_message_limits(table()) == []


async def test_v2_refuses_content_and_embeds_beside_components() -> None:
    issues = check_message_limits({**table(), "content": "hi", "embeds": [{"title": "t"}]})
    assert any("content cannot" in i for i in issues), issues
    assert any("embeds cannot" in i for i in issues), issues
    # empty values (how an edit resets them) are fine
    assert check_message_limits({**table(), "content": None, "embeds": []}) == []


async def test_v2_counts_nested_components() -> None:
    rows = [buttons(*(f"b{r}{i}" for i in range(5))) for r in range(6)]  # 6 rows + 30 buttons
    body = {"flags": V2, "components": [{"type": 17, "components": [text("x"), *rows]}]}
    assert check_message_limits(body) == []  # 1 + 1 + 6 + 30 = 38
    rows.append(buttons("c1", "c2"))  # 38 + 3 = 41
    body = {"flags": V2, "components": [{"type": 17, "components": [text("x"), *rows]}]}
    issues = check_message_limits(body)
    assert any("41 components in total (max 40)" in i for i in issues), issues


async def test_v2_text_limit_is_for_all_text_displays_together() -> None:
    body = {"flags": V2, "components": [text("a" * 2000), text("b" * 2000)]}
    assert check_message_limits(body) == []
    body["components"].append(text("c"))
    issues = check_message_limits(body)
    assert any("4001 characters in total (max 4000)" in i for i in issues), issues


async def test_v2_attachment_references_must_name_a_file() -> None:
    issues = check_message_limits(table("table.png"), {"other.png"})
    assert any("attachment://table.png names no attachment" in i for i in issues), issues
    thumb = {"flags": V2, "components": [{"type": 9, "components": [text("x")], "accessory": {
        "type": 11, "media": {"url": "attachment://t.png"}}}]}
    assert check_message_limits(thumb, {"t.png"}) == []
    assert check_message_limits(thumb, set())


async def test_v2_placement_rules() -> None:
    nested = {"flags": V2, "components": [{"type": 17, "components": [
        {"type": 17, "components": [text("x")]}]}]}
    assert any("container cannot hold" in i for i in check_message_limits(nested))
    thumb_top = {"flags": V2, "components": [{"type": 11, "media": {"url": "https://x/y.png"}}]}
    assert any("cannot be top-level" in i for i in check_message_limits(thumb_top))
    # a V2 component without the flag
    assert any("need the IS_COMPONENTS_V2 flag" in i
               for i in check_message_limits({"components": [text("x")]}))


# -- the server ---------------------------------------------------------------------------


async def call(d: LoopbackDiscord, method: str, path: str, body: dict[str, Any],
               files: dict[str, bytes] | None = None) -> tuple[int, Any]:
    """A REST call with the bot's token (multipart with ``files``, as discord.py sends
    them): (status, JSON body)."""
    headers = {"Authorization": f"Bot {d.token}"}
    async with aiohttp.ClientSession() as http:
        if files:
            form = aiohttp.FormData()
            form.add_field("payload_json", json.dumps(body), content_type="application/json")
            for i, (name, data) in enumerate(files.items()):
                form.add_field(f"files[{i}]", data, filename=name, content_type="image/png")
            request = http.request(method, d.api_base + path, data=form, headers=headers)
        else:
            request = http.request(method, d.api_base + path, json=body, headers=headers)
        async with request as resp:
            raw = await resp.text()
            return resp.status, (json.loads(raw) if raw else None)


def attached(*names: str) -> list[dict[str, Any]]:
    return [{"id": i, "filename": n} for i, n in enumerate(names)]


async def test_server_posts_and_edits_a_v2_table() -> None:
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        path = f"/channels/{channel.id}/messages"
        body = {**table("table.png"), "attachments": attached("table.png")}
        status, answer = await call(d, "POST", path, body, {"table.png": PNG})
        assert status == 200, answer
        [msg] = channel.messages
        assert msg.flags & V2 and msg.files == {"table.png": PNG}
        assert "Top card: Red 7" in msg.text() and msg.button_labels() == ["hand", "draw"]
        # an edit that keeps the file (by id) and changes the text
        keep = [{"id": msg.attachments[0]["id"]}]
        status, answer = await call(d, "PATCH", f"{path}/{msg.id}",
                                    {**table("table.png", words="Top card: Blue 2"),
                                     "attachments": keep})
        assert status == 200, answer
        assert "Blue 2" in msg.text() and msg.files == {"table.png": PNG}
        assert d.take_problems() == []
        # an edit that replaces the picture with a new file under a new name
        new = {**table("table-2.png"), "attachments": attached("table-2.png")}
        status, answer = await call(d, "PATCH", f"{path}/{msg.id}", new, {"table-2.png": PNG})
        assert status == 200, answer
        assert list(msg.files) == ["table-2.png"]
        assert d.take_problems() == []


async def test_server_models_the_gallery_edit_bug() -> None:
    """Discord's open bug (discord-api-docs issue 7529): an edit that brings a media gallery
    with a new file into a message that had none is refused; posting it works."""
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        path = f"/channels/{channel.id}/messages"
        status, _ = await call(d, "POST", path, table())  # text only
        assert status == 200
        [msg] = channel.messages
        body = {**table("table.png"), "attachments": attached("table.png")}
        status, answer = await call(d, "PATCH", f"{path}/{msg.id}", body, {"table.png": PNG})
        assert status == 400 and answer["code"] == 50035, answer
        [problem] = d.take_problems()
        assert "unfurled media attachment not found" in str(problem)
        assert msg.files == {} and not msg.history
        d.gallery_edit_bug = False  # should Discord fix it
        status, answer = await call(d, "PATCH", f"{path}/{msg.id}", body, {"table.png": PNG})
        assert status == 200, answer
        assert msg.files == {"table.png": PNG}


async def test_server_refuses_v2_bodies_with_discords_error_shape() -> None:
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        path = f"/channels/{channel.id}/messages"
        cases = [
            {**table(), "content": "beside"},
            {**table("table.png")},  # references a file it did not upload
            {"flags": V2, "components": [text("x" * 4000), text("y")]},
        ]
        for body in cases:
            status, answer = await call(d, "POST", path, body)
            assert status == 400, body
            assert answer["code"] == 50035 and answer["message"] == "Invalid Form Body"
            assert "errors" in answer
        assert channel.messages == []
        assert {p.code for p in d.take_problems()} == {50035}
        # an edit of a V2 message is held to the V2 rules (the flag stays)
        status, _ = await call(d, "POST", path, table())
        assert status == 200
        [msg] = channel.messages
        status, answer = await call(d, "PATCH", f"{path}/{msg.id}", {"content": "plain"})
        assert status == 400 and answer["code"] == 50035
        status, answer = await call(d, "PATCH", f"{path}/{msg.id}",
                                    {"components": table("gone.png")["components"]})
        assert status == 400 and answer["code"] == 50035
        d.take_problems()
        # the OpenAPI description's schema: a text display holds at most 4,000 characters
        status, answer = await call(d, "POST", path, {"flags": V2, "components": [
            text("z" * 4001)]})
        assert status == 400 and answer["code"] == 50035
        assert any("maxLength" in str(p) for p in d.take_problems())


async def test_server_refuses_a_v2_message_without_components() -> None:
    """A Components V2 message shows only its components: an edit that takes them all away
    (or a post without any) is an empty message, refused with 400 50006 as Discord does;
    an edit that leaves ``components`` out keeps them."""
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        path = f"/channels/{channel.id}/messages"
        status, answer = await call(d, "POST", path, {"flags": V2, "components": []})
        assert status == 400 and answer["code"] == 50006, answer
        assert channel.messages == []
        status, _ = await call(d, "POST", path, table())
        assert status == 200
        [msg] = channel.messages
        status, answer = await call(d, "PATCH", f"{path}/{msg.id}", {"components": []})
        assert status == 400 and answer["code"] == 50006, answer
        assert msg.button_labels() == ["hand", "draw"] and not msg.history
        assert [p.code for p in d.take_problems()] == [50006, 50006]
        status, answer = await call(d, "PATCH", f"{path}/{msg.id}",
                                    {"allowed_mentions": {"parse": []}})
        assert status == 200, answer
        assert msg.button_labels() == ["hand", "draw"]
        assert d.take_problems() == []


async def test_server_needs_attach_files_for_an_edit_that_uploads() -> None:
    """An edit that uploads a file needs Attach Files, like a post with one (403 50013); an
    edit without a new file does not."""
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        path = f"/channels/{channel.id}/messages"
        status, _ = await call(d, "POST", path, table())
        assert status == 200
        [msg] = channel.messages
        channel.set_bot_permissions(attach_files=False)
        body = {**table("table.png"), "attachments": attached("table.png")}
        status, answer = await call(d, "POST", path, body, {"table.png": PNG})
        assert status == 403 and answer["code"] == 50013, answer
        status, answer = await call(d, "PATCH", f"{path}/{msg.id}", body, {"table.png": PNG})
        assert status == 403 and answer["code"] == 50013, answer
        assert msg.files == {} and not msg.history
        assert [r.detail for r in d.take_refused()] == ["attach_files", "attach_files"]
        status, answer = await call(d, "PATCH", f"{path}/{msg.id}",
                                    table(words="Top card: Blue 2"))
        assert status == 200, answer
        assert "Blue 2" in msg.text()
        assert d.take_problems() == []
