"""People in the loopback guild: they run slash commands, click and read messages."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

import discord

from . import installs
from .bot_process import BotProcess
from .interactions import InteractionFailed as InteractionFailed
from .interactions import InteractionState
from .models import Channel, Guild, Identity, Message, Role
from .threads import Thread

OPTION_STRING, OPTION_INTEGER, OPTION_BOOLEAN = 3, 4, 5
OPTION_USER, OPTION_CHANNEL, OPTION_ROLE, OPTION_MENTIONABLE, OPTION_NUMBER = 6, 7, 8, 9, 10
INTENT_GUILD_MEMBERS = 1 << 1
CALLBACK_NAMES = {
    4: "message",
    5: "deferred message",
    6: "deferred update",
    7: "update message",
    8: "autocomplete result",
    9: "modal",
}


class Stage(Protocol):
    """What a member needs of the server to act (``server.LoopbackDiscord``)."""

    @property
    def action_timeout(self) -> float: ...

    @property
    def bots(self) -> list[BotProcess]: ...

    @property
    def bot_intents(self) -> int | None: ...

    def dispatch_soon(self, name: str, data: Any) -> None: ...

    def commands_for(self, guild: Guild | None) -> list[dict[str, Any]]: ...

    def dm_channel(self, ident: Identity) -> Channel | None: ...

    def user_message(self, channel: Channel, user: Identity, text: str) -> Message: ...

    async def send_interaction(
        self,
        *,
        itype: int,
        user: Identity,
        channel: Channel,
        data: dict[str, Any],
        label: str,
        source_message: Message | None = None,
        delayed: float = 0.0,
    ) -> InteractionState: ...


@dataclass
class InteractionResult:
    """What happened after a user action: how the bot answered and the message involved."""

    state: InteractionState
    response_type: int

    @property
    def message(self) -> Message | None:
        """The response message (type 4), the "thinking" message that the bot edits
        later (type 5), or the message the component was on (types 6, 7)."""
        return self.state.original

    @property
    def ephemeral(self) -> bool:
        return self.message is not None and self.message.ephemeral

    @property
    def text(self) -> str:
        return self.message.text() if self.message else ""

    @property
    def followups(self) -> list[Message]:
        return list(self.state.followups)

    @property
    def choices(self) -> list[dict[str, Any]]:
        """Autocomplete choices offered (type 8)."""
        data = self.state.response_data or {}
        return list(data.get("choices") or [])

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.state.response_data if self.response_type == 9 else None

    async def wait_done(self, timeout: float = 5.0) -> Message:  # noqa: ASYNC109
        """For deferred responses: wait until the bot has edited the message into its final
        form (no longer "thinking") and return it."""
        msg = self.message
        assert msg is not None, f"{self.state.label}: no message to wait for"
        server = self.state.channel.server
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while msg.loading:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"{self.state.label}: bot still 'thinking' after {timeout} s")
            await server.wait_change(remaining)
        return msg

    def __repr__(self) -> str:
        kind = CALLBACK_NAMES.get(self.response_type, str(self.response_type))
        return f"<InteractionResult {self.state.label} -> {kind} {self.message!r}>"


class Member:
    """A guild member acting in one channel (``at`` gives the same person elsewhere)."""

    def __init__(
        self, server: Stage, guild: Guild, identity: Identity, channel: Channel
    ) -> None:
        self.server = server
        self.guild = guild
        self.identity = identity
        self.channel = channel

    @property
    def id(self) -> int:
        return self.identity.id

    @property
    def name(self) -> str:
        return self.identity.name

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def at(self, channel: Channel) -> Member:
        return Member(self.server, self.guild, self.identity, channel)

    @property
    def permissions(self) -> discord.Permissions:
        """This member's permissions in their channel (overwrites applied; in a DM or a
        group DM, what anyone there may do)."""
        guild = self.channel.guild
        if guild is None:
            return installs.DM_PERMISSIONS
        return guild.permissions_in(self.identity, self.channel)

    def install_app(self) -> None:
        """This person installs the app to their account (a user install: its commands
        that allow it follow them to group DMs and to servers that did not add the bot)."""
        self.identity.installed = True

    def add_role(self, role: Role) -> None:
        """Give this member a role (made with ``guild.create_role``). Discord sends
        GUILD_MEMBER_UPDATE only to bots with the GUILD_MEMBERS intent; so does this."""
        assert self.guild.role(role.id) is role, f"{role.name!r} is not a role of {self.guild!r}"
        if role.id not in self.identity.role_ids:
            self.identity.role_ids.append(role.id)
        intents = self.server.bot_intents
        if intents is not None and intents & INTENT_GUILD_MEMBERS:
            self.server.dispatch_soon(
                "GUILD_MEMBER_UPDATE",
                {**self.identity.member_payload(), "guild_id": str(self.guild.id)},
            )

    def _check_can_act(self, what: str) -> None:
        """Discord shows nothing to act on in a deleted channel or one the member cannot
        view. In a thread: a locked one needs MANAGE_THREADS, an archived one is reopened
        by the member's activity (THREAD_UPDATE)."""
        assert not self.channel.deleted, f"{self.name} cannot {what}: {self.channel!r} was deleted"
        if self.channel.type == installs.GROUP_DM_CHANNEL:
            assert any(r.id == self.id for r in self.channel.recipients), (
                f"{self.name} cannot {what}: not in the group DM {self.channel!r}")
        if self.channel.guild is not None:
            assert self.permissions.view_channel, (
                f"{self.name} cannot {what}: no VIEW_CHANNEL in #{self.channel.name}"
            )
        if isinstance(self.channel, Thread):
            self.channel.before_member_acts(self.identity, what)

    def __repr__(self) -> str:
        return f"<Member {self.name} in #{self.channel.name}>"

    # -- reading ---------------------------------------------------------------
    def ephemerals(self) -> list[Message]:
        """This member's ephemeral messages in the channel, oldest first."""
        return [
            m for m in self.channel.all_messages if m.ephemeral_for == self.id and not m.deleted
        ]

    def sees(self) -> list[Message]:
        """Messages visible to this member in the channel: public ones plus their own
        ephemerals, oldest first."""
        return [
            m
            for m in self.channel.all_messages
            if not m.deleted and (m.ephemeral_for is None or m.ephemeral_for == self.id)
        ]

    def sees_text(self) -> str:
        """All the text this member can read in the channel."""
        return "\n".join(m.text() for m in self.sees())

    def can_see(self, text: str) -> bool:
        return text in self.sees_text()

    def latest_ephemeral(self) -> Message:
        eph = self.ephemerals()
        assert eph, f"{self.name} has no ephemeral messages in #{self.channel.name}"
        return eph[-1]

    def dm_messages(self) -> list[Message]:
        """Messages the bot sent to this member by DM."""
        channel = self.server.dm_channel(self.identity)
        return channel.messages if channel else []

    def say(self, text: str) -> Message:
        """Post a chat message in the channel."""
        self._check_can_act("post a message")
        return self.server.user_message(self.channel, self.identity, text)

    # -- slash commands --------------------------------------------------------
    def visible_commands(self) -> list[dict[str, Any]]:
        """The commands this person is offered in their channel: those an installation of
        the app allows here (installs.py: a server's, or their own user install)."""
        bot = self.channel.server.bot_identity
        return [c for c in self.server.commands_for(self.channel.guild)
                if installs.command_owners(c, self.channel, self.identity, bot)]

    def find_command(self, command: str) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
        """Resolve "group sub" against the synced commands.

        Returns (top-level command, path of sub names, the leaf whose options to fill).
        """
        parts = command.strip().lstrip("/").split()
        assert parts, "empty command"
        cmds = [c for c in self.visible_commands() if c.get("type", 1) == 1]
        top = next((c for c in cmds if c["name"] == parts[0]), None)
        if top is None:
            names = sorted(c["name"] for c in cmds)
            raise AssertionError(f"no slash command /{parts[0]} synced; synced: {names}")
        leaf: dict[str, Any] = top
        for part in parts[1:]:
            subs = [o for o in leaf.get("options") or [] if o.get("type") in (1, 2)]
            nxt = next((o for o in subs if o["name"] == part), None)
            if nxt is None:
                raise AssertionError(
                    f"/{command}: no subcommand {part!r}; have {[o['name'] for o in subs]}"
                )
            leaf = nxt
        if any(o.get("type") in (1, 2) for o in leaf.get("options") or []):
            raise AssertionError(f"/{command} is a group; name a subcommand")
        self._check_can_act(f"use /{command}")
        have = self.permissions.value
        assert have & discord.Permissions.use_application_commands.flag, (
            f"{self.name} cannot use /{command}: no USE_APPLICATION_COMMANDS in "
            f"#{self.channel.name}"
        )
        perms = top.get("default_member_permissions")
        if perms is not None and int(perms) & ~have:
            raise AssertionError(f"{self.name} cannot use /{command}: it needs permissions {perms}")
        return top, parts[1:], leaf

    def _option_value(
        self,
        opt: dict[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        checked: bool = True,
    ) -> Any:
        otype = opt["type"]
        name = opt["name"]
        if otype in (OPTION_USER, OPTION_MENTIONABLE) and isinstance(value, Member):
            resolved.setdefault("users", {})[str(value.id)] = value.identity.user_payload()
            resolved.setdefault("members", {})[str(value.id)] = {
                **value.identity.member_payload(with_user=False),
                "permissions": str(self.guild.permissions_in(value.identity, self.channel).value),
            }
            return str(value.id)
        if otype in (OPTION_CHANNEL, OPTION_MENTIONABLE) and isinstance(value, Channel):
            resolved.setdefault("channels", {})[str(value.id)] = {
                "id": str(value.id),
                "name": value.name,
                "type": value.type,
                "permissions": str(self.guild.permissions_in(self.identity, value).value),
                "flags": 0,
            }
            if isinstance(value, Thread):
                resolved["channels"][str(value.id)].update(
                    parent_id=str(value.parent.id), thread_metadata=value.metadata()
                )
            return str(value.id)
        if otype == OPTION_ROLE or (otype == OPTION_MENTIONABLE and isinstance(value, int)):
            role = self.guild.role(int(value))
            assert role is not None, f"option {name}: no role {value}"
            resolved.setdefault("roles", {})[str(role.id)] = role.payload()
            return str(role.id)
        if otype in (OPTION_USER, OPTION_CHANNEL):
            raise AssertionError(f"option {name}: pass a Member/Channel object, got {value!r}")
        if not checked:
            return value
        if otype == OPTION_INTEGER:
            assert isinstance(value, int) and not isinstance(value, bool), (
                f"option {name} takes an integer, got {value!r}"
            )
        elif otype == OPTION_NUMBER:
            assert isinstance(value, int | float), f"option {name} takes a number, got {value!r}"
        elif otype == OPTION_BOOLEAN:
            assert isinstance(value, bool), f"option {name} takes a boolean, got {value!r}"
        elif otype == OPTION_STRING:
            assert isinstance(value, str), f"option {name} takes a string, got {value!r}"
            if "max_length" in opt and opt["max_length"] is not None:
                assert len(value) <= opt["max_length"], f"option {name}: too long"
        if opt.get("choices"):
            allowed = [c["value"] for c in opt["choices"]]
            assert value in allowed, f"option {name}: {value!r} is not one of {allowed}"
        if otype in (OPTION_INTEGER, OPTION_NUMBER):
            low, high = opt.get("min_value"), opt.get("max_value")
            assert low is None or value >= low, f"option {name}: {value!r} < min_value {low}"
            assert high is None or value <= high, f"option {name}: {value!r} > max_value {high}"
        return value

    def _command_data(
        self,
        command: str,
        options: dict[str, Any],
        focused: str | None = None,
        checked: bool = True,
    ) -> dict[str, Any]:
        top, path, leaf = self.find_command(command)
        resolved: dict[str, dict[str, Any]] = {}
        declared = {o["name"]: o for o in leaf.get("options") or []}
        unknown = set(options) - set(declared)
        assert not unknown, (
            f"/{command}: unknown option(s) {sorted(unknown)}; has {sorted(declared)}"
        )
        filled: list[dict[str, Any]] = []
        for name, opt in declared.items():
            if name not in options:
                if opt.get("required") and name != focused:
                    raise AssertionError(f"/{command}: option {name!r} is required")
                continue
            if name == focused:
                assert opt.get("autocomplete"), f"/{command}: option {name} has no autocomplete"
                filled.append(
                    {"name": name, "type": opt["type"], "value": options[name], "focused": True}
                )
                continue
            value = self._option_value(opt, options[name], resolved, checked)
            filled.append({"name": name, "type": opt["type"], "value": value})
        # wrap in subcommand / group layers
        layer_opts: list[dict[str, Any]] = filled
        node: dict[str, Any] = top
        chain: list[dict[str, Any]] = []
        for part in path:
            node = next(o for o in node.get("options") or [] if o["name"] == part)
            chain.append(node)
        for node in reversed(chain):
            layer_opts = [{"name": node["name"], "type": node["type"], "options": layer_opts}]
        data: dict[str, Any] = {
            "id": str(top["id"]),
            "name": top["name"],
            "type": 1,
        }
        if layer_opts:
            data["options"] = layer_opts
        if top.get("guild_id"):
            data["guild_id"] = top["guild_id"]
        if resolved:
            data["resolved"] = resolved
        return data

    async def _act(
        self,
        itype: int,
        data: dict[str, Any],
        label: str,
        source: Message | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> InteractionResult:
        self._check_can_act(label.split(": ", 1)[-1])
        state = await self.server.send_interaction(
            itype=itype,
            user=self.identity,
            channel=self.channel,
            data=data,
            label=label,
            source_message=source,
        )
        assert state.ack is not None
        state.waiting = True
        wait = timeout if timeout is not None else self.server.action_timeout
        try:
            rtype = await asyncio.wait_for(asyncio.shield(state.ack), wait)
        except TimeoutError:
            bot_logs = "\n".join(
                f"--- bot log tail ---\n{b.log_tail(25)}" for b in self.server.bots if b.starts
            )
            raise InteractionFailed(
                f"{label}: the bot did not acknowledge within {wait} s "
                f"(Discord would show 'The application did not respond')\n{bot_logs}"
            ) from None
        finally:
            state.waiting = False
        return InteractionResult(state, rtype)

    async def slash(
        self,
        command: str,
        *,
        timeout: float | None = None,  # noqa: ASYNC109
        **options: Any,
    ) -> InteractionResult:
        """Run ``/command`` ("group sub" names); options as keyword arguments (Member,
        Channel objects for user/channel options, role ids for roles)."""
        data = self._command_data(command, options)
        return await self._act(2, data, f"{self.name}: /{command}", timeout=timeout)

    async def slash_raw(
        self,
        command: str,
        *,
        timeout: float | None = None,  # noqa: ASYNC109
        **options: Any,
    ) -> InteractionResult:
        """``/command`` as a modified client may send it: option values go out as given,
        not checked against their declared type, choices, min_value or max_value (Discord's
        clients enforce those, an interaction sent by other means need not). The command
        and its option names must still exist and its required options be given."""
        data = self._command_data(command, options, checked=False)
        return await self._act(2, data, f"{self.name}: /{command} (raw)", timeout=timeout)

    async def user_command(
        self,
        name: str,
        target: Member,
        *,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> InteractionResult:
        """Use the user command ``name`` (a user's context menu, Apps) on ``target``: the
        interaction's ``data`` has its ``target_id`` and the target ``resolved`` (in a
        server, with the member and their permissions in this channel)."""
        cmds = [c for c in self.visible_commands() if c.get("type") == 2]
        top = next((c for c in cmds if c["name"] == name), None)
        assert top is not None, (f"{self.name} has no user command {name!r} here; offered: "
                                 f"{[c['name'] for c in cmds]}")
        self._check_can_act(f"use {name!r}")
        data = installs.user_command_data(top, target.identity, self.channel)
        return await self._act(2, data, f"{self.name}: {name} on {target.name}",
                               timeout=timeout)

    async def autocomplete(
        self, command: str, option: str, typed: str, **options: Any
    ) -> list[dict[str, Any]]:
        """Type ``typed`` into ``option`` and return the choices the bot offers."""
        data = self._command_data(command, {**options, option: typed}, focused=option)
        result = await self._act(4, data, f"{self.name}: autocomplete /{command} {option}")
        assert result.response_type == 8, f"autocomplete answered with type {result.response_type}"
        choices = result.choices
        assert len(choices) <= 25, f"bot offered {len(choices)} choices (max 25)"
        return choices

    # -- components -------------------------------------------------------------
    def _messages_with(self, message: Message | None, has: Any) -> list[Message]:
        if message is not None:
            visible = message.ephemeral_for in (None, self.id) and not message.deleted
            assert visible, f"{self.name} cannot see {message!r}"
            return [message]
        return list(reversed(self.sees()))

    async def click(
        self,
        label: str | None = None,
        *,
        custom_id: str | None = None,
        message: Message | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> InteractionResult:
        """Click the button with this label (or custom_id) on the newest message this
        member can see that has one."""
        assert label is not None or custom_id is not None, "give a label or custom_id"
        for msg in self._messages_with(message, None):
            for button in msg.buttons():
                if (label is not None and button.get("label") == label) or (
                    custom_id is not None and button.get("custom_id") == custom_id
                ):
                    what = label or custom_id
                    assert not button.get("disabled"), f"button {what!r} is disabled on {msg!r}"
                    assert button.get("style") != 5, f"button {what!r} is a link button"
                    assert button.get("custom_id"), f"button {what!r} has no custom_id"
                    data = {"custom_id": button["custom_id"], "component_type": 2}
                    return await self._act(
                        3, data, f"{self.name}: click {what!r}", source=msg, timeout=timeout
                    )
        visible = "\n  ".join(repr(m) for m in self.sees()[-8:])
        raise AssertionError(
            f"{self.name} sees no button {label or custom_id!r} in #{self.channel.name}; "
            f"visible:\n  {visible}"
        )

    async def select(
        self,
        *choices: str,
        custom_id: str | None = None,
        placeholder: str | None = None,
        message: Message | None = None,
        timeout: float | None = None,  # noqa: ASYNC109
    ) -> InteractionResult:
        """Pick options (by label or value) in a string select this member can see."""
        assert choices, "pick at least one option"
        for msg in self._messages_with(message, None):
            for sel in msg.selects():
                if sel.get("type") != 3:
                    continue
                if custom_id is not None and sel.get("custom_id") != custom_id:
                    continue
                if placeholder is not None and sel.get("placeholder") != placeholder:
                    continue
                options = sel.get("options") or []
                values = []
                for choice in choices:
                    opt = next(
                        (o for o in options if choice in (o.get("label"), o.get("value"))), None
                    )
                    if opt is None:
                        break
                    values.append(opt["value"])
                else:
                    assert not sel.get("disabled"), f"select {sel['custom_id']!r} is disabled"
                    lo = sel.get("min_values", 1)
                    hi = sel.get("max_values", 1)
                    lo = 1 if lo is None else lo
                    hi = 1 if hi is None else hi
                    assert lo <= len(values) <= hi, (
                        f"select {sel['custom_id']!r} takes {lo}..{hi} values, got {values}"
                    )
                    data = {"custom_id": sel["custom_id"], "component_type": 3, "values": values}
                    return await self._act(
                        3,
                        data,
                        f"{self.name}: select {list(choices)}",
                        source=msg,
                        timeout=timeout,
                    )
        visible = "\n  ".join(repr(m) for m in self.sees()[-8:])
        raise AssertionError(
            f"{self.name} sees no select offering {list(choices)} in #{self.channel.name}; "
            f"visible:\n  {visible}"
        )

    async def submit_modal(
        self,
        result: InteractionResult,
        timeout: float | None = None,  # noqa: ASYNC109
        **fields: str,
    ) -> InteractionResult:
        """Fill in the modal the bot opened (``result`` of the action that opened it)."""
        modal = result.modal
        assert modal is not None, f"{result!r} did not open a modal"
        rows = []
        inputs = [c for c in _walk(modal.get("components") or []) if c.get("type") == 4]
        known = {c["custom_id"] for c in inputs}
        assert set(fields) <= known, f"modal has fields {sorted(known)}, not {sorted(fields)}"
        for comp in inputs:
            value = fields.get(comp["custom_id"], "")
            if comp.get("required", True) and not value:
                raise AssertionError(f"modal field {comp['custom_id']!r} is required")
            rows.append(
                {
                    "type": 1,
                    "components": [{"type": 4, "custom_id": comp["custom_id"], "value": value}],
                }
            )
        data = {"custom_id": modal["custom_id"], "components": rows}
        return await self._act(
            5,
            data,
            f"{self.name}: submit modal {modal.get('title')!r}",
            source=result.state.source_message,
            timeout=timeout,
        )


def _walk(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for comp in components:
        out.append(comp)
        out.extend(_walk(comp.get("components") or []))
        if comp.get("component"):
            out.extend(_walk([comp["component"]]))
    return out
