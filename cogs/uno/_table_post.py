"""What a table post or edit says: the table's composition, apart from how it is written.

The outbox (``_outbox.py``) queues, paces and routes every write and maps Discord's errors;
it keeps one :class:`TablePost` per channel and asks it, at the last moment (once the write's
turn came, so the newest state goes), what the table says: :meth:`TablePost.compose` gives a
message body, or None when there is no game to show any more. A table post holds the newest
:class:`~cogs.uno.show.table.TableModel` (one per change, never the session again), the
announcement lines the live table shows, its picture (drawn off the event loop, uploaded under
a new name only when what it shows changed) and its quiet form (without its buttons, for when
it is closed). :class:`TableStyle` is shared by every channel: the V2 table or the embed, and
whether an edit may bring a new picture (Discord refuses some: discord-api-docs issue 7529).
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import discord

from cogs.uno.art import TableScene, table_image
from cogs.uno.show.lobby import lobby_embed, lobby_view
from cogs.uno.show.table import (
    TableModel,
    closed_table_layout,
    embed_buttons,
    table_embed,
    table_layout,
    turn_ping,
)
from cogs.uno.table.session import Session
from cogs.uno.table.words.events import notable
from runtime.i18n import speaking
from settings import TABLE_BURY

log = logging.getLogger(__name__)

MAX_MESSAGE = 1900
"""Characters of announcements one message carries (Discord's limit is 2,000)."""
RECENT_LINES = 6
"""Announcement lines a table edited in place keeps showing (the newest)."""
KEPT_LINES = 18
"""A challenge's verdict or an instant UNO (``table.words.events.notable``) stays on a table
edited in place until this many lines came after it (about six moves), so it can be read."""
PICTURE_TRIES = 3
"""Times a table's picture is drawn again when the game moved meanwhile."""
QUIET_KEPT = 4
"""Tables whose quiet form is kept (the newest)."""
Quiet = tuple[TableModel, str | None, str | None]
"""A V2 table's quiet form: ``table_layout``'s table, text and picture name."""

Body = dict[str, Any]
Compose = Callable[[], Awaitable[Body | None]]
"""What to write, composed at the last moment (None: nothing to write)."""
Live = Callable[[], bool]
"""Whether the game being shown is still its channel's live one."""


class PictureMoved(Exception):
    """The game moved while an edit's picture was drawn, and edits may not bring a new
    picture (``TableStyle.picture_edits``): the table is to be posted anew."""


@dataclass
class TableStyle:
    """How every channel's table is written (one for the process)."""

    v2: bool = True
    """The table as one Components V2 message with its picture (else an embed)."""
    picture_edits: bool = True
    """Edits may bring a table's new picture; False once Discord refused one (an open
    bug refuses an edit that brings a media gallery's file, discord-api-docs issue
    7529): a table whose picture changed is then posted anew."""
    bury: int = TABLE_BURY
    """Messages below a table after which chat has buried it: its next update posts it
    anew at the bottom (``UNO_TABLE_BURY``; 0: any message below it)."""


@dataclass(frozen=True)
class _Picture:
    """A table's picture: what it shows, its PNG (None: the live table's own, or none),
    its file name (None: no picture)."""

    view: TableScene
    png: bytes | None
    name: str | None
    same: bool
    """The live table shows it already (an edit keeps its attachment)."""


class TablePost:
    """One channel's table: what its next post or edit says."""

    def __init__(self, style: TableStyle) -> None:
        self.style = style
        self.model: TableModel | None = None
        """The table as the newest change left it (None: no game goes on)."""
        self.shown: list[str] = []
        """The announcement lines the live table's text is made of (the last KEPT_LINES):
        the newest RECENT_LINES and, above them, the notable ones among the others."""
        self.attach = True
        """The bot may attach files here (the table's picture). False when the newest
        interaction says Attach Files is missing, or Discord refused an upload: the table
        goes without its picture (its text says everything)."""
        self.quiet: dict[int, Quiet] = {}
        """Components V2 tables (id → what the same table without its buttons is made of):
        a table that is closed keeps its text and picture (a V2 message without components
        is refused). Its parts, not its layout: built at every edit, a layout of some 30
        objects lived until the table's next edit, outlived the young garbage collections
        and lengthened the full ones; it is built when the table is closed."""
        self.picture: tuple[int, TableScene, str] | None = None
        """The live table's picture: its message id, what it shows, its file name."""
        self.pictures = 0
        """Pictures attached so far (each new one gets a new file name)."""
        self.composed: tuple[TableScene, str | None, Quiet] | None = None
        """The V2 table being written: its picture's view and file name, its quiet form."""
        self.below = 0
        """Messages posted below the live table since it was posted (:meth:`seen`)."""

    # ------------------------------------------------------------------ what changed
    def change(self, session: Session, table: bool) -> None:
        """A change of ``session``'s game was saved: the table shows it (taken now, once:
        composing later reads nothing of the session), or there is none (not ``table``)."""
        self.model = TableModel.of(session) if table else None

    def ended(self, message_id: int, session: Session) -> Compose:
        """The game is over or gone: what its last table ``message_id`` becomes."""
        self.shown = []
        return self.closed(message_id, session)

    # ------------------------------------------------------------------ where it is
    def seen(self, message_id: int, table: int | None) -> None:
        """A message ``message_id`` was posted in the channel: one more below the live
        table ``table`` if it is newer (ids grow with time; the table's own post is not
        one). A count only, from the gateway's MESSAGE_CREATE: no request, and no Read
        Message History needed. It starts from zero when the process does."""
        if table is not None and message_id > table:
            self.below += 1

    def gone(self, message_id: int, table: int | None) -> None:
        """A message ``message_id`` was deleted: one fewer below the live table ``table``
        if it was below it (a reminder, deleted once its turn was taken)."""
        if table is not None and message_id > table and self.below > 0:
            self.below -= 1

    @property
    def buried(self) -> bool:
        """Chat has buried the live table (more than ``bury`` messages below it): its next
        update posts it anew at the bottom, and the old one is closed."""
        return self.below > self.style.bury

    # ------------------------------------------------------------------ the table
    def goes_anew(self, message_id: int | None, live: Live) -> bool:
        """Whether the live table ``message_id``, to be edited, must be posted anew
        instead: edits may not bring a new picture, and it shows a picture other than the
        game's now (or none: it was posted before a restart, or drawing failed)."""
        if not self.style.v2 or self.style.picture_edits or not self.attach:
            return False  # no picture to change: the table is edited in place
        model = self._model(live)
        if model is None:
            return False
        return not (self.picture is not None and self.picture[0] == message_id
                    and self.picture[1] == model.picture)

    async def compose(self, session: Session, new: bool,
                      take: Callable[[], list[str]], live: Live) -> Body | None:
        """The table as the game is now: posted anew (``new``) or edited in place, with
        the lines ``take`` gives (every line this table brings so far; it is called once
        the picture is drawn, so the lines that came meanwhile go too) and the turn line (it
        notifies nobody: a reminder does, ``reminder_post``). None: the game is over or
        gone (the lines taken are to be said plainly). Raises PictureMoved when an edit's
        picture would change and edits may not bring one."""
        if self.style.v2:
            for attempt in range(PICTURE_TRIES):
                # the picture first (it takes a moment), then the lines that came
                picture = await self._v2_picture(session, new, live)
                if (picture is not None and not new and not picture.same
                        and not self.style.picture_edits):
                    raise PictureMoved  # the game moved since: the table goes anew
                shown, text = self._lines(take(), new)
                if picture is None:
                    return None
                body = self._v2_table(text, new, picture, live,
                                      last=attempt == PICTURE_TRIES - 1)
                if body is None:
                    return None
                if body:
                    self.shown = shown
                    return body
                # the game moved while the picture was drawn: draw it again
            return None
        shown, text = self._lines(take(), new)
        model = self._model(live)
        if model is None:
            return None
        self.shown = shown
        text = turn_line(model, text)
        return {"content": text, "embed": table_embed(model), "view": embed_buttons(model),
                "allowed_mentions": discord.AllowedMentions.none()}

    def adopt(self, message_id: int, *, new: bool = False) -> None:
        """The table just written is ``message_id`` (``new``: just posted, at the bottom:
        nothing is below it yet): remember its picture and its quiet form (for when it is
        closed)."""
        if new:
            # (messages whose MESSAGE_CREATE came while it was being posted are forgotten,
            # a few at most; so is its own, when it came before the post's answer)
            self.below = 0
        composed, self.composed = self.composed, None
        if composed is None:
            return
        picture_view, name, quiet = composed
        self.picture = (message_id, picture_view, name) if name is not None else None
        self.quiet[message_id] = quiet
        while len(self.quiet) > QUIET_KEPT:
            del self.quiet[next(iter(self.quiet))]

    def closed(self, message_id: int, session: Session | None) -> Compose:
        """What a table (``session``'s) or a lobby (None) that is closed becomes: without
        its buttons. A Components V2 table keeps its text and picture; one this process
        did not write (posted before a restart: that form is kept in memory only) is
        rebuilt from the game as saved, without the picture, or says it is closed when the
        game is over: Discord refuses to edit a V2 message to no components (400, 50006)."""
        async def compose() -> Body | None:
            # kept, not taken: a write is composed again for each route it tries
            quiet = self.quiet.get(message_id)
            if quiet is not None:
                return {"view": table_layout(*quiet, buttons=False)}
            if not self.style.v2 or session is None:
                return {"view": None}
            async with session.lock:  # read as saved, like every table
                model = TableModel.of(session)
            layout = (closed_table_layout(session.options.language) if model is None
                      else table_layout(model, None, None, buttons=False))
            return {"view": layout, "content": None, "embed": None, "attachments": []}
        return compose

    # ------------------------------------------------------------------ its parts
    def _model(self, live: Live) -> TableModel | None:
        """The live table as the newest change left it, or None when the game is over or
        gone (its last lines are then said plainly)."""
        if self.model is None or not live():
            return None
        return self.model

    def _lines(self, taken: list[str], new: bool) -> tuple[list[str], str | None]:
        """The lines the table's text is made of (``shown``) and its text: on a new table
        all of those it brings; on an edit the last few with those it showed, and a
        challenge's verdict or an instant UNO that is not among them until KEPT_LINES
        came after it (one line per event, kept long enough to be read)."""
        if new:
            lines = list(taken)
            kept = lines[-KEPT_LINES:]
        else:
            kept = (self.shown + taken)[-KEPT_LINES:]
            lines = [line for line in kept[:-RECENT_LINES] if notable(line)] + \
                kept[-RECENT_LINES:]
        return kept, "\n".join(lines)[-MAX_MESSAGE:] if lines else None

    async def _v2_picture(self, session: Session, new: bool, live: Live) -> _Picture | None:
        """The table's picture as the game is now, drawn off the event loop and outside the
        session's lock (clicks never wait for it); the live table's own when what it shows
        has not changed (an edit then keeps its attachment). None: the game is over."""
        model = self._model(live)
        if model is None:
            return None
        view = model.picture
        message_id = session.table_message_id
        if (not new and self.picture is not None and self.picture[0] == message_id
                and self.picture[1] == view):
            return _Picture(view, None, self.picture[2], same=True)
        if not self.attach:
            # the bot may not attach files here: no picture (an edit drops the one shown)
            return _Picture(view, None, None, same=self.picture is None)
        if not new and not self.style.picture_edits:
            return _Picture(view, None, None, same=False)  # not drawn: the table goes anew
        try:
            png: bytes | None = await asyncio.to_thread(table_image, view)
        except Exception:
            log.exception("Drawing the table failed; it goes without its picture")
            png = None
        if png is None:
            return _Picture(view, None, None, same=False)
        self.pictures += 1
        return _Picture(view, png, f"table-{self.pictures}.png", same=False)

    def _v2_table(self, text: str | None, new: bool, picture: _Picture,
                  live: Live, *, last: bool) -> Body | None:
        """The live table as one Components V2 message: a post uploads its picture
        (``table-N.png``); an edit uploads a new one (a new name, replacing the old
        attachment: the edit's ``attachments`` are the ones to keep or add) only when what
        it shows changed, else leaves the attachment alone. Without a picture (drawing
        failed) the table's text still says everything. None: the game is over; {}: the
        game moved since ``picture`` was drawn (unless ``last``: then it goes as it is)."""
        model = self._model(live)
        if model is None:
            return None
        if not last and model.picture != picture.view:
            return {}
        text = turn_line(model, text)
        layout = table_layout(model, text, picture.name)
        body: Body = {"view": layout, "allowed_mentions": discord.AllowedMentions.none()}
        if not new:
            # an old embed table becomes a V2 one: its content and embeds are emptied
            body.update(content=None, embed=None)
        if picture.png is not None and picture.name is not None:
            upload = discord.File(io.BytesIO(picture.png), filename=picture.name)
            if new:
                body["file"] = upload
            else:
                body["attachments"] = [upload]  # a new name; the old picture goes
        elif not new and not picture.same:
            body["attachments"] = []  # drawing failed: the old picture would be wrong
        self.composed = (picture.view, picture.name, (model, text, picture.name))
        return body


def turn_line(model: TableModel, text: str | None) -> str | None:
    """``text`` with the line that names whose turn it is (every table names it; the
    table notifies nobody)."""
    if model.names_turn:
        line = model.turn_line
        text = f"{text}\n{line}" if text else line
    return text


def reminder_post(session: Session, pid: str) -> Compose:
    """A reminder that it is ``pid``'s turn, a message of its own below the table that
    notifies them (R-BOT-MENTION): nothing when the turn is no longer theirs by the time
    it goes (or the game is paused or over)."""
    async def compose() -> Body | None:
        game = session.game
        if game is None or game.is_over or game.turn != pid or session.paused:
            return None
        return {"content": f"🔔 {turn_ping(session)}",
                "allowed_mentions": discord.AllowedMentions(
                    users=[discord.Object(int(pid))], everyone=False, roles=False)}
    return compose


def fixed(body: Body) -> Compose:
    """A message whose body does not depend on when it is sent."""
    async def compose() -> Body | None:
        return body
    return compose


def text_post(text: str) -> Compose:
    """Lines of the game as a message of their own (it mentions nobody)."""
    return fixed({"content": text, "allowed_mentions": discord.AllowedMentions.none()})


LOBBY_GONE = fixed({"embed": None, "view": None})
"""A lobby's message once its game was cancelled or everyone left: the text its click was
answered with, no lobby and no buttons."""


def lobby_post(session: Session) -> Compose:
    """The lobby as it is when the edit's turn comes, in the game's language."""
    async def compose() -> Body | None:
        with speaking(session.options.language):
            return {"embed": lobby_embed(session), "view": lobby_view(session)}
    return compose


def chunks(lines: Sequence[str]) -> list[str]:
    """``lines`` joined into messages of at most ``MAX_MESSAGE`` characters each."""
    out: list[str] = []
    current = ""
    for line in lines:
        if current and len(current) + 1 + len(line) > MAX_MESSAGE:
            out.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        out.append(current)
    return out
