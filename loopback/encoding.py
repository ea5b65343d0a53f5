"""The loopback's JSON in and out: orjson, as the bot does; the standard library's for what
orjson reads or writes differently.

In (:func:`loads`): what orjson refuses (NaN, a lone surrogate, a byte-order mark,
UTF-16...) goes to ``json.loads``, which reads it or raises the error the loopback reported
before; so does a document that may hold an integer of 19 digits or more, which orjson
would read as a float.

Out (:func:`dumps`; ``json.dumps`` was a tenth of the loopback's CPU at 1,000 tables):
orjson writes the same JSON value (keys in the same order, non-str keys as strings,
compact and UTF-8 where the standard library puts spaces and ``\\u`` escapes: equal once
parsed). What orjson would write differently or not at all (integers beyond 64 bits,
dataclasses, datetimes, subclasses of str, int, dict or list) goes to ``json.dumps``, as
before: the same text, or the same TypeError for what JSON cannot hold. Left different,
as the loopback never sends them: orjson writes a UUID or an Enum member (``json.dumps``
refuses them) and NaN or infinity as null (``json.dumps``: NaN, Infinity)."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_LONG_INTEGER = re.compile(rb"\d{19}(?:[,\]}\s]|$)")
"""Nineteen digits or more that may end a number (a string's digits end with a quote or go
on: a snowflake, a custom_id): an integer beyond 64 bits, or near, is read by the standard
library."""
_OPTIONS = (orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS
            | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS)


def loads(data: bytes | bytearray) -> Any:
    """The value of a JSON document (``json.JSONDecodeError`` as ``json.loads`` raises it)."""
    if _LONG_INTEGER.search(data):
        return json.loads(data)
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def dumps(data: Any) -> bytes:
    """``data`` as JSON (UTF-8)."""
    try:
        return orjson.dumps(data, option=_OPTIONS)
    except TypeError:
        return json.dumps(data).encode()
