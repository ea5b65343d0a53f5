"""Every player-facing string goes through ``_()``, or ``ngettext()`` when it counts something
("1 card", "2 cards").

Messages are keyed by their English text (the gettext msgid); placeholders are named and
filled after translation, so a translator can move them. The translations are standard
gettext catalogues managed with Babel: ``locale/messages.pot`` is extracted from the code,
``locale/<lang>/LC_MESSAGES/messages.po`` holds a language's translations and the compiled
``messages.mo`` beside it (committed, so a fresh clone runs without Babel) is what this module
loads, one ``GNUTranslations`` per language. ``scripts/i18n.sh`` extracts, updates and compiles
(see docs/playing.md, "Languages"); ``tests/tools/test_i18n.py`` fails when they are out of date.

A locale is whatever Discord gives (``interaction.locale``, ``guild.preferred_locale``) or a
plain code: "fr", "fr-FR" and ``discord.Locale.french`` all mean French; anything we have no
catalogue for (and ``None``) means English.
"""

from __future__ import annotations

import contextlib
import gettext
import logging
import re
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import discord

log = logging.getLogger(__name__)

DEFAULT_LOCALE = "en"
LANGUAGES: tuple[str, ...] = ("en", "fr")
"""The languages with a catalogue; English is the msgids themselves."""
LANGUAGE_NAMES = {"en": "English", "fr": "Français"}
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "messages"

COMMAND_NAME = "command name"
"""The msgctxt of slash command, group and option names (lowercase, no spaces, ≤ 32)."""

Locale = str | discord.Locale | None
"""A locale as Discord gives it (``interaction.locale``) or as a plain string."""


def _load(language: str) -> gettext.NullTranslations:
    if language == DEFAULT_LOCALE:
        return gettext.NullTranslations()
    try:
        return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language])
    except OSError:
        log.warning("No compiled catalogue for %r in %s: English is used", language,
                    LOCALE_DIR)
        return gettext.NullTranslations()


TRANSLATIONS: dict[str, gettext.NullTranslations] = {lang: _load(lang) for lang in LANGUAGES}


_LANGUAGE_OF: dict[Locale, str] = {}
"""Every locale met so far and its language: ``_`` asks for one per text (a hand's labels
are dozens a move), and working it out again took a few microseconds each time."""
LANGUAGE_OF_MAX = 1000
"""Locales remembered at most (Discord has about thirty; a few plain codes besides)."""


def language_of(locale: Locale) -> str:
    """The catalogue's language for ``locale``: "fr-FR" → "fr"; unknown or None → "en"."""
    language = _LANGUAGE_OF.get(locale)
    if language is None:
        language = _language_of(locale)
        if len(_LANGUAGE_OF) < LANGUAGE_OF_MAX:
            _LANGUAGE_OF[locale] = language
    return language


def _language_of(locale: Locale) -> str:
    if locale is None:
        return DEFAULT_LOCALE
    code = locale.value if isinstance(locale, discord.Locale) else str(locale)
    language = code.replace("_", "-").split("-")[0].strip().lower()
    return language if language in TRANSLATIONS else DEFAULT_LOCALE


def server_language(chosen: str | None, guild_locale: Locale) -> str:
    """A server's language for public text: its setting, else its Discord locale."""
    return chosen if chosen in TRANSLATIONS else language_of(guild_locale)


_public_language: ContextVar[str] = ContextVar("public_language", default=DEFAULT_LOCALE)
"""The language of text rendered with no locale: a game's public text. The table service
sets it to the session's language while it changes a session (``speaking``)."""


@contextlib.contextmanager
def speaking(language: Locale) -> Iterator[None]:
    """Within the block (this task and the tasks it starts), ``_(text)`` with no locale
    renders in ``language``: the server's language for what the whole channel sees."""
    token = _public_language.set(language_of(language))
    try:
        yield
    finally:
        _public_language.reset(token)


def public_language() -> str:
    return _public_language.get()


def language_for(locale: Locale) -> str:
    """The language ``_(text, locale)`` renders in: ``locale``'s, or with none the public
    language (``speaking``). One of LANGUAGES: what a cache of rendered words is keyed by."""
    return _public_language.get() if locale is None else language_of(locale)


_ELIDABLE = re.compile(r"\b([dD]|[qQ]u)e (\*\*|\*|__|_)?\{(\w+)\}")
"""French "de" or "que" right before a placeholder (maybe in bold or italics)."""
_ELIDED_START = re.compile(r"[aeiouhàâäéèêëîïôöùûüœæ]", re.IGNORECASE)
"""What a word that elides the "de" or "que" before it starts with: a vowel or an h (a
player's name: "d'Hélène")."""
ELIDING = frozenset({"fr"})
"""The languages whose "de" and "que" elide before a vowel."""


def elide(template: str, params: dict[str, Any]) -> str:
    """``template`` (French) with "de" and "que" elided before the placeholders whose
    value starts with a vowel or an h: "Au tour de {name}." with Alice is "Au tour
    d'Alice.", "pendant que {name} choisit" with Émile "pendant qu'Émile choisit". Names
    are filled in after translation, so only then is it known; the catalogue keeps "de"."""
    def one(m: re.Match[str]) -> str:
        value = params.get(m[3])
        if value is None or not _ELIDED_START.match(str(value)):
            return m[0]
        return f"{m[1]}'{m[2] or ''}{{{m[3]}}}"
    return _ELIDABLE.sub(one, template) if "e " in template else template


def _(text: str, locale: Locale = None, /, **params: Any) -> str:
    """Translate ``text`` for ``locale`` and fill its ``{named}`` placeholders (eliding a
    French "de" before a name that starts with a vowel: ``elide``). With no locale: the
    public language (``speaking``), English by default."""
    language = language_for(locale)
    template = TRANSLATIONS[language].gettext(text) if text else text
    if not params:
        return template
    if language in ELIDING:
        template = elide(template, params)
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        log.warning("Bad placeholders in translation of %r", text)
        return text.format(**params)


def ngettext(singular: str, plural: str, n: int, locale: Locale = None, /,
             **params: Any) -> str:
    """The form of a message for the count ``n`` ("1 card", "2 cards"; in French 0 and 1
    take the singular: ``plural=(n > 1)``), translated for ``locale`` as ``_`` does, its
    ``{named}`` placeholders filled (``{n}`` is ``n`` unless given)."""
    language = language_for(locale)
    template = TRANSLATIONS[language].ngettext(singular, plural, n)
    params.setdefault("n", n)
    if language in ELIDING:
        template = elide(template, params)
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        log.warning("Bad placeholders in translation of %r", singular)
        return (singular if n == 1 else plural).format(**params)


def pgettext(context: str, text: str, locale: Locale = None) -> str:
    """``text`` translated in ``context`` (no placeholders): slash command names."""
    return TRANSLATIONS[language_of(locale)].pgettext(context, text)
