"""The loopback reads the bodies the bot sends without the email package (loopback/forms.py)
and exactly as aiohttp reads them: the Content-Type of a request, a multipart/form-data body
of ``payload_json`` and files (its parts compared with aiohttp's MultipartReader), and any
body it does not understand left to aiohttp, so a malformed one is refused as before (the
same Discord error, the same recorded problem). Beside them: the JSON it writes (orjson) is
the value ``json.dumps`` wrote, and a message read once per version shows its new buttons and
text after an edit."""

from __future__ import annotations

import asyncio
import io
import json
import re
from typing import Any

import aiohttp
import discord
import pytest
from aiohttp import MultipartReader, StreamReader
from aiohttp.base_protocol import BaseProtocol
from aiohttp.helpers import parse_mimetype
from aiohttp.test_utils import make_mocked_request
from discord.http import handle_message_parameters

from loopback.encoding import dumps, loads
from loopback.forms import FORM_DATA, FormPart, content_kind, parse_form
from loopback.server import LoopbackDiscord

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) + b"\r\n--not-the-boundary\r\n"


async def aiohttp_parts(raw: bytes, ctype: str) -> list[FormPart]:
    """The parts aiohttp's own reader finds in ``raw`` (what the loopback read before)."""
    stream = StreamReader(BaseProtocol(asyncio.get_running_loop()), 2**20)
    stream.feed_data(raw)
    stream.feed_eof()
    parts = []
    async for part in MultipartReader({"Content-Type": ctype}, stream):
        assert isinstance(part, aiohttp.BodyPartReader)
        parts.append(FormPart(part.name, part.filename, bytes(await part.read())))
    return parts


async def written(form: aiohttp.FormData) -> tuple[str, bytes]:
    """(Content-Type, body) of a form as aiohttp's client sends it."""
    writer = form()
    sink = bytearray()

    class Sink:
        async def write(self, data: bytes) -> None:
            sink.extend(data)

    await writer.write(Sink())  # type: ignore[arg-type]
    return writer.headers["Content-Type"], bytes(sink)


async def discord_form(*files: tuple[str, bytes]) -> tuple[str, bytes]:
    """A message with files as discord.py sends it (http.py: FormData(quote_fields=False))."""
    params = handle_message_parameters(
        content="héllo", files=[discord.File(io.BytesIO(data), filename=name)
                                for name, data in files])
    form = aiohttp.FormData(quote_fields=False)
    for field in params.multipart or []:
        form.add_field(**field)
    return await written(form)


def form(boundary: str, *parts: bytes, end: bytes = b"--\r\n") -> bytes:
    """A multipart body of raw parts (headers and data) between boundaries."""
    delim = b"--" + boundary.encode()
    return b"".join(delim + b"\r\n" + p + b"\r\n" for p in parts) + delim + end


JSON_PART = b'Content-Disposition: form-data; name="payload_json"\r\n\r\n{"content": "x"}'


def file_part(disposition: bytes, data: bytes = b"abc") -> bytes:
    return b"Content-Disposition: " + disposition + b"\r\n\r\n" + data


# -- Content-Type ------------------------------------------------------------------------


@pytest.mark.parametrize("header", [
    None, "application/json", "multipart/form-data; boundary=abc123",
    'multipart/form-data; boundary="a.b+c_d-e"', "multipart/form-data; boundary=" + "x" * 70,
    # left to aiohttp:
    "multipart/form-data; boundary=" + "x" * 71, "Multipart/Form-Data; boundary=abc",
    "multipart/form-data;boundary=abc", "multipart/form-data; boundary=a b",
    "application/json; charset=utf-8", "text/plain", "", 'multipart/form-data; boundary="abc',
    "multipart/mixed; boundary=abc",
])
def test_content_type_is_read_as_aiohttp_reads_it(header: str | None) -> None:
    kind = content_kind(header)
    if kind is None:
        assert header is not None  # aiohttp reads it (request.content_type)
        return
    headers = {} if header is None else {"Content-Type": header}
    request = make_mocked_request("POST", "/", headers=headers)
    assert kind[0] == request.content_type
    if kind[0] == FORM_DATA:
        assert header is not None
        assert kind[1] == parse_mimetype(header).parameters["boundary"]


def test_a_quoted_boundary() -> None:
    assert content_kind('multipart/form-data; boundary="q-1"') == (FORM_DATA, "q-1")
    assert content_kind("multipart/form-data; boundary=q-1") == (FORM_DATA, "q-1")


# -- multipart/form-data -------------------------------------------------------------------


async def test_a_payload_and_two_files_as_discord_py_sends_them() -> None:
    ctype, raw = await discord_form(("table.png", PNG), ("hand é.png", b""))
    kind = content_kind(ctype)
    assert kind is not None and kind[0] == FORM_DATA and kind[1] is not None
    parts = parse_form(raw, kind[1])
    assert parts == await aiohttp_parts(raw, ctype)
    assert parts is not None and [(p.name, p.filename) for p in parts] == [
        ("payload_json", None), ("files[0]", "table.png"), ("files[1]", "hand é.png")]
    assert json.loads(parts[0].data)["content"] == "héllo"
    assert parts[1].data == PNG and parts[2].data == b""


