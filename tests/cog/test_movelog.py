"""A challenge's verdict and an instant UNO, as /uno log and the table show them (issue 17,
Words: "/uno log shows 'Bob challenges the Wild Draw Four.' with no verdict and an instant
UNO as 'keeps one card'"; "one line per event, kept long enough that a challenge's verdict
and an instant UNO are readable"). RULINGS, Turn (the challenger alone sees the challenged
hand) and Towers (instant UNO: the kept card is private)."""

from __future__ import annotations

import random
from typing import Any

from cogs.uno._movelog import log_line, replay_document
from cogs.uno._table_post import TablePost, TableStyle
from cogs.uno.table.session import Options, Seat, Session
from cogs.uno.table.tables import SEEN, logged
from cogs.uno.table.words.events import event_lines
from engine import Card, Color, Game, Tower, move_from_dict
from engine.moves import CallUno, Catch, Challenge, Keep, Move, Play
from engine.replay import build_game, move_to_json, replay_header

NAMES = {"Ann": "Ann", "Ben": "Ben", "Cy": "Cy"}


def cards(codes: str) -> list[Card]:
    return [Card.parse(c) for c in codes.split()]


def session_of(game: Game, **options: Any) -> Session:
    return Session(channel_id=1, guild_id=2, host_id="Ann",
                   seats=[Seat(p, p) for p in game.players], options=Options(**options),
                   game=game, serial=1)


def challenge_game(ann: str) -> Game:
    game, _ = Game.from_setup(["Ann", "Ben", "Cy"], hands={
        "Ann": cards(ann), "Ben": cards("G1 G2"), "Cy": cards("Y1 Y2")},
        draw=cards("B1 B2 B3 B4 B5 B6 B7 B8"), discard=cards("R9"), turn="Ann")
    return game


def play(game: Game, move: Move) -> dict[str, Any]:
    return logged(move, game.apply(move))


def test_the_log_shows_a_challenges_verdict_and_never_the_hand() -> None:
    """A challenge's log line says the verdict and who drew how many, in English and
    French; the challenged hand is not in the log entry."""
    guilty = challenge_game("W+4 R1 B2")  # Ann holds red: the Wild Draw Four was a bluff
    play(guilty, Play("Ann", Card.parse("W+4"), Color.BLUE))
    entry = play(guilty, Challenge("Ben"))
    assert entry[SEEN] == {"challenge": {"guilty": True, "against": "Ann", "drawer": "Ann",
                                         "drew": 4}}
    assert "R1" not in str(entry) and "B2" not in str(entry)
    assert log_line(entry, NAMES) == ("⚖️ Ben challenges Ann's Wild Draw Four: guilty! Ann "
                                      "draws 4 cards and Ben plays.")
    assert "coupable" in log_line(entry, NAMES, "fr")

    legal = challenge_game("W+4 G5 B2")  # no red in Ann's hand: legal
    play(legal, Play("Ann", Card.parse("W+4"), Color.BLUE))
    entry = play(legal, Challenge("Ben"))
    assert log_line(entry, NAMES) == ("⚖️ Ben challenges Ann's Wild Draw Four: it was legal. "
                                      "Ben draws 6 cards.")
    # an entry logged before verdicts were: as before
    assert log_line(move_to_json(Challenge("Ben")), NAMES) == \
        "Ben challenges the Wild Draw Four."


def instant_uno_game(hand: str) -> Game:
    game, _ = Game.from_setup(["Ann", "Ben", "Cy"], hands={
        "Ann": cards(hand), "Ben": cards("G1 G2"), "Cy": cards("Y1 Y2")},
        draw=cards("B1 B2 B3 B4"), discard=cards("R9"), turn="Ann",
        towers={Tower.U: None, Tower.N: "Ann", Tower.O: "Ann", Tower.BANG: "Ann"})
    return game


