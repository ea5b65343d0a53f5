"""The bot's CPU per request, by kind: discord.py's own calls against ``cogs/uno/_rest.py``.

    python bench/bench_requests.py [--requests 200] [--rounds 5] [KIND ...]

A small Discord stand-in in another process (aiohttp, as the loopback answers: a callback
204 or its result with ``with_response``, an edited or posted message echoed back with its
attachments, the webhook bucket's ``X-RateLimit-*`` headers) answers the bot's four busiest
requests with the bodies the bot really sends (a V2 table with its picture, posted and
edited; a hand panel), on uvloop with orjson as the bot runs. Only this process's CPU is
measured (``time.process_time``): each round makes every kind's requests one after the other,
alternating discord.py's call, ``_rest``'s through ``session.request`` (``_wire.ENABLED``
off) and ``_rest``'s as the bot sends them (``cogs/uno/_wire.py``); the median and the
spread over the rounds are printed, and the ratios of each to the one before (run it on a
quiet machine, or compare the ratios).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import io
import itertools
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

APP = 222
CHANNEL = 1234567890123


# ---------------------------------------------------------------------- the stand-in
def serve(port: int) -> None:
    from aiohttp import web
    ids = itertools.count(10**18)
    limits = {"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4",
              "X-RateLimit-Reset": "1795801138.470", "X-RateLimit-Reset-After": "2.000",
              "X-RateLimit-Bucket": "abcdef0123456789"}

    def answer(data: Any, headers: dict[str, str] | None = None) -> web.Response:
        return web.Response(body=json.dumps(data).encode(),
                            headers={"Content-Type": "application/json", **(headers or {})})

    async def body(req: web.Request) -> tuple[dict[str, Any], list[tuple[str, int]]]:
        if req.content_type != "multipart/form-data":
            raw = await req.read()
            return (json.loads(raw) if raw else {}), []
        payload: dict[str, Any] = {}
        files = []
        async for part in await req.multipart():
            data = await part.read()  # type: ignore[union-attr]
            if part.name == "payload_json":
                payload = json.loads(data)
            else:
                files.append((part.filename or "", len(data)))  # type: ignore[union-attr]
        return payload, files

    def message(data: dict[str, Any], files: list[tuple[str, int]]) -> dict[str, Any]:
        return {"id": str(next(ids)), "channel_id": str(CHANNEL), "type": 0,
                "content": data.get("content") or "", "tts": False, "pinned": False,
                "author": {"id": str(APP), "username": "UNO", "discriminator": "0000",
                           "avatar": None, "bot": True, "global_name": None},
                "attachments": [{"id": str(next(ids)), "filename": f, "size": n,
                                 "url": f"https://cdn/{f}", "proxy_url": f"https://media/{f}",
                                 "width": 600, "height": 300, "content_type": "image/png"}
                                for f, n in files],
                "embeds": data.get("embeds") or [], "components": data.get("components") or [],
                "mentions": [], "mention_roles": [], "mention_everyone": False,
                "timestamp": "2026-11-27T17:00:00.000000+00:00", "edited_timestamp": None,
                "flags": data.get("flags") or 0, "webhook_id": str(APP),
                "application_id": str(APP),
                "interaction_metadata": {"id": "333", "type": 3, "user": {
                    "id": "444", "username": "bob", "discriminator": "0", "avatar": None},
                    "authorizing_integration_owners": {"0": "555"}}}

    async def callback(req: web.Request) -> web.Response:
        data, files = await body(req)
        if req.query.get("with_response") != "1":
            return web.Response(status=204)
        result: dict[str, Any] = {"interaction": {"id": req.match_info["iid"], "type": 3}}
        if data.get("type") == 7:
            result["resource"] = {"type": 7, "message": message(data.get("data") or {}, files)}
        return answer(result)

    async def webhook(req: web.Request) -> web.Response:
        data, files = await body(req)
        if req.method == "POST" and req.query.get("wait") not in ("1", "true"):
            return web.Response(status=204, headers=limits)
        return answer(message(data, files), limits)

    app = web.Application()
    app.router.add_post("/api/v10/interactions/{iid}/{tok}/callback", callback)
    app.router.add_patch("/api/v10/webhooks/{app}/{tok}/messages/{mid}", webhook)
    app.router.add_post("/api/v10/webhooks/{app}/{tok}", webhook)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- the bot's side
async def bodies() -> tuple[dict[str, Any], dict[str, Any], str, Any]:
    """A V2 table posted, then edited with a new picture; a hand panel's text and view."""
    from cogs.uno._table_post import TablePost, TableStyle
    from cogs.uno.show.hand import hand_menu
    from support.games import scenario_session
    from support.service import ALICE, BOB, GUILD
    session = scenario_session(4242, [ALICE, BOB, "cpu1"], guild_id=GUILD, discard="R5",
                               hands={ALICE: "R1 R2 G5 B7 Y9 G+2 RS", BOB: "R3 G3 B3",
                                      "cpu1": "Y1 Y2"})
    post = TablePost(TableStyle(v2=True))
    post.change(session, True)
    new = await post.compose(session, True, None, lambda: ["alice plays 🟥 red 5."],
                             lambda: True)
    post.adopt(1000, new=True)
    session.serial += 1
    post.change(session, True)
    edit = await post.compose(session, False, None, lambda: ["bob plays 🟥 red 3."],
                              lambda: True)
    assert new is not None and edit is not None
    text, view = hand_menu(session, session.game, ALICE.id, "en")  # type: ignore[arg-type]
    return new, edit, text, view


