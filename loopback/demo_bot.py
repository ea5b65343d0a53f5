"""A small discord.py bot that follows the bot.py contract, to exercise the harness.

Run as ``python loopback/demo_bot.py`` with DISCORD_TOKEN, DISCORD_API_BASE,
DISCORD_GATEWAY_URL and optionally DEV_GUILD_ID set.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
from typing import Any

import aiohttp
import discord
import yarl
from discord import app_commands
from discord.ext import commands

log = logging.getLogger("demo_bot")


def configure_endpoints() -> None:
    api = os.environ.get("DISCORD_API_BASE")
    if api:
        discord.http.Route.BASE = api
    gateway = os.environ.get("DISCORD_GATEWAY_URL")
    if gateway:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)


class CounterButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:btn:(?P<n>[0-9]+)"
):
    """A persistent button that survives restarts: its state lives in the custom_id."""

    def __init__(self, n: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Count {n}", custom_id=f"demo:btn:{n}", style=discord.ButtonStyle.primary
            )
        )
        self.n = n

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> CounterButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(self.n + 1))
        await interaction.response.edit_message(content=f"count is {self.n + 1}", view=view)


class PanelButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:panel:(?P<n>[0-9]+)"
):
    """The private panel's button: the click answers by updating the panel (type 7)."""

    def __init__(self, n: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Step {n}", custom_id=f"demo:panel:{n}", style=discord.ButtonStyle.primary
            )
        )
        self.n = n

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> PanelButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(view=panel(self.n, "updated by the click"))


def panel(step: int, note: str) -> discord.ui.LayoutView:
    """A private Components V2 panel: a container with a text display and a row of two
    buttons, as the UNO bot's live hand is."""
    view = discord.ui.LayoutView(timeout=None)
    container: discord.ui.Container[Any] = discord.ui.Container(
        accent_colour=discord.Colour.blurple()
    )
    container.add_item(discord.ui.TextDisplay(f"### Panel at step {step}\n{note}"))
    row: discord.ui.ActionRow[Any] = discord.ui.ActionRow()
    row.add_item(PanelButton(step + 1))
    row.add_item(PanelButton(step + 2))
    container.add_item(row)
    view.add_item(container)
    return view


class PickView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=300)

    @discord.ui.button(label="Red", style=discord.ButtonStyle.danger)
    async def red(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]
    ) -> None:
        await interaction.response.send_message(f"{interaction.user.name} clicked red")

    @discord.ui.button(label="Blue", style=discord.ButtonStyle.primary)
    async def blue(
        self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]
    ) -> None:
        button.disabled = True
        await interaction.response.edit_message(content="blue was clicked", view=self)

    @discord.ui.select(
        placeholder="Pick a card",
        options=[
            discord.SelectOption(label="Red 7", value="R7"),
            discord.SelectOption(label="Green 2", value="G2"),
            discord.SelectOption(label="Wild", value="W"),
        ],
    )
    async def card(
        self, interaction: discord.Interaction[Any], select: discord.ui.Select[Any]
    ) -> None:
        await interaction.response.send_message(f"you picked {select.values[0]}", ephemeral=True)


CARDS = ["R1", "R7", "G2", "B5", "Y9", "W", "W4"]