async def test_a_form_as_aiohttp_writes_it_by_default() -> None:
    """aiohttp's FormData (quoted field names), as the loopback's own tests send files."""
    payload = aiohttp.FormData()
    payload.add_field("payload_json", '{"a": 1}', content_type="application/json")
    payload.add_field("files[0]", PNG, filename="t.png", content_type="image/png")
    ctype, raw = await written(payload)
    kind = content_kind(ctype)
    assert kind is not None and kind[1] is not None
    parts = parse_form(raw, kind[1])
    assert parts is not None and parts == await aiohttp_parts(raw, ctype)


B = "bnd"
ODD_BODIES = {
    # what aiohttp reads its own way: the reader leaves them to it
    "preamble": b"hello\r\n" + form(B, JSON_PART),
    "whitespace after a boundary": form(B, JSON_PART).replace(b"--bnd\r\n", b"--bnd  \r\n"),
    "an escaped quote": form(B, JSON_PART, file_part(b'form-data; name="files[0]"; '
                                                     b'filename="a\\"b.png"')),
    "a leading slash": form(B, JSON_PART, file_part(b'form-data; name="files[0]"; '
                                                    b'filename="/etc/x.png"')),
    "a semicolon": form(B, JSON_PART, file_part(b'form-data; name="files[0]"; '
                                                b'filename="a;b.png"')),
    "filename*": form(B, JSON_PART, file_part(b"form-data; name=\"files[0]\"; "
                                              b"filename*=utf-8''%C3%A9.png")),
    "unquoted name": form(B, file_part(b"form-data; name=payload_json", b"{}")),
    "another header": form(B, b"X-Extra: 1\r\n" + JSON_PART),
    "Content-Length": form(B, b"Content-Length: 16\r\n" + JSON_PART),
    "epilogue": form(B, JSON_PART, end=b"--\r\nthe end\r\n"),
    "LF line ends": form(B, JSON_PART).replace(b"\r\n", b"\n"),
    "_charset_": form(B, file_part(b'form-data; name="_charset_"', b"utf-8"), JSON_PART),
    "upper-case header": form(B, JSON_PART.replace(b"Content-Disposition",
                                                   b"CONTENT-DISPOSITION")),
}


@pytest.mark.parametrize("case", sorted(ODD_BODIES))
async def test_an_odd_body_is_read_by_aiohttp_or_as_aiohttp_reads_it(case: str) -> None:
    raw = ODD_BODIES[case]
    parts = parse_form(raw, B)
    if case == "upper-case header":  # header names are case-insensitive: read here
        assert parts is not None
    if parts is not None:
        assert parts == await aiohttp_parts(raw, f"multipart/form-data; boundary={B}")


INVALID_JSON = {"message": "The request body contains invalid JSON.", "code": 50109}
MALFORMED: dict[str, tuple[bytes, int, list[str]]] = {
    # the body, then the status and the invalid_body problems of the loopback before
    # loopback/forms.py (aiohttp's reader alone)
    "no closing boundary": (form(B, JSON_PART)[: -len(b"--bnd--\r\n")],
                            400, ["Reading after EOF"]),
    "a wrong boundary": (form(B, JSON_PART).replace(b"\r\n--bnd--", b"\r\n--bndX--"),
                         400, ["Invalid boundary b'--bndX--', expected b'--bnd'"]),
    "no boundary at all": (b'{"content": "x"}', 400,
                           ["Could not find starting boundary b'--bnd'"]),
    "LF line ends": (ODD_BODIES["LF line ends"], 400, ["Reading after EOF"]),
    "payload_json not JSON": (form(B, JSON_PART.replace(b'{"content": "x"}', b"{nope")), 400,
                              ["Expecting property name enclosed in double quotes: "
                               "line 1 column 2 (char 1)"]),
    # aiohttp's own errors (not ValueErrors): its 500
    "no blank line after the headers": (b"--bnd\r\n" + JSON_PART.replace(b"\r\n\r\n", b"\r\n")
                                        + b"\r\n--bnd--\r\n", 500, []),
    "_charset_ first": (ODD_BODIES["_charset_"], 500, []),
}


async def post_raw(d: LoopbackDiscord, path: str, raw: bytes, ctype: str) -> tuple[int, Any]:
    headers = {"Authorization": f"Bot {d.token}", "Content-Type": ctype}
    async with aiohttp.ClientSession() as http, http.post(d.api_base + path, data=raw,
                                                          headers=headers) as resp:
        text = await resp.text()
        return resp.status, (json.loads(text) if resp.content_type == "application/json"
                             else text)


