"""End to end through the loopback Discord: a French server plays a round in French.

The server's Discord locale is French and it chose no language, so its games speak French;
alice's own Discord is in French too. After a lobby, a start, My hand and a play, nothing
in the channel (every version of every public message: text, embeds, buttons, menus) or in
alice's private answers may contain an English sentence of the catalogue.
"""

from __future__ import annotations

import asyncio
import re
import string
from collections.abc import Iterator
from typing import Any

import pytest
from babel.messages.pofile import read_po

from loopback.fixtures import LoopbackTest
from loopback.models import Message
from loopback.users import InteractionResult, Member
from runtime.i18n import LOCALE_DIR
from support.e2e import FAST_ENV, card_buttons, db_of, play_card, saved_game
from support.games import rows
from support.tables import refused

LOBBY_FR = ["Rejoindre", "Quitter", "Ajouter un joueur ordinateur", "Commencer", "Annuler",
            "Ajouter un ordinateur facile", "Ajouter un ordinateur difficile",
            "Retirer un joueur ordinateur"]
TABLE_FR = ["Ma main", "Piocher", "UNO!", "Attraper"]


pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]


def english_sentences() -> list[str]:
    """Fragments of the English msgids that only an untranslated message would show: the
    literal runs between placeholders with at least three words, unless the French
    catalogue says the same (names like "UNO Power Grab")."""
    with (LOCALE_DIR / "fr" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f)
    french = "\n".join(str(m.string) for m in catalog if m.id)
    found = set()
    for m in catalog:
        if not m.id or m.context or not isinstance(m.id, str):
            continue
        for literal, *_rest in string.Formatter().parse(m.id):
            for piece in re.split(r"[*`\n]+", literal):
                piece = piece.strip(" :;,.!?()·-")
                if len(piece.split()) >= 3 and piece not in french:
                    found.add(piece)
    return sorted(found)


def readable(payload: dict[str, Any]) -> Iterator[str]:
    """What a person reads in one version of a message."""
    if payload.get("content"):
        yield str(payload["content"])
    for embed in payload.get("embeds") or []:
        for key in ("title", "description"):
            if embed.get(key):
                yield str(embed[key])
        for fld in embed.get("fields") or []:
            yield f"{fld.get('name', '')}: {fld.get('value', '')}"
        if (embed.get("footer") or {}).get("text"):
            yield str(embed["footer"]["text"])
    stack = list(payload.get("components") or [])
    while stack:
        comp = stack.pop()
        stack.extend(comp.get("components") or [])
        for key in ("label", "placeholder", "content"):
            if comp.get(key):
                yield str(comp[key])
        for option in comp.get("options") or []:
            yield str(option.get("label", ""))
            if option.get("description"):
                yield str(option["description"])


def seen_by(member: Member) -> list[str]:
    """Every version of every message ``member`` could see in the channel."""
    texts: list[str] = []
    for msg in member.sees():
        for version in [*msg.history, msg.payload()]:
            texts.extend(readable(version))
    return texts


def english_in(texts: list[str], sentences: list[str]) -> list[tuple[str, str]]:
    return [(s, t) for t in texts for s in sentences if s in t]


async def answer_what_the_card_needs(alice: Member, played: InteractionResult,
                                     results: list[InteractionResult]) -> None:
    """A card played from the menu may still ask its colour (a wild) or its towers (the
    deal is random): Alice answers with the first colour and the first towers offered."""
    for _ in range(3):
        menu = played.message
        if menu is None:
            return
        colours = [b for b in menu.buttons() if b.get("label") in ("Rouge", "Bleu", "Vert",
                                                                   "Jaune")]
        towers = [str(b["custom_id"]) for b in menu.buttons()
                  if str(b.get("custom_id", "")).startswith("uno:tb:")]
        if colours:
            played = await alice.click(str(colours[0]["label"]), message=menu)
        elif towers:
            played = await alice.click(custom_id=towers[0], message=menu)
        else:
            return
        results.append(played)


