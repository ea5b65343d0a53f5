"""A click dispatched without rebuilding the message clicked into a view
(``cogs/leanclick.py``): each click reaches the family discord.py's own view store gave it
to, with the same custom_id and select values, and no ``View.from_message``; a click on a
button the message no longer has reaches its family too (discord.py dropped it).

The clicks are the loopback Discord's own INTERACTION_CREATE payloads (a card of a hand
panel, My hand on a V2 table, a select, a stale card, a forged type), fed to the real
bot's gateway state with the bot's families registered, and, to compare, to discord.py's
own (``AutoShardedConnectionState``, as the bot had it before)."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import discord
import pytest
from discord.ext import commands
from discord.message import Message
from discord.ui.view import BaseView

from cogs.leanclick import ClickedMessage, LeanViewStore
from cogs.uno import REGISTERED
from cogs.uno._components import PlaySelect, RetiredComponent, UnoItem
from cogs.uno.show.hand import hand_menu
from cogs.uno.show.table import TableModel, table_layout
from cogs.unobot import UnoBot
from loopback.server import LoopbackDiscord
from settings import Config
from support.counting import counting_messages
from support.tables import pair, pid

V2, EPHEMERAL = 1 << 15, 1 << 6


def config() -> Config:
    return Config(token="x", database_path=":memory:", dev_guild_id=None, log_level="INFO",
                  api_base=None, gateway_url=None, time_scale=1.0, cpu_delay=1.0)


class StockBot(UnoBot):
    """The bot with discord.py's own state (and view store), as it was before."""

    def _get_state(self, **options: Any) -> Any:
        return commands.AutoShardedBot._get_state(self, **options)


