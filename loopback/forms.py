"""The bodies the bot sends, read without the email package: the Content-Type of a request
and a strict reader of the multipart/form-data bodies discord.py writes (``payload_json``
and ``files[n]``).

aiohttp parses a Content-Type header and each part's Content-Disposition with the email
package's header registry; at 1,000 tables that was a fifth of the loopback's CPU, and the
loopback shares its event loop with the simulated people whose acknowledgement times the
capacity benchmark measures. What these readers do not understand at a glance (another
header, a quoted-pair, a preamble, a nested multipart, whitespace after a boundary...) they
leave to aiohttp (:func:`content_kind` answers None, :func:`parse_form` answers None), so
what the loopback accepts and refuses stays aiohttp's."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

from aiohttp import MultipartReader, StreamReader, web
from aiohttp.base_protocol import BaseProtocol

FORM_DATA = "multipart/form-data"
_FORM_TYPE = re.compile(r'multipart/form-data; boundary=("?)([0-9A-Za-z_.+-]{1,70})\1')
"""A Content-Type whose boundary aiohttp reads as it stands (with or without quotes)."""
_PLAIN_TYPES = {None: "application/octet-stream", "application/json": "application/json"}
"""Content-Type headers (None: none) and the media type aiohttp gives them."""
_HEADER = re.compile(r"(?i:(content-disposition|content-type)): "
                     r"([^\x00-\x20\x7f](?:[^\x00-\x1f\x7f]*[^\x00-\x20\x7f])?)")
_DISPOSITION = re.compile(r'form-data; name="([^"\\;/\x00-\x1f\x7f][^"\\;\x00-\x1f\x7f]*)"'
                          r'(?:; filename="([^"\\;/\x00-\x1f\x7f][^"\\;\x00-\x1f\x7f]*)")?')
"""A part's Content-Disposition as discord.py writes it: nothing aiohttp would unescape,
strip or join (no backslash, no quote, no ``;``, no leading ``/``)."""
_MAX_HEADER_LINE = 4096


@dataclass(frozen=True)
class FormPart:
    """One part of a multipart/form-data body, as aiohttp's BodyPartReader reads it."""

    name: str | None
    filename: str | None
    data: bytes


def content_kind(header: str | None) -> tuple[str, str | None] | None:
    """(media type, form boundary) of a request's Content-Type header (None: absent) when it
    is one the bot sends (no header, ``application/json``, multipart/form-data with a plain
    boundary), else None: ask aiohttp (``request.content_type``)."""
    plain = _PLAIN_TYPES.get(header)
    if plain is not None:
        return plain, None
    assert header is not None
    m = _FORM_TYPE.fullmatch(header)
    if m is None:
        return None
    return FORM_DATA, m.group(2)


def parse_form(raw: bytes, boundary: str) -> list[FormPart] | None:
    """The parts of a multipart/form-data body, exactly as aiohttp's MultipartReader reads
    them, when the body is as discord.py writes it (each part a Content-Disposition
    ``form-data; name="…"[; filename="…"]`` and at most a Content-Type, CRLF line ends, no
    preamble or epilogue); None for any other body (aiohttp reads it, or refuses it)."""
    delim = b"--" + boundary.encode("ascii")
    sub = b"\r\n" + delim
    if not raw.startswith(delim + b"\r\n"):
        return None
    parts: list[FormPart] = []
    pos = len(delim) + 2
    while True:
        head_end = raw.find(b"\r\n\r\n", pos)
        if head_end < 0:
            return None
        part = _part_headers(raw[pos:head_end])
        if part is None:
            return None
        name, filename = part
        end = raw.find(sub, head_end + 2)
        if end < 0:
            return None
        parts.append(FormPart(name, filename, raw[head_end + 4:max(end, head_end + 4)]))
        after = end + len(sub)
        if raw[after:after + 2] == b"\r\n":
            pos = after + 2
            continue
        if raw[after:] in (b"--", b"--\r\n"):
            return parts
        return None


def _part_headers(head: bytes) -> tuple[str, str | None] | None:
    """(name, filename) of a part whose headers are a Content-Disposition and at most a
    Content-Type that is not multipart/*; None for anything else."""
    if b"\n" in head.replace(b"\r\n", b"") or b"\r" in head.replace(b"\r\n", b""):
        return None
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return None
    seen: dict[str, str] = {}
    for line in text.split("\r\n"):
        m = _HEADER.fullmatch(line)
        if m is None or len(line) > _MAX_HEADER_LINE:
            return None
        key = m.group(1).lower()
        if key in seen:
            return None
        seen[key] = m.group(2)
    ctype = seen.get("content-type")
    if ctype is not None and ctype.split(";")[0].strip().lower().startswith("multipart"):
        return None
    disposition = _DISPOSITION.fullmatch(seen.get("content-disposition", ""))
    if disposition is None or disposition.group(1) == "_charset_":
        return None
    return disposition.group(1), disposition.group(2)


def aiohttp_reader(request: web.Request, raw: bytes) -> MultipartReader:
    """aiohttp's reader of the multipart body ``raw`` of ``request`` (already read), as
    ``request.multipart()`` makes it."""
    stream = StreamReader(BaseProtocol(asyncio.get_running_loop()), len(raw) + 2**16,
                          loop=asyncio.get_running_loop())
    stream.feed_data(raw)
    stream.feed_eof()
    return MultipartReader(
        request.headers,
        stream,
        client_max_size=request.client_max_size,
        max_field_size=request.protocol.max_field_size,
        max_headers=request.protocol.max_headers,
        max_size_error_cls=web.HTTPRequestEntityTooLarge,
    )
