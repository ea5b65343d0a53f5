"""Refusals speak their reader's language, whatever language is active where they are raised.

Public text (the channel) is in the game's language; a refusal is private and goes in the
locale of whoever clicked. The table service checks most requests inside ``_changing``,
which speaks the game's language (``speaking``), so a refusal translated where it is raised
would reach an English reader of a French game in French. A :class:`Refusal` therefore
carries its msgid and params and is translated only when it is answered
(``_reply.answer``). These tests hold every call site to that: a refusal is built from a
string literal the catalogue knows, never from text already translated (``_()``, a locale,
a function that takes one), and each kind answers in the reader's locale under a foreign
``speaking()``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import cogs.uno
from cogs.uno.table.contracts import EngineRefusal, Refusal, SaveFailed, Stale
from cogs.uno.table.words.cards import edition_title
from engine import Card, Color, NoMatchError, SettingsError
from runtime.i18n import LOCALE_DIR, speaking

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(ROOT / "cogs").rglob("*.py"), ROOT / "bot.py"])
TRANSLATING = {"_", "pgettext"}
"""Calls that translate in the active language."""
LOCALE_WORDS = ("locale", "language")
"""A name or attribute with one of these in it is a reader's or a game's language."""


def refusal_classes() -> dict[str, type[Refusal]]:
    for module in pkgutil.walk_packages(cogs.uno.__path__, "cogs.uno."):
        importlib.import_module(module.name)
    found: dict[str, type[Refusal]] = {}
    stack: list[type[Refusal]] = [Refusal]
    while stack:
        cls = stack.pop()
        found[cls.__name__] = cls
        stack.extend(cls.__subclasses__())
    return found


def takes_msgid(cls: type[Refusal]) -> bool:
    """Whether ``cls(...)`` takes the sentence itself (its msgid) first."""
    params = list(inspect.signature(cls.__init__).parameters)
    return len(params) > 1 and params[1] == "msgid"


def translating_functions() -> set[str]:
    """Functions of the cogs that take a locale or a language: calling one gives text
    already translated."""
    names = set(TRANSLATING)
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                if any(word in a.arg for a in args for word in LOCALE_WORDS):
                    names.add(node.name)
    return names


def called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def refusal_calls(classes: set[str]) -> Iterator[tuple[str, ast.Call]]:
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and called_name(node) in classes:
                yield f"{path.relative_to(ROOT)}:{node.lineno}", node


def translated_parts(call: ast.Call, translating: set[str]) -> list[str]:
    """What in ``call``'s arguments is text already in some language."""
    found = []
    for arg in [*call.args, *(k.value for k in call.keywords)]:
        for node in ast.walk(arg):
            if isinstance(node, ast.Call) and called_name(node) in translating:
                found.append(f"{called_name(node)}(...)")
            word = (node.id if isinstance(node, ast.Name)
                    else node.attr if isinstance(node, ast.Attribute) else "")
            if any(w in word for w in LOCALE_WORDS):
                found.append(word)
    return found


def pot_msgids() -> set[str]:
    with (LOCALE_DIR / "messages.pot").open("rb") as f:
        return {m.id for m in read_po(f) if isinstance(m.id, str) and m.id}