class Demo(app_commands.Group):
    """Demo commands for the loopback harness."""

    @app_commands.command(description="Public pong")
    async def ping(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("pong")

    @app_commands.command(description="Only you can see this")
    async def secret(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            f"the secret for {interaction.user.name} is 42", ephemeral=True
        )

    @app_commands.command(description="Buttons and a select")
    async def pick(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("pick something", view=PickView())

    @app_commands.command(description="A private V2 panel the bot keeps editing")
    async def panel(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(view=panel(0, "just opened"), ephemeral=True)
        await asyncio.sleep(0.5)
        # edited later through the interaction's webhook (PATCH .../messages/@original)
        await interaction.edit_original_response(view=panel(0, "edited through the webhook"))

    @app_commands.command(description="Describe a member")
    async def whois(self, interaction: discord.Interaction[Any], user: discord.Member) -> None:
        await interaction.response.send_message(
            embed=discord.Embed(title=f"whois {user.name}", description=f"id {user.id}"),
        )

    @app_commands.command(description="Play a card")
    @app_commands.describe(card="The card to play")
    async def play(self, interaction: discord.Interaction[Any], card: str) -> None:
        await interaction.response.send_message(f"played {card}", ephemeral=True)

    @play.autocomplete("card")
    async def play_card(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=c, value=c) for c in CARDS if c.startswith(current)]

    @app_commands.command(description="Think, then answer")
    async def later(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0.2)
        await interaction.edit_original_response(content="done thinking")
        await interaction.followup.send("a followup", ephemeral=True)

    @app_commands.command(description="Too slow on purpose")
    async def slow(self, interaction: discord.Interaction[Any]) -> None:
        await asyncio.sleep(4)
        await interaction.response.send_message("finally")

    @app_commands.command(description="Acknowledges twice")
    async def twice(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message("first")
        # answer it once more, straight to Discord's callback route (discord.py knows it
        # answered and would refuse), to provoke Discord's 40060
        url = (f"{discord.http.Route.BASE}/interactions/{interaction.id}/"
               f"{interaction.token}/callback")
        async with aiohttp.ClientSession() as session, session.post(
                url, json={"type": 4, "data": {"content": "second"}}) as answer:
            refused = await answer.text()
        raise RuntimeError(f"the second acknowledgement was answered {answer.status}: {refused}")

    @app_commands.command(description="A select with 26 options")
    async def toomany(self, interaction: discord.Interaction[Any]) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            options=[discord.SelectOption(label=f"o{i}") for i in range(26)]
        )
        view = discord.ui.View()
        view.add_item(select)
        await interaction.response.send_message("too many", view=view)

    @app_commands.command(description="Persistent counter button")
    async def counter(self, interaction: discord.Interaction[Any]) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(0))
        await interaction.response.send_message("count is 0", view=view)

    @app_commands.command(description="Sends a file (multipart/form-data)")
    async def upload(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            "here is a file", file=discord.File(io.BytesIO(b"hello"), filename="hello.txt")
        )
        channel = interaction.channel
        assert isinstance(channel, discord.abc.Messageable)
        await channel.send("and another", file=discord.File(io.BytesIO(b"x"), filename="x.txt"))

    @app_commands.command(description="Report permissions as the bot sees them")
    async def perms(self, interaction: discord.Interaction[Any]) -> None:
        channel = interaction.channel
        guild = interaction.guild
        cached = None
        if isinstance(channel, discord.abc.GuildChannel) and guild is not None:
            cached = channel.permissions_for(guild.me).send_messages
        await interaction.response.send_message(
            f"app send={interaction.app_permissions.send_messages} "
            f"member send={interaction.permissions.send_messages} cached send={cached}",
            ephemeral=True,
        )

    @app_commands.command(description="Posts to the channel")
    async def announce(self, interaction: discord.Interaction[Any], times: int = 1) -> None:
        await interaction.response.send_message("announcing", ephemeral=True)
        channel = interaction.channel
        assert isinstance(channel, discord.abc.Messageable)
        for i in range(times):
            await channel.send(f"announcement {i + 1}")


def _thread_of(interaction: discord.Interaction[Any], thread_id: str) -> discord.Thread | None:
    guild = interaction.guild
    return guild.get_thread(int(thread_id)) if guild is not None else None


class Threads(app_commands.Group):
    """Thread commands for the loopback harness (each reports what discord.py saw)."""

    @app_commands.command(description="Open a public thread here (or from a new message)")
    async def open(
        self, interaction: discord.Interaction[Any], name: str, from_message: bool = False
    ) -> None:
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            if from_message:
                msg = await channel.send(f"table {name}")
                thread = await msg.create_thread(name=name, auto_archive_duration=60)
            else:
                thread = await channel.create_thread(
                    name=name, type=discord.ChannelType.public_thread, auto_archive_duration=60
                )
            await thread.send(f"welcome to {name}", view=PickView())
        except discord.HTTPException as exc:
            await interaction.followup.send(f"failed {exc.status} {exc.code}", ephemeral=True)
            return
        await asyncio.sleep(0.05)  # let the gateway events arrive
        cached = channel.guild.get_thread(thread.id) is not None
        await interaction.followup.send(
            f"opened {thread.id} type={thread.type.value} parent={thread.parent_id} "
            f"cached={cached} me={thread.me is not None}",
            ephemeral=True,
        )

    @app_commands.command(description="Where am I?")
    async def where(self, interaction: discord.Interaction[Any]) -> None:
        channel = interaction.channel
        kind = type(channel).__name__
        parent = getattr(channel, "parent_id", None)
        await interaction.response.send_message(
            f"in {kind} {getattr(channel, 'id', None)} parent={parent} "
            f"app send_in_threads={interaction.app_permissions.send_messages_in_threads}"
        )

    @app_commands.command(description="Post into a thread by id")
    async def post(self, interaction: discord.Interaction[Any], thread_id: str, text: str) -> None:
        await interaction.response.defer(ephemeral=True)
        thread = _thread_of(interaction, thread_id)
        target: Any = thread or await interaction.client.fetch_channel(int(thread_id))
        try:
            await target.send(text)
        except discord.HTTPException as exc:
            await interaction.followup.send(f"failed {exc.status} {exc.code}", ephemeral=True)
            return
        await interaction.followup.send("posted", ephemeral=True)

    @app_commands.command(description="Edit a thread by id (archived/locked/name)")
    async def edit(
        self,
        interaction: discord.Interaction[Any],
        thread_id: str,
        archived: bool | None = None,
        locked: bool | None = None,
        name: str | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True)
        thread = _thread_of(interaction, thread_id)
        if thread is None:
            fetched = await interaction.client.fetch_channel(int(thread_id))
            assert isinstance(fetched, discord.Thread)
            thread = fetched
        changes: dict[str, Any] = {}
        if archived is not None:
            changes["archived"] = archived
        if locked is not None:
            changes["locked"] = locked
        if name is not None:
            changes["name"] = name
        try:
            await thread.edit(**changes)
        except discord.HTTPException as exc:
            await interaction.followup.send(f"failed {exc.status} {exc.code}", ephemeral=True)
            return
        await interaction.followup.send("edited", ephemeral=True)

    @app_commands.command(description="Delete a thread by id")
    async def delete(self, interaction: discord.Interaction[Any], thread_id: str) -> None:
        await interaction.response.defer(ephemeral=True)
        thread = _thread_of(interaction, thread_id)
        assert thread is not None, "thread not cached"
        try:
            await thread.delete()
        except discord.HTTPException as exc:
            await interaction.followup.send(f"failed {exc.status} {exc.code}", ephemeral=True)
            return
        await interaction.followup.send("deleted", ephemeral=True)

    @app_commands.command(description="The threads discord.py has cached")
    async def known(self, interaction: discord.Interaction[Any]) -> None:
        guild = interaction.guild
        assert guild is not None
        names = sorted(f"{t.name}:{t.id}:{'archived' if t.archived else 'active'}"
                       for t in guild.threads)
        await interaction.response.send_message("known " + " ".join(names), ephemeral=True)


class DemoBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())

    async def setup_hook(self) -> None:
        self.tree.add_command(Demo(name="demo", description="Demo commands"))
        self.tree.add_command(Threads(name="thread", description="Thread commands"))
        self.add_dynamic_items(CounterButton, PanelButton)
        guild_id = os.environ.get("DEV_GUILD_ID")
        if guild_id:
            guild = discord.Object(id=int(guild_id))
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()

    async def on_ready(self) -> None:
        log.info("demo bot ready as %s", self.user)


def main() -> None:
    configure_endpoints()
    level = os.environ.get("LOG_LEVEL", "INFO")
    discord.utils.setup_logging(level=getattr(logging, level.upper(), logging.INFO))
    token = os.environ["DISCORD_TOKEN"]
    DemoBot().run(token, log_handler=None)


if __name__ == "__main__":
    main()
