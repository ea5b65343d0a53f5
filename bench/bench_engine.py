"""Speed benchmark: our UNO engine against rlcard 1.2.0's UNO game, in one process run.

    pip install -r requirements-bench.txt      # rlcard==1.2.0 and numpy (the peer)
    python bench/bench_engine.py               # ~40 s, readable table
    python bench/bench_engine.py --seconds 20 --json
    python bench/bench_engine.py --profile     # also cProfile the classic random loop

Run it from the repository root (it puts the root on ``sys.path`` itself).

What is measured (4 players everywhere, one round = deal until someone goes out):

* ``ours classic, uniform``: a fresh classic ``Game`` per round; every move is chosen
  uniformly among the legal *turn* moves (``game.legal_moves(p)`` without ``CallUno`` /
  ``Catch``), like rlcard's random agent does among its legal actions, and made with
  ``game.push`` (the unchecked path for moves taken from ``legal_moves``, as rlcard's
  ``step`` trusts its action) until a ``round_won`` event. Our rules let a player draw even
  when they could play, and keep a drawn card, so a uniform player draws far more often
  than in rlcard and rounds are much longer: compare µs per move as well as rounds/s.
* ``ours classic, rlcard-like policy``: same engine and loop, but the random player plays a
  random playable card when it has one, draws only when it has none, plays the drawn card
  when it can and accepts a Wild Draw Four -- the choices rlcard's rules force. Rounds then
  have about rlcard's length, so rounds/s compares engines rather than policies. The
  ``apply`` row makes the same moves through ``game.apply``, which validates each again.
* ``rlcard UnoGame.step``: ``rlcard.games.uno.game.UnoGame(num_players=4)`` without the RL
  env wrapper: ``init_game()``, then ``step(random legal action)`` until ``is_over()``.
  ``step`` also builds the observation dict (``get_state``) -- that is what its game API does.
* ``rlcard UnoRound (bare)``: for reference, rlcard's round object driven directly
  (``round.get_legal_actions`` + ``round.proceed_round``), skipping ``get_state``.
* ``ours power-grab, uniform``: the uniform loop on the Power Grab edition.
* ``ours heuristic games``: 4 ``HeuristicPlayer`` seats, whole games to 500 points via
  ``engine.tools.simulate.run_game`` (reactions -- UNO calls, catches -- included).
* ``fastsim ...``: the playout simulator (engine/players/fastsim.py,
  engine/players/playouts.py, issue 19). A round is ``FastSim.deal`` (the shuffle, deal
  and first card of ``Game``'s ``start_round``) then ``playout`` to the end of the hand
  with one policy for every seat: ``random`` is the rlcard-like policy above (play a random
  card that fits, draw only when none does, play the drawn card, accept a Wild Draw Four;
  random colours; every player calls UNO), ``uniform`` the uniform loop above, ``greedy``
  the cheap heuristic of engine/players/playouts.py. ``fastsim clone + random playout`` is what a
  search does: clone one dealt Power Grab hand and play the copy out (no deal).

``µs/move`` is wall-clock time per applied move, ``cpu µs`` the process CPU time per move
and ``per cpu s`` units per second of process CPU time (both steadier on a busy machine).
Every figure is the median of ``--repeats`` timed batches (time.perf_counter) after a
warm-up; each batch plays whole rounds (or games) until its time slice is used up. The rows
take turns: one batch of every row, then the next batch of every row, so a load that
drifts during the run weighs on every row alike.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import gc
import io
import json
import os
import platform
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import (  # noqa: E402
    Accept,
    CallUno,
    Catch,
    ChooseColor,
    Decision,
    Draw,
    Game,
    Pass,
    Play,
    Settings,
)
from engine.editions import get_edition  # noqa: E402
from engine.players import HeuristicPlayer  # noqa: E402
from engine.players.fastsim import FastSim  # noqa: E402
from engine.players.playouts import POLICIES, playout  # noqa: E402
from engine.tools.simulate import run_game  # noqa: E402

PLAYERS = ("p0", "p1", "p2", "p3")
TARGET_RATIO = 3.0

# A batch function plays whole rounds (or games) until `deadline` and returns
# (units played, moves applied, units aborted).
Batch = Callable[[float], tuple[int, int, int]]


# ---------------------------------------------------------------------------- our engine
Policy = Callable[[Game, random.Random], Any]


def _uniform(game: Game, rng: random.Random) -> Any:
    """Uniform among the legal turn moves (what rlcard's random agent does with its own)."""
    return rng.choice([m for m in game.legal_moves(game.turn)
                       if not isinstance(m, CallUno | Catch)])


def _rlcard_like(game: Game, rng: random.Random) -> Any:
    """What rlcard's rules leave a random player: play if you can, draw only if you can't,
    play the drawn card if it fits, never challenge."""
    p = game.turn
    pending = game.pending
    legal = [m for m in game.legal_moves(p) if not isinstance(m, CallUno | Catch)]
    if pending is Decision.PLAY or pending is Decision.DRAWN:
        plays = [m for m in legal if isinstance(m, Play)]
        if plays:
            return rng.choice(plays)
        return Draw(p) if pending is Decision.PLAY else Pass(p)
    if pending is Decision.CHALLENGE:
        return Accept(p)
    if pending is Decision.COLOR:
        return rng.choice([m for m in legal if isinstance(m, ChooseColor)])
    return rng.choice(legal)


def ours_rounds(edition: str, seed: int, policy: Policy, validated: bool = False) -> Batch:
    """Fresh game per round, moves chosen by ``policy`` until `round_won`; ``validated``
    makes every move with ``apply`` (checks it again) instead of ``push``."""
    rng = random.Random(seed)
    counter = [0]

    def batch(deadline: float) -> tuple[int, int, int]:
        rounds = moves = 0
        clock = time.perf_counter
        while clock() < deadline:
            counter[0] += 1
            game = Game.new(PLAYERS, edition=edition, seed=seed * 1_000_003 + counter[0])
            game.start()
            make = game.apply if validated else game.push
            done = False
            while not done:
                events = make(policy(game, rng))
                moves += 1
                for e in events:
                    if e.kind == "round_won":
                        done = True
            rounds += 1
        return rounds, moves, 0

    return batch


def ours_heuristic_games(seed: int) -> Batch:
    counter = [0]
    settings = Settings(target=500)

    def batch(deadline: float) -> tuple[int, int, int]:
        games = moves = 0
        clock = time.perf_counter
        while clock() < deadline:
            counter[0] += 1
            n = seed * 1_000_003 + counter[0]
            game = Game.new(PLAYERS, edition="power-grab", settings=settings, seed=n)
            bots = {p: HeuristicPlayer(n * 31 + i) for i, p in enumerate(PLAYERS)}
            game.start()
            run_game(game, bots)
            games += 1
            moves += game.counters.moves
        return games, moves, 0

    return batch


# ---------------------------------------------------------------------------- the simulator
def fastsim_rounds(edition: str, seed: int, policy: str) -> Batch:
    """A hand dealt by ``FastSim.deal`` per round, played out with ``policy``."""
    rng = random.Random(seed)
    rand = rng.random
    ed = get_edition(edition)
    play = POLICIES[policy]

    def batch(deadline: float) -> tuple[int, int, int]:
        rounds = moves = 0
        clock = time.perf_counter
        deal = FastSim.deal
        while clock() < deadline:
            sim = deal(ed, PLAYERS, rng, dealer=rounds % 4)
            playout(sim, play, rand)
            moves += sim.moves
            rounds += 1
        return rounds, moves, 0

    return batch


def fastsim_clones(seed: int) -> Batch:
    """One dealt Power Grab hand, cloned and played out with the random policy."""
    rng = random.Random(seed)
    rand = rng.random
    root = FastSim.deal(get_edition("power-grab"), PLAYERS, rng)
    play = POLICIES["random"]

    def batch(deadline: float) -> tuple[int, int, int]:
        rounds = moves = 0
        clock = time.perf_counter
        while clock() < deadline:
            sim = root.clone()
            playout(sim, play, rand)
            moves += sim.moves
            rounds += 1
        return rounds, moves, 0

    return batch


# ---------------------------------------------------------------------------- rlcard
def rlcard_step(seed: int) -> Batch:
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    rng = random.Random(seed)
    choice = rng.choice
    game = UnoGame(num_players=len(PLAYERS))
    game.np_random = np.random.RandomState(seed)  # init_game() builds the dealer from it

    def batch(deadline: float) -> tuple[int, int, int]:
        rounds = moves = aborted = 0
        clock = time.perf_counter
        step = game.step
        legal_actions = game.get_legal_actions
        is_over = game.is_over
        while clock() < deadline:
            game.init_game()
            try:
                while not is_over():
                    step(choice(legal_actions()))
                    moves += 1
            except IndexError:  # rlcard pops from an empty deck in rare deals
                aborted += 1
                continue
            rounds += 1
        return rounds, moves, aborted

    return batch


def rlcard_round_bare(seed: int) -> Batch:
    import numpy as np
    from rlcard.games.uno.game import UnoGame

    rng = random.Random(seed)
    choice = rng.choice
    game = UnoGame(num_players=len(PLAYERS))
    game.np_random = np.random.RandomState(seed)

    def batch(deadline: float) -> tuple[int, int, int]:
        rounds = moves = aborted = 0
        clock = time.perf_counter
        while clock() < deadline:
            game.init_game()
            rnd = game.round
            players = game.players
            try:
                while not rnd.is_over:
                    legal = rnd.get_legal_actions(players, rnd.current_player)
                    rnd.proceed_round(players, choice(legal))
                    moves += 1
            except IndexError:
                aborted += 1
                continue
            rounds += 1
        return rounds, moves, aborted

    return batch


# ---------------------------------------------------------------------------- harness
def measure_all(plan: list[tuple[str, str, str, Batch, float]], seconds: float,
                repeats: int) -> dict[str, dict[str, Any]]:
    """Time every row of ``plan`` (key, label, unit, batch, share of ``seconds``): a warm-up
    each, then ``repeats`` rounds in which every row plays one timed batch in turn, so that
    a machine whose load drifts slows every row alike and the ratios stay fair."""
    runs: dict[str, dict[str, list[float]]] = {}
    totals: dict[str, list[int]] = {}
    slices: dict[str, float] = {}
    for key, _label, _unit, batch, share in plan:
        warm = max(0.2, seconds * share * 0.1)
        batch(time.perf_counter() + warm)
        slices[key] = (seconds * share - warm) / repeats
        runs[key] = {"per_s": [], "per_cpu_s": [], "us_move": [], "cpu_us_move": []}
        totals[key] = [0, 0, 0]
    for _ in range(repeats):
        for key, _label, _unit, batch, _share in plan:
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            units, moves, aborted = batch(t0 + slices[key])
            elapsed = time.perf_counter() - t0
            cpu = time.process_time() - c0
            t = totals[key]
            t[0] += units
            t[1] += moves
            t[2] += aborted
            r = runs[key]
            r["per_s"].append(units / elapsed)
            r["per_cpu_s"].append(units / cpu if cpu else float("nan"))
            r["us_move"].append(elapsed / moves * 1e6 if moves else float("nan"))
            r["cpu_us_move"].append(cpu / moves * 1e6 if moves else float("nan"))
    median = statistics.median
    return {
        key: {
            "name": label,
            "unit": unit,
            "per_s": median(runs[key]["per_s"]),
            "per_s_runs": [round(x, 2) for x in runs[key]["per_s"]],
            "per_cpu_s": median(runs[key]["per_cpu_s"]),
            "us_per_move": median(runs[key]["us_move"]),
            "cpu_us_per_move": median(runs[key]["cpu_us_move"]),
            "moves_per_unit": totals[key][1] / max(totals[key][0], 1),
            "units": totals[key][0],
            "aborted": totals[key][2],
        }
        for key, label, unit, _batch, _share in plan
    }


RLCARD_SKIPS = [
    "Wild Draw Four: rlcard offers it only when no other card (not even a Wild) can be "
    "played, so it can never be played illegally and there is no challenge; we allow it "
    "whenever you hold no card of the colour in play (bluffing allowed) and the victim may "
    "challenge (guilty player draws 4, else the challenger draws 6).",
    "Drawing: rlcard allows 'draw' only when nothing is playable, and the drawn card is "
    "played automatically if it is a wild (colour picked at random, and a drawn Wild Draw "
    "Four is played without its +4 effect) or has the target's colour; a drawn card matching "
    "only by number/symbol is kept. We allow drawing at any time and the player chooses to "
    "play the drawn card (if it matches in any way) or keep it.",
    "UNO call and catch: rlcard has neither; we have calling UNO (also with the play), "
    "catching a player who did not call, the 2-card penalty and the catch window.",
    "Scoring and games: rlcard plays one round, no card points (payoffs only, and "
    "get_payoffs assumes 2 players); we score hands (standard or alternative), deal the next "
    "round with the next dealer and play to the target.",
    "Dealer: rlcard has none (player 0 always starts); we draw cards for dealer and rotate it.",
    "First card: rlcard picks a random colour for a Wild turned up (we let the first player "
    "name it), and a Draw Two turned up makes player 0 draw 2 but not lose the turn (we "
    "skip them). Both return a Wild Draw Four to the pile and reshuffle.",
    "Reshuffle: rlcard puts the whole played pile back into the deck, including the card in "
    "play (it stays the target, so it can be drawn while it is on the table), and pops from "
    "an empty list (IndexError) if no card is left; we keep the top card, shuffle the rest "
    "and a draw simply stops when no card is left.",
    "Two players: rlcard's Reverse only changes direction (the other player plays next); "
    "we make it act as a Skip, as the rules say.",
]


def machine_info() -> dict[str, Any]:
    return {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or "unknown",
        "cpu_count": os.cpu_count(),
    }


def profile_classic(seconds: float, seed: int, top: int = 25) -> str:
    batch = ours_rounds("classic", seed, _uniform)
    prof = cProfile.Profile()
    prof.enable()
    batch(time.perf_counter() + seconds)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python bench/bench_engine.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--seconds", type=float, default=40.0,
                    help="total measuring time, split over the measurements (default 40)")
    ap.add_argument("--repeats", type=int, default=5, help="timed batches per measurement")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="also print the results as JSON")
    ap.add_argument("--profile", action="store_true",
                    help="then cProfile the classic uniform loop and print the top functions")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        ap.error("--seconds must be positive and --repeats at least 1")

    try:
        import rlcard  # noqa: F401
    except ImportError:
        print("rlcard is missing: pip install -r requirements-bench.txt", file=sys.stderr)
        return 2

    seed = args.seed
    plan: list[tuple[str, str, str, Batch, float]] = [
        ("ours_classic_uniform", "ours classic, uniform", "rounds",
         ours_rounds("classic", seed, _uniform), 0.12),
        ("ours_classic_rlcard_policy", "ours classic, rlcard-like policy", "rounds",
         ours_rounds("classic", seed, _rlcard_like), 0.10),
        ("ours_classic_rlcard_policy_apply", "ours classic, rlcard-like, apply", "rounds",
         ours_rounds("classic", seed, _rlcard_like, validated=True), 0.06),
        ("rlcard_step", "rlcard UnoGame.step", "rounds", rlcard_step(seed), 0.15),
        ("rlcard_round_bare", "rlcard UnoRound (bare)", "rounds", rlcard_round_bare(seed), 0.07),
        ("ours_power_grab_uniform", "ours power-grab, uniform", "rounds",
         ours_rounds("power-grab", seed, _uniform), 0.08),
        ("ours_heuristic_games", "ours heuristic games to 500", "games",
         ours_heuristic_games(seed), 0.10),
        ("fastsim_classic_random", "fastsim classic, random (rlcard-like)", "rounds",
         fastsim_rounds("classic", seed, "random"), 0.12),
        ("fastsim_classic_uniform", "fastsim classic, uniform", "rounds",
         fastsim_rounds("classic", seed, "uniform"), 0.06),
        ("fastsim_classic_greedy", "fastsim classic, greedy", "rounds",
         fastsim_rounds("classic", seed, "greedy"), 0.04),
        ("fastsim_power_grab_random", "fastsim power-grab, random", "rounds",
         fastsim_rounds("power-grab", seed, "random"), 0.05),
        ("fastsim_clone_playout", "fastsim clone + random playout", "rounds",
         fastsim_clones(seed), 0.05),
    ]
    info = machine_info()
    print(f"Python {info['python']} ({info['implementation']}) on {info['platform']}, "
          f"{info['machine']}, {info['cpu_count']} CPUs; {info['date']}")
    print(f"{len(PLAYERS)} players, seed {seed}, ~{args.seconds:g} s, "
          f"median of {args.repeats} batches")
    print(f"reproduce: python bench/bench_engine.py --seconds {args.seconds:g} "
          f"--repeats {args.repeats} --seed {seed}\n", flush=True)

    results = measure_all(plan, args.seconds, args.repeats)

    head = (f"{'measurement':<38} {'per s':>10} {'per cpu s':>10} {'unit':<7} {'µs/move':>9} "
            f"{'cpu µs':>8} {'moves/unit':>11}")
    print(head)
    print("-" * len(head))
    for r in results.values():
        extra = f"  ({r['aborted']} aborted)" if r["aborted"] else ""
        print(f"{r['name']:<38} {r['per_s']:>10.1f} {r['per_cpu_s']:>10.1f} {r['unit']:<7} "
              f"{r['us_per_move']:>9.2f} "
              f"{r['cpu_us_per_move']:>8.2f} {r['moves_per_unit']:>11.1f}{extra}")

    rl = results["rlcard_step"]
    ours = results["ours_classic_uniform"]
    policy = results["ours_classic_rlcard_policy"]

    def ratio(a: float, b: float) -> float:
        return a / b if b else float("nan")  # nan: a batch too short to finish a round

    ratios = {
        "rounds_per_s_uniform": ratio(ours["per_s"], rl["per_s"]),
        "rounds_per_s_rlcard_policy": ratio(policy["per_s"], rl["per_s"]),
        "move_speed_uniform": ratio(rl["us_per_move"], ours["us_per_move"]),
        "move_speed_rlcard_policy": ratio(rl["us_per_move"], policy["us_per_move"]),
        "rounds_per_s_rlcard_policy_vs_bare":
            ratio(policy["per_s"], results["rlcard_round_bare"]["per_s"]),
        "fastsim_rounds_per_s_random": ratio(results["fastsim_classic_random"]["per_s"],
                                             rl["per_s"]),
        "fastsim_rounds_per_cpu_s_random": ratio(
            results["fastsim_classic_random"]["per_cpu_s"], rl["per_cpu_s"]),
        "fastsim_rounds_per_s_uniform": ratio(results["fastsim_classic_uniform"]["per_s"],
                                              rl["per_s"]),
        "fastsim_rounds_per_s_random_vs_bare":
            ratio(results["fastsim_classic_random"]["per_s"],
                  results["rlcard_round_bare"]["per_s"]),
    }
    met = ratios["rounds_per_s_uniform"] >= TARGET_RATIO
    met_policy = ratios["rounds_per_s_rlcard_policy"] >= TARGET_RATIO
    met_fastsim = ratios["fastsim_rounds_per_s_random"] >= TARGET_RATIO
    print("\nours / rlcard UnoGame.step (higher is better for us):")
    print(f"  rounds/s, uniform random (as specified):  {ratios['rounds_per_s_uniform']:6.2f}x  "
          f"target >= {TARGET_RATIO:g}x: {'MET' if met else 'NOT MET'}")
    print(f"  rounds/s, rlcard-like policy:             "
          f"{ratios['rounds_per_s_rlcard_policy']:6.2f}x  "
          f"target >= {TARGET_RATIO:g}x: {'MET' if met_policy else 'NOT MET'}")
    print(f"  speed per move, uniform:                  {ratios['move_speed_uniform']:6.2f}x")
    print(f"  speed per move, rlcard-like policy:       {ratios['move_speed_rlcard_policy']:6.2f}x")
    print(f"  rounds/s, rlcard-like vs bare UnoRound:   "
          f"{ratios['rounds_per_s_rlcard_policy_vs_bare']:6.2f}x")
    print("\nthe playout simulator (FastSim) / rlcard UnoGame.step:")
    print(f"  rounds/s, random (rlcard-like) policy:    "
          f"{ratios['fastsim_rounds_per_s_random']:6.2f}x  "
          f"target >= {TARGET_RATIO:g}x: {'MET' if met_fastsim else 'NOT MET'}")
    print(f"  rounds per CPU second, random policy:     "
          f"{ratios['fastsim_rounds_per_cpu_s_random']:6.2f}x  (steadier on a shared machine)")
    print(f"  rounds/s, uniform random:                 "
          f"{ratios['fastsim_rounds_per_s_uniform']:6.2f}x")
    print(f"  rounds/s, random vs bare UnoRound:        "
          f"{ratios['fastsim_rounds_per_s_random_vs_bare']:6.2f}x")
    print("\nRules rlcard 1.2.0 (rlcard/games/uno) skips or simplifies that we implement:")
    for line in RLCARD_SKIPS:
        print(f"  - {line}")

    if args.json:
        print(json.dumps({
            "machine": info,
            "players": len(PLAYERS),
            "seed": seed,
            "seconds": args.seconds,
            "repeats": args.repeats,
            "results": results,
            "ratios": ratios,
            "target_ratio": TARGET_RATIO,
            "target_met": met,
            "target_met_rlcard_policy": met_policy,
            "target_met_fastsim": met_fastsim,
            "rlcard_skips": RLCARD_SKIPS,
        }, indent=2))

    if args.profile:
        print("\ncProfile of the classic uniform loop (5 s):")
        print(profile_classic(5.0, seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
