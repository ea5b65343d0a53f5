"""The bot's busiest Discord requests, sent without the objects discord.py builds around them.

Per move the bot answers about 1.4 clicks (an edit of the clicked message, type 7, or a
bare acknowledgement, type 6), edits about 1.3 hand panels (PATCH ``@original``), edits the
table once (PATCH of a webhook message) and posts one 0.7 times (POST through a followup
webhook). discord.py's calls for these (``InteractionResponse.edit_message`` and
``defer``, ``Interaction.edit_original_response``, ``Webhook.edit_message`` and ``send``)
ask Discord for the callback's result (``with_response``), build a ``Message`` or an
``InteractionCallbackResponse`` from every answer, which the bot never reads (a posted
message's id at most), and wrap uploads in an aiohttp ``FormData``: together about 40 % of
each request's CPU (bench/README.md, "The bot's requests").

Here the bodies are the ones discord.py itself builds (``handle_message_parameters``,
``interaction_message_response_params``: the same JSON, components and V2 flag, the same
``attachments`` and ``allowed_mentions`` merged with the client's), sent through the
interaction's own aiohttp session (its connector, TLS, proxy) as one prepared body (JSON, or
``multipart/form-data`` with ``payload_json`` and ``files[n]``), written on the session's
pooled connection and read back by ``_wire.py`` (the bytes aiohttp would write, without the
objects ``ClientSession.request`` builds for each request), and the answer is read only
as far as needed. Discord's limits are kept as discord.py's webhook adapter keeps them: one
request at a time per token (one bucket per webhook token or interaction); an answer with
``X-RateLimit-Remaining: 0`` holds its bucket, and its caller, for
``X-RateLimit-Reset-After`` seconds; a 429 is tried again after its ``retry_after`` (without
a ``Via`` header it is Cloudflare's ban, raised at once); a 5xx up to five times; a 403, a
404 or any other refusal raises ``discord.Forbidden``, ``discord.NotFound`` or
``discord.HTTPException`` with Discord's status and JSON code, as discord.py's would, so the
callers map errors unchanged.

A click answered here is marked answered in discord.py as its own call would mark it
(``InteractionResponse.is_done``, ``type``). A view discord.py would keep (one not stopped,
with items to dispatch: the bot's are all stopped, ``_components.finished``) goes through
discord.py's own call, which keeps it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import weakref
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import aiohttp
import discord
from discord.http import Route, handle_message_parameters
from discord.webhook.async_ import interaction_message_response_params

from cogs.uno._wire import Answer, send

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is in requirements.txt
    orjson = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

ATTEMPTS = 5
"""Tries of one request (429s and 5xx), as discord.py's webhook adapter makes."""
RESET_ERRNOS = (54, 10054)
"""Connection reset by peer (BSD, Windows): tried again, as discord.py does."""
UPDATE_MESSAGE = discord.InteractionResponseType.message_update
DEFER_UPDATE = discord.InteractionResponseType.deferred_message_update

_PLAIN = re.compile(r"[A-Za-z0-9_.~-]*")
"""What ``quote`` leaves as it is."""

_buckets: weakref.WeakValueDictionary[tuple[int, str], asyncio.Lock] = (
    weakref.WeakValueDictionary())
"""One lock per token: its requests go one at a time (discord.py's adapter's buckets)."""


def _dumps(payload: Any) -> bytes:
    if orjson is not None:
        return orjson.dumps(payload)
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=True).encode()


def _loads(raw: bytes) -> Any:
    return orjson.loads(raw) if orjson is not None else json.loads(raw)


class _Body:
    """A prepared request body: JSON, or multipart/form-data with the files."""

    __slots__ = ("content_type", "data")

    def __init__(self, payload: dict[str, Any] | None,
                 multipart: list[dict[str, Any]] | None,
                 files: Sequence[discord.File] | None) -> None:
        if not files:
            self.data = _dumps(payload)
            self.content_type = "application/json"
            return
        assert multipart, "discord.py puts payload_json first"
        boundary = os.urandom(16).hex()  # as random as uuid4().hex (aiohttp's), cheaper
        parts: list[bytes] = []
        for part in multipart:
            name = _quoted(part["name"])
            value = part["value"]
            if part.get("filename") is None:  # payload_json
                head = (f'Content-Disposition: form-data; name="{name}"\r\n'
                        "Content-Type: application/json\r\n\r\n")
                data = value.encode() if isinstance(value, str) else bytes(value)
            else:
                head = (f'Content-Disposition: form-data; name="{name}"; '
                        f'filename="{_quoted(part["filename"])}"\r\n'
                        f'Content-Type: {part.get("content_type") or "application/octet-stream"}'
                        "\r\n\r\n")
                data = value.read()
            parts += [f"--{boundary}\r\n{head}".encode(), data, b"\r\n"]
        parts.append(f"--{boundary}--\r\n".encode())
        self.data = b"".join(parts)
        self.content_type = f"multipart/form-data; boundary={boundary}"


