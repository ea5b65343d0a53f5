"""The translations: catalogues up to date with the code, French complete, placeholders kept,
Discord's limits respected, and ``_()`` / the slash command translator picking the language.
"""

from __future__ import annotations

import gettext
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import discord
import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from discord.app_commands import TranslationContextLocation as Where

from cogs.uno._catalogue import command_strings
from runtime.i18n import (
    COMMAND_NAME,
    LOCALE_DIR,
    _,
    language_of,
    ngettext,
    pgettext,
    speaking,
)
from runtime.translator import translate_command_string

ROOT = Path(__file__).resolve().parents[2]
POT = LOCALE_DIR / "messages.pot"
LANGUAGES = ("fr",)

# Where Discord limits a string's length, the msgids used there (placeholders counted as
# FILL characters each: names are at most 32 characters on Discord).
FILL = 32
BUTTON_LABELS = (  # 80
    "UNO!", "My hand", "Draw", "Catch", "Accept +4", "Challenge", "Join", "Leave",
    "Add computer player", "Start", "Cancel", "Remove computer player", "Team {n}",
    "Add easy computer player", "Add hard computer player",
    "Shuffle teams", "Play it", "Keep it", "Play it and call UNO!", "Keep", "Pass",
    "Keep, {color}", "◀ Previous", "Next ▶", "By points", "By wins",
    "{card} and call UNO!", "Back", "Reopen", "Keep {card}",
    "Keep {card} and call UNO!", "{t} (from {name})", "{t} (from the tray)",
    "Back to my seat",
)
SELECT_OPTIONS = ("More cards ({p}/{n})",)  # labels and descriptions: 100
SELECT_PLACEHOLDERS = ("Card to keep…",)  # 150
THREAD_NAMES = ("UNO: {name}'s game", "UNO tournament: table {n}")  # 100
EMBED_TITLES = (  # 256 (field names too)
    "{edition}: new game", "{name}'s UNO figures", "{edition}: round {n}",
    "Leaderboard by wins", "Leaderboard by points", "UNO tournament: final standings",
    "UNO tournament: standings after round {n} of {total}", "Players",
    "Rotating partners match", "Seats", "Settings", "Tables",
    "Towers (U blocks +1, N +2, O Wild +4, ! Skip)", "Tournament hand: partners sit across",
    "Teams (partners sit across)", "Goal and turns", "Action cards", "Power Towers",
    "Challenges", "Two players, scoring and timers", "Victory Lap",
    "Waiting for the next round",
)
LIMITS = {**dict.fromkeys(BUTTON_LABELS, 80), **dict.fromkeys(SELECT_OPTIONS, 100),
          **dict.fromkeys(SELECT_PLACEHOLDERS, 150), **dict.fromkeys(THREAD_NAMES, 100),
          **dict.fromkeys(EMBED_TITLES, 256)}
ANY_STRING = 1024
"""Every other message fits an embed field value (1024), the tightest place text goes;
rule pages (embed descriptions, 4096) are the named exceptions."""
LONG_EXCEPTIONS = 4096
COMMAND_NAME_RE = re.compile(r"^[-_\w]{1,32}$")