@pytest.mark.slow
def test_every_refusal_is_built_without_its_reader() -> None:
    classes = refusal_classes()
    translating = translating_functions()
    assert {"_", "error_text", "stale_text", "edition_title"} <= translating
    msgids = pot_msgids()
    keywords = re.search(r"REFUSALS=\(([^)]*)\)",
                         (ROOT / "scripts" / "i18n.sh").read_text())
    assert keywords is not None
    extracted = set(keywords.group(1).split())
    wrong = []
    count = 0
    for where, call in refusal_calls(set(classes)):
        count += 1
        name = called_name(call)
        assert name is not None
        translated = translated_parts(call, translating)
        if translated:
            wrong.append(f"{where}: {name}() built from translated text: {translated}")
        if not takes_msgid(classes[name]):
            continue
        first = call.args[0] if call.args else None
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            wrong.append(f"{where}: {name}() needs its msgid as a string literal")
        elif first.value not in msgids:
            wrong.append(f"{where}: {first.value!r} is not in locale/messages.pot")
        if name not in extracted:
            wrong.append(f"{where}: {name} is not a keyword of scripts/i18n.sh (REFUSALS)")
    assert count > 60, count  # the walk finds the call sites
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_a_refusal_translated_where_it_is_raised() -> None:
    translating = translating_functions()
    bad = ast.parse('raise Refusal(_("Nobody can be caught right now."))\n'
                    'raise Refusal(stale_text(actor.locale))\n'
                    'raise Refusal("{e} takes at most {n} players.", '
                    'e=edition_title(name, locale), n=2)\n'
                    'raise EngineRefusal(error_text(exc))\n')
    calls = [n for n in ast.walk(bad) if isinstance(n, ast.Call)
             and called_name(n) in ("Refusal", "EngineRefusal")]
    assert len(calls) == 4 and all(translated_parts(c, translating) for c in calls)
    good = ast.parse('raise Refusal("{e} takes at most {n} players.", '
                     'e=partial(edition_title, name), n=2)')
    call = next(n for n in ast.walk(good) if isinstance(n, ast.Call)
                and called_name(n) == "Refusal")
    assert not translated_parts(call, translating)


@pytest.mark.parametrize(("refusal", "english", "french"), [
    (Refusal("Nobody can be caught right now."), "Nobody can be caught right now.",
     "Personne ne peut être attrapé pour l'instant."),
    (SaveFailed("The game couldn't be saved, so nothing changed: try again in a moment."),
     "The game couldn't be saved, so nothing changed: try again in a moment.",
     "La partie n'a pas pu être enregistrée, donc rien n'a changé : réessayez dans un "
     "instant."),
    (Refusal("{edition} takes at most {n} players.", edition=partial(edition_title, "classic"),
             n=10), "Classic UNO takes at most 10 players.",
     "UNO classique accepte au plus 10 joueurs."),
    (Stale(), "This menu is out of date: press My hand for a fresh one.",
     "Ce menu n'est plus à jour : appuyez sur Ma main pour en avoir un nouveau."),
])
@pytest.mark.parametrize("game_language", ["fr", "en"])
def test_a_refusal_answers_in_its_readers_locale(refusal: Refusal, english: str, french: str,
                                                 game_language: str) -> None:
    with speaking(game_language):
        assert refusal.text("en-US") == english
        assert refusal.text("fr") == french
        assert refusal.text(None) == english  # no locale known: English, not the game's
    assert str(refusal) == english


def test_an_engine_refusal_answers_in_its_readers_locale() -> None:
    error = NoMatchError("{code} does not match the {top} (colour {color}).",
                         code=Card.parse("R5"), top=Card.parse("W"), color=Color.BLUE)
    with speaking("fr"):
        refusal = EngineRefusal(error)
        assert refusal.text("en-US") == str(error) == \
            "R5 does not match the Wild (colour blue)."
        assert refusal.text("fr").startswith("R5 ne va pas sur ")
        assert refusal.text("fr").endswith("(couleur bleu).")
        unknown = EngineRefusal(SettingsError("target must be from 100 to 5000, got 7."))
        assert unknown.text("fr") == "target must be from 100 to 5000, got 7."
    assert str(refusal) == str(error)


def test_an_option_refusal_names_the_option_in_its_readers_language() -> None:
    """A slash option out of its declared range (``_options``): the sentence and the
    option's localized name follow the reader, not the language active where it is built."""
    from cogs.uno._catalogue import COMMAND_COGS
    from cogs.uno._options import refusal_of

    target = next(p for cog in COMMAND_COGS for command in cog.__cog_app_commands__
                  for p in getattr(command, "parameters", []) if p.name == "target")
    with speaking("fr"):
        refusal = refusal_of(target, 7)
        assert refusal is not None
        assert refusal.text("en-US") == ("The option target must be a whole number from 100 "
                                         "to 5000; nothing was changed.")
        assert refusal.text("fr") == ("L'option objectif doit être un nombre entier de 100 à "
                                      "5000 ; rien n'a été changé.")
