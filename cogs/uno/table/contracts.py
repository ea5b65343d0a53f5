"""What the table service promises its callers and needs from its parts: who asks
(:class:`Actor`), how it says no (:class:`Refusal`), what a move did (:class:`Moved`), and
the storage and outbox it is handed (:class:`Store`, :class:`Announcer`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from cogs.uno.table.session import Session
from cogs.uno.table.words.game import error_text
from data import GameResult, GuildSettings, LogEntry, SavedGame
from engine import EngineError, Game, Move
from engine.events import Event
from runtime.i18n import DEFAULT_LOCALE, Locale, _, language_of

REQUIRED_PERMISSIONS = ("view_channel", "send_messages", "embed_links")
"""What the bot needs in a channel to host a game there."""
THREAD_PERMISSIONS = ("view_channel", "send_messages_in_threads", "embed_links")
"""... in a thread (Discord asks Send Messages in Threads there, not Send Messages)."""
OPEN_THREAD_PERMISSIONS = ("view_channel", "create_public_threads", "send_messages_in_threads",
                           "embed_links")
"""... in a channel, to open a game in a new public thread under it."""
PERMISSION_NAMES = {"view_channel": "View Channel", "send_messages": "Send Messages",
                    "embed_links": "Embed Links",
                    "send_messages_in_threads": "Send Messages in Threads",
                    "create_public_threads": "Create Public Threads"}


def missing_permissions(granted: object, needed: Sequence[str]) -> tuple[str, ...]:
    """The names in ``needed`` that ``granted`` (a discord.Permissions) lacks."""
    return tuple(p for p in needed if not getattr(granted, p, False))


def permission_names(missing: Sequence[str]) -> str:
    return ", ".join(PERMISSION_NAMES.get(p, p) for p in missing)


def stale_text(locale: Locale = None) -> str:
    """The answer to a click on a menu or table from before the last move."""
    return _("This menu is out of date: press My hand for a fresh one.", locale)


class Refusal(Exception):
    """A request answered with one private sentence; nothing changed.

    The sentence is kept untranslated, as its msgid (a string literal, extracted by
    scripts/i18n.sh) and named params, and translated only when it is answered
    (``text``, called by ``_reply.answer``) in the reader's own locale. A refusal is often
    raised while a game's public language is active (a change, ``Tables.change``, speaks
    it), so a sentence translated where it is raised could reach the reader in the game's
    language; built this way it can't. A param that is itself text in a language is given
    as a function of the locale (``edition=partial(edition_title, name)``). ``str()`` is
    the English sentence (logs, tests). tests/test_refusals.py checks every call site.
    """

    def __init__(self, msgid: str, /, **params: object) -> None:
        self.msgid = msgid
        self.params = params
        super().__init__(self.text(DEFAULT_LOCALE))

    def text(self, locale: Locale) -> str:
        """The sentence in ``locale`` (the reader's; unknown or None: English)."""
        language = language_of(locale)
        params = {k: v(language) if callable(v) else v for k, v in self.params.items()}
        return _(self.msgid, language, **params)


class StaleComponent(Exception):
    """A component whose values are not what we offered: answered as out of date."""


class SaveFailed(Refusal):
    """The change could not be saved, so it was undone."""


class EngineRefusal(Refusal):
    """The engine refused a move or a value (an :class:`EngineError`): its template is
    translated, and its cards and colours named, in the reader's locale when answered."""

    def __init__(self, error: EngineError) -> None:
        self.error = error
        super().__init__(error.template, **error.params)

    def text(self, locale: Locale) -> str:
        return error_text(self.error, language_of(locale))


class Stale(Refusal):
    """A click on a menu or table from before the last move (:func:`stale_text`)."""

    def __init__(self) -> None:
        super().__init__(stale_text(DEFAULT_LOCALE))  # English: the msgid itself

    def text(self, locale: Locale) -> str:
        return stale_text(language_of(locale))


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: a member of a server, as the table service needs to know them."""

    id: str
    name: str
    admin: bool = False
    """Manage Server (or Administrator) in this server."""
    locale: Locale = None
    guild_locale: Locale = None
    """The server's Discord locale (its language when the server chose none)."""
    missing: tuple[str, ...] = ()
    """The bot's permissions missing in the channel (names from REQUIRED_PERMISSIONS)."""


class Store(Protocol):
    """What the service needs of the database (data.Database)."""

    async def save_game(self, game: SavedGame, log: Sequence[LogEntry] = ()) -> None: ...
    async def delete_game(self, channel_id: int) -> None: ...
    async def end_game(self, game: SavedGame, log: Sequence[LogEntry] = ()) -> None: ...
    async def save_games(self, games: Sequence[SavedGame], log: Sequence[LogEntry] = ()
                         ) -> None: ...
    async def record_game(self, result: GameResult, log: Sequence[LogEntry] = (), *,
                          also_delete: Sequence[int] = ()) -> bool: ...
    async def load_games(self, shards: tuple[int, Sequence[int]] | None = None
                         ) -> list[SavedGame]: ...
    async def set_aside_game(self, channel_id: int, reason: str) -> bool: ...
    async def get_guild_settings(self, guild_id: int) -> GuildSettings: ...
    async def prune_logs(self, older_than: int) -> int: ...
    async def save_rematch(self, game: SavedGame) -> None: ...
    async def load_rematch(self, guild_id: int, game_id: str
                           ) -> tuple[SavedGame, bool] | None: ...
    async def use_rematch(self, guild_id: int, game_id: str, used: bool = True) -> bool: ...


class Announcer(Protocol):
    """The outbox: the only code that writes to channels."""

    def announce(self, session: Session, lines: Sequence[str], *, table: bool = True,
                 mention: str | None = None, fresh: bool = False,
                 lasting: bool = False, result: bool = False) -> None: ...
    def notice(self, channel_id: int, guild_id: int, lines: Sequence[str]) -> None: ...
    def refresh_lobby(self, session: Session) -> None: ...
    def close_message(self, session: Session, message_id: int | None) -> None: ...
    def reopen(self, channel_id: int) -> None: ...


@dataclass(slots=True)
class Moved:
    """What a move did, for the caller's private answer."""

    session: Session
    game: Game
    player: str
    move: Move | None
    events: list[Event]
    shown: Any = None
    """The mover's answer, built under the game's lock right after the save (``then``)."""
