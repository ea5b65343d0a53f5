"""The move log as people read it (``/uno log``) and as a replay file (``/uno log export``).

A log entry is a move in the replay format (``engine.replay``), with what the table was told
of its outcome under ``seen`` (a challenge's verdict, an instant UNO: ``tables.logged``; left
out of the replay file); the header (seq 0) is the replay file's start: edition, players,
names, rules and seed. Lines show what the table saw and nothing more: the challenged hand
and the card kept after an instant UNO stay hidden.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from cogs.uno._places import place_id
from cogs.uno._reply import Reply, answer
from cogs.uno._subcog import UnoSubCog
from cogs.uno.table.contracts import Refusal
from cogs.uno.table.tables import SEEN
from cogs.uno.table.words.cards import card_label, color_name
from engine import Card, Color, ParseError
from engine.replay import TOP_KEYS
from runtime.i18n import Locale, _, ngettext

if TYPE_CHECKING:
    from cogs.uno.table.service import TableService
    from runtime.unobot import UnoBot

LOG_LINES = 15
"""How many of the last moves ``/uno log`` shows."""


def _card(code: Any, locale: Locale) -> str:
    try:
        return card_label(Card.parse(str(code)), locale)
    except ParseError:
        return str(code)[:8]


def _color(value: Any, locale: Locale) -> str:
    try:
        return color_name(Color.parse(str(value)), locale)
    except ParseError:
        return str(value)[:8]


def log_line(move: dict[str, Any], names: dict[str, str], locale: Locale = None) -> str:
    """One logged move as the table saw it (with its verdict or instant UNO, if logged)."""
    who = names.get(str(move.get("player")), str(move.get("player")))
    logged = move.get(SEEN)
    seen: dict[str, Any] = logged if isinstance(logged, dict) else {}
    if "play" in move:
        text = _("{name} plays {card}", locale, name=who, card=_card(move["play"], locale))
        if move.get("color"):
            text += _(" and picks {color}", locale, color=_color(move["color"], locale))
        if move.get("towers"):
            text += _(", grabbing {towers}", locale, towers=" ".join(move["towers"]))
        if move.get("uno"):
            text += _(" (UNO!)", locale)
        if "instant_uno" in seen:  # the last tower grabbed with one card left
            text += _(" (⚡ instant UNO!)", locale)
        return text + "."
    if move.get("draw"):
        return _("{name} draws.", locale, name=who)
    if move.get("pass"):
        return _("{name} keeps the drawn card.", locale, name=who)
    if "catch" in move:
        return _("{name} catches {other}.", locale, name=who,
                 other=names.get(str(move["catch"]), str(move["catch"])))
    if move.get("challenge"):
        verdict = seen.get("challenge")
        if not isinstance(verdict, dict):  # logged before verdicts were
            return _("{name} challenges the Wild Draw Four.", locale, name=who)
        other = names.get(str(verdict.get("against")), str(verdict.get("against")))
        drawer = names.get(str(verdict.get("drawer")), str(verdict.get("drawer")))
        drew = int(verdict.get("drew") or 0)
        if verdict.get("guilty"):
            return ngettext("⚖️ {name} challenges {other}'s Wild Draw Four: guilty! {drawer} "
                            "draws {n} card and {name} plays.",
                            "⚖️ {name} challenges {other}'s Wild Draw Four: guilty! {drawer} "
                            "draws {n} cards and {name} plays.", drew, locale, name=who,
                            other=other, drawer=drawer)
        return ngettext("⚖️ {name} challenges {other}'s Wild Draw Four: it was legal. "
                        "{drawer} draws {n} card.",
                        "⚖️ {name} challenges {other}'s Wild Draw Four: it was legal. "
                        "{drawer} draws {n} cards.", drew, locale, name=who, other=other,
                        drawer=drawer)
    if move.get("accept"):
        return _("{name} accepts the Wild Draw Four.", locale, name=who)
    if "lap" in move:
        if move["lap"] == "pass":
            return _("{name} passes the hands on (Victory Lap).", locale, name=who)
        text = _("{name} keeps a hand (Victory Lap)", locale, name=who)
        if move.get("color"):
            text += _(" and picks {color}", locale, color=_color(move["color"], locale))
        return text + "."
    if "keep" in move:  # only an instant UNO asks for a card to keep
        called = _(" and calls UNO!", locale) if move.get("uno") else "."
        discarded = seen.get("instant_uno")
        if isinstance(discarded, int):
            return ngettext("⚡ {name} makes an instant UNO: keeps one card, {n} goes to the "
                            "discard pile{called}",
                            "⚡ {name} makes an instant UNO: keeps one card, {n} go to the "
                            "discard pile{called}", discarded, locale, name=who, called=called)
        return _("⚡ {name} makes an instant UNO: keeps one card{called}", locale, name=who,
                 called=called)
    if "color" in move:
        return _("{name} names {color}.", locale, name=who, color=_color(move["color"], locale))
    if move.get("leave"):
        return _("{name} leaves the game.", locale, name=who)
    if "wait" in move:  # a seat asked for while the game ran (cogs/uno/table/seats.py)
        if move["wait"]:
            return _("🪑 {name} asks for a seat at the next round.", locale,
                     name=str(move.get("name") or who))
        return _("{name} no longer waits for a seat.", locale, name=who)
    if move.get("uno"):
        return _("{name} calls UNO!", locale, name=who)
    return _("{name} moves.", locale, name=who)


def log_lines(header: dict[str, Any], moves: list[dict[str, Any]], locale: Locale = None
              ) -> list[str]:
    names = {str(k): str(v) for k, v in (header.get("names") or {}).items()}
    return [f"`{i + 1:>2}` {log_line(m, names, locale)}" for i, m in enumerate(moves)]


def replay_document(header: dict[str, Any], moves: list[dict[str, Any]]) -> dict[str, Any]:
    """The game as a file for ``python -m engine.tools.replay``: it plays back exactly."""
    # every key of the header the replay format knows (partners' teams, a match hand's
    # rounds: without them it would play another game), the game id left out
    document = {k: v for k, v in header.items() if k in TOP_KEYS}
    document["names"] = header.get("names", {})
    document["moves"] = [{k: v for k, v in m.items() if k != SEEN} for m in moves]
    return document


class LogCog(UnoSubCog, name="MoveLog"):
    """``/uno log``: the last moves privately, or the whole game as a replay file."""

    def __init__(self, bot: UnoBot, service: TableService, group: app_commands.Group) -> None:
        self.bot = bot
        self.service = service
        super().__init__(group)

    @app_commands.command(name="log", description="The last moves of this channel's game "
                                                  "(only you see it)")
    @app_commands.describe(export="Get the whole game as a replay file (its players, once "
                                  "it has ended)")
    async def log_(self, interaction: discord.Interaction[Any], export: bool = False) -> None:
        await answer(interaction, lambda reply: self._log(reply, export))

    async def _log(self, reply: Reply, export: bool) -> None:
        interaction = reply.interaction
        assert interaction.channel_id is not None
        locale = interaction.locale
        guild_id, channel_id = place_id(interaction), interaction.channel_id
        live = self.service.sessions.get(channel_id)
        game_id = live.game_id if live is not None and live.started else \
            await self.bot.db.latest_game_id(guild_id, channel_id)
        if game_id is None:
            raise Refusal("No game has been played in this channel yet.")
        entries = await self.bot.db.game_log(guild_id, game_id,
                                             last=None if export else LOG_LINES)
        if not entries or entries[0].seq != 0:
            raise Refusal("This game has no move log (it began before the bot kept "
                          "one).")
        header = json.loads(entries[0].entry)
        moves = [json.loads(e.entry) for e in entries[1:]]
        if not export:
            lines = log_lines(header, moves, locale)
            text = "\n".join(lines) if lines else _("No moves yet.", locale)
            await reply.send(_("**The last moves** (game {gid}):", locale, gid=game_id) + "\n"
                             + text)
            return
        if live is not None and live.game_id == game_id:
            raise Refusal("The replay file is available once the game has ended.")
        if str(interaction.user.id) not in header.get("players", []):
            raise Refusal("Only the game's players can export its replay.")
        data = json.dumps(replay_document(header, moves), indent=1).encode()
        await reply.send(_("The whole game, for `python -m engine.tools.replay`:", locale),
                         file=discord.File(io.BytesIO(data), filename=f"uno-{game_id}.json"))
