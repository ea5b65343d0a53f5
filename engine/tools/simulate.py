"""Computer players play whole games; prints a summary.

    python -m engine.tools.simulate --games 200 --players 4 --edition power-grab --seed 1
    python -m engine.tools.simulate --games 100 --players 3 --strategies heuristic,random,random
    python -m engine.tools.simulate --games 300 --players 4 --teams --strategies heuristic,blind
    python -m engine.tools.simulate --games 100 --players 4 --edition victory-lap
    python -m engine.tools.simulate --games 20 --match tournament --hands-per-pairing 1
    python -m engine.tools.simulate --games 2000 --players 2 --strategies hard,normal \\
        --rotate --jobs 2

``--jobs N`` splits the games across N processes and adds their figures up: the same games
and the same figures as one process (the think times aside, which are measured).

Partner play (``--teams``, 4 or 6 players): teams of two partners sitting across the table
(seat i with seat i + n/2: two teams with four players, three with six); strategies go to
teams in turn (both partners play the same one), shifted by one team every game so each
strategy plays every team's seats. ``--match rotating`` (4 players) or ``tournament``
(8 players) plays whole matches of one-round partner hands and prints the individual
results.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields
from typing import Any

from engine.editions import EDITIONS
from engine.events import Event
from engine.game import Game
from engine.match import Match
from engine.moves import Challenge, Lap, Move
from engine.players import BasicPlayer, EasyPlayer, HeuristicPlayer, RandomPlayer, Strategy
from engine.players.search import BUDGET, SAMPLES, EnginePlayout, FastPlayout, Playout, SearchPlayer
from engine.settings import Settings

STRATEGIES: dict[str, Callable[[int], Strategy]] = {
    "heuristic": HeuristicPlayer,
    "random": RandomPlayer,
    "basic": BasicPlayer,
    "blind": lambda seed: HeuristicPlayer(seed, partner_aware=False),
    "easy": EasyPlayer,
    "normal": HeuristicPlayer,
    "hard": SearchPlayer,
}
"""Computer players by name; ``blind`` is the heuristic player ignoring partnerships; the
bot's three levels are ``easy``, ``normal`` (the heuristic player) and ``hard`` (the search,
engine/players/search.py)."""

MAX_MOVES = 200_000


@dataclass(frozen=True)
class Hard:
    """How the hard players search (``--samples``, ``--budget``, ``--playout``)."""

    samples: int = SAMPLES
    budget: float | None = BUDGET
    playout: str = "fast"

    def player(self, seed: int) -> Strategy:
        playout: Playout = EnginePlayout() if self.playout == "engine" else FastPlayout()
        return SearchPlayer(seed, samples=self.samples, budget=self.budget, playout=playout)


def run_game(game: Game, strategies: dict[str, Strategy],
             on_move: Callable[[Game], None] | None = None,
             on_apply: Callable[[Move], None] | None = None) -> None:
    """Play ``game`` (already started) to its end with the given computer players.

    Before every decision each seat may react (call UNO, catch someone). ``on_move`` sees
    the game after every move, ``on_apply`` every move before it is made."""
    moves = 0
    watchers = [w for w in {id(s): s for s in strategies.values()}.values()
                if callable(getattr(w, "observe", None))]

    def make(move: Move) -> None:
        if on_apply:
            on_apply(move)
        events = game.apply(move)
        for w in watchers:
            w.observe(events)  # type: ignore[attr-defined]
        if on_move:
            on_move(game)

    while not game.is_over:
        for p in list(game.players):
            reaction = strategies[p].react(game, p)
            if reaction is not None and reaction in game.legal_moves(p):
                make(reaction)
        if game.is_over:
            break
        p = game.turn
        move = strategies[p].choose(game, p)
        if move is None:
            raise RuntimeError(f"{strategies[p].name} player {p} returned no move")
        make(move)
        moves += 1
        if moves > MAX_MOVES:
            raise RuntimeError("game did not finish")


def tell(strategies: dict[str, Strategy], events: list[Event]) -> None:
    """Show ``events`` (a deal) to the strategies that watch the table (``observe``)."""
    for w in {id(s): s for s in strategies.values()}.values():
        observe = getattr(w, "observe", None)
        if callable(observe):
            observe(events)


@dataclass
class Summary:
    games: int = 0
    rounds: int = 0
    turns: int = 0
    moves: int = 0
    grabs: int = 0
    blocks: int = 0
    instant_unos: int = 0
    challenges: int = 0
    challenges_won: int = 0
    catches: int = 0
    laps: int = 0
    """Victory Laps played (each ends with one keep)."""
    lap_passes: int = 0
    """Hands passed on during them."""
    seats: int = 0
    wins_by_seat: dict[int, float] = field(default_factory=dict)
    wins_by_strategy: dict[str, float] = field(default_factory=dict)
    seats_by_strategy: Counter[str] = field(default_factory=Counter)
    challenges_by_strategy: Counter[str] = field(default_factory=Counter)
    challenges_won_by_strategy: Counter[str] = field(default_factory=Counter)
    team_games: Counter[str] = field(default_factory=Counter)
    """Partner play: games played by each team make-up ("heuristic+heuristic")."""
    team_wins: dict[str, float] = field(default_factory=dict)
    think: list[float] = field(default_factory=list)
    """Seconds of CPU each search of a hard player took."""
    waits: list[float] = field(default_factory=list)
    """Seconds of wall time each search took."""
    deals: int = 1
    """Games played on each deal (``--hands``: one per seating of the rotation)."""
    margins: dict[str, list[float]] = field(default_factory=dict)
    """Per game, each strategy's side's points less the other sides' mean (a strategy on
    several sides: their mean)."""

    def add(self, later: Summary) -> None:
        """Add the figures of ``later``, the games played after these (lists keep the
        games' order, so figures paired by deal pair the same games)."""
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(later, f.name)
            if f.name in ("seats", "deals"):
                continue
            if isinstance(mine, int):
                setattr(self, f.name, mine + theirs)
            elif isinstance(mine, list):
                mine.extend(theirs)
            elif isinstance(mine, Counter):
                mine.update(theirs)
            else:
                for key, value in theirs.items():
                    if isinstance(value, list):
                        mine.setdefault(key, []).extend(value)
                    else:
                        mine[key] = mine.get(key, 0.0) + value

    def to_dict(self) -> dict[str, Any]:
        g = max(self.games, 1)
        teams = {}
        if self.team_games:
            teams = {"team_win_rate": {
                name: round(self.team_wins.get(name, 0.0) / n, 3)
                for name, n in sorted(self.team_games.items())}}
        return {
            "games": self.games,
            "rounds": self.rounds,
            "rounds_per_game": round(self.rounds / g, 2),
            "turns": self.turns,
            "turns_per_round": round(self.turns / max(self.rounds, 1), 2),
            "moves": self.moves,
            "grabs": self.grabs,
            "blocks": self.blocks,
            "instant_unos": self.instant_unos,
            "challenges": self.challenges,
            "challenges_won": self.challenges_won,
            "challenge_success": round(self.challenges_won / max(self.challenges, 1), 3),
            "catches": self.catches,
            "laps": self.laps,
            "lap_passes": self.lap_passes,
            "win_rate_by_seat": {
                str(seat): round(self.wins_by_seat.get(seat, 0.0) / g, 3)
                for seat in range(self.seats)
            },
            "win_rate_by_strategy": {
                name: round(self.wins_by_strategy.get(name, 0.0) / max(seats, 1), 3)
                for name, seats in sorted(self.seats_by_strategy.items())
            },
            "challenges_by_strategy": {
                name: [self.challenges_won_by_strategy[name],
                       self.challenges_by_strategy[name]]
                for name in sorted(self.seats_by_strategy)
            },
            "win_interval_by_strategy": {
                name: [round(x, 3) for x in wilson(self.wins_by_strategy.get(name, 0.0), seats)]
                for name, seats in sorted(self.seats_by_strategy.items())
            },
            "margin_by_strategy": {
                name: paired_mean(m, self.deals) for name, m in sorted(self.margins.items())
            },
            **teams,
            **_think_figures(self.think),
            **{f"wall_{k}": v for k, v in _think_figures(self.waits).items()},
        }


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson interval of a share of ``wins`` in ``n``."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5 / (1 + z * z / n)
    return (max(0.0, mid - half), min(1.0, mid + half))


def paired_mean(values: Sequence[float], per_deal: int) -> dict[str, Any]:
    """The mean of ``values`` and its 95 % interval, the values of one deal (``per_deal``
    games in a row) averaged first (paired by deal)."""
    k = max(1, per_deal)
    deals = [sum(values[i:i + k]) / len(values[i:i + k]) for i in range(0, len(values), k)]
    n = len(deals)
    mean = sum(deals) / n if n else 0.0
    var = sum((d - mean) ** 2 for d in deals) / (n - 1) if n > 1 else 0.0
    half = 1.96 * (var / n) ** 0.5 if n > 1 else float("inf")
    return {"mean": round(mean, 2), "ci95": [round(mean - half, 2), round(mean + half, 2)],
            "deals": n}


def _think_figures(think: list[float]) -> dict[str, Any]:
    """The hard players' CPU time per searched decision, in ms (p50, p95, max)."""
    if not think:
        return {}
    ordered = sorted(think)
    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 1)
    return {"think_ms": {"decisions": len(ordered), "p50": at(0.5), "p95": at(0.95),
                         "max": round(ordered[-1] * 1000, 1)}}


