"""What a finished game or hand leaves behind: its result on the leaderboard (recorded once,
with its last moves, in one transaction), its Play again offer (its seats and settings), or
a rotating match's next hand.

Called by the pipeline's save (:meth:`Tables.commit`) under the session's lock.
"""

from __future__ import annotations

import json
import logging
import time

from cogs.uno.table.contracts import Store
from cogs.uno.table.session import Session
from cogs.uno.table.words.events import event_lines
from cogs.uno.table.words.standings import hand_banner, match_lines
from data import GameResult, LogEntry, PlayerResult, SavedGame
from engine import Game
from engine.replay import replay_header

log = logging.getLogger(__name__)


def next_hand(session: Session, game: Game) -> list[LogEntry]:
    """A match's hand just ended (the caller holds the lock and saves): it is scored,
    and unless the match is over the next hand is dealt, as a new game with its own
    move log. Returns the new log's header entry."""
    match = session.match
    assert match is not None
    events = match.record_game(match.next_hands()[0], game)
    for p in game.players:
        towers, best = session.tally.get(p, [0, 0])
        session.tally[p] = [towers + game.stats[p].towers_grabbed,
                            max(best, game.stats[p].best_round)]
    session.news += match_lines(session, events)
    if match.is_over:
        return []
    seed = session.hand_seed()
    new = session.next_hand()
    header = {**replay_header(new, seed, {s.id: s.name for s in session.seats}),
              "game_id": session.game_id}
    start = new.start()
    session.serial += 1
    session.unseen.clear()
    session.timeouts = {}
    session.log_seq = 0
    session.news += [hand_banner(session), *event_lines(session, start)]
    return [session.log_entry(0, header)]


async def record(store: Store, session: Session, game: Game, entries: list[LogEntry]
                 ) -> None:
    """The finished game's result on the leaderboard, its saved game deleted, in one
    transaction (or just deleted when it does not count)."""
    humans = [p for p in game.players if not session.is_cpu(p) and p.isdigit()]
    if session.unranked or not humans:
        # Not counted: the log gets its last moves and the saved game goes, together.
        await store.end_game(session.row(""), entries)
        session.recorded = True
        return
    # Points on the leaderboard are points scored; under alternative scoring a total is
    # a penalty (lowest wins), so it adds nothing there.
    standard = game.settings.scoring == "standard"
    match = session.match
    if match is not None:
        # A match counts as one game: each player's total, the hands their partnership
        # won, the towers and best hand over all its hands.
        totals, hands_won = match.totals(), match.hands_won()
        players = tuple(
            PlayerResult(user_id=int(p), score=totals[p], won=p in match.winners,
                         rounds_won=hands_won[p],
                         towers_grabbed=session.tally.get(p, [0, 0])[0],
                         best_round=session.tally.get(p, [0, 0])[1])
            for p in humans)
        rounds, kind = len(match.results), "rotating"
    else:
        players = tuple(
            PlayerResult(
                user_id=int(p), score=game.scores.get(p, 0) if standard else 0,
                won=p in game.winners, rounds_won=game.stats[p].rounds_won,
                towers_grabbed=game.stats[p].towers_grabbed,
                best_round=game.stats[p].best_round, team=game.team_of(p))
            for p in humans)
        rounds, kind = game.round_number, "partners" if game.teams else "solo"
    result = GameResult(
        game_id=session.game_id, guild_id=session.guild_id, channel_id=session.channel_id,
        edition=game.edition.name, finished_at=int(time.time()), rounds=rounds,
        players=players, kind=kind)
    recorded = await store.record_game(result, entries)
    log.info("Game %s in channel %s recorded: %s", session.game_id, session.channel_id,
             recorded)
    session.recorded = True


def again_state(session: Session) -> dict[str, object]:
    """What Play again opens: the finished game's settings and the seats still at its
    table (in the lobby's order, with their chosen teams and computer players' levels),
    and the thread's channel."""
    game = session.game
    playing = set(game.players) if game is not None else {s.id for s in session.seats}
    seats = [[s.id, s.name, s.cpu, s.team, s.level] for s in session.seats if s.id in playing]
    return {"options": session.options.to_dict(), "seats": seats,
            "parent_id": session.parent_id}


async def offer_again(store: Store, session: Session) -> None:
    """Keep the finished game's seats and settings for its Play again button
    (``session.again``: the offer was saved). A tournament's games offer none; a failed
    write only loses the button (the result is recorded already)."""
    session.again = False
    if session.tournament_of is not None or session.tables or not session.humans():
        return
    offer = SavedGame(channel_id=session.channel_id, guild_id=session.guild_id,
                      game_id=session.game_id, updated_at=int(time.time()),
                      state=json.dumps(again_state(session), separators=(",", ":")))
    try:
        await store.save_rematch(offer)
    except Exception as exc:
        log.warning("Keeping the seats of game %s for Play again failed (%s): its result "
                    "goes without the button", session.game_id, exc)
        return
    session.again = True
