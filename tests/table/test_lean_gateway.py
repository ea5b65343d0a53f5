"""The bot's gateway state (``cogs/leanstate.py``): MESSAGE_CREATE and MESSAGE_UPDATE are
parsed without building a ``discord.Message``, and the bot hears what it heard before.

The events are the loopback Discord's own (a V2 table the bot posts and edits, a person's
message in the channel and one in a thread), fed to the real bot's gateway state, and, to
compare, to discord.py's own (``AutoShardedConnectionState``, as the bot had it before)."""

from __future__ import annotations

import copy
import hashlib
import importlib
import inspect
import pkgutil
from typing import Any

import discord
import pytest
from discord import components as discord_components
from discord.ext import commands
from discord.gateway import DiscordWebSocket
from discord.interactions import Interaction
from discord.message import Message
from discord.state import ConnectionState
from discord.ui import view as discord_view
from discord.ui.dynamic import DynamicItem
from discord.ui.view import ViewStore

import cogs
from cogs.leanstate import POSTED, LeanState
from cogs.uno._cog import UnoCog
from cogs.uno.show.table import TableModel, table_layout
from cogs.unobot import UnoBot
from loopback.server import LoopbackDiscord
from loopback.threads import Thread
from settings import Config
from support.counting import counting_messages
from support.tables import pair

V2 = 1 << 15

PINNED = {
    # what LeanState replaces or repeats, as discord.py 2.7.1 has it (sha256 of the source).
    # If one changes, read it again against cogs/leanstate.py, then update its hash here.
    ConnectionState.parse_message_create: "f39e7524",
    ConnectionState.parse_message_update: "d0c6a0a1",
    Message.__init__: "eaf604ac",
    Message._handle_author: "a5569e39",
    Message._handle_member: "48e8efc3",
    # what LeanViewStore (cogs/leanclick.py) replaces, where discord.py makes the store
    # LeanState replaces, and the helpers of discord.py's that LeanViewStore uses
    ViewStore.schedule_dynamic_item_call: "24def18e",
    ViewStore.dispatch_dynamic_items: "e4c35e1d",
    DynamicItem._refresh_state: "9a49c69c",
    ConnectionState.clear: "21c5cabe",
    discord_view._walk_all_components: "161caf5c",
    discord_view._component_to_item: "f16b3ea1",
    # what LeanState.parse_interaction_create and ClickedMessage (cogs/leanclick.py) repeat
    ConnectionState.parse_interaction_create: "acb40a14",
    Interaction._from_data: "34807e2a",
    discord_components._component_factory: "e63afe56",
}


def digest(function: Any) -> str:
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:8]


def test_the_parsers_replaced_are_discord_py_2_7_1s() -> None:
    """LeanState and LeanViewStore repeat what these did that matters (their modules'
    docstrings): a new discord.py whose parsers, Message or dispatch of a click differ must
    be read again before it is used. And
    the gateway calls the parsers from the state's table, which LeanState's methods fill."""
    assert {f.__qualname__: digest(f) for f in PINNED} == {
        f.__qualname__: h for f, h in PINNED.items()}
    assert "ws._discord_parsers = client._connection.parsers" in inspect.getsource(
        DiscordWebSocket.from_client)


def config() -> Config:
    return Config(token="x", database_path=":memory:", dev_guild_id=None, log_level="INFO",
                  api_base=None, gateway_url=None, time_scale=1.0, cpu_delay=1.0)


class StockBot(UnoBot):
    """The bot with discord.py's own state, as it was before LeanState."""

    def _get_state(self, **options: Any) -> Any:
        return commands.AutoShardedBot._get_state(self, **options)


async def loopback_events() -> tuple[dict[str, Any], dict[str, Any], list[tuple[str, Any]]]:
    """The loopback Discord's GUILD_CREATE, the bot's user, and the message events it sends
    the bot: the bot posts a V2 table in #chatty and edits it, Bob says something below it,
    Carol in a thread of #chatty."""
    async with LoopbackDiscord() as server:
        guild = server.add_guild("Lean")
        channel = guild.new_channel("chatty")
        thread = channel.create_thread("a game", by=channel.member("alice").identity)
        created = guild.create_payload()
        sent: list[tuple[str, Any]] = []

        def keep(name: str, data: Any) -> None:
            sent.append((name, copy.deepcopy(data)))

        server.dispatch_soon = keep  # type: ignore[method-assign]
        model = TableModel.of(pair(channel))
        assert model is not None and isinstance(thread, Thread)
        dealt, played = (table_layout(model, lines, None).to_components()  # type: ignore[no-untyped-call]
                         for lines in ("the deal", "alice plays"))
        table = server.store_message(channel, {"flags": V2, "components": dealt})
        server.edit_message(table, {"components": played})
        server.user_message(channel, channel.member("bob").identity, "hi all")
        server.user_message(thread, thread.member("carol").identity, "in the thread")
        return created, server.bot_identity.user_payload(), sent