_DEFER_BODY = _Body({"type": DEFER_UPDATE.value}, None, None)
"""A bare acknowledgement's body (type 6), the same every time."""


def _quoted(text: str) -> str:
    """A form field's name or file name inside its double quotes."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "").replace("\n", "")


def _data(response: Answer, raw: bytes) -> Any:
    """Discord's answer as discord.py reads it: JSON when it says so, else text."""
    if response.headers.get("Content-Type") == "application/json":
        try:
            return _loads(raw)
        except ValueError:
            pass
    return raw.decode("utf-8", "replace")


def _hold(response: Answer) -> float:
    """Seconds the bucket stays closed after ``response`` (0: it has room)."""
    headers = response.headers
    if headers.get("X-Ratelimit-Remaining") != "0" or response.status == 429:
        return 0.0
    try:
        return max(0.0, float(headers.get("X-Ratelimit-Reset-After") or 0.0))
    except ValueError:
        return 1.0


async def _send(session: aiohttp.ClientSession, method: str, path: str, bucket: tuple[int, str],
                body: _Body, *, proxy: str | None = None,
                proxy_auth: aiohttp.BasicAuth | None = None, answer: bool = False) -> Any:
    """One request on ``bucket``'s token (``path``: quoted already, under ``Route.BASE``),
    with Discord's limits kept (see the module's text); Discord's answer (JSON) when
    ``answer``, else None."""
    lock = _buckets.get(bucket)
    if lock is None:
        _buckets[bucket] = lock = asyncio.Lock()
    await lock.acquire()
    hold = 0.0
    try:
        response: Answer | None = None
        payload: Any = None
        for attempt in range(ATTEMPTS):
            try:
                response, raw = await send(session, method, Route.BASE, path,
                                           body.content_type, body.data, proxy=proxy,
                                           proxy_auth=proxy_auth)
            except OSError as exc:
                if attempt < ATTEMPTS - 1 and exc.errno in RESET_ERRNOS:
                    await asyncio.sleep(1 + attempt * 2)
                    continue
                raise
            status = response.status
            hold = _hold(response)
            if 200 <= status < 300:
                return _loads(raw) if answer and raw else None
            payload = _data(response, raw)
            if status == 429:
                if not response.headers.get("Via") or not isinstance(payload, dict):
                    raise discord.HTTPException(response, payload)  # Cloudflare's ban
                retry_after = float(payload["retry_after"])
                log.warning("%s %s is rate limited: trying again in %.2f s", method,
                            bucket[0], retry_after)
                await asyncio.sleep(retry_after)
                continue
            if status >= 500:
                await asyncio.sleep(1 + attempt * 2)
                continue
            if status == 403:
                raise discord.Forbidden(response, payload)
            if status == 404:
                raise discord.NotFound(response, payload)
            raise discord.HTTPException(response, payload)
        assert response is not None
        if response.status >= 500:
            raise discord.DiscordServerError(response, payload)
        raise discord.HTTPException(response, payload)
    finally:
        try:
            if hold > 0:
                # the bucket stays closed, and the caller waits with it, as in discord.py
                await asyncio.sleep(hold)
        finally:
            lock.release()


def _quoted_token(token: str) -> str:
    """A token as a path segment (``quote(token, safe="")``; most need no quoting)."""
    return token if _PLAIN.fullmatch(token) else quote(token, safe="")


# ---------------------------------------------------------------------- interaction callbacks
async def update(interaction: discord.Interaction[Any], *, content: Any = discord.utils.MISSING,
                 embed: Any = discord.utils.MISSING, view: Any = discord.utils.MISSING,
                 attachments: Any = discord.utils.MISSING) -> None:
    """Answer a click by editing the message it came from (type 7), as
    ``interaction.response.edit_message`` does, without asking for the result."""
    if _kept(view) or interaction.type not in (discord.InteractionType.component,
                                               discord.InteractionType.modal_submit):
        await interaction.response.edit_message(content=content, embed=embed, view=view,
                                                attachments=attachments)
        return
    if interaction.response.is_done():
        raise discord.InteractionResponded(interaction)
    params = interaction_message_response_params(
        type=UPDATE_MESSAGE.value, content=content, embed=embed, view=view,
        attachments=attachments, previous_allowed_mentions=interaction.client.allowed_mentions)
    try:
        body = _Body(params.payload, params.multipart, params.files)
    finally:
        params.__exit__(None, None, None)
    await _callback(interaction, body, UPDATE_MESSAGE)


async def acknowledge(interaction: discord.Interaction[Any]) -> None:
    """Acknowledge a click without changing its message (type 6), as
    ``interaction.response.defer()`` does; any other interaction goes through discord.py."""
    if interaction.type not in (discord.InteractionType.component,
                                discord.InteractionType.modal_submit):
        await interaction.response.defer()
        return
    if interaction.response.is_done():
        raise discord.InteractionResponded(interaction)
    await _callback(interaction, _DEFER_BODY, DEFER_UPDATE)


