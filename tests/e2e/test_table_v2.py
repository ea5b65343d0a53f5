"""End to end through the loopback Discord: the live table as one Components V2 message
(issue 11). One container: the recent lines and whose turn it is, the table's picture
(``attachment://table-N.png``, uploaded with the message), the same information as text, and
the table's buttons. Its buttons work; a move edits it in place with a new picture (a new
file name, the old attachment dropped); if Discord refuses such an edit the table is posted
anew; a closed table keeps its text and picture without buttons; the public table never
shows a hand's cards. ``UNO_TABLE_V2=0``: tests/e2e/test_table_embed.py."""

from __future__ import annotations

import pytest
import pytest_asyncio

from loopback.bot_process import BotProcess
from loopback.fixtures import LoopbackTest
from loopback.limits import IS_COMPONENTS_V2
from loopback.models import Channel, Message
from loopback.server import LoopbackDiscord
from support.driver import hands_of, stray_card_labels, turn_of
from support.e2e import FAST_ENV, panel_shows
from support.tables import Scenario, abc, hand, open_tables, pair, said, state, table_message

PNG = b"\x89PNG\r\n\x1a\n"


pytestmark = [pytest.mark.asyncio(loop_scope="module"),
              pytest.mark.bot_env(**FAST_ENV)]


SCENARIOS: dict[str, Scenario] = {
    "one_message": pair, "buttons": pair, "privacy": pair, "refused": pair}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def tables(loopback_discord: LoopbackDiscord, loopback_bot: BotProcess) -> dict[str, Channel]:
    return await open_tables(loopback_discord, loopback_bot, SCENARIOS)


async def alice_plays_r3(ch: Channel) -> Message:
    """Alice's move: the table the restart posted (through the channel) is replaced by one
    her click posts; waits until the old one is closed (the channel route is paced), so
    nothing of it is still being written when the next move comes."""
    alice, _bob, _c = abc(ch)
    restarted = table_message(ch)
    await alice.slash("uno play", card="R3")
    first = await said(ch, "alice plays 🟥 red 3.", ch.mark())
    await ch.wait_for(lambda m: m.id == restarted.id and not m.button_labels(), after=0)
    return first


def picture_names(m: Message) -> list[str]:
    """The ``attachment://`` names the message's media galleries show."""
    return [str(item["media"]["url"]).removeprefix("attachment://")
            for c in m.walk_components() if c.get("type") == 12 for item in c["items"]]


def assert_v2_table(m: Message) -> None:
    """One V2 message: only components (one container), the picture it shows uploaded with
    it, and the table complete in text."""
    assert m.flags & IS_COMPONENTS_V2, m
    assert not m.content and not m.embeds
    assert [c["type"] for c in m.components] == [17]
    [name] = picture_names(m)
    assert name in m.files and m.files[name].startswith(PNG)
    assert [a["filename"] for a in m.attachments] == [name]
    text = m.text()
    for needed in ("Top card: **", "Direction:", "**Players**", "**alice**", "**bob**",
                   "cards", "Towers", "Draw pile:"):
        assert needed in text, (needed, text)
    assert "My hand" in m.button_labels() and "Draw" in m.button_labels()


