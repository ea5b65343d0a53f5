"""The application's side of the loopback Discord: the bot user and the application
(``/users/@me``, ``/applications/@me``), the gateway's address (``/gateway[/bot]``), the
application commands a bot syncs (``PUT``/``GET /applications/{app}[/guilds/{g}]/commands``),
and what a bot looks up: guilds, their channels and members, users, DM channels.
"""

from __future__ import annotations

import secrets
from typing import Any, Protocol

from aiohttp import web

from .models import Channel, Guild, Hub, Identity
from .records import snowflake
from .rest import Request, RestServer, error_response, json_response


class ApplicationServer(RestServer, Hub, Protocol):
    """What the application routes need of the server (``server.LoopbackDiscord``)."""

    @property
    def guilds(self) -> list[Guild]: ...

    @property
    def gateway_url(self) -> str: ...

    recommended_shards: int

    def session_start_limit(self) -> dict[str, int]: ...

    global_commands: list[dict[str, Any]]
    guild_commands: dict[int, list[dict[str, Any]]]
    command_syncs: int

    def find_guild(self, guild_id: int) -> Guild | None: ...


class ApplicationRoutes:
    """The application, command, guild, user and DM routes of a LoopbackDiscord
    (``server.application_routes``)."""

    def __init__(self, server: ApplicationServer) -> None:
        self.server = server

    def register(self) -> None:
        r = self.server.route
        r("GET", "/users/@me")(self._get_me)
        r("GET", "/users/{user_id}")(self._get_user)
        r("GET", "/oauth2/applications/@me")(self._get_application)
        r("GET", "/applications/@me")(self._get_application)
        r("GET", "/gateway/bot")(self._get_gateway_bot)
        r("GET", "/gateway")(self._get_gateway)
        r("PUT", "/applications/{app}/commands")(self._put_commands)
        r("GET", "/applications/{app}/commands")(self._get_commands)
        r("PUT", "/applications/{app}/guilds/{guild}/commands")(self._put_commands)
        r("GET", "/applications/{app}/guilds/{guild}/commands")(self._get_commands)
        r("GET", "/guilds/{gid}")(self._guild_route)
        r("GET", "/guilds/{gid}/channels")(self._guild_channels_route)
        r("GET", "/guilds/{gid}/members/{uid}")(self._get_member)
        r("POST", "/users/@me/channels")(self._create_dm)

    async def _get_me(self, req: Request) -> web.StreamResponse:
        return json_response(
            {**self.server.bot_identity.user_payload(), "verified": True, "mfa_enabled": False}
        )

    def user_by_id(self, user_id: int) -> Identity | None:
        if user_id == self.server.bot_identity.id:
            return self.server.bot_identity
        for guild in self.server.guilds:
            if user_id in guild.members_by_id:
                return guild.members_by_id[user_id]
        return None

    async def _get_user(self, req: Request) -> web.StreamResponse:
        ident = self.user_by_id(int(req.params["user_id"]))
        if ident is None:
            return error_response(404, 10013, "Unknown User")
        return json_response(ident.user_payload())

    async def _get_application(self, req: Request) -> web.StreamResponse:
        owner = Identity(snowflake(), "app-owner")
        return json_response(
            {
                "id": str(self.server.application_id),
                "name": self.server.bot_identity.name,
                "icon": None,
                "description": "loopback test application",
                "summary": "",
                "type": None,
                "bot": self.server.bot_identity.user_payload(),
                "bot_public": False,
                "bot_require_code_grant": False,
                "verify_key": secrets.token_hex(32),
                "flags": 0,
                "owner": owner.user_payload(),
                "team": None,
                "rpc_origins": [],
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.server.guilds),
                "integration_types_config": {"0": {}, "1": {}},
            }
        )

    async def _get_gateway_bot(self, req: Request) -> web.StreamResponse:
        return json_response(
            {
                "url": self.server.gateway_url,
                "shards": self.server.recommended_shards,
                "session_start_limit": self.server.session_start_limit(),
            }
        )

    async def _get_gateway(self, req: Request) -> web.StreamResponse:
        return json_response({"url": self.server.gateway_url})

    def check_app(self, req: Request) -> web.Response | None:
        if req.params.get("app") != str(self.server.application_id):
            self.server.problem("wrong_application", f"application id {req.params.get('app')}", req)
            return error_response(404, 10002, "Unknown Application")
        return None

    async def _put_commands(self, req: Request) -> web.StreamResponse:
        bad = self.check_app(req)
        if bad:
            return bad
        guild_id = int(req.params["guild"]) if "guild" in req.params else None
        if guild_id is not None and self.server.find_guild(guild_id) is None:
            self.server.problem("unknown_guild", f"command sync to unknown guild {guild_id}", req)
            return error_response(404, 10004, "Unknown Guild")
        previous = {
            (c["name"], c.get("type", 1)): c
            for c in (self.server.guild_commands.get(guild_id, []) if guild_id
                      else self.server.global_commands)
        }
        stored = []
        for cmd in req.body or []:
            old = previous.get((cmd["name"], cmd.get("type", 1)))
            data = {
                "type": 1,
                "description": "",
                "options": [],
                "default_member_permissions": None,
                "nsfw": False,
                "contexts": None,
                "integration_types": [0],
                "name_localizations": None,
                "description_localizations": None,
                **cmd,
                "id": old["id"] if old else str(snowflake()),
                "application_id": str(self.server.application_id),
                "version": str(snowflake()),
            }
            if guild_id is not None:
                data["guild_id"] = str(guild_id)
            else:
                data.setdefault("dm_permission", True)
            stored.append(data)
        if guild_id is None:
            self.server.global_commands = stored
        else:
            self.server.guild_commands[guild_id] = stored
        self.server.command_syncs += 1
        self.server.next_change()
        return json_response(stored)

    async def _get_commands(self, req: Request) -> web.StreamResponse:
        bad = self.check_app(req)
        if bad:
            return bad
        if "guild" in req.params:
            return json_response(self.server.guild_commands.get(int(req.params["guild"]), []))
        return json_response(self.server.global_commands)

    # -- guilds, members, DM channels -------------------------------------------------
    async def _guild_route(self, req: Request) -> web.StreamResponse:
        guild = self.server.find_guild(int(req.params["gid"]))
        if guild is None:
            return error_response(404, 10004, "Unknown Guild")
        return json_response(guild.payload())

    async def _guild_channels_route(self, req: Request) -> web.StreamResponse:
        guild = self.server.find_guild(int(req.params["gid"]))
        if guild is None:
            return error_response(404, 10004, "Unknown Guild")
        return json_response([c.payload() for c in guild.channels])

    async def _get_member(self, req: Request) -> web.StreamResponse:
        guild = self.server.find_guild(int(req.params["gid"]))
        ident = guild.members_by_id.get(int(req.params["uid"])) if guild else None
        if guild is None or ident is None:
            return error_response(404, 10007, "Unknown Member")
        return json_response(ident.member_payload())

    async def _create_dm(self, req: Request) -> web.StreamResponse:
        body = req.body or {}
        ident = self.user_by_id(int(body.get("recipient_id", 0)))
        if ident is None:
            return error_response(400, 50007, "Cannot send messages to this user")
        return json_response(self.open_dm(ident).payload())

    def open_dm(self, ident: Identity) -> Channel:
        """The DM between the bot and ``ident`` (opened on first use): a person acts there
        with ``member.at(channel)`` (the interaction context BOT_DM, installs.py)."""
        channel = self.dm_channel(ident)
        if channel is None:
            channel = Channel(self.server, None, f"dm-{ident.name}", channel_type=1,
                              recipient=ident)
            self.server.channels[channel.id] = channel
        return channel

    def dm_channel(self, ident: Identity) -> Channel | None:
        return next((c for c in self.server.channels.values() if c.recipient is ident), None)