def simulate(games: int, players: int, edition: str, seed: int,
             strategies: Sequence[str], settings: Settings | None = None,
             teams: bool = False, rotate: bool = False, hands: bool = False,
             hard: Hard = Hard(), first: int = 0) -> Summary:
    """Play ``games`` games; ``rotate``: the strategies move one seat on every game (each
    plays every seat), else seat i always plays strategy i (modulo their number).
    ``hands``: every game is one hand, and each deal is played once for every seating
    (``len(strategies)`` games in a row), so the figures can be paired by deal.
    ``first``: the number of the first game (games ``first`` to ``first + games - 1`` of
    the run the seed starts)."""
    summary = Summary(seats=players, deals=len(strategies) if hands else 1)
    for g in range(first, first + games):
        names = [f"seat{i}" for i in range(players)]
        half = players // 2
        sides = [[names[i], names[i + half]] for i in range(half)] if teams else None
        deal = g // len(strategies) if hands else g
        game = Game.new(names, edition=edition, settings=settings,
                        seed=seed * 1_000_003 + deal, teams=sides,
                        max_rounds=1 if hands else None)
        if sides is not None:  # both partners play their team's strategy
            kinds = {p: strategies[(t + g) % len(strategies)]
                     for t, side in enumerate(sides) for p in side}
        else:
            shift = g if rotate else 0
            kinds = {p: strategies[(i + shift) % len(strategies)] for i, p in enumerate(names)}
        bots = {p: (hard.player if kinds[p] == "hard" else STRATEGIES[kinds[p]])(
                    seed * 7919 + g * 31 + i) for i, p in enumerate(names)}
        challenges_made: Counter[str] = Counter()

        def count(move: Move, made: Counter[str] = challenges_made,
                  summary: Summary = summary) -> None:
            if isinstance(move, Challenge):
                made[move.player] += 1
            elif isinstance(move, Lap):
                if move.keep:
                    summary.laps += 1
                else:
                    summary.lap_passes += 1

        tell(bots, game.start())
        run_game(game, bots, on_apply=count)
        summary.games += 1
        for bot in bots.values():
            summary.think += getattr(bot, "thought", [])
            summary.waits += getattr(bot, "waited", [])
        _margins(summary, game, kinds, sides)
        c = game.counters
        summary.rounds += c.rounds
        summary.turns += c.turns
        summary.moves += c.moves
        summary.grabs += c.grabs
        summary.blocks += c.blocks
        summary.instant_unos += c.instant_unos
        summary.challenges += c.challenges
        summary.catches += c.catches
        for p in names:
            summary.seats_by_strategy[kinds[p]] += 1
            won = game.stats[p].challenges_won
            summary.challenges_won += won
            summary.challenges_won_by_strategy[kinds[p]] += won
        for p, n in challenges_made.items():
            summary.challenges_by_strategy[kinds[p]] += n
        share = 1 / len(game.winners)
        for w in game.winners:
            seat = names.index(w)
            summary.wins_by_seat[seat] = summary.wins_by_seat.get(seat, 0.0) + share
            summary.wins_by_strategy[kinds[w]] = summary.wins_by_strategy.get(kinds[w], 0.0) + share
        if sides is not None:
            made_up = ["+".join(kinds[p] for p in side) for side in sides]
            summary.team_games.update(made_up)
            tied = [i for i, side in enumerate(sides) if side[0] in game.winners]
            for i in tied:
                summary.team_wins[made_up[i]] = (summary.team_wins.get(made_up[i], 0.0)
                                                 + 1 / len(tied))
    return summary