async def _callback(interaction: discord.Interaction[Any], body: _Body,
                    kind: discord.InteractionResponseType) -> None:
    hook = interaction.followup
    url = f"/interactions/{interaction.id}/{_quoted_token(interaction.token)}/callback"
    await _send(hook.session, "POST", url, (interaction.id, interaction.token), body,
                proxy=hook.proxy, proxy_auth=hook.proxy_auth)
    # answered: discord.py's own call would have noted it so (is_done, type)
    interaction.response._response_type = kind


# ---------------------------------------------------------------------- webhook messages
async def edit_original(interaction: discord.Interaction[Any], *,
                        content: Any = discord.utils.MISSING,
                        view: Any = discord.utils.MISSING,
                        attachments: Any = discord.utils.MISSING) -> None:
    """Edit the interaction's first answer (a hand panel), as
    ``interaction.edit_original_response`` does, without reading Discord's answer."""
    if _kept(view):
        await interaction.edit_original_response(content=content, view=view,
                                                 attachments=attachments)
        return
    await edit_original_via(interaction.followup, interaction.client.allowed_mentions,
                            content=content, view=view, attachments=attachments)


async def edit_original_via(webhook: discord.Webhook, mentions: discord.AllowedMentions | None,
                            *, content: Any = discord.utils.MISSING,
                            view: Any = discord.utils.MISSING,
                            attachments: Any = discord.utils.MISSING) -> None:
    """:func:`edit_original` through the interaction's followup ``webhook`` alone (kept
    without the interaction; ``mentions``: the client's allowed mentions). Not for a view
    discord.py would keep for dispatching, which only the interaction can register."""
    if _kept(view):
        raise TypeError("a view discord.py keeps is edited in through its interaction")
    await _patch(webhook, "@original", mentions,
                 {"content": content, "view": view, "attachments": attachments})


async def edit(webhook: discord.Webhook, message_id: int,
               mentions: discord.AllowedMentions | None, body: dict[str, Any]) -> bool:
    """Edit a message posted through ``webhook`` (``body``: ``Webhook.edit_message``'s
    arguments; ``mentions``: the client's allowed mentions, which ``body``'s complete, as
    discord.py merges them). True once Discord took it."""
    if _kept(body.get("view")):
        await webhook.edit_message(message_id, **body)
    else:
        await _patch(webhook, str(message_id), mentions, body)
    return True


def _prepared(body: dict[str, Any], mentions: discord.AllowedMentions | None) -> _Body:
    """A webhook message's body (``Webhook.send``/``edit_message``'s arguments) prepared
    by discord.py's own function (its JSON, attachments and allowed mentions)."""
    params = handle_message_parameters(**body, previous_allowed_mentions=mentions)
    try:
        return _Body(params.payload, params.multipart, params.files)
    finally:
        params.__exit__(None, None, None)


async def _patch(webhook: discord.Webhook, message: str,
                 mentions: discord.AllowedMentions | None, body: dict[str, Any]) -> None:
    prepared = _prepared(body, mentions)
    url = f"/webhooks/{webhook.id}/{_quoted_token(_bucket(webhook)[1])}/messages/{message}"
    url += ("?with_components=1" if body.get("view") else "?with_components=0")
    await _send(webhook.session, "PATCH", url, _bucket(webhook), prepared,
                proxy=webhook.proxy, proxy_auth=webhook.proxy_auth)


async def post(webhook: discord.Webhook, mentions: discord.AllowedMentions | None,
               body: dict[str, Any]) -> int:
    """Post a message through an interaction's followup ``webhook`` (``body``:
    ``Webhook.send``'s message arguments) and return its id."""
    view = body.get("view", discord.utils.MISSING)
    if _kept(view):
        return (await webhook.send(wait=True, **body)).id
    if body.get("content", 0) is None:
        body = {k: v for k, v in body.items() if k != "content"}  # as Webhook.send does
    prepared = _prepared(body, mentions)
    url = f"/webhooks/{webhook.id}/{_quoted_token(_bucket(webhook)[1])}"
    url += f"?wait=1&with_components={int(view is not discord.utils.MISSING)}"
    message = await _send(webhook.session, "POST", url, _bucket(webhook), prepared,
                          proxy=webhook.proxy, proxy_auth=webhook.proxy_auth, answer=True)
    return int(message["id"])


def _kept(view: Any) -> bool:
    """A view discord.py would keep for dispatching after sending it (not stopped)."""
    return (isinstance(view, discord.ui.view.BaseView) and not view.is_finished()
            and view.is_dispatchable())


def _bucket(webhook: discord.Webhook) -> tuple[int, str]:
    assert webhook.token is not None, "an interaction's webhook has its token"
    return webhook.id, webhook.token