def test_the_log_names_an_instant_uno_and_never_the_kept_card() -> None:
    """The keep after an instant UNO is named as one, with how many cards were discarded;
    an instant UNO made by the play itself (one card left) is named on the play."""
    game = instant_uno_game("R1U G3 B4 Y5")
    play(game, Play("Ann", Card.parse("R1U")))
    entry = play(game, Keep("Ann", Card.parse("G3")))
    assert entry[SEEN] == {"instant_uno": 2}, "the count only: the kept card is the move's"
    line = log_line(entry, NAMES)
    assert line == "⚡ Ann makes an instant UNO: keeps one card, 2 go to the discard pile."
    assert "G3" not in line and "green" not in line
    fr = log_line(entry, NAMES, "fr")
    assert fr.startswith("⚡ Ann") and "UNO! immédiat" in fr and "2 vont" in fr, fr
    entry = logged(Keep("Ann", Card.parse("G3")), [])  # logged before outcomes were
    assert log_line(entry, NAMES) == "⚡ Ann makes an instant UNO: keeps one card."

    game = instant_uno_game("R1U G3")
    entry = play(game, Play("Ann", Card.parse("R1U")))
    assert entry[SEEN] == {"instant_uno": 0}
    assert log_line(entry, NAMES) == "Ann plays 🟥 red 1 [U] (⚡ instant UNO!)."


def test_the_replay_file_leaves_the_outcomes_out() -> None:
    """/uno log export: the replay file holds the moves only, and plays back exactly."""
    game = challenge_game("W+4 R1 B2")
    header = {"edition": "power-grab", "players": game.players, "rules": {}, "seed": 0}
    entries = [play(game, Play("Ann", Card.parse("W+4"), Color.BLUE)),
               play(game, Challenge("Ben"))]
    document = replay_document(header, entries)
    assert all(SEEN not in m for m in document["moves"])
    assert SEEN in entries[1], "the log keeps it"
    fresh = challenge_game("W+4 R1 B2")
    for m in document["moves"]:
        fresh.apply(move_from_dict(m))  # the replay tool's reader: no unknown key
    assert fresh.to_dict() == game.to_dict()


async def test_the_table_keeps_a_verdict_until_it_can_be_read() -> None:
    """On a table edited in place (the newest six lines), a challenge's verdict and an
    instant UNO stay above the newest lines until 18 lines came after them."""
    game = challenge_game("W+4 R1 B2")
    session = session_of(game)
    play(game, Play("Ann", Card.parse("W+4"), Color.BLUE))
    verdict_lines = event_lines(session, game.apply(Challenge("Ben")), "en")
    verdict = next(line for line in verdict_lines if "guilty" in line)
    post = TablePost(TableStyle(v2=False))
    post.change(session, True)

    async def edit(lines: list[str], new: bool = False) -> str:
        body = await post.compose(session, new, lambda: lines, lambda: True)
        assert body is not None
        return str(body["content"])

    await edit(["**Round 1**: Ann deals 7 cards to everyone."], new=True)
    await edit(verdict_lines)
    for i in range(8):  # two lines a move, 16 lines: the verdict is still there
        text = await edit([f"Cy plays {i}.", f"Ann draws {i}."])
        assert verdict in text, (i, text)
        assert f"Ann draws {i}." in text
    text = await edit(["Cy plays 9.", "Ann draws 9.", "Ben draws 9."])
    assert verdict not in text, "18 lines later it goes"
    assert text.count("\n") <= 6


def test_a_partner_games_replay_file_plays_the_partner_game() -> None:
    """The replay file of a partners game keeps the teams (and a match hand its rounds): a
    partner hand's points go to the team (sheet 004, Playing with partners), so without them the
    file played another game, one whose first round could end it."""
    players = ["Ann", "Ben", "Cy", "Dee"]
    teams = [["Ann", "Cy"], ["Ben", "Dee"]]
    live = Game.new(players, seed=11, teams=teams, max_rounds=3)
    header = {**replay_header(live, 11), "game_id": "abc"}
    assert header["teams"] == teams and header["max_rounds"] == 3
    live.start()
    entries = []
    rng = random.Random(5)
    while not live.is_over and live.round_number == 1:
        moves = [m for m in live.legal_moves(live.turn)
                 if not isinstance(m, CallUno | Catch)]
        plays = [m for m in moves if isinstance(m, Play)]
        entries.append(play(live, rng.choice(plays or moves)))
    document = replay_document(header, entries)
    assert "game_id" not in document
    replayed, _events = build_game(document)
    for m in document["moves"]:
        replayed.apply(move_from_dict(m))
    assert replayed.teams == live.teams
    assert replayed.to_dict() == live.to_dict()