async def test_the_table_is_one_v2_message_with_its_picture(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["one_message"]
    alice, bob, _c = abc(ch)
    table = table_message(ch)
    assert_v2_table(table)
    assert turn_of(table) == alice.id  # the turn line mentions whose turn it is
    first = await alice_plays_r3(ch)
    assert_v2_table(first)
    assert "Top card: **🟥 red 3**" in first.text()
    assert turn_of(first) == bob.id
    before = picture_names(first)
    # Bob's move edits the same message in place, with a new picture under a new name
    mark = ch.mark()
    await bob.slash("uno play", card="R6")
    edited = await said(ch, "bob plays 🟥 red 6.", mark)
    assert edited.id == first.id and edited.history
    assert_v2_table(edited)
    assert picture_names(edited) != before and list(edited.files) == picture_names(edited)
    assert "Top card: **🟥 red 6**" in edited.text()
    assert [m for m in ch.messages[ch.messages.index(first) + 1:] if not m.ephemeral] == []


async def test_the_buttons_on_the_v2_table_work(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["buttons"]
    alice, _bob, _c = abc(ch)
    table = table_message(ch)
    r = await alice.click("My hand", message=table)
    assert r.ephemeral and "Your hand" in r.text
    panel = r.message
    assert panel is not None
    before = len(hand(state(ch), alice))
    mark = ch.mark()
    # Draw on the table: answered in alice's live panel, with no new message
    r = await alice.click("Draw", message=table)
    assert r.response_type == 6, r
    assert len(hand(state(ch), alice)) == before + 1
    await panel_shows(ch, panel, "You drew")
    after = await ch.wait_for(lambda m: is_v2(m) and "alice draws" in m.text(), after=mark,
                              timeout=5)
    assert_v2_table(after)


def is_v2(m: Message) -> bool:
    return bool(m.flags & IS_COMPONENTS_V2)


async def test_the_v2_table_never_shows_a_hand(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    ch = tables["privacy"]
    _alice, bob, _c = abc(ch)
    await alice_plays_r3(ch)
    await bob.slash("uno play", card="R6")
    await said(ch, "bob plays 🟥 red 6.", ch.mark())
    hands = hands_of({"game": state(ch)})
    for m in ch.messages:
        if m.ephemeral:
            continue
        text = m.text()
        assert stray_card_labels(text) == [], text
        for cards in hands.values():
            for card in cards:
                assert f"`{card}`" not in text and f"({card})" not in text
    # the old table, replaced by a new one posted below, keeps its text and picture
    old = [m for m in ch.messages if is_v2(m) and not m.button_labels()]
    for m in old:
        assert picture_names(m) and "Top card" in m.text()


async def test_a_refused_edit_with_a_new_picture_posts_the_table_anew(
        loopback: LoopbackTest, tables: dict[str, Channel]) -> None:
    """Discord may refuse an edit that brings a new picture (discord-api-docs issue 7529):
    the table is then posted anew at once (with the move's line and its buttons), the old
    one is closed, and later tables whose picture changed are posted anew (no more such
    edits). Runs last in the module: the bot remembers the refusal."""
    ch = tables["refused"]
    alice, bob, _c = abc(ch)
    first = await alice_plays_r3(ch)
    assert_v2_table(first)
    server = loopback.discord
    server.fail_next("PATCH", lambda req: req.params.get("mid") == str(first.id)
                     and bool((req.body or {}).get("attachments")), 400, code=50035)
    mark = ch.mark()
    await bob.slash("uno play", card="R6")
    table = await ch.wait_for(lambda m: is_v2(m) and "bob plays 🟥 red 6." in m.text()
                              and bool(m.button_labels()), after=mark, timeout=5)
    assert table.id != first.id
    assert_v2_table(table)
    await ch.wait_for(lambda m: m.id == first.id and not m.button_labels(), after=0)
    assert [r.code for r in server.take_refused()] == [50035]
    assert not [m for m in ch.messages if m.id > first.id and not m.ephemeral
                and not m.button_labels() and m.id != first.id], "the line went with the table"
    assert loopback.bot.take_tracebacks() == []
    # the next move changes the picture: posted anew, no edit with a file is tried
    seen = len(server.requests)
    mark = ch.mark()
    await alice.slash("uno play", card="R4")
    later = await ch.wait_for(lambda m: is_v2(m) and "alice plays 🟥 red 4." in m.text()
                              and bool(m.button_labels()), after=mark, timeout=5)
    assert later.id != table.id
    assert_v2_table(later)
    # (a hand panel's edit through its token may bring the hand's picture: not a table)
    assert not [b for method, path, b in server.requests[seen:]
                if method == "PATCH" and isinstance(b, dict) and b.get("attachments")
                and not path.partition("?")[0].endswith("/messages/@original")]
