"""Threads in the loopback Discord, driven through the demo bot (a real discord.py process)."""

from __future__ import annotations

import asyncio
import re
import sys
from typing import Any

import pytest

from loopback.fixtures import LoopbackTest
from loopback.threads import HAS_THREAD, THREAD_CREATED, Thread
from support.e2e import rest

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")  # type: ignore[no-redef]
def loopback_bot_command() -> list[str]:
    return [sys.executable, "loopback/demo_bot.py"]


def events(t: LoopbackTest, name: str) -> list[dict[str, Any]]:
    session = t.discord.current_session
    assert session is not None
    return [f["d"] for f in session.buffer if f["t"] == name]


async def answer(t: LoopbackTest, command: str, **options: Any) -> str:
    """Run a /thread command as alice in the test channel; the bot's (last) answer."""
    result = await t.member("alice").slash(command, **options)
    if result.response_type == 5:
        await result.wait_done()  # the first followup fills in the deferred response
    if result.followups:
        return result.followups[-1].text()
    return result.text


async def open_thread(t: LoopbackTest, name: str, *, from_message: bool = False) -> Thread:
    text = await answer(t, "thread open", name=name, from_message=from_message)
    assert text.startswith("opened "), text
    return t.channel.thread(name)


async def eventually(cond: Any, what: str, seconds: float = 3.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not cond():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


# -- creating ------------------------------------------------------------------------------


@pytest.mark.slow
async def test_bot_creates_public_thread_without_message(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    text = await answer(loopback, "thread open", name="table-1")
    thread = ch.thread("table-1")
    # discord.py cached it (THREAD_CREATE) and knows it is a member (THREAD_MEMBERS_UPDATE)
    assert text == f"opened {thread.id} type=11 parent={ch.id} cached=True me=True", text
    assert thread.type == 11 and thread.parent is ch and thread in loopback.guild.threads
    assert thread not in loopback.guild.channels
    assert thread.owner_id == loopback.discord.bot_identity.id
    assert list(thread.members) == [loopback.discord.bot_identity.id]
    assert thread.auto_archive_duration == 60 and not thread.archived
    # the body discord.py sent (validated against the OpenAPI description on the way in)
    sent = [b for m, p, b in loopback.discord.requests if p.endswith(f"/channels/{ch.id}/threads")]
    assert sent == [{"name": "table-1", "auto_archive_duration": 60, "type": 11,
                     "invitable": True, "rate_limit_per_user": None}], sent
    # the thread channel object as Discord documents it
    created = [e for e in events(loopback, "THREAD_CREATE") if e["id"] == str(thread.id)]
    assert created and created[0]["newly_created"] is True
    data = created[0]
    assert data["parent_id"] == str(ch.id) and data["guild_id"] == str(loopback.guild.id)
    meta = data["thread_metadata"]
    assert set(meta) == {"archived", "auto_archive_duration", "archive_timestamp", "locked",
                         "create_timestamp"}
    assert {"member_count", "message_count", "total_message_sent", "flags", "owner_id"} <= set(
        data
    )
    joined = [e for e in events(loopback, "THREAD_MEMBERS_UPDATE") if e["id"] == str(thread.id)]
    assert joined[0]["added_members"][0]["user_id"] == str(loopback.discord.bot_identity.id)
    # the welcome message went into the thread; the parent got a THREAD_CREATED notice
    assert [m.text() for m in thread.messages] == ["welcome to table-1"]
    notice = ch.messages[-1]
    assert notice.type == THREAD_CREATED
    assert notice.payload()["message_reference"]["channel_id"] == str(thread.id)
    assert thread.payload()["message_count"] == 1


async def test_bot_creates_thread_from_message(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    thread = await open_thread(loopback, "table-2", from_message=True)
    starter = next(m for m in ch.messages if m.content == "table table-2")
    assert thread.id == starter.id and thread.starter_message is starter
    assert starter.flags & HAS_THREAD and starter.payload()["thread"]["id"] == str(thread.id)
    assert not any(m.type == THREAD_CREATED for m in ch.messages)
    # a second thread on the same message: 400 code 160004
    status, body = await rest(
        loopback, "POST", f"/channels/{ch.id}/messages/{starter.id}/threads", {"name": "again"}
    )
    assert (status, body["code"]) == (400, 160004), body
    assert body["message"] == "A thread has already been created for this message"
    assert loopback.discord.take_refused(code=160004)
    # an unknown message: 404 10008
    status, body = await rest(
        loopback, "POST", f"/channels/{ch.id}/messages/1234/threads", {"name": "x"}
    )
    assert (status, body["code"]) == (404, 10008)
    loopback.discord.take_refused(code=10008)


async def test_thread_bodies_are_validated_against_openapi(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    status, body = await rest(
        loopback, "POST", f"/channels/{ch.id}/threads",
        {"name": "bad", "type": 11, "auto_archive_duration": 30},
    )
    assert (status, body["code"]) == (400, 50035), body
    problems = loopback.discord.take_problems("invalid_body", code=50035)
    assert problems and "auto_archive_duration" in str(problems[0]), problems
    status, body = await rest(
        loopback, "POST", f"/channels/{ch.id}/threads", {"name": "x" * 101, "type": 11}
    )
    assert status == 400 and loopback.discord.take_problems("invalid_body")
    assert ch.threads == []
    # a thread in a thread: 400 50024
    thread = ch.create_thread("nested")
    status, body = await rest(
        loopback, "POST", f"/channels/{thread.id}/threads", {"name": "inner", "type": 11}
    )
    assert (status, body["code"]) == (400, 50024), body
    loopback.discord.take_refused(code=50024)


async def test_missing_create_public_threads_and_access(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    ch.set_bot_permissions(create_public_threads=False)
    assert await answer(loopback, "thread open", name="nope") == "failed 403 50013"
    refused = loopback.discord.take_refused(code=50013)
    assert refused and refused[0].detail == "create_public_threads"
    ch.set_bot_permissions(create_public_threads=None, view_channel=False)
    assert await answer(loopback, "thread open", name="nope") == "failed 403 50001"
    assert loopback.discord.take_refused(code=50001)
    assert ch.threads == []


# -- posting and interactions in a thread -------------------------------------------------------


async def test_members_act_in_a_thread_like_in_a_channel(loopback: LoopbackTest) -> None:
    thread = await open_thread(loopback, "table-3")
    alice, bob = thread.member("alice"), thread.member("bob")
    result = await alice.slash("thread where")
    assert result.text == (
        f"in Thread {thread.id} parent={loopback.channel.id} app send_in_threads=True"
    )
    payload = result.state.payload
    assert payload["channel_id"] == str(thread.id) and payload["channel"]["type"] == 11
    assert payload["channel"]["parent_id"] == str(loopback.channel.id)
    red = await bob.click("Red")
    assert red.message is not None and red.message.channel is thread
    assert alice.can_see("bob clicked red") and not loopback.member("carol").can_see("clicked")
    said = bob.say("hello thread")
    assert said.channel is thread and thread.messages[-1] is said
    created = [e for e in events(loopback, "MESSAGE_CREATE") if e["id"] == str(said.id)]
    assert created[0]["channel_id"] == str(thread.id)


async def test_threads_need_send_messages_in_threads(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    thread = ch.create_thread("side", by=loopback.member("alice"))
    await eventually(lambda: any(e["id"] == str(thread.id) for e in events(
        loopback, "THREAD_CREATE")), "THREAD_CREATE")
    # SEND_MESSAGES does not matter in a thread ...
    ch.set_bot_permissions(send_messages=False)
    assert await answer(loopback, "thread post", thread_id=str(thread.id), text="hi") == "posted"
    assert thread.messages[-1].content == "hi"
    # ... SEND_MESSAGES_IN_THREADS does, inherited from the parent's overwrites
    ch.set_bot_permissions(send_messages=None, send_messages_in_threads=False)
    text = await answer(loopback, "thread post", thread_id=str(thread.id), text="no")
    assert text == "failed 403 50013"
    assert loopback.discord.take_refused(code=50013)[0].detail == "send_messages_in_threads"
    assert not thread.permissions_for("bot").send_messages_in_threads
    with pytest.raises(AssertionError, match="no permission overwrites"):
        thread.deny("bot", "send_messages")


async def test_post_in_archived_thread_unarchives_it(loopback: LoopbackTest) -> None:
    thread = await open_thread(loopback, "table-4")
    thread.archive()
    assert thread.archived
    updates = [e for e in events(loopback, "THREAD_UPDATE") if e["id"] == str(thread.id)]
    assert updates[-1]["thread_metadata"]["archived"] is True
    # discord.py drops archived threads from its cache
    known = await answer(loopback, "thread known")
    assert f"table-4:{thread.id}" not in known, known
    # editing in an archived thread is refused (400 50083) ...
    msg = thread.messages[0]
    status, body = await rest(
        loopback, "PATCH", f"/channels/{thread.id}/messages/{msg.id}", {"content": "x"}
    )
    assert (status, body["code"], body["message"]) == (400, 50083, "Thread is archived")
    loopback.discord.take_refused(code=50083)
    # ... posting reopens it (THREAD_UPDATE archived=false)
    assert await answer(loopback, "thread post", thread_id=str(thread.id), text="back") == "posted"
    assert not thread.archived and thread.messages[-1].content == "back"
    updates = [e for e in events(loopback, "THREAD_UPDATE") if e["id"] == str(thread.id)]
    assert updates[-1]["thread_metadata"]["archived"] is False
    assert f"table-4:{thread.id}:active" in await answer(loopback, "thread known")
    # a member's activity reopens it too
    thread.archive()
    await thread.member("bob").click("Red")
    assert not thread.archived


async def test_locked_thread_refuses_without_manage_threads(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    thread = await open_thread(loopback, "table-5")
    ch.set_bot_permissions(manage_threads=False)
    thread.lock()
    assert thread.locked and thread.archived
    text = await answer(loopback, "thread post", thread_id=str(thread.id), text="x")
    assert text == "failed 403 50083"
    assert loopback.discord.take_refused(code=50083)
    # the owner may not unlock/unarchive a locked thread without MANAGE_THREADS
    text = await answer(loopback, "thread edit", thread_id=str(thread.id), archived=False)
    assert text == "failed 403 50013"
    loopback.discord.take_refused(code=50013)
    # members without MANAGE_THREADS cannot act there
    with pytest.raises(AssertionError, match="locked"):
        await thread.member("bob").click("Red")
    # with MANAGE_THREADS the bot may post (which reopens, still locked)
    ch.set_bot_permissions(manage_threads=None)
    assert await answer(loopback, "thread post", thread_id=str(thread.id), text="mod") == "posted"
    assert thread.locked and not thread.archived
    # interaction responses in a locked thread fail the same way
    ch.set_bot_permissions(manage_threads=False)
    mod = loopback.guild.member("mod-5", manage_threads=True).at(thread)
    with pytest.raises(AssertionError, match="50083"):
        await mod.slash("thread where")
    loopback.discord.take_refused(code=50083)
    # the demo bot does not catch the failed response: discord.py logs the Forbidden
    tracebacks: list[str] = []
    await eventually(lambda: tracebacks.extend(loopback.bot.take_tracebacks()) or tracebacks,
                     "the bot's traceback")
    assert "50083" in tracebacks[0]


async def test_bot_modifies_its_thread(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    thread = await open_thread(loopback, "table-6")
    ch.set_bot_permissions(manage_threads=False)
    # the owner may rename and archive its own thread ...
    tid = str(thread.id)
    assert await answer(loopback, "thread edit", thread_id=tid, name="renamed") == "edited"
    assert thread.name == "renamed"
    # ... but not lock it
    assert await answer(loopback, "thread edit", thread_id=tid, locked=True) == "failed 403 50013"
    loopback.discord.take_refused(code=50013)
    assert await answer(loopback, "thread edit", thread_id=tid, archived=True) == "edited"
    assert thread.archived
    # an archived thread takes no other change
    text = await answer(loopback, "thread edit", thread_id=tid, name="again")
    assert text == "failed 400 50083"
    loopback.discord.take_refused(code=50083)
    assert await answer(loopback, "thread edit", thread_id=tid, archived=False) == "edited"
    assert not thread.archived
    patches = [b for m, p, b in loopback.discord.requests
               if m == "PATCH" and p.endswith(f"/channels/{tid}")]
    assert {"archived": False} in patches


# -- deleting ---------------------------------------------------------------------------------


async def test_delete_thread(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    thread = await open_thread(loopback, "table-7")
    ch.set_bot_permissions(manage_threads=False)
    text = await answer(loopback, "thread delete", thread_id=str(thread.id))
    assert text == "failed 403 50013"
    loopback.discord.take_refused(code=50013)
    ch.set_bot_permissions(manage_threads=None)
    assert await answer(loopback, "thread delete", thread_id=str(thread.id)) == "deleted"
    assert thread.deleted and thread not in ch.threads
    deleted = [e for e in events(loopback, "THREAD_DELETE") if e["id"] == str(thread.id)]
    assert deleted == [{"id": str(thread.id), "guild_id": str(loopback.guild.id),
                        "parent_id": str(ch.id), "type": 11}]
    assert f":{thread.id}:" not in await answer(loopback, "thread known")
    status, body = await rest(loopback, "GET", f"/channels/{thread.id}")
    assert (status, body["code"]) == (404, 10003)
    loopback.discord.take_refused(code=10003)
    # deleted by the test (a moderator): THREAD_DELETE and discord.py forgets it
    other = await open_thread(loopback, "table-8")
    await other.delete()
    assert f":{other.id}:" not in await answer(loopback, "thread known")
    with pytest.raises(AssertionError, match="deleted"):
        await other.member("bob").click("Red")


async def test_deleting_the_parent_deletes_its_threads(loopback: LoopbackTest) -> None:
    parent = loopback.guild.new_channel("parent-to-delete")
    thread = parent.create_thread("orphan")
    await eventually(lambda: any(e["id"] == str(thread.id) for e in events(
        loopback, "THREAD_CREATE")), "THREAD_CREATE")
    assert f"orphan:{thread.id}" in await answer(loopback, "thread known")
    await parent.delete()
    assert thread.deleted and thread not in loopback.guild.threads
    await asyncio.sleep(0.1)
    assert f"orphan:{thread.id}" not in await answer(loopback, "thread known")


# -- restart -------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_restarted_bot_finds_active_threads(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    active = await open_thread(loopback, "table-9")
    archived = await open_thread(loopback, "table-10")
    archived.archive()
    await loopback.bot.restart(kill=True)
    session = loopback.discord.current_session
    assert session is not None
    guild_create = [f["d"] for f in session.buffer if f["t"] == "GUILD_CREATE"][-1]
    listed = {t["id"]: t for t in guild_create["threads"]}
    assert str(active.id) in listed and str(archived.id) not in listed
    assert listed[str(active.id)]["member"]["user_id"] == str(loopback.discord.bot_identity.id)
    known = await answer(loopback, "thread known")
    assert f"table-9:{active.id}:active" in known and "table-10" not in known
    # and it still posts there, and sees interactions from there as the thread
    alice = active.member("alice")
    result = await alice.slash("thread where")
    assert result.text.startswith(f"in Thread {active.id} parent={ch.id}")
    assert re.search(r"send_in_threads=True", result.text)


# -- members and private threads --------------------------------------------------------------


async def test_thread_members_and_private_threads(loopback: LoopbackTest) -> None:
    ch = loopback.channel
    alice, bob = loopback.member("alice"), loopback.member("bob")
    bot_id = loopback.discord.bot_identity.id
    # a private thread (type 12, the route's default) hides from non-members
    status, body = await rest(loopback, "POST", f"/channels/{ch.id}/threads", {"name": "secret"})
    assert status == 201 and body["type"] == 12 and body["member"]["user_id"] == str(bot_id)
    assert body["thread_metadata"]["invitable"] is True
    thread = ch.thread("secret")
    assert not thread.permissions_for(alice).view_channel
    with pytest.raises(AssertionError, match="VIEW_CHANNEL"):
        alice.at(thread).say("let me in")
    status, _ = await rest(loopback, "PUT", f"/channels/{thread.id}/thread-members/{alice.id}")
    assert status == 204 and alice.id in thread.members
    assert thread.permissions_for(alice).view_channel
    alice.at(thread).say("in")
    status, listed = await rest(loopback, "GET", f"/channels/{thread.id}/thread-members")
    assert {m["user_id"] for m in listed} == {str(bot_id), str(alice.id)}
    status, _ = await rest(loopback, "DELETE", f"/channels/{thread.id}/thread-members/{alice.id}")
    assert status == 204 and alice.id not in thread.members
    # the bot leaves and joins: THREAD_MEMBERS_UPDATE with removed / added members
    status, _ = await rest(loopback, "DELETE", f"/channels/{thread.id}/thread-members/@me")
    assert status == 204 and bot_id not in thread.members
    status, _ = await rest(loopback, "PUT", f"/channels/{thread.id}/thread-members/@me")
    assert status == 204 and bot_id in thread.members
    updates = [e for e in events(loopback, "THREAD_MEMBERS_UPDATE") if e["id"] == str(thread.id)]
    assert [str(bot_id)] in [e.get("removed_member_ids") for e in updates]
    # no member changes in an archived thread
    thread.archive()
    status, body = await rest(loopback, "PUT", f"/channels/{thread.id}/thread-members/{bob.id}")
    assert (status, body["code"]) == (400, 50083)
    loopback.discord.take_refused(code=50083)
    # the test API: add_member / remove_member
    public = ch.create_thread("public", by=alice)
    public.add_member(bob)
    assert set(public.members) == {alice.id, bob.id}
    public.remove_member(bob)
    assert set(public.members) == {alice.id}
    # thread-member routes on a channel that is not a thread: 400 50024
    status, body = await rest(loopback, "PUT", f"/channels/{ch.id}/thread-members/@me")
    assert (status, body["code"]) == (400, 50024)
    loopback.discord.take_refused(code=50024)