def simulate_jobs(jobs: int, games: int, players: int, edition: str, seed: int,
                  strategies: Sequence[str], settings: Settings | None = None,
                  teams: bool = False, rotate: bool = False, hands: bool = False,
                  hard: Hard = Hard()) -> Summary:
    """``simulate`` with the games split into ``jobs`` runs of consecutive games, each in
    its own process, their figures added up in order."""
    jobs = max(1, min(jobs, games))
    cuts = [games * j // jobs for j in range(jobs + 1)]
    if jobs == 1:
        return simulate(games, players, edition, seed, strategies, settings, teams, rotate,
                        hands, hard)
    with ProcessPoolExecutor(jobs) as pool:
        parts = [pool.submit(simulate, cuts[j + 1] - cuts[j], players, edition, seed,
                             strategies, settings, teams, rotate, hands, hard, cuts[j])
                 for j in range(jobs)]
        summary = parts[0].result()
        for part in parts[1:]:
            summary.add(part.result())
    return summary


def _margins(summary: Summary, game: Game, kinds: dict[str, str],
             sides: list[list[str]] | None) -> None:
    """Add each strategy's margin in ``game`` (``Summary.margins``)."""
    groups = sides if sides is not None else [[p] for p in game.players]
    points = [game.s.scores[side[0]] for side in groups]
    by: dict[str, list[float]] = {}
    for i, side in enumerate(groups):
        others = [x for j, x in enumerate(points) if j != i]
        by.setdefault(kinds[side[0]], []).append(points[i] - sum(others) / len(others))
    for name, ms in by.items():
        summary.margins.setdefault(name, []).append(sum(ms) / len(ms))


@dataclass
class MatchSummary:
    """Whole matches (``--match``): who wins, and each strategy's individual totals."""

    kind: str
    matches: int = 0
    hands: int = 0
    players_by_strategy: Counter[str] = field(default_factory=Counter)
    wins_by_strategy: dict[str, float] = field(default_factory=dict)
    total_by_strategy: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "matches": self.matches,
            "hands": self.hands,
            "match_win_rate_by_strategy": {
                k: round(self.wins_by_strategy.get(k, 0.0) / n, 3)
                for k, n in sorted(self.players_by_strategy.items())},
            "mean_total_by_strategy": {
                k: round(self.total_by_strategy[k] / n, 1)
                for k, n in sorted(self.players_by_strategy.items())},
        }


