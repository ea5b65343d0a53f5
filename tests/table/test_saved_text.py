"""The saved session's text (``Session.to_json``, written by orjson, ``compact_json``): it
reads back as exactly the session that was saved; a text the standard library wrote (every
row saved by earlier releases) reads back as the same session; and whatever orjson refuses
(a lone surrogate in a name, an int past 64 bits) is still saved, by the standard library.
"""

from __future__ import annotations

import json

import pytest

from cogs.uno.table.session import Options, Seat, Session, compact_json
from engine.players import HeuristicPlayer

NOW = 1_800_000_000.25


def played(moves: int, *, players: int = 4, names: tuple[str, ...] = (), seed: int = 7,
           mode: str = "solo") -> Session:
    """A session ``moves`` moves into its game, its seats' ids Discord-like."""
    seats = [Seat(str(312345678901234567 + i), names[i] if i < len(names) else f"P{i}")
             for i in range(players)]
    session = Session(channel_id=123456789012345678, guild_id=223456789012345678,
                      host_id=seats[0].id, seats=seats, seed=seed,
                      options=Options(mode=mode, language="fr"))
    game = session.start_game()
    game.start()
    bots = {p: HeuristicPlayer(seed=i) for i, p in enumerate(game.players)}
    for _ in range(moves):
        if game.is_over:
            break
        for p in game.players:
            reaction = bots[p].react(game, p)
            if reaction is not None:
                game.apply(reaction)
        move = bots[game.turn].choose(game, game.turn)
        assert move is not None
        game.apply(move)
        session.serial += 1
    session.deadline = NOW + 42.5
    session.last_human = NOW - 3.125
    session.unseen = {seats[1].id: ["R5", "W+4"]}
    session.timeouts = {seats[2].id: 1}
    return session


SESSIONS = {
    "lobby": lambda: Session(channel_id=5, guild_id=6, host_id="7",
                             seats=[Seat("7", "Ann"), Seat("cpu1", "CPU 1", cpu=True)]),
    "start": lambda: played(0),
    "mid-game": lambda: played(25),
    "long game, 6 seats": lambda: played(120, players=6, seed=11),
    "names outside ASCII": lambda: played(12, names=("Zoé", "李雷", "🎴 Ω", "\"q\\\\")),
    "rotating partners": lambda: played(8, mode="rotating"),
}


@pytest.mark.parametrize("kind", SESSIONS)
def test_the_saved_text_reads_back_as_the_session_saved(kind: str) -> None:
    session = SESSIONS[kind]()
    text = session.to_json(NOW)
    assert json.loads(text) == session.to_dict(NOW), "the values the standard library wrote"
    again = Session.from_json(text)
    assert again.to_dict(NOW) == session.to_dict(NOW)
    assert again.to_json(NOW) == text, "saved again unchanged, it is the same text"


@pytest.mark.parametrize("kind", SESSIONS)
def test_a_row_the_standard_library_wrote_reads_back_the_same(kind: str) -> None:
    """Rows saved before orjson wrote them (escaped non-ASCII, "1e-05" floats)."""
    session = SESSIONS[kind]()
    old = json.dumps(session.to_dict(NOW), separators=(",", ":"))
    assert Session.from_json(old).to_dict(NOW) == session.to_dict(NOW)
    if kind != "names outside ASCII":
        assert session.to_json(NOW) == old, "ASCII only: the very same text"


def test_what_orjson_refuses_is_saved_by_the_standard_library() -> None:
    # A lone surrogate can come from a JSON escape ("\ud83c" alone) in a Discord name.
    session = played(5, names=("bad \ud83c name", "Bob"))
    text = session.to_json(NOW)
    assert "\\ud83c" in text, "escaped, as json.dumps writes it (UTF-8 can't carry it)"
    assert Session.from_json(text).name(session.seats[0].id) == "bad \ud83c name"
    assert compact_json({"big": 2**70, "k": {1: "one"}}) == '{"big":1180591620717411303424,' \
                                                               '"k":{"1":"one"}}'
    assert compact_json([1e-05, 1e16, "é"]) in ('[0.00001,1e+16,"é"]',)