def load(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def keys(catalog: Catalog) -> set[tuple[str | None, str]]:
    """Every message's (context, msgid); a plural message counts by its singular."""
    return {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in catalog if m.id}


def fields(text: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)


def rendered_length(text: str) -> int:
    return len(text.format(**dict.fromkeys(fields(text), "x" * FILL))) if fields(text) \
        else len(text)


@pytest.fixture(scope="module")
def pot() -> Catalog:
    return load(POT)


@pytest.fixture(scope="module", params=LANGUAGES)
def po(request: pytest.FixtureRequest) -> Catalog:
    return load(LOCALE_DIR / request.param / "LC_MESSAGES" / "messages.po")


@pytest.mark.slow
def test_pot_is_up_to_date_with_the_code(tmp_path: Path, pot: Catalog) -> None:
    fresh = tmp_path / "messages.pot"
    subprocess.run([str(ROOT / "scripts" / "i18n.sh"), "extract", str(fresh)], cwd=ROOT,
                   check=True, env={**os.environ, "PYTHON": sys.executable},
                   capture_output=True)
    new, old = keys(load(fresh)), keys(pot)
    assert not new - old, (f"strings not in locale/messages.pot: run scripts/i18n.sh all "
                           f"and translate them: {sorted(new - old, key=str)[:10]}")
    assert not old - new, f"messages.pot has strings the code lost: {sorted(old - new)[:10]}"


def test_every_string_is_translated(pot: Catalog, po: Catalog) -> None:
    assert keys(pot) <= keys(po), f"not in the .po: {sorted(keys(pot) - keys(po))[:10]}"
    missing = [m.id for m in po if m.id and (not m.string if isinstance(m.string, str)
                                             else not all(m.string))]
    fuzzy = [m.id for m in po if m.id and m.fuzzy]
    assert not missing, f"{len(missing)} untranslated in {po.locale}: {missing[:10]}"
    assert not fuzzy, f"{len(fuzzy)} fuzzy in {po.locale}: {fuzzy[:10]}"


def test_placeholders_are_the_same(po: Catalog) -> None:
    """Every translation has the msgid's placeholders; every plural form those of the
    plural msgid (the singular may name the count in words only in English: "{n}" is kept
    in both here, so a count always shows)."""
    bad = [(m.id, m.string) for m in po if m.id and isinstance(m.id, str)
           and fields(m.id) != fields(str(m.string))]
    bad += [(m.id, m.string) for m in po if m.id and not isinstance(m.id, str)
            and not (fields(m.id[0]) == fields(m.id[1])
                     and all(fields(form) == fields(m.id[1]) for form in m.string))]
    assert not bad, f"placeholders differ: {bad[:5]}"


def test_compiled_catalogue_matches_the_po(po: Catalog) -> None:
    mo = LOCALE_DIR / str(po.locale) / "LC_MESSAGES" / "messages.mo"
    with mo.open("rb") as f:
        compiled = gettext.GNUTranslations(f)
    stale = [m.id for m in po if m.id and isinstance(m.id, str) and m.string != (
        compiled.pgettext(m.context, m.id) if m.context else compiled.gettext(m.id))]
    stale += [m.id for m in po if m.id and not isinstance(m.id, str) and list(m.string) != [
        compiled.ngettext(m.id[0], m.id[1], n) for n in (1, 2)]]
    assert not stale, f"messages.mo is stale (run scripts/i18n.sh compile): {stale[:5]}"


def test_role_lists_name_real_strings(pot: Catalog) -> None:
    ids = {m.id for m in pot}
    assert not [k for k in LIMITS if k not in ids]


def test_translations_fit_discords_limits(po: Catalog) -> None:
    too_long = []
    for m in po:
        if not m.id or m.context == COMMAND_NAME:
            continue
        if not isinstance(m.id, str):  # a plural message: its longest form
            too_long += [(ANY_STRING, rendered_length(f), f) for f in m.string
                         if rendered_length(f) > ANY_STRING]
            continue
        text = str(m.string)
        limit = LIMITS.get(m.id, ANY_STRING)
        if "\n" in m.id and m.id.startswith(("Be first", "**Draw One", "Playing a number",
                                             "When a Wild", "Call UNO when", "In the UNO",
                                             "With two players")):
            limit = LONG_EXCEPTIONS
        if rendered_length(text) > limit:
            too_long.append((limit, rendered_length(text), text))
    assert not too_long, too_long


@pytest.mark.parametrize("language", LANGUAGES)
def test_slash_command_strings_follow_discords_rules(language: str) -> None:
    for context, text in command_strings():
        where = Where.command_name if context else Where.command_description
        translated = translate_command_string(text, language, where)
        assert translated is not None or text in ("uno", "standard", "UNO Power Grab",
                                                  "UNO Victory Lap", "table", "mode",
                                                  "points", "stats", "English", "Français",
                                                  "normal"), text
        value = translated or text
        if context == COMMAND_NAME:
            assert COMMAND_NAME_RE.match(value) and value == value.lower(), value
        else:
            assert 1 <= len(value) <= 100, value


@pytest.mark.parametrize("language", LANGUAGES)
def test_translated_command_names_stay_distinct(language: str) -> None:
    from cogs.uno._catalogue import COMMAND_COGS

    commands = [c for cog in COMMAND_COGS for c in cog.__cog_app_commands__]
    names = [pgettext(COMMAND_NAME, c.name, language) for c in commands]
    assert len(set(names)) == len(names), sorted(names)
    for command in commands:
        options = [pgettext(COMMAND_NAME, p.name, language)
                   for p in getattr(command, "parameters", [])]
        assert len(set(options)) == len(options), (command.name, options)


def test_underscore_picks_the_language() -> None:
    assert _("Draw", "fr") == "Piocher"
    assert _("Draw", "fr-FR") == "Piocher"
    assert _("Draw", discord.Locale.french) == "Piocher"
    for english in ("en-US", "en-GB", discord.Locale.american_english, None, "de", "", "xx"):
        assert _("Draw", english) == "Draw"
    assert _("{name} draws.", "fr", name="Zoé") == "Zoé pioche."
    assert _("{name} draws.", None, name="Zoé") == "Zoé draws."
    assert _("a string nobody translated", "fr") == "a string nobody translated"
    assert language_of("FR_ca") == "fr"


def test_french_elides_de_and_que_before_a_name_with_a_vowel() -> None:
    """French "de" and "que" elide before a filled-in name that starts with a vowel or an
    h (issue 29: "Au tour de Alice", "Victoire de Alice"); before a consonant, a digit, a
    mention they stay; English is untouched."""
    assert _("{name}'s turn.", "fr", name="Alice") == "Au tour d'Alice."
    assert _("It's {name}'s turn.", "fr", name="Émile") == "C'est au tour d'Émile."
    assert _("{name}'s turn.", "fr", name="Hugo") == "Au tour d'Hugo."
    assert _("{name}'s turn.", "fr", name="Bob") == "Au tour de Bob."
    assert _("{name}'s turn.", "fr", name="<@123>") == "Au tour de <@123>."
    assert _("{name}'s turn.", "en", name="Alice") == "Alice's turn."
    assert _("🎉 **{names}** won the game!", "fr", names="Alice") == "🎉 Victoire d'**Alice** !"
    assert _("🎉 **{names}** won the game!", "fr", names="Zoé") == "🎉 Victoire de **Zoé** !"
    assert _("🧵 The thread of {host}'s game is gone, so the game ended; it does not count "
             "on the leaderboard.", "fr", host="Ines").startswith(
        "🧵 Le fil de la partie d'Ines n'existe plus")
    lap = _("🏁 Your hand is face down while {name} chooses a hand in the Victory Lap (step "
            "{step}); My hand shows your cards once a hand is kept.", "fr", name="Olga",
            step=1)
    assert lap.startswith("🏁 Votre main est face cachée pendant qu'Olga choisit"), lap
    guilty = ngettext("⚖️ {name} challenges {other}'s Wild Draw Four: guilty! {drawer} "
                      "draws {n} card and {name} plays.",
                      "⚖️ {name} challenges {other}'s Wild Draw Four: guilty! {drawer} "
                      "draws {n} cards and {name} plays.", 4, "fr", name="Bob",
                      other="Ana", drawer="Ana")
    assert "la carte blanche +4 d'Ana : coupable !" in guilty, guilty
    assert _("The option {option} must be a whole number from {low} to {high}; nothing was "
             "changed.", "fr", option="cible", low=8, high=11).startswith(
        "L'option cible doit être un nombre entier de 8 à 11")


def test_ngettext_picks_the_plural_form_of_each_language() -> None:
    """Counts take their language's plural form (issue 17, Words): English says "1 card",
    "2 cards" and "0 cards"; French, whose catalogue says ``plural=(n > 1)``, "0 carte",
    "1 carte", "2 cartes"."""
    assert load(LOCALE_DIR / "fr" / "LC_MESSAGES" / "messages.po").plural_expr == "(n > 1)"
    english = {n: ngettext("{n} card", "{n} cards", n, "en") for n in (0, 1, 2)}
    assert english == {0: "0 cards", 1: "1 card", 2: "2 cards"}
    french = {n: ngettext("{n} card", "{n} cards", n, "fr") for n in (0, 1, 2)}
    assert french == {0: "0 carte", 1: "1 carte", 2: "2 cartes"}
    assert ngettext("{n} win", "{n} wins", 1, "fr") == "1 victoire"
    assert ngettext("{n} game", "{n} games", 0, "fr") == "0 partie"
    assert ngettext("{n} round", "{n} rounds", 2, "fr") == "2 manches"
    with speaking("fr"):  # no locale: the public language, as _ does
        assert ngettext("{n} tower", "{n} towers", 1) == "1 tour"
    assert ngettext("{name} timed out {n} time in a row and leaves the game.",
                    "{name} timed out {n} times in a row and leaves the game.", 1, "en",
                    name="Zoé") == "Zoé timed out 1 time in a row and leaves the game."


def test_counted_words_in_the_bot_agree_with_their_count() -> None:
    """The bot's counted words (issue 17: "0 wins in 1 games", "1 rounds", "partners every
    other 1 times"): rendered for 1 and 2 in English and French, and 0 in French (singular)."""
    from cogs.uno.show.hand import lap_note
    from cogs.uno.table.words.cards import card_count

    assert [card_count(n, "en") for n in (1, 2)] == ["1 card", "2 cards"]
    assert [card_count(n, "fr") for n in (0, 1, 2)] == ["0 carte", "1 carte", "2 cartes"]
    assert lap_note(1, "en").endswith("every hand moved 1 seat.")
    assert lap_note(2, "en").endswith("every hand moved 2 seats.")
    assert lap_note(1, "fr").endswith("de 1 place.") and lap_note(2, "fr").endswith("places.")
    partners = ("Each player partners every other {n} time; the highest total wins. "
                "Tournament {gid}", "Each player partners every other {n} times; the highest "
                "total wins. Tournament {gid}")
    assert ngettext(*partners, 1, "en", gid="x").startswith(
        "Each player partners every other 1 time;")
    assert ngettext(*partners, 2, "en", gid="x").startswith(
        "Each player partners every other 2 times;")


def test_command_translator_names_and_descriptions() -> None:
    assert translate_command_string("settings", discord.Locale.french,
                                    Where.command_name) == "réglages"
    assert translate_command_string("Play a card", discord.Locale.french,
                                    Where.command_description) == "Jouer une carte"
    assert translate_command_string("Play a card", discord.Locale.american_english,
                                    Where.command_description) is None
    assert translate_command_string("settings", discord.Locale.german,
                                    Where.command_name) is None


def test_no_locale_means_the_public_language() -> None:
    assert _("Draw") == "Draw"
    with speaking("fr"):
        assert _("Draw") == "Piocher"
        assert _("Draw", "en-US") == "Draw"  # a user's own locale still wins
        with speaking(None):
            assert _("Draw") == "Draw"
        assert _("Draw") == "Piocher"
    assert _("Draw") == "Draw"


def test_a_new_game_speaks_the_servers_language() -> None:
    from cogs.uno.table.lobbies import options_from
    from data import GuildSettings

    assert options_from(GuildSettings(1)).language == "en"
    assert options_from(GuildSettings(1), discord.Locale.french).language == "fr"
    assert options_from(GuildSettings(1), "de").language == "en"
    chosen = GuildSettings(1, language="en")
    assert options_from(chosen, discord.Locale.french).language == "en"
    assert options_from(GuildSettings(1, language="fr"), "en-US").language == "fr"
    with pytest.raises(ValueError):
        GuildSettings(1, language="de")


def test_the_servers_language_choices_are_the_catalogues() -> None:
    from data.models import LANGUAGES as CHOICES
    from runtime.i18n import LANGUAGES as CATALOGUES

    assert CHOICES == CATALOGUES


async def test_the_language_setting_is_stored(tmp_path: Path) -> None:
    from data import Database, GuildSettings

    db = await Database.open(str(tmp_path / "uno.db"))
    try:
        assert (await db.get_guild_settings(5)).language is None
        await db.set_guild_settings(GuildSettings(5, language="fr"))
        assert (await db.get_guild_settings(5)).language == "fr"
        await db.set_guild_settings(GuildSettings(5))
        assert (await db.get_guild_settings(5)).language is None
    finally:
        await db.close()


def test_the_rules_in_french_use_the_sheets_terms() -> None:
    from cogs.uno._rules import rule_pages

    english, french = rule_pages("en-US"), rule_pages(discord.Locale.french)
    assert len(english) == len(french)
    for (_title_en, body_en), (title_fr, body_fr) in zip(english, french):
        assert body_fr != body_en and len(body_fr) <= 4096 and len(title_fr) <= 256
    text = "\n".join(body for _title, body in french)
    for term in ("talon", "pioche", "tours", "Prendre-2-tours", "carte blanche", "+1", "+2",
                 "Passer", "Inversion", "UNO!"):
        assert term in text, term