def play_match(match: Match, strategies: dict[str, str], edition: str, seed: int,
               settings: Settings | None = None) -> None:
    """Play every hand of ``match`` with computer players (``strategies``: player to
    strategy name), in schedule order."""
    n = 0
    while not match.is_over:
        for hand in match.next_hands():
            game = match.new_game(hand, edition=edition, settings=settings,
                                  seed=seed * 1_000_003 + n)
            bots = {p: STRATEGIES[strategies[p]](seed * 7919 + n * 31 + i)
                    for i, p in enumerate(hand.seats)}
            n += 1
            tell(bots, game.start())
            run_game(game, bots)
            match.record_game(hand, game)


def simulate_matches(matches: int, kind: str, edition: str, seed: int,
                     strategies: Sequence[str], hands_per_pairing: int | None = None,
                     settings: Settings | None = None) -> MatchSummary:
    """Play ``matches`` matches of ``kind`` ("rotating" or "tournament"); strategies go to
    the players in turn, shifted by one every match."""
    summary = MatchSummary(kind)
    size = 4 if kind == "rotating" else 8
    for m in range(matches):
        names = [f"p{i}" for i in range(size)]
        hpp = hands_per_pairing if hands_per_pairing is not None else (
            1 if kind == "rotating" else 4)
        match = (Match.rotating(names, hands_per_pairing=hpp) if kind == "rotating"
                 else Match.tournament(names, hands_per_pairing=hpp))
        kinds = {p: strategies[(i + m) % len(strategies)] for i, p in enumerate(names)}
        play_match(match, kinds, edition, seed * 1009 + m, settings)
        summary.matches += 1
        summary.hands += match.hand_count
        totals = match.totals()
        for p in names:
            summary.players_by_strategy[kinds[p]] += 1
            summary.total_by_strategy[kinds[p]] += totals[p]
        for w in match.winners:
            summary.wins_by_strategy[kinds[w]] = (summary.wins_by_strategy.get(kinds[w], 0.0)
                                                  + 1 / len(match.winners))
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m engine.tools.simulate", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--edition", choices=sorted(EDITIONS), default="power-grab")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--strategies", default="heuristic,random",
                    help="comma-separated, assigned to seats in turn (default heuristic,random)")
    ap.add_argument("--target", type=int, default=500)
    ap.add_argument("--scoring", choices=["standard", "alternative"], default="standard")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--rotate", action="store_true",
                    help="move the strategies one seat on every game (each plays every seat)")
    ap.add_argument("--samples", type=int, default=None,
                    help=f"hard: worlds searched per decision, at most (default {SAMPLES})")
    ap.add_argument("--budget", type=float, default=None,
                    help=f"hard: seconds of CPU per decision, at most (default {BUDGET}; "
                         "0: none)")
    ap.add_argument("--playout", choices=["fast", "engine"], default="fast",
                    help="hard: the playouts, the compact simulator's or the engine's")
    ap.add_argument("--hands", action="store_true",
                    help="one hand a game, each deal played in every seating (use --rotate "
                         "or --teams): figures paired by deal")
    ap.add_argument("--teams", action="store_true",
                    help="partner play: teams of two sitting across, seat i with seat i + n/2 "
                         "(4 or 6 players: two or three teams)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="processes to play the games in (default 1)")
    ap.add_argument("--match", choices=["rotating", "tournament"],
                    help="play whole partner matches (4 or 8 players) instead of games")
    ap.add_argument("--hands-per-pairing", type=int, default=None,
                    help="--match: how often each two players partner (1-4; default 1 "
                         "for rotating, 4 for tournament)")
    args = ap.parse_args(argv)
    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    bad = [s for s in strategies if s not in STRATEGIES]
    if bad or not strategies:
        print(f"unknown strategy {bad[0] if bad else '(none)'}: use easy, normal, hard, "
              "heuristic, blind, basic or random", file=sys.stderr)
        return 2
    if args.match:
        return _main_match(args, strategies)
    if args.teams and args.players not in (4, 6):
        print("Partner play needs 4 or 6 players.", file=sys.stderr)
        return 2
    edition = EDITIONS[args.edition]
    if not edition.min_players <= args.players <= edition.max_players:
        print(f"{edition.title} needs {edition.min_players} to {edition.max_players} players.",
              file=sys.stderr)
        return 2
    if args.games < 1:
        print("--games must be at least 1.", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print("--jobs must be at least 1.", file=sys.stderr)
        return 2
    try:
        settings = Settings(target=args.target, scoring=args.scoring)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    budget = args.budget if args.budget is not None else BUDGET
    hard = Hard(args.samples if args.samples is not None else SAMPLES, budget or None,
                args.playout)
    summary = simulate_jobs(args.jobs, args.games, args.players, args.edition, args.seed,
                            strategies, settings, teams=args.teams, rotate=args.rotate,
                            hands=args.hands, hard=hard)
    data = summary.to_dict()
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"{data['games']} games of {edition.title}, {args.players} players, "
          f"seed {args.seed}, strategies {','.join(strategies)}")
    for key in ("rounds", "rounds_per_game", "turns", "turns_per_round", "moves", "grabs",
                "blocks", "instant_unos", "challenges", "challenges_won", "challenge_success",
                "catches", "laps", "lap_passes"):
        print(f"  {key:<18} {data[key]}")
    print("  win rate by seat:     " + ", ".join(
        f"{k}: {v:.1%}" for k, v in data["win_rate_by_seat"].items()))
    print("  win rate by strategy: " + ", ".join(
        f"{k}: {v:.1%}" for k, v in data["win_rate_by_strategy"].items()))
    print("  challenges won/made by strategy: " + ", ".join(
        f"{k}: {w}/{n}" for k, (w, n) in data["challenges_by_strategy"].items()))
    if "team_win_rate" in data:
        print("  team win rate:        " + ", ".join(
            f"{k}: {v:.1%}" for k, v in data["team_win_rate"].items()))
    print("  win interval (95 %, Wilson): " + ", ".join(
        f"{k}: {lo:.1%}-{hi:.1%}" for k, (lo, hi) in data["win_interval_by_strategy"].items()))
    print("  margin by strategy (points, 95 % paired by deal): " + ", ".join(
        f"{k}: {v['mean']} [{v['ci95'][0]}, {v['ci95'][1]}]"
        for k, v in data["margin_by_strategy"].items()))
    if "think_ms" in data:
        t = data["think_ms"]
        print(f"  hard think (CPU ms):  p50 {t['p50']}, p95 {t['p95']}, max {t['max']} over "
              f"{t['decisions']} searched decisions")
        w = data["wall_think_ms"]
        print(f"  hard think (wall ms): p50 {w['p50']}, p95 {w['p95']}, max {w['max']}")
    return 0


def _main_match(args: argparse.Namespace, strategies: list[str]) -> int:
    hpp = args.hands_per_pairing
    if hpp is not None and not 1 <= hpp <= 4:
        print("--hands-per-pairing must be from 1 to 4.", file=sys.stderr)
        return 2
    if args.games < 1:
        print("--games must be at least 1.", file=sys.stderr)
        return 2
    if args.scoring != "standard":
        print("A partners match is scored the standard way.", file=sys.stderr)
        return 2
    summary = simulate_matches(args.games, args.match, args.edition, args.seed, strategies,
                               hpp, Settings(target=args.target))
    data = summary.to_dict()
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    title = EDITIONS[args.edition].title
    print(f"{data['matches']} {args.match} matches of {title} ({data['hands']} hands), "
          f"seed {args.seed}, strategies {','.join(strategies)}")
    print("  match win rate by strategy: " + ", ".join(
        f"{k}: {v:.1%}" for k, v in data["match_win_rate_by_strategy"].items()))
    print("  mean individual total:      " + ", ".join(
        f"{k}: {v}" for k, v in data["mean_total_by_strategy"].items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