def interaction_data() -> dict[str, Any]:
    iid = next(_IDS)
    user = {"id": "111", "username": "alice", "discriminator": "0", "avatar": None}
    return {"id": str(iid), "application_id": str(APP), "type": 3, "token": f"token{iid}",
            "version": 1, "channel_id": str(CHANNEL), "guild_id": "500", "locale": "en-US",
            "app_permissions": "1125899906842623", "entitlements": [], "context": 0,
            "attachment_size_limit": 10485760,
            "authorizing_integration_owners": {"0": "500"},
            "channel": {"id": str(CHANNEL), "type": 0, "guild_id": "500", "name": "uno",
                        "position": 0, "permission_overwrites": [], "nsfw": False,
                        "rate_limit_per_user": 0, "topic": None, "parent_id": None,
                        "flags": 0, "permissions": "1125899906842623"},
            "member": {"user": user, "roles": [], "joined_at": "2026-01-01T00:00:00+00:00",
                       "deaf": False, "mute": False, "flags": 0,
                       "permissions": "1125899906842623"},
            "message": {"id": str(next(_IDS)), "channel_id": str(CHANNEL), "type": 0,
                        "content": "hand", "flags": 64, "attachments": [], "embeds": [],
                        "author": {**user, "id": str(APP), "bot": True}, "components": [],
                        "mentions": [], "mention_roles": [], "pinned": False, "tts": False,
                        "mention_everyone": False, "edited_timestamp": None,
                        "timestamp": "2026-11-27T17:00:00+00:00"},
            "data": {"custom_id": "uno:pc:abc:3:R7", "component_type": 2}}


_IDS = itertools.count(10**17)
MIX = {"callback type 7 (edit_message)": 1.44, "panel PATCH @original": 1.26,
       "table PATCH webhook message": 1.09, "table POST followup (wait)": 0.67}
"""A move's requests (bench/README.md, "The bot's requests": a V2 profile with the panel)."""
Call = Callable[[Any, Any], Awaitable[Any]]


