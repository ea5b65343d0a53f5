"""The end of a game, as the players answer it: ``/uno end``'s question (Confirm or Cancel,
30 seconds) and the Play again button of a finished game's result.

The table service decides (``TableService.ask_end``, ``answer_end``, ``end``;
``Again.press``); this module turns a click into those calls and their answer: the
question's message edited into what happened, or the new lobby posted below the result.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from cogs.uno._components import view_of
from cogs.uno._end_items import EndButton
from cogs.uno._outbox import Outbox
from cogs.uno._places import in_replies
from cogs.uno._plays import actor_of
from cogs.uno._reply import Reply
from cogs.uno.show.lobby import lobby_embed, lobby_view
from cogs.uno.table.service import END_QUESTION, TableService
from runtime.i18n import Locale, _

log = logging.getLogger(__name__)


def no_pictures(v2: bool, interaction: discord.Interaction[Any], language: Locale
                ) -> str | None:
    """The sentence that tells the host the table will go without its picture, when the
    bot lacks Attach Files in the channel (the table is complete without it)."""
    if not v2 or interaction.app_permissions.attach_files:
        return None
    return _("🖼️ The table will have no picture here: I lack the Attach Files "
             "permission in this channel (the table's text says everything).", language)


class Endings:
    """``/uno end`` and its question; Play again."""

    def __init__(self, service: TableService, outbox: Outbox, *, v2: bool) -> None:
        self.service = service
        self.outbox = outbox
        self.v2 = v2

    async def ask(self, reply: Reply, interaction: discord.Interaction[Any]) -> None:
        """``/uno end``: the question, in the channel (only the host or a member with
        Manage Server may ask, and confirm); nothing ends until it is confirmed."""
        actor = actor_of(interaction)
        session, ms = await self.service.ask_end(interaction.channel_id, actor)
        language = session.options.language
        view = view_of(EndButton("yes", session.game_id, ms, _("Confirm", language)),
                       EndButton("no", session.game_id, ms, _("Cancel", language)))
        what = (_("the tournament", language) if session.tables else
                _("the game", language) if session.started else _("the lobby", language))
        await reply.send(_("⚠️ {name} asks to end {what} in this channel: it will not count "
                           "on the leaderboard. The host or a member with Manage Server "
                           "confirms within {seconds} seconds; until then nothing ends.",
                           language, name=actor.name, what=what, seconds=int(END_QUESTION)),
                         view=view)

    async def answer(self, reply: Reply, interaction: discord.Interaction[Any],
                     confirm: bool, gid: str, until: int) -> None:
        """Confirm or Cancel on the question (``until``: its expiry in milliseconds, which
        names it): its message says what happened. Only the channel's open question can
        be answered: once cancelled or replaced, its Confirm ends nothing."""
        actor = actor_of(interaction)
        session = self.service.answer_end(interaction.channel_id, actor, gid, until)
        language = session.options.language
        if confirm:
            await self.service.end(interaction.channel_id, actor, question=until)
            text = _("{name} ended the game. It does not count on the leaderboard.", language,
                     name=actor.name)
        else:
            await self.service.cancel_end(interaction.channel_id, actor, until)
            text = _("{name} cancelled: nothing was ended.", language, name=actor.name)
        await reply.send(text, view=None, public=True, edit=True)

    async def again(self, reply: Reply, interaction: discord.Interaction[Any],
                    gid: str) -> None:
        """Play again: the result loses its button, and the new lobby (the same seats and
        settings, its host who pressed) is posted below it like any lobby."""
        actor = actor_of(interaction)
        session = await self.service.again.press(interaction.channel_id,
                                                 interaction.guild_id, actor, gid)
        session.replies = in_replies(interaction)  # (saved with its message, below)
        language = session.options.language
        shown = session.saved
        await reply.send(_("🔁 {name} pressed Play again: the new lobby is below.", language,
                           name=actor.name), view=None, edit=True)
        note = no_pictures(self.v2, interaction, language)
        text = _("{name} opens a new game with the same players and settings: whoever "
                 "won't play can press Leave.", language, name=actor.name)
        message_id = await reply.send(f"{text}\n{note}" if note else text,
                                      embed=lobby_embed(session, language),
                                      view=lobby_view(session, language), public=True,
                                      edit=False)
        if message_id is not None:
            self.outbox.answered_with(session, message_id, interaction)
        await self.service.lobbies.set_message(session, lobby=message_id, shown=shown)
