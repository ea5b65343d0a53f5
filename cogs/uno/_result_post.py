"""What a finished game's result message says, for the outbox to post: the final scores
(``show.result``), their picture (drawn off the event loop, when the message's turn came)
and the Play again button. Where the bot may not attach files (the newest interaction in
the channel says so, or Discord refused the upload) the message goes without its picture:
its text says everything, as the table's does.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable

import discord

from cogs.uno._table_post import Body, Compose
from cogs.uno.art import standings_image
from cogs.uno.show.result import ResultModel, result_embed, result_view
from cogs.uno.table.session import Session

log = logging.getLogger(__name__)


def result_post(session: Session, attach: Callable[[], bool]) -> list[Compose]:
    """The finished game's result message (none if it has no result to show), composed
    when its write's turn comes; ``attach`` says whether the bot may attach its picture
    then (asked again if an upload is refused)."""
    model = ResultModel.of(session)
    if model is None:
        return []

    async def compose() -> Body | None:
        name: str | None = None
        png: bytes | None = None
        if attach():
            try:
                png = await asyncio.to_thread(standings_image, model.picture)
                name = f"result-{model.game_id}.png"
            except Exception:
                log.exception("Drawing the result of game %s failed; it goes without its "
                              "picture", model.game_id)
        body: Body = {"embed": result_embed(model, name),
                      "allowed_mentions": discord.AllowedMentions.none()}
        view = result_view(model)
        if view is not None:
            body["view"] = view
        if png is not None and name is not None:
            body["file"] = discord.File(io.BytesIO(png), filename=name)
        return body
    return [compose]