async def play_a_turn(alice: Member, table: Message) -> list[InteractionResult]:
    """Alice opens My hand until it is her turn, then plays (or draws and keeps)."""
    results: list[InteractionResult] = []
    for _ in range(100):
        r = await alice.click("Ma main", message=table)
        results.append(r)
        assert r.ephemeral and r.message is not None
        menu = r.message
        picks = card_buttons(menu)
        if picks:
            played = await play_card(alice, picks[0], message=menu)
            results.append(played)
            await answer_what_the_card_needs(alice, played, results)
            return results
        labels = menu.button_labels()
        if "Accepter le +4" in labels:
            results.append(await alice.click("Accepter le +4", message=menu))
            continue
        if "Piocher" in labels and "À vous" in menu.text():
            drew = await alice.click("Piocher", message=menu)
            results.append(drew)
            assert drew.message is not None
            after = drew.message.button_labels()
            assert "La garder" in after or "Piocher" not in after, after
            if "La garder" in after:
                results.append(await alice.click("La garder", message=drew.message))
            return results
        colours = [b for b in menu.buttons() if b.get("label") in ("Rouge", "Bleu", "Vert",
                                                                   "Jaune")]
        if colours:
            results.append(await alice.click(str(colours[0]["label"]), message=menu))
            continue
        await asyncio.sleep(0.2)
    raise AssertionError("alice never had a turn")


async def test_a_french_server_plays_in_french(loopback: LoopbackTest) -> None:
    loopback.guild.locale = "fr"
    alice = loopback.member("alice")
    alice.identity.locale = "fr"
    sentences = english_sentences()
    assert len(sentences) > 200  # the check has teeth

    r = await alice.slash("uno new")
    lobby = r.message
    assert lobby is not None and not r.ephemeral
    assert lobby.button_labels() == LOBBY_FR
    assert "nouvelle partie" in lobby.text() and "(hôte)" in lobby.text()

    await alice.click("Ajouter un joueur ordinateur", message=lobby)
    await alice.click("Commencer", message=lobby)
    # (a Wild Draw Four waiting for Alice adds Accept and Challenge: the deal is random)
    table = await loopback.channel.wait_for(
        lambda m: m.button_labels()[:len(TABLE_FR)] == TABLE_FR, timeout=10)
    assert "manche 1" in table.text()

    results = await play_a_turn(alice, table)
    await loopback.channel.wait_for(lambda m: "alice" in m.text().lower()
                                    and (" joue " in m.text() or "pioche" in m.text()),
                                    timeout=20)
    await asyncio.sleep(0.5)  # the computer player answers too

    texts = seen_by(alice) + [r.text for r in results]
    assert not english_in(texts, sentences), english_in(texts, sentences)[:5]


async def test_the_settings_choose_the_language(loopback: LoopbackTest) -> None:
    """A French server that chose English: its new games speak English; a French member
    still reads their own answers in French."""
    loopback.guild.locale = "fr"
    admin = loopback.member("root", manage_guild=True)
    admin.identity.locale = "fr"
    r = await admin.slash("uno settings", language="en")
    assert r.ephemeral and "langue : English" in r.text
    r = await admin.slash("uno new")
    assert r.message is not None and r.message.button_labels()[0] == "Join"
    r = await admin.click("Join", message=r.message)
    assert r.ephemeral and "Vous êtes déjà dans cette partie." in r.text
    # the server's default changed while a lobby is open: the lobby follows
    r = await admin.slash("uno settings", language="fr", server_default=True)
    assert "langue : Français" in r.text and "Réglages par défaut de ce serveur" in r.text, r.text
    lobby = await loopback.channel.wait_for(lambda m: m.button_labels()[:1] == ["Rejoindre"],
                                            timeout=10)
    assert "nouvelle partie" in lobby.text()
    await admin.click("Annuler", message=lobby)