async def measure(port: int, count: int, rounds: int, only: list[str]) -> None:
    import aiohttp
    import discord

    from cogs.uno import _rest, _wire
    discord.http.Route.BASE = f"http://127.0.0.1:{port}/api/v10"
    client = discord.Client(intents=discord.Intents.none(),
                            allowed_mentions=discord.AllowedMentions.none())
    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=100),
                                    cookie_jar=aiohttp.DummyCookieJar())
    client.http._HTTPClient__session = session  # type: ignore[attr-defined]
    state = client._connection
    state.user = discord.ClientUser(state=state, data={  # type: ignore[typeddict-item]
        "id": str(APP), "username": "UNO", "discriminator": "0", "avatar": None, "bot": True})
    state.application_id = APP
    new, edit, text, view = await bodies()
    png = new["file"].fp.getvalue()
    mentions = client.allowed_mentions

    def fresh(body: dict[str, Any] | None) -> dict[str, Any] | None:
        if body is None:
            return None
        copy = dict(body)
        if "file" in copy:
            copy["file"] = discord.File(io.BytesIO(png), filename=copy["file"].filename)
        if copy.get("attachments"):
            copy["attachments"] = [discord.File(io.BytesIO(png), filename=f.filename)
                                   for f in copy["attachments"]]
        return copy

    hook = discord.Interaction(data=interaction_data(), state=state).followup  # type: ignore[arg-type]
    kinds: dict[str, tuple[Call, Call, dict[str, Any] | None]] = {
        "callback type 7 (edit_message)": (
            lambda i, _: i.response.edit_message(content=text, view=view, attachments=[]),
            lambda i, _: _rest.update(i, content=text, view=view, attachments=[]), None),
        "callback type 6 (defer)": (
            lambda i, _: i.response.defer(), lambda i, _: _rest.acknowledge(i), None),
        "panel PATCH @original": (
            lambda i, _: i.edit_original_response(content=text, view=view, attachments=[]),
            lambda i, _: _rest.edit_original(i, content=text, view=view, attachments=[]),
            None),
        "table PATCH webhook message": (
            lambda _, b: hook.edit_message(1000, **b),
            lambda _, b: _rest.edit(hook, 1000, mentions, b), edit),
        "table POST followup (wait)": (
            lambda _, b: hook.send(wait=True, **b),
            lambda _, b: _rest.post(hook, mentions, b), new),
    }
    times: dict[tuple[str, int], list[float]] = {}
    for turn in range(rounds + 1):  # the first round warms up
        for name, (*calls, body) in kinds.items():
            if only and not any(o in name for o in only):
                continue
            for which, call in enumerate((calls[0], calls[1], calls[1])):
                _wire.ENABLED = which == 2
                clicks = [discord.Interaction(data=interaction_data(), state=state)  # type: ignore[arg-type]
                          for _ in range(count)]
                sent = [fresh(body) for _ in range(count)]
                gc.collect()
                gc.disable()
                started = time.process_time()
                for click, b in zip(clicks, sent, strict=True):
                    await call(click, b)
                spent = time.process_time() - started
                gc.enable()
                if turn:
                    times.setdefault((name, which), []).append(spent / count * 1e6)
    await session.close()
    print(f"{'µs of CPU per request':34s} {'discord.py':>16s} {'_rest, aiohttp':>16s} "
          f"{'_rest, _wire':>16s} {'ratios':>12s}")
    for name in kinds:
        if (name, 0) not in times:
            continue
        a, b, c = (sorted(times[(name, w)]) for w in (0, 1, 2))
        ma, mb, mc = (statistics.median(t) for t in (a, b, c))
        print(f"{name:34s} {ma:6.0f} ({a[0]:.0f}–{a[-1]:.0f}) {mb:6.0f} ({b[0]:.0f}–{b[-1]:.0f})"
              f" {mc:6.0f} ({c[0]:.0f}–{c[-1]:.0f}) ×{mb / ma:.2f} ×{mc / mb:.2f}")
    if all((name, 0) in times for name in MIX):
        ms = [sum(statistics.median(times[(name, w)]) * n for name, n in MIX.items()) / 1000
              for w in (0, 1, 2)]
        print(f"{'a move (' + ', '.join(map(str, MIX.values())) + ' of them)':34s} "
              f"{ms[0]:6.2f} ms {'':9s}{ms[1]:6.2f} ms {'':9s}{ms[2]:6.2f} ms {'':8s}"
              f"×{ms[1] / ms[0]:.2f} ×{ms[2] / ms[1]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="requests a kind a round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("kinds", nargs="*", help="only the kinds whose name has this text")
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.1).close()
                break
            except OSError:
                time.sleep(0.1)
        import uvloop
        loop_factory = None if os.environ.get("UNO_UVLOOP") == "0" else uvloop.new_event_loop
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(measure(port, args.requests, args.rounds, args.kinds))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