class Fed:
    """A bot's gateway state fed the loopback's events: what it dispatched, the Messages it
    built, the views it refreshed."""

    def __init__(self, bot: UnoBot, guild: dict[str, Any], user: dict[str, Any],
                 events: list[tuple[str, Any]], tracked: int) -> None:
        state = bot._connection
        self.state = state
        self.dispatched: list[tuple[str, tuple[Any, ...]]] = []
        state.dispatch = lambda event, *args: self.dispatched.append((event, args))
        state.user = discord.ClientUser(state=state, data=user)  # type: ignore[arg-type]
        self.guild = state._add_guild_from_data(copy.deepcopy(guild))  # type: ignore[arg-type]
        button = discord.ui.Button[discord.ui.View](label="old", custom_id="not-dynamic")
        state.store_view(discord.ui.View(timeout=None).add_item(button), tracked)
        self.refreshed: list[int] = []
        update = ViewStore.update_from_message

        def spied(store: ViewStore, message_id: int, data: Any) -> None:
            self.refreshed.append(message_id)
            update(store, message_id, data)

        with counting_messages() as built, pytest.MonkeyPatch.context() as mp:
            mp.setattr(ViewStore, "update_from_message", spied)
            for name, data in events:
                if name in ("MESSAGE_CREATE", "MESSAGE_UPDATE"):
                    state.parsers[name](copy.deepcopy(data))
        self.built = built

    def events(self, name: str) -> list[tuple[Any, ...]]:
        return [args for event, args in self.dispatched if event == name]

    def last_messages(self) -> list[int | None]:
        return [getattr(c, "last_message_id", None) for c in
                [*self.guild.channels, *self.guild.threads]]


async def test_messages_are_heard_without_building_them() -> None:
    """A MESSAGE_CREATE is dispatched as ``message_posted`` with the ids the bot's count of a
    buried table needs (the bot's own messages count too, as before), a MESSAGE_UPDATE as
    nothing: no ``discord.Message`` is built for either, where discord.py built one for each.
    No ``message`` either, so none is parsed for a text command (commands.Bot's
    ``on_message``: 28 µs a message; the bot has none). What else discord.py's parsers did
    is the same: the channel's last message, a view tracked for the message refreshed."""
    guild, user, events = await loopback_events()
    creates = [d for n, d in events if n == "MESSAGE_CREATE"]
    updates = [d for n, d in events if n == "MESSAGE_UPDATE"]
    assert len(creates) == 3 and len(updates) == 1
    table = int(updates[0]["id"])
    lean_bot, stock_bot = UnoBot(config()), StockBot(config())
    try:
        assert isinstance(lean_bot._connection, LeanState)
        assert lean_bot._connection._messages is None, "no message cache, as LeanState keeps"
        lean = Fed(lean_bot, guild, user, events, table)
        stock = Fed(stock_bot, guild, user, events, table)
    finally:
        for bot in (lean_bot, stock_bot):
            await bot.http.connector.close()

    assert len(stock.built) >= 4, "discord.py builds a Message for each (the control)"
    assert lean.built == []
    heard = [(m.channel.id, m.guild.id, m.id, m.author.id)
             for (m,) in stock.events("message")]
    assert [(p.channel_id, p.guild_id, p.message_id, p.author_id)
            for (p,) in lean.events(POSTED)] == heard
    assert heard[0][3] == int(user["id"]), "the bot's own table counts"
    assert heard[2][0] != heard[1][0], "the thread's message is the thread's"
    assert [e for e, _ in lean.dispatched] == [POSTED] * 3, "nothing else"
    assert [e for e, _ in stock.dispatched] == [
        "message", "raw_message_edit", "message", "message"]
    assert lean.last_messages() == stock.last_messages()
    assert heard[2][2] in lean.last_messages()
    assert lean.refreshed == stock.refreshed == [table]
    me = lean.guild.me, stock.guild.me
    assert me[0] is not None and me[1] is not None
    assert (me[0].joined_at, me[0]._roles) == (me[1].joined_at, me[1]._roles)


def subclasses(cls: type[Any]) -> list[type[Any]]:
    return [c for sub in cls.__subclasses__() for c in (sub, *subclasses(sub))]


def test_the_bot_listens_to_no_event_the_lean_parsers_leave_out() -> None:
    """What LeanState no longer dispatches (``message``, ``message_edit``,
    ``raw_message_edit``), nothing of the bot listens to: no cog, and the bot itself only
    through commands.Bot's ``on_message`` (a text command: the bot has none). The game cog
    counts ``message_posted``."""
    dropped = {"on_message", "on_message_edit", "on_raw_message_edit"}
    for module in pkgutil.walk_packages(cogs.__path__, "cogs."):
        importlib.import_module(module.name)
    ours = [cog for cog in subclasses(commands.Cog) if cog.__module__.startswith("cogs.")]
    assert UnoCog in ours and len(ours) >= 5
    listeners = {name for cog in ours for name, _ in cog.__cog_listeners__}
    assert not listeners & dropped
    assert "on_" + POSTED in {name for name, _ in UnoCog.__cog_listeners__}
    assert UnoBot.on_message is commands.AutoShardedBot.on_message
    assert not {n for n in dropped - {"on_message"} if hasattr(UnoBot, n)}