async def test_the_host_sets_the_lobbys_language(loopback: LoopbackTest) -> None:
    """The lobby's host, without Manage Server, sets this game's language: the lobby and
    then the table speak French, and the server's default is unchanged. Another player may
    not; without a lobby the language is the server's default (Manage Server only)."""
    loopback.guild.locale = "en-US"
    alice = loopback.member("alice")  # no Manage Server
    bob = loopback.member("bob")
    alice.identity.locale = bob.identity.locale = "en-US"  # (the first test made alice French)
    admin = loopback.member("root", manage_guild=True)
    admin.identity.locale = "en-US"
    await admin.slash("uno settings", language="en")  # (an earlier test chose French)
    defaults = guild_defaults(loopback)
    # no lobby: the language is the server's default, which needs Manage Server
    refused(await alice.slash("uno settings", language="fr"),
            "Only members with Manage Server can change the server's defaults.")
    r = await alice.slash("uno new")
    assert r.message is not None and r.message.button_labels()[0] == "Join"
    await bob.click("Join", message=r.message)
    refused(await bob.slash("uno settings", language="fr"),
            "Only the host or a member with Manage Server can do that.")
    assert (saved_game(loopback) or {})["options"]["language"] == "en"
    r = await alice.slash("uno settings", language="fr")
    assert r.ephemeral and "Settings for this game" in r.text and "language: Français" in r.text
    assert (saved_game(loopback) or {})["options"]["language"] == "fr"
    assert guild_defaults(loopback) == defaults
    lobby = await loopback.channel.wait_for(lambda m: m.button_labels()[:1] == ["Rejoindre"],
                                            timeout=10)
    await alice.click("Commencer", message=lobby)
    table = await loopback.channel.wait_for(
        lambda m: m.button_labels()[:len(TABLE_FR)] == TABLE_FR, timeout=10)
    assert "manche 1" in table.text()
    r = await bob.click("Ma main", message=table)  # private text follows bob's own language
    assert r.ephemeral and "Your hand" in r.text, r.text
    assert guild_defaults(loopback) == defaults


def guild_defaults(t: LoopbackTest) -> list[tuple[Any, ...]]:
    return rows(db_of(t), "SELECT * FROM guild_settings WHERE guild_id = ?", t.guild.id)


async def test_slash_commands_are_registered_in_french(loopback: LoopbackTest) -> None:
    """The translator's localizations reach Discord (and pass its schema): each French
    user sees /uno réglages, its options and their descriptions in French."""
    uno = next(c for c in loopback.discord.commands_for(loopback.guild) if c["name"] == "uno")
    assert not uno.get("name_localizations")  # "uno" in every language
    assert uno["description_localizations"]["fr"].startswith("Jouer à UNO Power Grab")
    sub = {o["name"]: o for o in uno["options"]}
    settings = sub["settings"]
    assert settings["name_localizations"] == {"fr": "réglages"}
    assert settings["description_localizations"]["fr"] == \
        "Afficher ou changer les réglages de la partie"
    options = {o["name"]: o for o in settings["options"]}
    assert options["language"]["name_localizations"]["fr"] == "langue"
    assert [c.get("name_localizations", {}).get("fr") for c in options["mode"]["choices"]] \
        == ["chacun pour soi", "partenaires", "match à partenaires tournants"]
    assert sub["rules"]["name_localizations"]["fr"] == "règles"


async def test_a_refusal_speaks_its_readers_language(loopback: LoopbackTest) -> None:
    """A French game: bob's Discord is in English, alice's in French. Both click Catch
    (Attraper) on the table with nobody to catch: the game's language is French while the
    click is checked, yet each reads the refusal in their own language."""
    loopback.guild.locale = "fr"
    alice, bob = loopback.member("alice"), loopback.member("bob")
    alice.identity.locale = "fr"
    bob.identity.locale = "en-US"
    await loopback.member("root", manage_guild=True).slash("uno settings", language="fr")
    r = await alice.slash("uno new")
    assert r.message is not None
    await bob.click("Rejoindre", message=r.message)
    await alice.click("Commencer", message=r.message)
    table = await loopback.channel.wait_for(
        lambda m: m.button_labels()[:len(TABLE_FR)] == TABLE_FR, timeout=10)

    r = await bob.click("Attraper", message=table)
    assert r.ephemeral and r.text == "Nobody can be caught right now.", r
    r = await alice.click("Attraper", message=table)
    assert r.ephemeral and r.text == "Personne ne peut être attrapé pour l'instant.", r
