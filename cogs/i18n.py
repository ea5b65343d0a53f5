"""Every player-facing string goes through ``_()``.

Messages are keyed by their English text; placeholders are named and filled after
translation, so a translator can move them. Catalogues for other languages (French first)
plug in here: ``CATALOGUES["fr"] = {...}`` keyed by the English text.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

log = logging.getLogger(__name__)

DEFAULT_LOCALE = "en"
CATALOGUES: dict[str, dict[str, str]] = {"en": {}}

Locale = str | discord.Locale | None
"""A locale as Discord gives it (``interaction.locale``) or as a plain string."""


def _(text: str, locale: Locale = None, /, **params: Any) -> str:
    """Translate ``text`` for ``locale`` and fill its ``{named}`` placeholders."""
    catalogue = CATALOGUES.get(str(locale or DEFAULT_LOCALE).split("-")[0], {})
    template = catalogue.get(text, text)
    if not params:
        return template
    try:
        return template.format(**params)
    except (KeyError, IndexError):
        log.warning("Bad placeholders in translation of %r", text)
        return text.format(**params)
