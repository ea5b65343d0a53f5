"""The table service on PostgreSQL (issue 18): a move whose save fails because the
connection to the server was lost is undone and refused, as on SQLite
(tests/table/test_service.py), and the next move, on a new connection, is saved. The
connection is lost for real: a constraint trigger terminates the bot's own session during
the first save after a flag is raised (a sequence, which no rollback takes back), in a
database of the test's own: while the snapshot is written (the move is undone), or at its
COMMIT, whose outcome the bot cannot know (issue 30: the save is written again on a new
connection, and the move stands, once)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from cogs.uno.table.contracts import SaveFailed
from data import Database
from engine import Card, Play
from support import postgres
from support.data import opened, query
from support.games import saved_state
from support.service import ALICE, BOB, running, scenario

CUT_ONCE = """
CREATE SEQUENCE cut_armed;
CREATE SEQUENCE cut_done;
CREATE FUNCTION cut_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT is_called FROM cut_armed) AND nextval('cut_done') = 1 THEN
        PERFORM pg_terminate_backend(pg_backend_pid());
    END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER cut_once AFTER INSERT OR UPDATE ON saved_games
    {when} FOR EACH ROW EXECUTE FUNCTION cut_once();
"""
AT_COMMIT = "DEFERRABLE INITIALLY DEFERRED"
AT_THE_WRITE = "NOT DEFERRABLE"


@pytest.fixture(params=[AT_THE_WRITE])
async def pg_db(pg_private_url: str, request: pytest.FixtureRequest
                ) -> AsyncIterator[Database]:
    postgres.script(pg_private_url, CUT_ONCE.format(when=request.param))
    async with opened(pg_private_url) as db:
        yield db


async def test_a_move_lost_with_the_connection_is_undone_and_the_next_one_saved(
        pg_db: Database, pg_private_url: str) -> None:
    service, outbox = await running(pg_db, scenario(
        1, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6 G7"}, discard="R9",
        draw="Y1 Y2", turn="111"))
    session = service.sessions[1]
    before = json.loads(session.to_json(now=0))
    del before["last_human"]
    before_saved = saved_state(pg_db, 1)
    postgres.script(pg_private_url, "SELECT nextval('cut_armed')")
    with pytest.raises(SaveFailed, match="nothing changed"):
        await service.move(1, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))
    after = json.loads(session.to_json(now=0))
    del after["last_human"]
    assert after == before, "memory is back to before the move"
    assert saved_state(pg_db, 1) == before_saved, "nothing of the move was saved"
    assert outbox.announced == [], "nothing announced"
    moved = await service.move(1, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))
    assert [str(c) for c in moved.game.hand("111")] == ["B4"]
    state = saved_state(pg_db, 1)
    assert state is not None and state["game"]["hands"]["111"] == ["B4"]
    assert "Alice plays 🟥 red 3." in outbox.text()
    await service.close()


@pytest.mark.parametrize("pg_db", [AT_COMMIT], indirect=True)
async def test_a_move_whose_commit_lost_the_connection_is_written_again_and_stands(
        pg_db: Database, pg_private_url: str) -> None:
    service, outbox = await running(pg_db, scenario(
        1, [ALICE, BOB], hands={"111": "R3 B4", "222": "G5 G6 G7"}, discard="R9",
        draw="Y1 Y2", turn="111"))
    postgres.script(pg_private_url, "SELECT nextval('cut_armed')")
    moved = await service.move(1, ALICE, lambda s, g, p: Play(p, Card.parse("R3")))
    assert [str(c) for c in moved.game.hand("111")] == ["B4"]
    assert query(pg_private_url, "SELECT is_called FROM cut_done") == [(True,)], \
        "the connection was cut at the COMMIT"
    state = saved_state(pg_db, 1)
    assert state is not None and state["game"]["hands"]["111"] == ["B4"]
    session = service.sessions[1]
    log = await pg_db.game_log(session.guild_id, session.game_id)
    assert [e.seq for e in log] == [1], "the move is in the log"
    assert "Alice plays 🟥 red 3." in outbox.text()
    await service.close()
