"""A click on a component dispatched to its ``DynamicItem`` without rebuilding the message
clicked into a view: the bot's view store (``LeanViewStore``, which ``LeanState`` installs);
and the message clicked built only when more than its id and flags is read
(:class:`ClickedMessage`, which ``LeanState.parse_interaction_create`` gives the
interaction).

Why. Every component of the bot is a ``DynamicItem`` (one class per ``uno:`` family,
registered once: ``bot.add_dynamic_items``). For a click, discord.py 2.7.1
(``ViewStore.schedule_dynamic_item_call``) turns the whole message clicked into a ``View``
(``View.from_message``: an item for each of up to 40 components, 0.1 to 0.2 ms a click)
only to find the item clicked in it, swaps the family's item in, and leaves the view and
its items referring to each other (a cycle only the garbage collector frees: the bot
emptied it after each click, 60 to 90 µs more). The families read nothing of that view:
their ``from_custom_id`` builds them from the custom_id alone, the select's values come
from the interaction (``_refresh_state``). :meth:`LeanViewStore.schedule_dynamic_item_call`
finds the component clicked among the message's components (in its payload, or parsed
if the message was built) and builds that one item, as discord.py's search did, and no
view.

What it keeps of discord.py's, in order: no message, nothing dispatched; the component
clicked must be in the message with the interaction's component type; the family's item
from ``from_custom_id`` (given the item clicked; an exception there is logged and the click
dropped); the select's values (``_refresh_state``); the item's ``interaction_check`` (an
exception there refuses); the callback, an exception there logged. The task and its name
are discord.py's (``dispatch_dynamic_items``, unchanged). Not kept: the view
(``item.view`` is None: nothing of the bot reads it) and the item's rendered row.

One change, on purpose: a click on a component the message no longer has (the bot's edit
removed it between what the person saw and the click: a card played by the timer, a panel
pushed by another player's move) was dropped by discord.py, and the person saw "This
interaction failed". It now reaches its family as a click of that custom_id, when the
family's item is of the clicked type, and is answered as any out-of-date click is (the
hand panel shown as it is now, or "This menu is out of date").

Pinned to discord.py 2.7.1 by tests/table/test_lean_gateway.py (the source of what this
replaces or repeats, and of the helpers it takes from discord.py); tests/table/
test_lean_click.py compares both with discord.py's own on the loopback's clicks."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord.components import Component, _component_factory
from discord.flags import MessageFlags
from discord.message import Message
from discord.ui.view import ViewStore, _component_to_item, _walk_all_components

if TYPE_CHECKING:
    from discord.guild import Guild
    from discord.state import ConnectionState
    from discord.types.message import Message as MessagePayload
    from discord.ui.dynamic import DynamicItem
    from discord.ui.item import Item

log = logging.getLogger(__name__)

BUTTON, STRING_SELECT = 2, 3


def clicked_component(components: list[Component], component_type: int,
                      custom_id: str) -> Component | None:
    """The component of ``components`` (a message's) that was clicked, as discord.py's
    search of the rebuilt view found its item: the interaction's type and custom_id."""
    for component in _walk_all_components(components):
        if (component.type.value == component_type
                and getattr(component, "custom_id", None) == custom_id):
            return component
    return None


def clicked_payload(components: list[dict[str, Any]], component_type: int,
                    custom_id: str) -> dict[str, Any] | None:
    """:func:`clicked_component` in a message's payload (its components as Discord sent
    them: a message not built yet, :class:`ClickedMessage`)."""
    for component in components:
        if component.get("type") == component_type and component.get("custom_id") == custom_id:
            return component
        inner = list(component.get("components", ()))
        if "accessory" in component:
            inner.append(component["accessory"])
        found = clicked_payload(inner, component_type, custom_id) if inner else None
        if found is not None:
            return found
    return None


def stand_in(component_type: int, custom_id: str) -> Item[Any] | None:
    """The item of a button or string select the message no longer has (``None``: another
    type, dropped as discord.py did)."""
    if component_type == BUTTON:
        return discord.ui.Button(custom_id=custom_id)
    if component_type == STRING_SELECT:
        return discord.ui.Select(custom_id=custom_id)
    return None


class LeanViewStore(ViewStore):
    """discord.py's view store, with a dynamic item's click dispatched without a view."""

    async def schedule_dynamic_item_call(
        self,
        component_type: int,
        factory: type[DynamicItem[Item[Any]]],
        interaction: discord.Interaction[Any],
        custom_id: str,
        match: re.Match[str],
    ) -> None:
        message = interaction.message
        if message is None:
            return
        component: Component | None
        if isinstance(message, ClickedMessage) and message.payload is not None:
            raw = clicked_payload(message.payload.get("components", []),  # type: ignore[arg-type]
                                  component_type, custom_id)
            component = _component_factory(raw) if raw is not None else None  # type: ignore[arg-type]
        else:
            component = clicked_component(message.components, component_type, custom_id)
        base = (_component_to_item(component) if component is not None
                else stand_in(component_type, custom_id))
        if base is None:
            return
        try:
            item = await factory.from_custom_id(interaction, base, match)
        except Exception:
            log.exception("Ignoring exception in dynamic item creation for %r", factory)
            return
        if component is None and item.type.value != component_type:
            return  # not in the message, and not what the family shows: nothing of ours
        item._refresh_state(interaction, interaction.data)  # type: ignore[arg-type]
        try:
            allow = await item.interaction_check(interaction)
        except Exception:
            allow = False
        if not allow:
            return
        try:
            await item.callback(interaction)
        except Exception:
            log.exception("Ignoring exception in dynamic item callback for %r", item)


class ClickedMessage(Message):
    """The message clicked (an interaction's ``message``), built only when something reads
    more of it than its id, flags, channel and guild. discord.py builds a whole ``Message``
    for each interaction (its author, its components: 30 to 50 µs a hand panel); for a
    click the bot reads its id (which message to edit, ``_reply``, ``_panels``) and its
    flags (a private menu: ``_components``), and discord.py its id (``edit_message``,
    ``dispatch_view``). Anything else read builds the rest, from the payload kept, as
    discord.py's ``Message`` has it (``LeanState.parse_interaction_create`` makes it)."""

    __slots__ = ("payload",)

    def __init__(self, *, state: ConnectionState, channel: Any, data: MessagePayload,
                 guild: Guild | None = None) -> None:
        self.payload: MessagePayload | None = data
        """The message as Discord sent it, until the rest is built from it."""
        self._state = state
        self.channel = channel
        self.id = int(data["id"])
        self.flags = MessageFlags._from_value(data.get("flags", 0))
        try:  # as Message.__init__, and the interaction's guild as Interaction._from_data
            found = channel.guild
        except AttributeError:
            found = state._get_guild(discord.utils._get_as_snowflake(data, "guild_id"))
        self.guild = found if found is not None else guild

    def __getattr__(self, name: str) -> Any:
        """An attribute not set yet (Python asks only then): build the message."""
        data = self.payload
        if data is None:
            raise AttributeError(name)
        self.payload = None
        guild = self.guild
        Message.__init__(self, state=self._state, channel=self.channel, data=data)
        if self.guild is None:
            self.guild = guild
        return getattr(self, name)
