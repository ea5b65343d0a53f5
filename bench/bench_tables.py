"""Capacity benchmark: the unmodified bot process serving many busy tables at once.

One command starts the loopback Discord (in this process), starts ``python bot.py`` against
it, opens G tables in G channels spread over several guilds (4 simulated people each, through
``/uno new``, Join and Start), then has those people play legal moves through the UI at a
target total rate for a fixed time, and reports:

* moves/s served (a move: a click or select the game applied; "My hand" clicks are counted
  apart), clicks/s;
* acknowledgement latency (interaction sent → the bot's callback received) p50/p95/p99/max;
* errors: late acknowledgements (10062), double acknowledgements (40060), any other 4xx/5xx
  the loopback answered, interactions never acknowledged, rate-limited requests (429);
* the bot's CPU seconds per move, its RSS (idle, after opening the tables, peak) and RSS
  per table, and its GC pauses (the bot reports them when ``UNO_GC_STATS`` names a file);
* the load generator's own CPU (loopback Discord + simulated people, one process).

``--restart`` then kills the bot with SIGKILL, starts it again and measures process start →
READY and READY → every table answering a click (``--restarts N``: N times, with medians;
``--restart-compare DIR``: each time after one restart of the bot of the checkout DIR, on the
same tables; ``--restart-profile FILE``: py-spy on the first restarted bot).

Usage (from the repository root)::

    python bench/bench_tables.py --tables 100 --rate 30 --seconds 60
    python bench/bench_tables.py --tables 1000 --rate 300 --seconds 60 --restart --json

The loopback enforces Discord's rate limits (``--no-rate-limits`` turns that off) and, by
default, does not validate bodies against the OpenAPI description (``--validate`` does; it
costs the load generator about a millisecond per request, on the same two cores).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import random
import re
import resource
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loopback.bot_process import BotProcess  # noqa: E402
from loopback.models import Channel, Message  # noqa: E402
from loopback.server import LoopbackDiscord  # noqa: E402
from loopback.users import InteractionFailed, InteractionResult, Member  # noqa: E402

TURN = re.compile(
    r"<@(\d+)>(?:, it's your turn\.|: accept or challenge|: choose the card|: name the starting)")
COLOURS = {"R": "Red", "B": "Blue", "G": "Green", "Y": "Yellow"}
CARD = r"[RBGY](?:\d[UNO!]?|\+[12]|[SRG])|W(?:\+4|G|V)?"
TICKED = re.compile(rf"`({CARD})`")
MOVE_PLACEHOLDERS = ("Play a card…", "Towers to grab…", "Card to keep…")
BUSY = "The bot is very busy right now"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def proc_rss(pid: int) -> tuple[int, int]:
    """(current RSS, peak RSS) in KB."""
    now = peak = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            now = int(line.split()[1])
        elif line.startswith("VmHWM:"):
            peak = int(line.split()[1])
    return now, peak


def self_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


@dataclass
class Stats:
    acks: list[float] = field(default_factory=list)
    """Acknowledgement latencies of the measuring phase, seconds."""
    counts: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    setup_failures: list[str] = field(default_factory=list)
    measuring: bool = False

    def record(self, result: InteractionResult) -> None:
        state = result.state
        if self.measuring and state.acked_at is not None:
            self.acks.append(state.acked_at - state.sent_at)


class Table:
    def __init__(self, channel: Channel, people: list[Member], rng: random.Random) -> None:
        self.channel = channel
        self.people = people
        self.by_id = {p.id: p for p in people}
        self.rng = rng
        self.busy = False
        self.games = 0
        self.moved_on: int | None = None
        """The table message's change when this table last moved: until it changes, the
        table shows nothing new and nobody clicks (a person waits for the table)."""
        self.turned_away = False
        """This table's person was answered "busy" during their move (they try again)."""

    def table_message(self) -> Message | None:
        for msg in reversed(self.channel.messages):
            if msg.deleted:
                continue
            if "My hand" in msg.button_labels():
                return msg
            if "won the game" in msg.text():
                return None
        return None

    def behind(self) -> bool:
        """The table has not changed since this table's last move."""
        msg = self.table_message()
        return msg is not None and msg.change_seq == self.moved_on

    def whose_turn(self, msg: Message) -> Member | None:
        found = TURN.findall(msg.text())  # the turn line (a V2 table: in a text display)
        return self.by_id.get(int(found[-1])) if found else None


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.stats = Stats()
        self.rng = random.Random(args.seed)
        self.tables: list[Table] = []
        self.server: LoopbackDiscord | None = None
        self.bot: BotProcess | None = None
        self.gc_file = Path(tempfile.mkdtemp(prefix="bench-gc-")) / "gc.json"

    # ------------------------------------------------------------------ interactions
    async def act(self, coro: Any, what: str, *, table: Table | None = None
                  ) -> InteractionResult | None:
        try:
            result: InteractionResult = await coro
        except InteractionFailed as exc:
            if not self.stats.measuring:
                self.stats.setup_failures.append(f"{what}: {str(exc).splitlines()[0]}")
            else:
                self.stats.counts["never acknowledged"] += 1
                self.stats.failures.append(f"{what}: {str(exc).splitlines()[0]}")
            return None
        except AssertionError as exc:  # what we wanted to click was not there (any more)
            if not self.stats.measuring:
                self.stats.setup_failures.append(f"{what}: {str(exc).splitlines()[0]}")
            else:
                self.stats.counts["nothing to click"] += 1
                self.stats.failures.append(f"{what}: {str(exc).splitlines()[0][:160]}")
            return None
        self.stats.record(result)
        if self.stats.measuring:
            self.stats.counts["clicks"] += 1
        if result.message is not None and BUSY in result.message.text():
            # past capacity: turned away at once, nothing changed (R-BOT-BUSY)
            if table is not None:
                table.turned_away = True
            if self.stats.measuring:
                self.stats.counts["answered busy"] += 1
            return None
        return result

    # ------------------------------------------------------------------ set-up
    async def open_table(self, table: Table) -> None:
        host, *others = table.people
        timeout = 20.0
        r = await self.act(host.slash("uno new", timeout=timeout), "new")
        if r is None:
            return
        lobby = r.message
        for p in others:
            await self.act(p.click("Join", message=lobby, timeout=timeout), "join")
        await self.act(host.click("Start", message=lobby, timeout=timeout), "start")
        table.games += 1

    async def setup(self) -> None:
        args = self.args
        server = self.server
        assert server is not None
        guilds = [server.add_guild(f"Bench {g}") for g in range(args.guilds)]
        for i in range(args.tables):
            guild = guilds[i % len(guilds)]
            channel = guild.new_channel(f"uno-{i}")
            people = [channel.member(f"p{i}x{k}") for k in range(4)]
            self.tables.append(Table(channel, people, random.Random(self.rng.random())))
        env = {
            "DATABASE_PATH": str(Path(tempfile.mkdtemp(prefix="bench-db-")) / "bot.db"),
            "LOG_LEVEL": "WARNING",
            "DEV_GUILD_ID": "",  # commands synced globally, as in production
            "UNO_GC_STATS": str(self.gc_file),
            # a process serving hundreds of busy tables runs the embed table (README,
            # "Card art"); UNO_TABLE_V2=1 in the environment measures the picture table
            "UNO_TABLE_V2": "0",
        }
        if args.census:
            env["UNO_GC_CENSUS"] = args.census
        for key in ("UNO_GC_YOUNG", "UNO_GC_MIDDLE", "UNO_CARD_IMAGES", "UNO_TABLE_V2",
                    "UNO_CARD_EMOJIS", "UNO_GC_SAVEALL", "UNO_GC_FREEZE_MS",
                    "UNO_MAX_LAG_MS"):
            if os.environ.get(key):
                env[key] = os.environ[key]
        if args.tracemalloc:
            env["PYTHONTRACEMALLOC"] = "1"
        started = time.monotonic()
        cwd = args.bot_dir or ROOT
        self.bot = await server.start_bot([sys.executable, "bot.py"], env=env, cwd=cwd,
                                          ready_timeout=120.0)
        self.note(f"bot ready in {time.monotonic() - started:.1f} s")
        assert self.bot.pid is not None
        self.rss_idle = proc_rss(self.bot.pid)[0]
        # the longest turn timer, so that nobody times out at slow rates
        for guild in guilds:
            owner = Member(server, guild, guild.owner, guild.channels[-1])
            await self.act(owner.slash("uno settings", turn_timer=600, timeout=20.0), "settings")
        started = time.monotonic()
        sem = asyncio.Semaphore(args.open_concurrency)

        async def one(t: Table) -> None:
            async with sem:
                await self.open_table(t)

        await asyncio.gather(*(one(t) for t in self.tables))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 120
        while loop.time() < deadline and any(  # noqa: ASYNC110
                t.table_message() is None for t in self.tables):
            await asyncio.sleep(0.2)
        missing = sum(1 for t in self.tables if t.table_message() is None)
        self.note(f"{args.tables} tables opened in {time.monotonic() - started:.1f} s"
                  + (f" ({missing} without a table message)" if missing else ""))
        for failure in self.stats.setup_failures[:5]:
            self.note(f"  set-up: {failure}")
        await asyncio.sleep(2.0)
        gc.collect()
        self.rss_tables = proc_rss(self.bot.pid)[0]
        await self.census("tables open")

    async def census(self, when: str, sig: int = signal.SIGUSR1) -> None:
        """With --census, the bot appends a census of its tracked objects to that file
        (SIGUSR2: and the frozen objects that had become garbage; the last census)."""
        if self.args.census and self.bot is not None and self.bot.pid is not None:
            os.kill(self.bot.pid, sig)
            await asyncio.sleep(1.0)
            self.note(f"census ({when}) asked of the bot")

    # ------------------------------------------------------------------ play
    async def take_move(self, table: Table) -> None:
        """The person whose turn the table shows opens My hand and plays one move."""
        table.busy = True
        table.turned_away = False
        seen = table.moved_on
        try:
            msg = table.table_message()
            if msg is None:
                if table.channel.messages and "won the game" in table.channel.messages[-1].text():
                    self.stats.counts["games finished"] += 1
                    await self.open_table(table)
                else:
                    self.stats.counts["no table shown"] += 1
                return
            if msg.change_seq == table.moved_on:
                self.stats.counts["waited for the table"] += 1
                return
            table.moved_on = msg.change_seq
            person = table.whose_turn(msg)
            if person is None:
                self.stats.counts["no turn shown"] += 1
                return
            r = await self.act(person.click("My hand", message=msg), "My hand", table=table)
            if r is None or r.message is None:
                return
            self.stats.counts["my hand"] += 1
            menu = r.message
            for _step in range(6):
                step = await self.step(table, person, menu)
                if step is None:
                    if _step == 0:
                        self.stats.counts["nothing to do (table behind)"] += 1
                    break
                if self.stats.measuring:
                    self.stats.counts["moves"] += 1
                if step.response_type != 7 or step.message is None:
                    break
                menu = step.message
        finally:
            table.busy = False
            if table.turned_away and table.moved_on != seen:
                table.moved_on = seen  # "busy, try again": at a later tick they do

    @staticmethod
    async def loop_lateness(late: list[tuple[float, float]], tick: float = 0.05) -> None:
        """How late this process (the loopback Discord and the people) runs what is due:
        (seconds late, when) every ``tick``."""
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + tick
            await asyncio.sleep(tick)
            now = loop.time()
            late.append((max(0.0, now - due), now))

    async def step(self, table: Table, person: Member, menu: Message
                   ) -> InteractionResult | None:
        text = menu.text()
        labels = menu.button_labels()
        selects = {s.get("placeholder"): s for s in menu.selects()}
        rng = table.rng
        if "Play a card…" in selects:
            options = [str(o["value"]) for o in selects["Play a card…"]["options"]]
            calls = [v for v in options if v.endswith("|u")]
            if calls:
                options = calls
            plain = [v for v in options if not v.startswith("W")]
            return await self.act(person.select(rng.choice(plain or options), message=menu),
                                  "play", table=table)
        if "Towers to grab…" in selects:
            sel = selects["Towers to grab…"]
            need = int(sel.get("min_values") or 1)
            values = rng.sample([str(o["value"]) for o in sel["options"]], need)
            return await self.act(person.select(*values, message=menu), "towers", table=table)
        if "Card to keep…" in selects:
            options = [str(o["value"]) for o in selects["Card to keep…"]["options"]]
            return await self.act(person.select(rng.choice(options), message=menu), "keep",
                                  table=table)
        if "Red" in labels:
            first = text.splitlines()[0] if text else ""
            counts = Counter(c[0] for c in TICKED.findall(first) if c[0] in COLOURS)
            colour = counts.most_common(1)[0][0] if counts else rng.choice("RBGY")
            return await self.act(person.click(COLOURS[colour], message=menu), "colour",
                                  table=table)
        if "Challenge" in labels:
            label = "Challenge" if rng.random() < 0.2 else "Accept +4"
            return await self.act(person.click(label, message=menu), "challenge", table=table)
        if "Play it" in labels:
            return await self.act(person.click("Play it", message=menu), "play it", table=table)
        if "Draw" in labels:
            return await self.act(person.click("Draw", message=menu), "draw", table=table)
        if labels == ["UNO!"] and "kept" in text:
            return await self.act(person.click("UNO!", message=menu), "uno", table=table)
        return None

    async def play(self) -> dict[str, Any]:
        args = self.args
        assert self.bot is not None and self.bot.pid is not None
        pid = self.bot.pid
        loop = asyncio.get_running_loop()
        tasks: set[asyncio.Task[None]] = set()
        self.stats.measuring = True
        assert self.server is not None
        requests_before = Counter(self.server.rate_limiter.requests)
        cpu_bot, cpu_gen = proc_cpu(pid), self_cpu()
        spy = None
        if args.profile:
            spy = await asyncio.create_subprocess_exec(
                shutil.which("py-spy", path=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
                or "py-spy", "record", "--pid", str(pid), "--duration", str(int(args.seconds)),
                "--rate", "200", "--format", "raw", "--output", args.profile, "--nonblocking",
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        late: list[tuple[float, float]] = []
        ticker = asyncio.create_task(self.loop_lateness(late))
        started = loop.time()
        interval = 1.0 / args.rate
        next_at = started
        end = started + args.seconds
        skipped = 0
        while (now := loop.time()) < end:
            if now < next_at:
                await asyncio.sleep(next_at - now)
            next_at += interval
            idle = [t for t in self.rng.sample(self.tables, min(8, len(self.tables)))
                    if not t.busy and not t.behind()]
            if not idle:
                skipped += 1
                continue
            task = asyncio.create_task(self.take_move(idle[0]))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        elapsed = loop.time() - started
        ticker.cancel()
        lates = [x for x, _when in late]
        cpu_bot = proc_cpu(pid) - cpu_bot
        cpu_gen = self_cpu() - cpu_gen
        self.stats.measuring = False
        if tasks:
            await asyncio.wait(tasks, timeout=30)
        if spy is not None:
            await spy.wait()
            self.note(f"profile (py-spy raw, collapsed stacks) in {args.profile}")
        rss_now, rss_peak = proc_rss(pid)
        await self.census("after playing", signal.SIGUSR2)
        moves = self.stats.counts["moves"]
        requests = Counter(self.server.rate_limiter.requests) - requests_before
        acks = self.stats.acks
        return {
            "tables": args.tables, "guilds": args.guilds, "rate asked": args.rate,
            "seconds": round(elapsed, 1),
            "moves/s": round(moves / elapsed, 1),
            "clicks/s": round(self.stats.counts["clicks"] / elapsed, 1),
            "ack p50 ms": round(percentile(acks, 50) * 1000, 1),
            "ack p95 ms": round(percentile(acks, 95) * 1000, 1),
            "ack p99 ms": round(percentile(acks, 99) * 1000, 1),
            "ack max ms": round(max(acks, default=float("nan")) * 1000, 1),
            "ack mean ms": round(statistics.fmean(acks) * 1000, 1) if acks else None,
            "bot CPU ms/move": round(cpu_bot / max(moves, 1) * 1000, 2),
            "bot CPU %": round(cpu_bot / elapsed * 100, 1),
            "generator CPU %": round(cpu_gen / elapsed * 100, 1),
            # the loopback judges an answer late by its own clock when it reads it: a
            # generator running behind makes answers look later than the bot sent them
            "generator loop late p50/p99/max ms": [
                round(percentile(lates, 50) * 1000, 1), round(percentile(lates, 99) * 1000, 1),
                round(max(lates, default=0.0) * 1000, 1)],
            "bot RSS idle MB": round(self.rss_idle / 1024, 1),
            "bot RSS tables MB": round(self.rss_tables / 1024, 1),
            "bot RSS after MB": round(rss_now / 1024, 1),
            "bot RSS peak MB": round(rss_peak / 1024, 1),
            "RSS KB/table": round((self.rss_tables - self.rss_idle) / args.tables, 1),
            "ticks skipped (all sampled tables busy)": skipped,
            "counts": dict(self.stats.counts),
            "bot requests per move": {k: round(v / max(moves, 1), 2)
                                      for k, v in requests.most_common()},
        }

    # ------------------------------------------------------------------ restart
    async def restart(self, profile: str | None = None, cwd: Path | None = None
                      ) -> dict[str, Any]:
        server, bot = self.server, self.bot
        assert server is not None and bot is not None
        await bot.kill()
        # the loopback closes the dead bot's connections (without a pool limit, one per
        # answer that was in flight at once) before the next bot starts: that is the load
        # generator's work, not to be counted against the next bot
        await asyncio.sleep(1.0)
        bot.cwd = cwd or self.args.bot_dir or ROOT
        loop = asyncio.get_running_loop()
        identifies = server.identify_count
        started = loop.time()
        start_task = asyncio.create_task(bot.start(ready_timeout=120.0))
        spy = None
        if profile:
            while bot.pid is None or not bot.running:  # noqa: ASYNC110
                await asyncio.sleep(0.001)
            spy = await asyncio.create_subprocess_exec(
                shutil.which("py-spy", path=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
                or "py-spy", "record", "--pid", str(bot.pid), "--duration", "6",
                "--rate", "500", "--output", profile, "--nonblocking",
                # speedscope (a .json file) keeps the samples in order, idle ones included: a
                # timeline; else collapsed stacks for bench/profile_summary.py
                *(["--format", "speedscope", "--idle"]
                  if profile.endswith(".json") else ["--format", "raw"]),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL)
        while server.identify_count <= identifies:  # noqa: ASYNC110
            await asyncio.sleep(0.005)
        ready = loop.time()
        assert bot.pid is not None
        cpu_bot, cpu_gen = proc_cpu(bot.pid), self_cpu()
        answered: list[float] = []
        late: list[tuple[float, float]] = []
        ticker = asyncio.create_task(self.loop_lateness(late, tick=0.01))
        failed = 0

        async def poke(t: Table) -> None:
            nonlocal failed
            while True:
                msg = t.table_message()
                person = t.whose_turn(msg) if msg is not None else None
                if msg is None or person is None:
                    failed += 1
                    return
                try:
                    r = await person.click("My hand", message=msg, timeout=10.0)
                except (InteractionFailed, AssertionError):
                    await asyncio.sleep(0.05)
                    if loop.time() - ready > 60:
                        failed += 1
                        return
                    continue
                if r.text and "Your hand" in r.text:
                    answered.append(loop.time() - ready)
                    return
                await asyncio.sleep(0.05)

        batch = self.args.click_batch
        pokes = []
        for i, t in enumerate(self.tables):
            pokes.append(asyncio.create_task(poke(t)))
            if batch and i % batch == batch - 1:
                # the loopback sends what is built so far while it builds the next ones, as
                # clicks reach Discord over time (without this nothing reached the bot until
                # all 1,000 were built and encoded: 0.3-0.4 s of the generator's CPU)
                await asyncio.sleep(0)
        await asyncio.gather(*pokes)
        window = loop.time() - ready
        ticker.cancel()
        first = min(answered, default=window)
        cpu_bot = proc_cpu(bot.pid) - cpu_bot
        cpu_gen = self_cpu() - cpu_gen
        await start_task
        if spy is not None:
            await spy.wait()
            self.note(f"restart profile (py-spy) in {profile}")
        return {
            "start → READY s": round(ready - started, 2),
            "READY → every table answers s": round(max(answered, default=float("nan")), 2),
            "READY → first / half the tables answer s": [
                round(min(answered, default=float("nan")), 2),
                round(percentile(answered, 50), 2)],
            "CPU s in that time: bot / generator": [round(cpu_bot, 2), round(cpu_gen, 2)],
            "CPU share in that time: bot / generator": [
                f"{cpu_bot / window:.0%}", f"{cpu_gen / window:.0%}"],
            "tables answering": len(answered),
            "tables not answering": failed,
            # the generator builds and sends the clicks: its own lateness delays them
            "generator loop late max ms, before the first answer / after": [
                round(max((x for x, t in late if t - ready <= first), default=0) * 1000, 1),
                round(max((x for x, t in late if t - ready > first), default=0) * 1000, 1)],
        }

    # ------------------------------------------------------------------ errors
    def errors(self) -> dict[str, Any]:
        server = self.server
        assert server is not None
        kinds = Counter(f"{p.kind} {p.code or ''}".strip() for p in server.problems)
        limited = Counter(f"{d.scope} {d.bucket}" for d in server.rate_limited)
        return {"loopback problems": dict(kinds), "429s": dict(limited),
                "never acknowledged": self.stats.counts["never acknowledged"],
                "examples": [str(p) for p in server.problems[:5]] + self.stats.failures[:5]}

    def gc_stats(self) -> dict[str, Any]:
        try:
            return dict(json.loads(self.gc_file.read_text()))
        except (OSError, ValueError):
            return {"gc": "the bot wrote no GC figures"}

    def note(self, text: str) -> None:
        if not self.args.quiet:
            print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)

    async def run(self) -> dict[str, Any]:
        args = self.args
        async with LoopbackDiscord(enforce_rate_limits=args.rate_limits,
                                   validate_bodies=args.validate,
                                   action_timeout=10.0) as server:
            self.server = server
            await self.setup()
            server.problems.clear()
            server.rate_limited.clear()
            self.note(f"playing at {args.rate} moves/s for {args.seconds} s")
            result = await self.play()
            await asyncio.sleep(1.5)  # the bot's GC figures are written every second
            result["gc"] = self.gc_stats()
            assert self.bot is not None
            result["gc"]["bot log"] = [line[-160:] for line in self.bot.log_text().splitlines()
                                       if "GC:" in line][-4:]
            result["errors"] = self.errors()
            if args.restart:
                runs: list[dict[str, Any]] = []
                others: list[dict[str, Any]] = []
                for n in range(args.restarts):
                    self.note(f"restart {n + 1}/{args.restarts}: SIGKILL, start, a click on "
                              "every table")
                    if args.restart_compare:
                        # the other checkout's bot first, then this one, on the same tables
                        others.append(await self.restart(cwd=args.restart_compare))
                        await asyncio.sleep(1.0)
                    runs.append(await self.restart(args.restart_profile if n == 0 else None))
                    await asyncio.sleep(1.0)
                result["restart"] = runs[0] if len(runs) == 1 else _medians(runs)
                if others:
                    result["restart (--restart-compare)"] = _medians(others)
            assert self.bot is not None
            await self.bot.stop()
            return result


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"median start → READY s": statistics.median(r["start → READY s"] for r in runs),
            "median READY → every table answers s": statistics.median(
                r["READY → every table answers s"] for r in runs),
            "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--guilds", type=int, default=0, help="default: tables / 50, at least 1")
    parser.add_argument("--rate", type=float, default=30.0, help="moves per second, in total")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--open-concurrency", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--restart", action="store_true")
    parser.add_argument("--restarts", type=int, default=1,
                        help="with --restart: how many times (the median is reported too)")
    parser.add_argument("--restart-compare", metavar="DIR",
                        help="with --restart: before each restart of the bot under test, one "
                        "of the bot of the checkout DIR, on the same tables and database")
    parser.add_argument("--click-batch", type=int, default=50,
                        help="with --restart: the generator lets the loopback send its clicks "
                        "every N built (0: none is sent until all are built)")
    parser.add_argument("--validate", action="store_true")
    parser.add_argument("--no-rate-limits", dest="rate_limits", action="store_false")
    parser.add_argument("--bot-dir", help="run the bot from another checkout (an earlier "
                        "commit, to compare in the same run): git worktree add DIR COMMIT")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="the bot traces its allocations (slow) and reports the top sites")
    parser.add_argument("--profile", metavar="FILE",
                        help="sample the bot with py-spy while playing (collapsed stacks)")
    parser.add_argument("--restart-profile", metavar="FILE",
                        help="sample the restarted bot with py-spy for its first 6 s")
    parser.add_argument("--census", metavar="FILE",
                        help="the bot appends a census of its gc-tracked objects by type to "
                        "FILE (JSON lines) with the tables open and after playing (each "
                        "after a full collection, not counted in the GC figures); the last "
                        "adds the frozen garbage; UNO_GC_SAVEALL=1 adds the cyclic garbage "
                        "(a throwaway run: it leaks)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    if args.bot_dir:
        args.bot_dir = Path(args.bot_dir).resolve()
    if args.restart_compare:
        args.restart_compare = Path(args.restart_compare).resolve()
    if args.census:
        args.census = str(Path(args.census).resolve())
    if args.guilds <= 0:
        args.guilds = max(1, args.tables // 50)
    # the loopback logs every problem it sees; the report counts them instead
    logging.getLogger("loopback").setLevel(logging.ERROR)
    result = asyncio.run(Bench(args).run())
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for key, value in result.items():
        if isinstance(value, dict):
            print(f"{key}:")
            for k, v in value.items():
                print(f"  {k}: {v}")
        else:
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