@pytest.mark.parametrize("case", sorted(MALFORMED))
async def test_a_malformed_body_is_refused_as_before(case: str) -> None:
    """Each refused as the loopback refused it with aiohttp's reader alone: a 400 "The
    request body contains invalid JSON." (code 50109) and an ``invalid_body`` problem that
    says what aiohttp or the JSON decoder found; aiohttp's 500 for what it fails on."""
    raw, status, problems = MALFORMED[case]
    if case != "payload_json not JSON":
        assert parse_form(raw, B) is None  # left to aiohttp
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        got, answer = await post_raw(d, f"/channels/{channel.id}/messages", raw,
                                     f"multipart/form-data; boundary={B}")
        assert got == status
        if status == 400:
            assert answer == INVALID_JSON
        assert [p.message for p in d.take_problems()] == problems
        assert channel.messages == []


async def test_a_form_the_bot_sends_is_taken_whole() -> None:
    """Through the server: the message gets the payload's content and both files."""
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        ctype, raw = await discord_form(("a.png", PNG), ("b.png", b"\r\n--x"))
        status, answer = await post_raw(d, f"/channels/{channel.id}/messages", raw, ctype)
        assert status == 200, answer
        [msg] = channel.messages
        assert msg.content == "héllo" and msg.files == {"a.png": PNG, "b.png": b"\r\n--x"}
        assert d.take_problems() == []


# -- JSON out ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [
    {"a": 1, "b": [1.5, None, True, "é☃😀"], "c": {"d": "\u2028\"\\"}},
    {1: "non-str keys", None: 2, False: 3},
    {"big": 2**70, "float": 1e16, "neg": -0.0},
    ("a", "tuple"),
])
def test_json_out_is_the_value_json_dumps_wrote(value: Any) -> None:
    assert json.loads(dumps(value)) == json.loads(json.dumps(value))


@pytest.mark.parametrize("doc", [
    b'{"a": 1, "a": 2}', b"18446744073709551616", b"-9223372036854775809",
    b'{"n": 12345678901234567890123, "m": 9223372036854775807}', b"[1e400, -0, 0.5, NaN]",
    b'{"id": "1575986099220643846", "s": "\\ud800"}', b"\xef\xbb\xbf{}",
    '{"é": 1}'.encode("utf-16"), b"\xff", b"{nope", b"", b"[" * 3000 + b"]" * 3000,
])
def test_json_in_is_what_json_loads_read_or_its_error(doc: bytes) -> None:
    """The same value (an integer stays an integer however long) or the same error."""
    def read(fn: Any) -> str:
        try:
            return repr(fn(doc))
        except (ValueError, RecursionError) as exc:
            return f"{type(exc).__name__}: {exc}"

    assert read(loads) == read(json.loads)


def test_json_out_refuses_what_json_dumps_refused() -> None:
    with pytest.raises(TypeError):
        dumps({"a": {1, 2}})


# -- a message read once per version --------------------------------------------------------


def row(*labels: str) -> dict[str, Any]:
    return {"type": 1, "components": [{"type": 2, "style": 2, "label": x, "custom_id": x}
                                      for x in labels]}


async def test_an_edited_message_shows_its_new_buttons_and_text() -> None:
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        msg = d.store_message(channel, {"content": "one", "components": [row("a", "b")]})
        assert msg.button_labels() == ["a", "b"] and msg.text() == "one"
        assert [c["type"] for c in msg.walk_components()] == [1, 2, 2]
        d.edit_message(msg, {"content": "two", "components": [row("c")]})
        assert msg.button_labels() == ["c"] and msg.text() == "two"
        assert [c["type"] for c in msg.walk_components()] == [1, 2]
        d.edit_message(msg, {"embeds": [{"title": "three"}]})  # components kept
        assert msg.button_labels() == ["c"] and msg.text() == "two\nthree"


async def test_a_message_with_a_broken_component_fails_where_it_did() -> None:
    """A component that is not an object: the components are walked lazily, as before (a
    reading that stops before it does not fail)."""
    async with LoopbackDiscord() as d:
        channel = d.add_guild("Test").new_channel()
        msg = d.store_message(channel, {"components": [row("a"), "oops"]})
        assert next(msg.walk_components())["type"] == 1
        with pytest.raises(AttributeError):
            msg.buttons()
        d.edit_message(msg, {"components": [row("z")]})
        assert msg.button_labels() == ["z"]


# -- routing -------------------------------------------------------------------------------


def test_each_path_finds_the_route_it_found_among_all() -> None:
    """The router looks only at the routes whose template starts as the path does: the
    same route (the one with the fewest placeholders) as a look at every route."""
    d = LoopbackDiscord()
    router = d.router

    def among_all(method: str, path: str) -> tuple[str, dict[str, str]]:
        found = sorted(((t.count("{"), t, m.groupdict()) for meth, rx, t, _fn in router.routes
                        if meth == method and (m := rx.match(path))), key=lambda c: c[0])
        return (found[0][1], found[0][2]) if found else ("", {})

    paths = {re.sub(r"\{\w+\}", "123", t) for _m, _rx, t, _fn in router.routes}
    paths |= {"/users/@me", "/webhooks/1/tok/messages/@original", "", "/", "/nowhere/1"}
    methods = {m for m, _rx, _t, _fn in router.routes}
    assert len(paths) > 30
    for path in sorted(paths):
        for method in sorted(methods):
            template, _handler, params = router.find(method, path)
            assert (template, params) == among_all(method, path), (method, path)