def button_ids(components: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for c in components:
        if c.get("type") in (2, 3) and "custom_id" in c:
            out.append(c["custom_id"])
        out += button_ids(c.get("components", []))
        if "accessory" in c:
            out += button_ids([c["accessory"]])
    return out


async def loopback_clicks() -> tuple[dict[str, Any], dict[str, Any],
                                     list[tuple[str, dict[str, Any]]]]:
    """The loopback Discord's GUILD_CREATE, the bot's user, and the INTERACTION_CREATE of
    these clicks (named): Alice's card in her hand panel, My hand on the V2 table, a card
    picked in a select, a card of her panel before its edit (the edit took it away), and a
    card clicked as a select (a forged type)."""
    async with LoopbackDiscord() as server:
        guild = server.add_guild("Clicks")
        channel = guild.new_channel("clicks")
        created = guild.create_payload()
        sent: list[dict[str, Any]] = []
        server.dispatch = lambda name, data: sent.append(copy.deepcopy(data))  # type: ignore[method-assign]
        alice = channel.member("alice")
        session = pair(channel)
        assert session.game is not None
        text, view = hand_menu(session, session.game, pid(alice), "en-US")
        assert view is not None
        panel = server.store_message(
            channel, {"content": text, "flags": EPHEMERAL, "components": view.to_components()},
            ephemeral_for=alice.id)
        cards = [c for c in button_ids(panel.components) if c.startswith("uno:pc:")]
        model = TableModel.of(session)
        assert model is not None and len(cards) >= 2
        layout = table_layout(model, "the deal", None).to_components()  # type: ignore[no-untyped-call]
        table = server.store_message(channel, {"flags": V2, "components": layout})
        hand = next(c for c in button_ids(table.components) if c.startswith("uno:t:hand:"))
        options = [discord.SelectOption(label=c, value=c) for c in ("R3", "R4")]
        menu = server.store_message(
            channel, {"flags": EPHEMERAL, "components": discord.ui.View(timeout=None).add_item(
                PlaySelect(session.game_id, session.serial, 0, options)).to_components()},
            ephemeral_for=alice.id)
        select = button_ids(menu.components)[0]

        async def click(custom_id: str, message: Any, ctype: int = 2,
                        values: list[str] | None = None) -> dict[str, Any]:
            data: dict[str, Any] = {"custom_id": custom_id, "component_type": ctype}
            if values is not None:
                data["values"] = values
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(LoopbackDiscord, "bot_intents", 1 << 0)
                await server.send_interaction(itype=3, user=alice.identity, channel=channel,
                                              data=data, label=custom_id,
                                              source_message=message)
            return sent[-1]

        clicks = [("card", await click(cards[0], panel)),
                  ("my hand", await click(hand, table)),
                  ("select", await click(select, menu, 3, ["R4"])),
                  ("forged type", await click(cards[1], panel, 3, ["R4"]))]
        # the bot's edit of the panel takes its first card away before Alice's click lands
        rows = copy.deepcopy(panel.components)
        rows[0]["components"] = rows[0]["components"][1:]
        server.edit_message(panel, {"components": rows})
        assert cards[0] not in button_ids(panel.components)
        clicks.append(("stale card", await click(cards[0], panel)))
        return created, server.bot_identity.user_payload(), clicks


@contextmanager
def counting_views() -> Iterator[list[str]]:
    """Every view rebuilt from a message meanwhile (``View.from_message``: its class)."""
    built: list[str] = []
    rebuild = BaseView.from_message.__func__  # type: ignore[attr-defined]

    def counted(cls: type[BaseView], message: Any, /, **kwargs: Any) -> Any:
        built.append(cls.__name__)
        return rebuild(cls, message, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(BaseView, "from_message", classmethod(counted))
        yield built


@dataclass
class Reached:
    """What the clicks reached through a bot's gateway state, its families registered."""

    families: dict[str, tuple[str, str, list[str], bool]] = field(default_factory=dict)
    """Each click's family, custom_id, select values, and whether its item has a view."""
    messages: dict[str, Message] = field(default_factory=dict)
    """Each click's ``interaction.message``."""
    views: list[str] = field(default_factory=list)
    """The views rebuilt from a message meanwhile (``View.from_message``)."""
    built: list[int] = field(default_factory=list)
    """The ``Message``\\ s built meanwhile (reading what the bot reads of the message
    clicked: its id and flags)."""


async def reached(bot: UnoBot, guild: dict[str, Any], user: dict[str, Any],
                  clicks: list[tuple[str, dict[str, Any]]]) -> Reached:
    state = bot._connection
    state.dispatch = lambda event, *args: None
    state.user = discord.ClientUser(state=state, data=user)  # type: ignore[arg-type]
    state._add_guild_from_data(copy.deepcopy(guild))  # type: ignore[arg-type]
    RetiredComponent.leave_to(REGISTERED)  # as the extension's setup does
    bot.add_dynamic_items(*REGISTERED)
    got = Reached()
    clicking = [""]

    async def callback(item: UnoItem, interaction: discord.Interaction[Any]) -> None:
        message = interaction.message
        assert message is not None and message.id and message.flags.ephemeral in (True, False)
        got.messages[clicking[0]] = message
        got.families[clicking[0]] = (type(item).__name__, item.item.custom_id,  # type: ignore[attr-defined]
                                     item.values, item.view is not None)

    with (counting_views() as views, counting_messages() as built,
          pytest.MonkeyPatch.context() as mp):
        mp.setattr(UnoItem, "callback", callback)
        for clicking[0], payload in clicks:
            state.parsers["INTERACTION_CREATE"](copy.deepcopy(payload))
            pending = asyncio.all_tasks() - {asyncio.current_task()}
            await asyncio.gather(*pending)
    got.views, got.built = views, built
    return got


def seen(message: Message) -> tuple[Any, ...]:
    """What a message says (its every part the bot's messages have)."""
    return (message.id, message.flags.value, message.type, message.content, message.author.id,
            message.channel.id, message.guild and message.guild.id, message.webhook_id,
            repr(message.components), [e.to_dict() for e in message.embeds],
            [a.filename for a in message.attachments], message.edited_at, message.created_at)


async def test_a_click_reaches_its_family_without_rebuilding_the_message() -> None:
    """Each click reaches the family discord.py's view store gave it to, with its custom_id
    and the select's values, and the bot's store rebuilds no view from the message
    (discord.py's rebuilt one for each: the control). The view discord.py left on the item
    is gone (nothing of the bot reads it). A card taken away by the bot's edit before the
    click landed reaches its family now (discord.py dropped it: "This interaction failed"
    for the person); a type the family does not show, on a component the message does not
    have, is dropped by both."""
    guild, user, clicks = await loopback_clicks()
    lean_bot, stock_bot = UnoBot(config()), StockBot(config())
    try:
        lean_got, stock_got = (await reached(lean_bot, guild, user, clicks),
                               await reached(stock_bot, guild, user, clicks))
    finally:
        for bot in (lean_bot, stock_bot):
            await bot.http.connector.close()
    lean, stock = lean_got.families, stock_got.families

    assert stock_got.views == ["View", "LayoutView", "View", "View", "View"], "the control"
    assert lean_got.views == []
    assert set(stock) == {"card", "my hand", "select"}
    assert stock["select"][2] == ["R4"]
    assert {n: (f, c, v) for n, (f, c, v, _view) in lean.items() if n in stock} == {
        n: (f, c, v) for n, (f, c, v, _view) in stock.items()}
    assert all(has_view for *_rest, has_view in stock.values())
    assert not any(has_view for *_rest, has_view in lean.values())
    assert lean["stale card"][:3] == lean["card"][:3] == ("CardButton", clicks[0][1]["data"][
        "custom_id"], [])
    assert "forged type" not in lean
    assert isinstance(lean_bot._connection._view_store, LeanViewStore)


async def test_the_message_clicked_is_built_only_when_more_than_its_id_is_read() -> None:
    """discord.py builds a whole ``Message`` of the message clicked for every interaction
    (the control); the bot's state builds none for a click, which reads its id and flags
    (``_reply``, ``_panels``, ``_components``, discord.py's ``edit_message``). Read further,
    it is the message discord.py built, part for part."""
    guild, user, clicks = await loopback_clicks()
    lean_bot, stock_bot = UnoBot(config()), StockBot(config())
    try:
        lean, stock = (await reached(lean_bot, guild, user, clicks),
                       await reached(stock_bot, guild, user, clicks))
    finally:
        for bot in (lean_bot, stock_bot):
            await bot.http.connector.close()
    assert len(stock.built) == len(clicks), "one Message a click (the control)"
    assert lean.built == []
    assert set(lean.messages) >= set(stock.messages) == {"card", "my hand", "select"}
    for name, message in stock.messages.items():
        assert isinstance(lean.messages[name], ClickedMessage)
        assert lean.messages[name].flags.ephemeral == message.flags.ephemeral == (
            name != "my hand")
        with counting_messages() as built:
            assert seen(lean.messages[name]) == seen(message)
        assert built == [message.id], "built once, when read"
        assert lean.messages[name].guild is lean_bot._connection._get_guild(
            int(guild["id"])), "the interaction's guild, as discord.py gives it"
