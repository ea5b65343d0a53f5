"""Capacity benchmark: the unmodified bot process serving many busy tables at once.

One command starts the loopback Discord (in this process), starts ``python bot.py`` against
it, opens G tables in G channels spread over several guilds (4 simulated people each, through
``/uno new``, Join and Start), then has those people play legal moves through the UI at a
target total rate of turns for a fixed time, and reports:

* moves/s served, clicks/s. ``--clicks human`` (the default) clicks as people do: the
  turn's player opens My hand (now and then a slash command instead: ``/uno hand``,
  ``/uno table``, ``/uno play card:``), thinks, picks a card, answers each question the card
  asks (its colour, its towers) after another think, draws and plays or keeps what they
  drew, sometimes calls UNO!, answers a Wild Draw Four; a move is a turn completed, and the
  report gives the interactions per move. ``--clicks panel`` plays from the live hand panel
  (issue 17): each person opens My hand once and then only reads their panel, which the bot
  edits as the game goes, and clicks the card (its colour, its towers) in it; the report
  adds the panel edits per move. ``--clicks bot`` is the earlier bench (no think
  time, a move is every click the game applied: a play and its colour count two), kept to
  compare with the figures measured with it;
* acknowledgement latency (interaction sent → the bot's callback received) p50/p95/p99/max;
* errors: late acknowledgements (10062), double acknowledgements (40060), any other 4xx/5xx
  the loopback answered, interactions never acknowledged, deferred answers never followed
  up, "busy, try again" answers, rate-limited requests (429);
* the bot's edits of private messages through interaction tokens per move ("panel edits per
  move": ``PATCH …/messages/@original``), and every token request per move by kind; the
  hands' pictures it uploaded per move, and their KB;
* the bot's CPU seconds per move, its RSS (idle, after opening the tables, peak) and RSS
  per table, and its GC pauses (the bot reports them when ``UNO_GC_STATS`` names a file);
* the load generator's own CPU (loopback Discord + simulated people, one process).

``--restart`` then kills the bot with SIGKILL, starts it again and measures process start →
READY and READY → every table answering a click (``--restarts N``: N times, with medians;
``--restart-compare DIR``: each time after one restart of the bot of the checkout DIR, on the
same tables; ``--restart-profile FILE``: py-spy on the first restarted bot).

Usage (from the repository root)::

    python bench/bench_tables.py --tables 100 --rate 10 --seconds 60             # V2 table
    python bench/bench_tables.py --tables 100 --rate 10 --seconds 60 --table embed
    python bench/bench_tables.py --tables 100 --rate 10 --seconds 60 --clicks panel
    python bench/bench_tables.py --tables 100 --rate 30 --seconds 60 --clicks bot --table embed
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
import shlex
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hands  # noqa: E402  (bench/, beside this file)

from loopback.bot_process import BotProcess  # noqa: E402
from loopback.models import Channel, Guild, Message  # noqa: E402
from loopback.server import LoopbackDiscord  # noqa: E402
from loopback.users import InteractionFailed, InteractionResult, Member  # noqa: E402

TURN = re.compile(
    r"<@(\d+)>(?:, it's your turn\.|: accept or challenge|: choose the card|: name the starting)")
COLOURS = {"R": "Red", "B": "Blue", "G": "Green", "Y": "Yellow"}
CARD = r"[RBGY](?:\d[UNO!]?|\+[12]|[SRG])|W(?:\+4|G|V)?"
TICKED = re.compile(rf"`({CARD})`")
MOVE_PLACEHOLDERS = ("Play a card…", "Towers to grab…", "Card to keep…")
BUSY = "The bot is very busy right now"
COLOUR_EMOJI = {"🟥": "R", "🟦": "B", "🟩": "G", "🟨": "Y"}
COLOUR_WORD = {"red": "R", "blue": "B", "green": "G", "yellow": "Y"}
DRAWN = re.compile(r"You drew (.+?): play it or keep it")
TOP = re.compile(r"Top card: (\S+) ([^\n(\[]*?)(?: \[.\])?(?: \(colour: (\w+)\))?$", re.M)
HUMAN_ACTIONS = ("play", "colour", "towers", "keep", "draw", "play it", "keep it",
                 "challenge", "accept", "/uno play", "lap")
"""What a person does that the game applies (a move's steps); My hand, /uno hand,
/uno table, UNO! and autocomplete show or add to a move."""


def drawn_fits(text: str) -> bool:
    """Whether the card just drawn (the menu says "You drew X: play it or keep it") matches
    the top card, as the person sees it: a wild, the colour in play, or the same number or
    symbol on a coloured top card."""
    drawn, top = DRAWN.search(text), TOP.search(text)
    if drawn is None or top is None:
        return True
    emoji, _sep, what = drawn[1].partition(" ")
    if emoji not in COLOUR_EMOJI:
        return True  # a wild
    if top[3]:  # a wild on top: its colour is named
        return COLOUR_WORD.get(top[3].lower()) == COLOUR_EMOJI[emoji]
    what = re.sub(r" \[.\]$", "", what)
    return top[1] == emoji or uncoloured(top[2].strip()) == uncoloured(what)


def uncoloured(label: str) -> str:
    """A coloured card's label without the colour named beside its square ("red 7" → "7")."""
    first, _sep, rest = label.partition(" ")
    return rest if first in COLOUR_WORD else label


def free_port() -> int:
    """A TCP port nobody listens on now, on 127.0.0.1."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


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


def machine_speed() -> float:
    """CPU ms this process takes for a fixed piece of pure Python (about 0.4 s on the
    machine of bench/README.md at its fastest): this VM's cores change speed by up to half
    within minutes (other guests on the host), so a run says how fast the machine was
    around it, and runs are compared at a similar speed."""
    started = time.process_time()
    total = 0
    for i in range(3_000_000):
        total += i * i
    return round((time.process_time() - started) * 1000)


def self_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


@dataclass
class Stats:
    acks: list[float] = field(default_factory=list)
    """Acknowledgement latencies of the measuring phase, seconds."""
    counts: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    """Interactions sent while measuring, by what the person did (``--clicks human``)."""
    failures: list[str] = field(default_factory=list)
    below: list[int] = field(default_factory=list)
    """``--clicks panel``: at each decision, the messages its player sees below their
    panel (the panel in reach: R-BOT-REACH)."""
    refusals: Counter[str] = field(default_factory=Counter)
    """``--clicks panel``: the reasons the panel gave for a click it refused."""
    setup_failures: list[str] = field(default_factory=list)
    measuring: bool = False

    def record(self, result: InteractionResult) -> None:
        state = result.state
        if self.measuring and state.acked_at is not None:
            self.acks.append(state.acked_at - state.sent_at)


def below(channel: Channel, person: Member, panel: Message) -> int:
    """The messages ``person`` sees in ``channel`` below their ``panel``: public ones and
    their own private ones, not deleted."""
    return sum(1 for m in channel.all_messages
               if m.id > panel.id and not m.deleted
               and (m.ephemeral_for is None or m.ephemeral_for == person.id))


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
        self.panels: dict[int, Message] = {}
        """``--clicks panel``: each person's live hand panel (the message the bot edits)."""
        self.acted: dict[int, int] = {}
        """``--clicks panel``: each person's panel's change when they last acted on it."""

    def latest(self) -> Iterator[Message]:
        """The channel's public messages, newest first (``Channel.messages`` reversed, read
        lazily: the table is almost always the last one)."""
        for msg in reversed(self.channel.all_messages):
            if not msg.ephemeral and not msg.deleted:
                yield msg

    def finished(self) -> bool:
        """The game ended: "won the game" came after the last table (a new one opens)."""
        for msg in self.latest():
            if "My hand" in msg.button_labels():
                return False
            if "won the game" in msg.text():
                return True
        return False

    def table_message(self) -> Message | None:
        for msg in self.latest():
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
        """The bot process (the first of ``bots``: the one --restart and --profile use)."""
        self.bots: list[BotProcess] = []
        self.gc_file = Path(tempfile.mkdtemp(prefix="bench-gc-")) / "gc.json"
        self.metrics_port = free_port() if args.scrape > 0 else 0
        """The bot's METRICS_PORT with ``--scrape``."""
        self.peeks: set[asyncio.Task[None]] = set()
        self.idle_cpu: dict[str, float] = {}
        """Each process's CPU share with the tables open, before playing (0.1: 10 %)."""

    # ------------------------------------------------------------------ interactions
    async def act(self, coro: Any, what: str, *, table: Table | None = None
                  ) -> InteractionResult | None:
        if self.stats.measuring:
            self.stats.kinds[what] += 1
        try:
            result: InteractionResult = await coro
        except InteractionFailed as exc:
            if not self.stats.measuring:
                self.stats.setup_failures.append(f"{what}: {str(exc).splitlines()[0]}")
            else:
                # the person sees "This interaction failed" (answered late: 10062, or not
                # at all) and, with --clicks human, tries again later
                late = exc.code == 10062
                self.stats.counts["answered late (10062)" if late else "never acknowledged"] += 1
                self.stats.failures.append(f"{what}: {str(exc).splitlines()[0]}")
                if table is not None and self.args.clicks == "human":
                    table.turned_away = True
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
        if r.response_type == 5:  # deferred (a loaded machine): the lobby comes with the edit
            try:
                lobby = await r.wait_done(timeout=timeout)
            except AssertionError as exc:
                self.stats.setup_failures.append(f"new: {str(exc).splitlines()[0]}")
                return
        for p in others:
            await self.act(p.click("Join", message=lobby, timeout=timeout), "join")
        await self.act(host.click("Start", message=lobby, timeout=timeout), "start")
        table.games += 1

    async def setup(self) -> None:
        args = self.args
        server = self.server
        assert server is not None
        guilds = self.make_guilds()
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
            # --table: the Components V2 table with its picture (the bot's default) or the
            # embed table
            "UNO_TABLE_V2": "1" if args.table == "v2" else "0",
        }
        if args.census:
            env["UNO_GC_CENSUS"] = args.census
        if args.scrape > 0:
            # /metrics on a port of its own, scraped while measuring (bench/README.md, "Metrics")
            env["METRICS_PORT"] = str(self.metrics_port)
            env["METRICS_HOST"] = "127.0.0.1"
        for key in ("UNO_GC_YOUNG", "UNO_GC_MIDDLE", "UNO_CARD_IMAGES",
                    "UNO_CARD_EMOJIS", "UNO_GC_SAVEALL", "UNO_GC_FREEZE",
                    "UNO_MAX_LAG_MS", "UNO_UVLOOP", "UNO_TIME_SCALE"):
            if os.environ.get(key):
                env[key] = os.environ[key]
        if args.tracemalloc:
            env["PYTHONTRACEMALLOC"] = "1"
        started = time.monotonic()
        await self.start_bots(env)
        self.note(f"bot ready in {time.monotonic() - started:.1f} s")
        self.rss_idle = self.rss()[0]
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
        # each process's CPU with the tables open and nobody clicking (timers, heartbeats,
        # collections): what a process costs whatever the load
        idle, idle_at = self.cpu_now(), time.monotonic()
        await asyncio.sleep(3.0)
        self.idle_cpu = {k: (v - idle[k]) / (time.monotonic() - idle_at)
                         for k, v in self.cpu_now().items() if k in idle}
        gc.collect()
        # The generator's own heap (the loopback's guilds, channels, messages and the
        # people) stays alive for the whole run: out of the collector's way, so that its
        # full collections do not make this process (which reads the bot's answers and
        # times them) run hundreds of ms late.
        gc.freeze()
        self.rss_tables = self.rss()[0]
        await self.census("tables open")

    def make_guilds(self) -> list[Guild]:
        """The loopback's guilds the tables are spread over."""
        assert self.server is not None
        return [self.server.add_guild(f"Bench {g}") for g in range(self.args.guilds)]

    async def start_bots(self, env: dict[str, str]) -> None:
        """Start the bot (``env``: the bench's settings) and set ``bot`` and ``bots``."""
        assert self.server is not None
        self.bot = await self.server.start_bot(
            [self.args.bot_python, "bot.py"], env=env, cwd=self.args.bot_dir or ROOT,
            ready_timeout=120.0)
        self.bots = [self.bot]

    def cpu_now(self) -> dict[str, float]:
        """CPU seconds so far of each process that serves the load, by name (a name that
        starts with "bot" is a bot process)."""
        assert self.bot is not None and self.bot.pid is not None
        return {"bot": proc_cpu(self.bot.pid)}

    def rss(self) -> tuple[int, int]:
        """(current RSS, peak RSS) in KB of the bot processes together."""
        both = [proc_rss(b.pid) for b in self.bots if b.pid is not None]
        return sum(now for now, _ in both), sum(peak for _, peak in both)

    async def census(self, when: str, sig: int = signal.SIGUSR1) -> None:
        """With --census, the bot appends a census of its tracked objects to that file
        (SIGUSR2: and the frozen objects that had become garbage; the last census)."""
        if self.args.census and self.bot is not None and self.bot.pid is not None:
            os.kill(self.bot.pid, sig)
            await asyncio.sleep(1.0)
            self.note(f"census ({when}) asked of the bot")

    # ------------------------------------------------------------------ play
    async def turn_to_play(self, table: Table) -> tuple[Message, Member] | None:
        """The table's newest message and the person whose turn it shows, once per change
        of it; None (counted) when there is none: the game ended (a new one opens), no
        table is shown, nothing changed since the last move, or no turn is shown."""
        msg = table.table_message()
        if msg is None:
            if table.channel.messages and "won the game" in table.channel.messages[-1].text():
                self.stats.counts["games finished"] += 1
                await self.open_table(table)
            else:
                self.stats.counts["no table shown"] += 1
                last = [m for m in table.channel.messages if not m.deleted][-2:]
                self.stats.failures.append(f"no table shown: {last!r}"[:300])
            return None
        if msg.change_seq == table.moved_on:
            self.stats.counts["waited for the table"] += 1
            return None
        table.moved_on = msg.change_seq
        person = table.whose_turn(msg)
        if person is None:
            self.stats.counts["no turn shown"] += 1
            return None
        return msg, person

    async def take_move(self, table: Table) -> None:
        """The person whose turn the table shows opens My hand and plays one move."""
        table.busy = True
        table.turned_away = False
        seen = table.moved_on
        try:
            found = await self.turn_to_play(table)
            if found is None:
                return
            msg, person = found
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

    # ------------------------------------------------------------------ play as people do
    async def think(self, table: Table) -> None:
        args = self.args
        await asyncio.sleep(table.rng.uniform(args.think_min_ms, args.think_max_ms) / 1000)

    async def read(self, r: InteractionResult | None, before: int) -> Message | None:
        """What the person reads once the answer is there: a deferred answer ("thinking",
        or a deferred update of the menu) is waited for; one never followed up is counted
        (``--followup-wait`` seconds). ``before``: the clicked message's change then."""
        if r is None:
            return None
        wait = self.args.followup_wait
        if r.response_type == 5:
            try:
                return await r.wait_done(timeout=wait)
            except AssertionError:
                self.stats.counts["deferred, never followed up"] += 1
                return None
        if r.response_type == 6:
            msg = r.message
            loop = asyncio.get_running_loop()
            deadline = loop.time() + wait
            while (msg is not None and msg.change_seq == before  # noqa: ASYNC110
                   and not r.state.followups and loop.time() < deadline):
                await asyncio.sleep(0.05)
            if r.state.followups:
                return r.state.followups[-1]
            if msg is None or msg.change_seq == before:
                self.stats.counts["deferred, never followed up"] += 1
                return None
            return msg
        return r.message

    async def ask(self, table: Table, coro: Any, what: str, source: Message | None
                  ) -> Message | None:
        """One interaction and the answer the person reads (None: busy, failed, nothing)."""
        before = source.change_seq if source is not None else -1
        r = await self.act(coro, what, table=table)
        if r is None:  # busy ("try again": later), failed, or nothing to click
            table.turned_away = True
            return None
        return await self.read(r, before)

    async def human_turn(self, table: Table) -> None:
        """A person's turn as people play it (``--clicks human``): open the hand (My hand;
        now and then a slash command), think, pick, think, answer what the card asks..."""
        table.busy = True
        table.turned_away = False
        seen = table.moved_on
        try:
            found = await self.turn_to_play(table)
            if found is None:
                return
            msg, person = found
            rng = table.rng
            wait = self.args.give_up
            text = msg.text()
            if ": accept or challenge" in text and "Challenge" in msg.button_labels():
                # the Wild Draw Four's victim answers on the table itself
                label = "Challenge" if rng.random() < 0.2 else "Accept +4"
                what = "challenge" if label == "Challenge" else "accept"
                menu = await self.ask(table, person.click(label, message=msg, timeout=wait),
                                      what, msg)
                if menu is not None and not self.refused(menu):
                    self.count("moves")
                return
            menu, applied = await self.open_hand(table, person, msg)
            done: list[str] = ["(hand)"]
            for _step in range(6):
                if menu is None:
                    return
                if self.refused(menu):
                    self.stats.counts["refused"] += 1
                    self.stats.failures.append(f"refused after {done}: {menu.text()[:100]}")
                    table.turned_away = True  # they look again later
                    return
                labels = menu.button_labels()
                if applied and not self.prompt(menu):
                    break
                await self.think(table)
                step = self.human_step(table, person, menu, labels)
                if step is None:
                    break
                coro, what = step
                done.append(what)
                applied = applied or what in HUMAN_ACTIONS
                menu = await self.ask(table, coro, what, menu)
            else:
                return
            if not applied:
                self.stats.counts["nothing to do (table behind)"] += 1
                return
            self.count("moves")
            for other in table.people:
                if other is not person and rng.random() < self.args.peek:
                    self.peek(table, other)
            if "UNO!" in menu.button_labels() and rng.random() < self.args.late_uno:
                # one card left and UNO! not called with the play: they notice
                await self.think(table)
                await self.ask(table, person.click("UNO!", message=menu, timeout=wait), "UNO!",
                               menu)
        finally:
            table.busy = False
            if table.turned_away and table.moved_on != seen:
                table.moved_on = seen  # "busy, try again": at a later tick they do

    # ------------------------------------------------------------------ the live panel
    def panel_of(self, table: Table, person: Member) -> Message | None:
        """``person``'s panel if it still follows the game (else they open it again): the
        message they opened, or the one the bot sent at the bottom in its place (the old
        one deleted: R-BOT-REACH)."""
        panel = table.panels.get(person.id)
        if panel is not None and panel.deleted:
            mine = person.ephemerals()
            panel = table.panels[person.id] = mine[-1] if mine else panel
        if panel is not None and hands.dead(panel):
            del table.panels[person.id]
            table.acted.pop(person.id, None)
            return None
        return panel

    def panel_ready(self, table: Table) -> tuple[Member, Message | None] | None:
        """``--clicks panel``: who acts next at ``table``: a person whose panel asks them
        something they have not acted on yet (at the panel's current change: the bot edits
        it), else one without a live panel, who opens it (My hand on the table); None when
        nobody has anything to do (the bot has not edited the next panel yet)."""
        opener = None
        for person in table.people:
            panel = self.panel_of(table, person)
            if panel is None:
                opener = opener or person
            elif table.acted.get(person.id) != panel.change_seq and hands.decides(panel):
                return person, panel
        if opener is not None and table.table_message() is not None:
            return opener, None
        return None

    def table_ready(self, table: Table) -> bool:
        """The generator may start a turn at ``table`` (by what its people see)."""
        if table.busy:
            return False
        if self.args.clicks == "panel":
            return table.finished() or self.panel_ready(table) is not None
        return not table.behind()

    async def open_panel(self, table: Table, person: Member, what: str) -> Message | None:
        """My hand on the table: the answer is ``person``'s live panel."""
        msg = table.table_message()
        if msg is None:
            return None
        panel = await self.ask(table, person.click("My hand", message=msg,
                                                   timeout=self.args.give_up), what, msg)
        if panel is None or not panel.ephemeral or not panel.components:
            return None
        table.panels[person.id] = panel
        table.acted.pop(person.id, None)
        return panel

    async def open_panels(self) -> None:
        """``--clicks panel``, before measuring: every person opens their hand once."""
        sem = asyncio.Semaphore(self.args.open_concurrency)

        async def one(t: Table, person: Member) -> None:
            for _attempt in range(5):  # answered busy, or too late: again a moment later
                async with sem:
                    if await self.open_panel(t, person, "My hand (open)") is not None:
                        return
                await asyncio.sleep(1.0)

        started = time.monotonic()
        await asyncio.gather(*(one(t, p) for t in self.tables for p in t.people))
        panels = [m for t in self.tables for m in t.panels.values()]
        self.note(f"{len(panels)} hand panels opened in {time.monotonic() - started:.1f} s")
        if not any(hands.offers_cards_as_buttons(m) for m in panels):
            raise SystemExit("--clicks panel: this bot's hand has no card buttons (no live "
                             "panel: a bot before issue 17); use --clicks human")

    async def panel_turn(self, table: Table) -> None:
        """A person plays from their live panel (``--clicks panel``): the panel shows their
        turn by itself (the bot edits it), they think, click the card, then its colour or
        towers in the same panel (each answer edits it in place), sometimes UNO! after;
        now and then (``--slash``) a slash command first. A person without a live panel
        (a new game, a panel that stopped following) opens it with My hand."""
        table.busy = True
        table.turned_away = False
        person: Member | None = None
        panel: Message | None = None
        try:
            if table.finished():
                self.count("games finished")
                table.panels.clear()
                table.acted.clear()
                await self.open_table(table)
                return
            found = self.panel_ready(table)
            if found is None:
                self.count("waited for a panel")
                return
            person, panel = found
            if panel is None:
                await self.think(table)
                panel = await self.open_panel(table, person, "My hand (reopen)")
                return
            if self.stats.measuring:
                self.stats.below.append(below(table.channel, person, panel))
            rng, wait = table.rng, self.args.give_up
            applied = False
            await self.think(table)
            if rng.random() < self.args.slash and hands.cards(panel):
                panel, applied = await self.panel_slash(table, person, panel)
            done: list[str] = []
            for _step in range(6):
                if panel is None:
                    return
                why = hands.refusal(panel) if done else None
                if why is not None or (done and self.refused(panel)):
                    self.count("refused")
                    self.stats.refusals[(why or panel.text())[:90]] += 1
                    self.stats.failures.append(f"refused after {done}: "
                                               f"{why or panel.text()[:100]}")
                    table.acted.pop(person.id, None)  # the panel shows the hand: again later
                    panel = None
                    return
                if (applied or done) and not self.prompt(panel):
                    break
                if done:
                    await self.think(table)
                step = self.human_step(table, person, panel, panel.button_labels())
                if step is None:
                    break
                coro, what = step
                done.append(what)
                applied = applied or what in HUMAN_ACTIONS
                answer = await self.ask(table, coro, what, panel)
                if answer is not None and answer is not panel and answer.ephemeral \
                        and answer.components:
                    table.panels[person.id] = answer  # answered in a new message: the panel
                panel = answer
            if not applied:
                return
            self.count("moves")
            assert panel is not None
            if "UNO!" in panel.button_labels() and rng.random() < self.args.late_uno:
                await self.think(table)
                await self.ask(table, person.click("UNO!", message=panel, timeout=wait), "UNO!",
                               panel)
        finally:
            if person is not None:
                now = table.panels.get(person.id)
                if table.turned_away or panel is None or now is None:
                    table.acted.pop(person.id, None)  # "busy, try again": later
                else:
                    table.acted[person.id] = now.change_seq
            table.busy = False

    async def panel_slash(self, table: Table, person: Member, panel: Message
                          ) -> tuple[Message | None, bool]:
        """``--slash`` of the turns with a live panel: ``/uno hand`` (its answer becomes
        the panel), ``/uno table`` (a look at the table, then the panel as before) or
        ``/uno play card:`` (one autocomplete, then the command; its answer becomes the
        panel). Returns the panel and whether the game was asked to move already."""
        rng, wait = table.rng, self.args.give_up
        kind = rng.choice(("hand", "table", "play"))
        if kind == "table":
            await self.ask(table, person.slash("uno table", timeout=wait), "/uno table", None)
            await self.think(table)
            return panel, False
        if kind == "hand":
            shown = await self.ask(table, person.slash("uno hand", timeout=wait), "/uno hand",
                                   None)
            if shown is not None and shown.ephemeral and shown.components:
                table.panels[person.id] = shown
                return shown, False
            return panel, False
        self.count("autocomplete", kinds=True)
        try:
            choices = await person.autocomplete("uno play", "card", "")
        except (InteractionFailed, AssertionError):
            choices = []
        if not choices:
            return panel, False
        await self.think(table)
        code = str(rng.choice(choices)["value"])
        options: dict[str, Any] = {"card": code}
        if code.startswith("W"):
            options["color"] = rng.choice("RBGY")
        shown = await self.ask(table, person.slash("uno play", timeout=wait, **options),
                               "/uno play", None)
        if shown is not None and shown.ephemeral and shown.components:
            table.panels[person.id] = shown
            return shown, True
        return (panel if shown is not None else None), shown is not None

    def panels_behind(self) -> int:
        """Tables whose table shows a person's turn while that person's live panel shows
        nothing to do (the bot did not edit it), once everything has settled."""
        behind = 0
        for t in self.tables:
            msg = t.table_message()
            person = t.whose_turn(msg) if msg is not None else None
            panel = self.panel_of(t, person) if person is not None else None
            if panel is not None and not hands.decides(panel):
                behind += 1
                self.stats.failures.append(f"panel behind the table: {panel!r}"[:300])
        return behind

    def peek(self, table: Table, person: Member) -> None:
        """``--peek``: a player waiting for their turn looks at their hand after a move
        (My hand on the table as they see it), beside whoever plays next."""
        async def look() -> None:
            await self.think(table)
            msg = table.table_message()
            if msg is not None and "My hand" in msg.button_labels():
                await self.act(person.click("My hand", message=msg, timeout=self.args.give_up),
                               "My hand (waiting)")

        task = asyncio.create_task(look())
        self.peeks.add(task)
        task.add_done_callback(self.peeks.discard)

    @staticmethod
    def refused(menu: Message) -> bool:
        """An answer that is one sentence (out of date, busy, can't be played...), not a
        hand, a question or a table."""
        text = menu.text()
        return (not menu.components and not menu.embeds and "Your hand" not in text
                and "The game is over" not in text and "posted below" not in text) \
            or hands.refusal(menu) is not None

    @staticmethod
    def prompt(menu: Message) -> bool:
        """The menu asks this person for something: a card, a colour, towers, a keep..."""
        selects = {s.get("placeholder") for s in menu.selects()}
        labels = menu.button_labels()
        return bool(selects & set(MOVE_PLACEHOLDERS)) or "Red" in labels \
            or "Play it" in labels or "Draw" in labels or "Challenge" in labels \
            or bool(hands.cards(menu) or hands.family(menu, hands.TOWER_FAMILY)
                    or hands.family(menu, hands.KEEP_FAMILY))

    async def open_hand(self, table: Table, person: Member, msg: Message
                        ) -> tuple[Message | None, bool]:
        """My hand, or (``--slash`` of the turns) a slash command: ``/uno hand``,
        ``/uno table`` then My hand on the table it posts, or ``/uno play card:`` (typed:
        one autocomplete, then the command; a wild's colour given with it). Returns what
        the person reads, and whether the game was asked to move already (/uno play)."""
        rng, wait = table.rng, self.args.give_up
        if rng.random() >= self.args.slash:
            return await self.ask(table, person.click("My hand", message=msg, timeout=wait),
                                  "My hand", msg), False
        kind = rng.choice(("hand", "table", "play"))
        if kind == "hand":
            return await self.ask(table, person.slash("uno hand", timeout=wait), "/uno hand",
                                  None), False
        if kind == "table":
            shown = await self.ask(table, person.slash("uno table", timeout=wait), "/uno table",
                                   None)
            if shown is None:
                return None, False
            loop = asyncio.get_running_loop()
            deadline = loop.time() + self.args.followup_wait
            while (new := table.table_message()) is msg and loop.time() < deadline:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
            if new is None:
                return None, False
            await self.think(table)
            return await self.ask(table, person.click("My hand", message=new, timeout=wait),
                                  "My hand", new), False
        self.count("autocomplete", kinds=True)
        try:
            choices = await person.autocomplete("uno play", "card", "")
        except (InteractionFailed, AssertionError):
            choices = []
        if not choices:  # nothing to play: they open their hand to draw
            return await self.ask(table, person.click("My hand", message=msg, timeout=wait),
                                  "My hand", msg), False
        await self.think(table)
        code = str(rng.choice(choices)["value"])
        options: dict[str, Any] = {"card": code}
        if code.startswith("W"):
            options["color"] = rng.choice("RBGY")
        return await self.ask(table, person.slash("uno play", timeout=wait, **options),
                              "/uno play", None), True

    def count(self, key: str, *, kinds: bool = False) -> None:
        """Count ``key`` while measuring (``kinds``: an interaction sent, by what)."""
        if self.stats.measuring:
            (self.stats.kinds if kinds else self.stats.counts)[key] += 1

    def human_step(self, table: Table, person: Member, menu: Message, labels: list[str]
                   ) -> tuple[Any, str] | None:
        """The person's next interaction on ``menu`` (not yet sent) and what it is."""
        text = menu.text()
        selects = {s.get("placeholder"): s for s in menu.selects()}
        rng, wait = table.rng, self.args.give_up
        found = self.button_step(table, person, menu, labels)
        if found is not None:
            return found
        if "Play a card…" in selects:
            options = [str(o["value"]) for o in selects["Play a card…"]["options"]]
            calls = [v for v in options if v.endswith("|u")]
            if calls:  # two cards: the play may call UNO! with it
                plain = [v for v in options if not v.endswith("|u")]
                options = calls if rng.random() < self.args.uno_with_play else plain
            return person.select(rng.choice(options), message=menu, timeout=wait), "play"
        if "Towers to grab…" in selects:
            sel = selects["Towers to grab…"]
            need = int(sel.get("min_values") or 1)
            values = rng.sample([str(o["value"]) for o in sel["options"]], need)
            return person.select(*values, message=menu, timeout=wait), "towers"
        if "Card to keep…" in selects:
            options = [str(o["value"]) for o in selects["Card to keep…"]["options"]]
            return person.select(rng.choice(options), message=menu, timeout=wait), "keep"
        if "Red" in labels:
            first = text.splitlines()[0] if text else ""
            counts = Counter(c[0] for c in TICKED.findall(first) if c[0] in COLOURS)
            colour = counts.most_common(1)[0][0] if counts else rng.choice("RBGY")
            return person.click(COLOURS[colour], message=menu, timeout=wait), "colour"
        if "Challenge" in labels:
            label = "Challenge" if rng.random() < 0.2 else "Accept +4"
            return (person.click(label, message=menu, timeout=wait),
                    "challenge" if label == "Challenge" else "accept")
        if "Play it" in labels:
            if drawn_fits(text):
                return person.click("Play it", message=menu, timeout=wait), "play it"
            return person.click("Keep it", message=menu, timeout=wait), "keep it"
        if "Draw" in labels:
            return person.click("Draw", message=menu, timeout=wait), "draw"
        return None

    def button_step(self, table: Table, person: Member, menu: Message, labels: list[str]
                    ) -> tuple[Any, str] | None:
        """The next click on a live hand panel's own buttons (issue 17): a card (with two
        cards, "and call UNO!" in ``--uno-with-play`` of the plays), the towers it grabs
        (a pair in one click), the card to keep after an instant UNO, Reopen, a Victory
        Lap's keep or pass; None when the menu has none (an older bot's menu, or a question
        asked with ordinary buttons)."""
        rng, wait = table.rng, self.args.give_up
        cards = hands.cards(menu)
        if cards:
            calls = [c for c in cards if c.endswith(":u")]
            if calls:  # two cards: the play may call UNO! with it
                plain = [c for c in cards if not c.endswith(":u")]
                cards = calls if rng.random() < self.args.uno_with_play else plain
            return person.click(custom_id=rng.choice(cards), message=menu, timeout=wait), "play"
        towers = hands.family(menu, hands.TOWER_FAMILY)
        if towers:
            return (person.click(custom_id=rng.choice(towers), message=menu, timeout=wait),
                    "towers")
        keeps = hands.family(menu, hands.KEEP_FAMILY)
        if keeps:
            return person.click(custom_id=rng.choice(keeps), message=menu, timeout=wait), "keep"
        if "Reopen" in labels:
            return person.click("Reopen", message=menu, timeout=wait), "Reopen"
        lap = [x for x in labels if x in ("Keep", "Pass") or x.startswith("Keep,")]
        if lap:
            return person.click(rng.choice(lap), message=menu, timeout=wait), "lap"
        return None

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

    async def scrape(self, took: list[tuple[float, int]]) -> None:
        """GET the bot's /metrics every ``--scrape`` seconds, as Prometheus would: (seconds,
        bytes) of each."""
        import aiohttp

        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        loop = asyncio.get_running_loop()
        async with aiohttp.ClientSession() as http:
            while True:
                await asyncio.sleep(self.args.scrape)
                started = loop.time()
                async with http.get(url) as r:
                    body = await r.read()
                    assert r.status == 200, r.status
                took.append((loop.time() - started, len(body)))

    async def step(self, table: Table, person: Member, menu: Message
                   ) -> InteractionResult | None:
        text = menu.text()
        labels = menu.button_labels()
        selects = {s.get("placeholder"): s for s in menu.selects()}
        rng = table.rng
        cards = hands.cards(menu)
        if cards:  # the live panel (issue 17): a button per card
            calls = [c for c in cards if c.endswith(":u")]
            plain = [c for c in calls or cards if not c.split(":")[4].startswith("W")]
            return await self.act(person.click(custom_id=rng.choice(plain or calls or cards),
                                               message=menu), "play", table=table)
        for prefix, what in ((hands.TOWER_FAMILY, "towers"), (hands.KEEP_FAMILY, "keep")):
            ids = hands.family(menu, prefix)
            if ids:
                return await self.act(person.click(custom_id=rng.choice(ids), message=menu),
                                      what, table=table)
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

    async def chat(self) -> None:
        """``--chat``: someone who is not playing says a line now and then in each table's
        channel (a Poisson process, ``args.chat`` lines a minute per channel)."""
        assert self.server is not None
        rate = self.args.chat * len(self.tables) / 60.0
        talkers: dict[int, Any] = {t.channel.id: t.channel.member(f"watcher-{t.channel.name}")
                                   for t in self.tables}
        while True:
            await asyncio.sleep(self.rng.expovariate(rate))
            table = self.rng.choice(self.tables)
            talkers[table.channel.id].say(self.rng.choice(
                ("nice", "gg", "who's winning?", "lol", "brb", "that +4 though")))
            self.count("chat lines")

    async def pace(self, turn: Callable[[Table], Coroutine[Any, Any, None]],
                   tasks: set[asyncio.Task[None]], seconds: float) -> int:
        """Start a turn at a table ready for one, ``args.rate`` times a second for
        ``seconds``; how many times no sampled table was ready."""
        loop = asyncio.get_running_loop()
        interval = 1.0 / self.args.rate
        next_at = loop.time()
        end = next_at + seconds
        skipped = 0
        while (now := loop.time()) < end:
            if now < next_at:
                await asyncio.sleep(next_at - now)
            next_at += interval
            idle = [t for t in self.rng.sample(self.tables, min(8, len(self.tables)))
                    if self.table_ready(t)]
            if not idle:
                skipped += 1
                continue
            task = asyncio.create_task(turn(idle[0]))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        return skipped

    async def play(self) -> dict[str, Any]:
        args = self.args
        assert self.bot is not None and self.bot.pid is not None
        pid = self.bot.pid
        loop = asyncio.get_running_loop()
        tasks: set[asyncio.Task[None]] = set()
        speed_before = machine_speed()
        turn = {"human": self.human_turn, "bot": self.take_move,
                "panel": self.panel_turn}[args.clicks]
        if args.warmup > 0:
            # the same load, not measured: the bot's caches (a name's picture, a table's
            # pieces) reach what hours of play keep in them
            self.note(f"warming up for {args.warmup:.0f} s")
            await self.pace(turn, tasks, args.warmup)
        self.stats.measuring = True
        assert self.server is not None
        requests_before = Counter(self.server.rate_limiter.requests)
        routes_before = Counter(self.server.rate_limiter.routes)
        cpu_before, cpu_gen = self.cpu_now(), self_cpu()
        spy = None
        if args.profile:
            spy = await asyncio.create_subprocess_exec(
                shutil.which("py-spy", path=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
                or "py-spy", "record", "--pid", str(pid), "--duration", str(int(args.seconds)),
                "--rate", "200", "--format", "raw", "--output", args.profile, "--nonblocking",
                *(["--gil"] if args.profile_gil else []),
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        late: list[tuple[float, float]] = []
        ticker = asyncio.create_task(self.loop_lateness(late))
        scrapes: list[tuple[float, int]] = []
        scraper = asyncio.create_task(self.scrape(scrapes)) if args.scrape > 0 else None
        chat = asyncio.create_task(self.chat()) if args.chat > 0 else None
        started = loop.time()
        sent_before = len(self.server.requests)
        skipped = await self.pace(turn, tasks, args.seconds)
        elapsed = loop.time() - started
        ticker.cancel()
        if scraper is not None:
            scraper.cancel()
        if chat is not None:
            chat.cancel()
        lates = [x for x, _when in late]
        cpu = {k: v - cpu_before.get(k, 0.0) for k, v in self.cpu_now().items()}
        cpu_bot = sum(v for k, v in cpu.items() if k.startswith("bot"))
        cpu_gen = self_cpu() - cpu_gen
        routes = Counter(self.server.rate_limiter.routes) - routes_before
        self.stats.measuring = False
        if tasks or self.peeks:
            await asyncio.wait(tasks | self.peeks, timeout=30)
        edits = self.token_edits(sent_before)
        hands = [size for index, name, size in self.server.uploads
                 if index >= sent_before and name.startswith("hand-")]
        if spy is not None:
            await spy.wait()
            self.note(f"profile (py-spy raw, collapsed stacks) in {args.profile}")
        behind = None
        if args.clicks == "panel":
            await asyncio.sleep(3.0)  # the bot's last edits land
            behind = self.panels_behind()
        rss_now, rss_peak = self.rss()
        await self.census("after playing", signal.SIGUSR2)
        moves = self.stats.counts["moves"]
        requests = Counter(self.server.rate_limiter.requests) - requests_before
        acks = self.stats.acks
        sent = self.interactions(started, started + elapsed)
        return {
            "tables": args.tables, "guilds": args.guilds, "rate asked": args.rate,
            "clicks": args.clicks, "table": args.table,
            "seconds": round(elapsed, 1), "warm-up s": args.warmup,
            "moves/s": round(moves / elapsed, 1),
            "clicks/s": round(self.stats.counts["clicks"] / elapsed, 1),
            "interactions/s": round(sum(sent.values()) / elapsed, 1),
            # every interaction sent (autocomplete, answered busy or failed ones included)
            "interactions per move": round(sum(sent.values()) / max(moves, 1), 2),
            "interactions by kind": dict(self.stats.kinds.most_common()),
            "answers": dict(sent),
            # as the people saw them (--clicks human waits for every deferred answer)
            "errors as people see them": {
                "answered late (10062)": sent["answered late (10062)"],
                "never answered": sent["never answered"],
                "deferred, never followed up": self.stats.counts["deferred, never followed up"],
                "answered busy": self.stats.counts["answered busy"],
            },
            "ack p50 ms": round(percentile(acks, 50) * 1000, 1),
            "ack p95 ms": round(percentile(acks, 95) * 1000, 1),
            "ack p99 ms": round(percentile(acks, 99) * 1000, 1),
            "ack max ms": round(max(acks, default=float("nan")) * 1000, 1),
            "ack mean ms": round(statistics.fmean(acks) * 1000, 1) if acks else None,
            # the bot's edits of private messages through an interaction token
            # (PATCH /webhooks/{app}/{token}/messages/@original): the live panels following
            # the game, and a hand's picture added after its answer
            "panel edits per move": round(edits["private"] / max(moves, 1), 2),
            "token edits of public messages per move": round(edits["public"] / max(moves, 1),
                                                             2),
            # the hands' pictures the bot uploaded (My hand, the panels on their player's
            # turn): how many and their bytes, per move
            "hand pictures per move": round(len(hands) / max(moves, 1), 2),
            "hand picture KB per move": round(sum(hands) / 1024 / max(moves, 1), 2),
            **({} if behind is None else {"panels behind the table at the end": behind}),
            # the panel in reach: at each decision, messages its player saw below it
            **({"decisions with at most 1 message below the panel %": round(
                100 * sum(1 for n in self.stats.below if n <= 1) / len(self.stats.below), 1),
                "messages below the panel p50/p95/max": [
                    percentile([float(n) for n in self.stats.below], 50),
                    percentile([float(n) for n in self.stats.below], 95),
                    max(self.stats.below)],
                "decisions measured": len(self.stats.below)} if self.stats.below else {}),
            # every request through an interaction token, by kind, per move
            "token requests per move": {
                {"private": "PATCH @original (private)",
                 "public": "PATCH @original (public)"}.get(k, k): round(v / max(moves, 1), 2)
                for k, v in edits.most_common()},
            "bot CPU ms/move": round(cpu_bot / max(moves, 1) * 1000, 2),
            "bot CPU %": round(cpu_bot / elapsed * 100, 1),
            # --scrape: the bot's /metrics read every so often while measuring
            **({"metrics scrapes": len(scrapes),
                "metrics scrape ms p50/max": [
                    round(percentile([t for t, _ in scrapes], 50) * 1000, 1),
                    round(max(t for t, _ in scrapes) * 1000, 1)],
                "metrics KB a scrape": round(statistics.fmean(b for _, b in scrapes) / 1024, 1)}
               if scrapes else {}),
            # each process (the bots, the database server) when more than the bot serves
            **({"CPU ms/move by process": {k: round(v / max(moves, 1) * 1000, 2)
                                           for k, v in cpu.items()},
                "CPU % by process": {k: round(v / elapsed * 100, 1) for k, v in cpu.items()},
                "CPU ms/move, all of them": round(sum(cpu.values()) / max(moves, 1) * 1000, 2)}
               if len(cpu) > 1 else {}),
            "CPU % idle by process": {k: round(v * 100, 1) for k, v in self.idle_cpu.items()},
            # the CPU the moves cost: each process's idle share taken out
            "CPU ms/move above idle, all of them": round(
                (sum(cpu.values()) - sum(self.idle_cpu.values()) * elapsed) / max(moves, 1)
                * 1000, 2),
            "generator CPU %": round(cpu_gen / elapsed * 100, 1),
            # the same pure-Python loop's CPU ms before and after playing (lower: faster)
            "machine speed ms, before/after": [speed_before, machine_speed()],
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
            **({"refused, by reason": dict(self.stats.refusals.most_common(8))}
               if self.stats.refusals else {}),
            "bot requests per move": {k: round(v / max(moves, 1), 2)
                                      for k, v in requests.most_common()},
            # every REST request the loopback got from the bot (all its processes), and
            # those that count against Discord's global 50 a second (not the interaction
            # callbacks and the application's webhooks)
            "REST requests/s": round(sum(routes.values()) / elapsed, 1),
            "global-limit requests/s": round(sum(
                n for route, n in routes.items() if global_bound(route)) / elapsed, 1),
        }

    def token_edits(self, since: int) -> Counter[str]:
        """The bot's PATCHes of ``@original`` through interaction tokens since the
        loopback's request ``since``, by the message edited: private (a hand panel) or
        public."""
        assert self.server is not None
        tokens = self.server.interactions_by_token
        out: Counter[str] = Counter()
        for method, path, _body in self.server.requests[since:]:
            path = path.partition("?")[0]
            if "/webhooks/" not in path:
                continue
            if method != "PATCH" or not path.endswith("/messages/@original"):
                out[f"{method} {'message' if '/messages/' in path else 'followup'}"] += 1
                continue
            state = tokens.get(path.split("/")[5])
            private = state is not None and state.original is not None \
                and state.original.ephemeral
            out["private" if private else "public"] += 1
        return out

    def interactions(self, start: float, end: float) -> Counter[str]:
        """The interactions sent between ``start`` and ``end`` (loop time) by how the bot
        answered them, as Discord would judge: in time (``acknowledged``), too late
        (10062: the person saw "This interaction failed"), never, or deferred and never
        followed up ("thinking..." left, or a deferred update that never came)."""
        assert self.server is not None
        out: Counter[str] = Counter()
        for state in self.server.interactions.values():
            if not start <= state.sent_at <= end:
                continue
            if state.ack_type is None:
                out["never answered"] += 1
            elif state.ack_type < 0:
                out["answered late (10062)"] += 1
            elif state.ack_type == 5 and state.original is not None \
                    and state.original.loading and not state.original.deleted:
                out["deferred, never followed up"] += 1
            else:
                out["acknowledged"] += 1
        return out

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
            if args.clicks == "panel":
                await self.open_panels()
            server.problems.clear()
            server.rate_limited.clear()
            self.note(f"playing at {args.rate} turns/s asked for {args.seconds} s "
                      f"({args.clicks} clicks, {args.table} table)")
            # The generator runs no collection while it measures (see setup's freeze): what
            # the run allocates is freed after it, a minute's garbage is at most a few
            # hundred MB
            gc.disable()
            try:
                result = await self.play()
            finally:
                gc.enable()
            if args.then_rate:
                # the load drops: does the bot recover (answers in time again, no backlog)?
                self.note(f"then playing at {args.then_rate} turns/s for "
                          f"{args.then_seconds} s")
                overloaded, self.stats = self.stats, Stats()
                asked = (args.rate, args.seconds, args.warmup)
                args.rate, args.seconds, args.warmup = args.then_rate, args.then_seconds, 0.0
                gc.disable()
                try:
                    then = await self.play()
                finally:
                    gc.enable()
                    args.rate, args.seconds, args.warmup = asked
                    self.stats = overloaded
                result["then"] = {k: then[k] for k in THEN_FIGURES if k in then}
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
            for bot in self.bots:
                await bot.stop()
            return result


THEN_FIGURES = ("rate asked", "seconds", "moves/s", "interactions/s",
                "errors as people see them", "ack p50 ms", "ack p95 ms", "ack p99 ms",
                "ack max ms", "bot CPU ms/move", "bot CPU %")
"""What ``--then-rate`` reports of its run."""


def global_bound(route: str) -> bool:
    """Whether a request of ``route`` ("METHOD /template", as the loopback counts them)
    counts against Discord's global rate limit: all but the interaction callback and the
    application's webhooks (the loopback's ``RateLimiter.is_interaction_endpoint``)."""
    path = route.partition(" ")[2]
    return not ((path.startswith("/interactions/") and path.endswith("/callback"))
                or path.startswith("/webhooks/{app"))


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"median start → READY s": statistics.median(r["start → READY s"] for r in runs),
            "median READY → every table answers s": statistics.median(
                r["READY → every table answers s"] for r in runs),
            "runs": runs}


def make_parser(description: str) -> argparse.ArgumentParser:
    """The bench's options (bench_fleet.py adds its own to them)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--guilds", type=int, default=0, help="default: tables / 50, at least 1")
    parser.add_argument("--rate", type=float, default=30.0, help="moves per second, in total")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=0.0,
                        help="seconds of the same load before measuring (not counted), so "
                        "that the bot's caches hold what a long session keeps in them (the "
                        "names' pictures of a thousand tables); 0: measure from the start, "
                        "as the figures before 2026-11-27 (night) were")
    parser.add_argument("--clicks", choices=("human", "panel", "bot"), default="human",
                        help="human (default): click as people do (My hand, think, pick, "
                        "answer each question after a think, now and then a slash command); "
                        "panel: people play from their live hand panel (issue 17), opened "
                        "once, which the bot edits as the game goes; "
                        "bot: the earlier bench (no think time; a move is every click the "
                        "game applied), to compare with figures measured with it")
    parser.add_argument("--table", choices=("v2", "embed"),
                        help="the table the bot posts: v2 (Components V2 with its picture, "
                        "the bot's default) or embed (UNO_TABLE_V2=0); default: "
                        "UNO_TABLE_V2 from the environment, else v2 with --clicks human "
                        "and embed with --clicks bot (as the earlier figures were measured)")
    parser.add_argument("--think-min-ms", type=float, default=150.0,
                        help="--clicks human: a person thinks between this...")
    parser.add_argument("--think-max-ms", type=float, default=450.0,
                        help="...and this many ms before each click after the first (uniform)")
    parser.add_argument("--slash", type=float, default=0.1,
                        help="--clicks human: the share of turns begun with a slash command "
                        "(/uno hand, /uno table, /uno play card:, equally) instead of My hand")
    parser.add_argument("--uno-with-play", type=float, default=0.5,
                        help="--clicks human: with two cards, the chance to call UNO! with "
                        "the play")
    parser.add_argument("--late-uno", type=float, default=0.5,
                        help="--clicks human: with one card and UNO! not called, the chance "
                        "to click UNO! after the play")
    parser.add_argument("--peek", type=float, default=0.75,
                        help="--clicks human: after each move, the chance that each player "
                        "waiting for their turn looks at their hand (My hand); 0: never. "
                        "0.75 (the default) makes about 4.6 interactions per move, as the "
                        "outside driver of issue 16 measured")
    parser.add_argument("--give-up", type=float, default=5.0,
                        help="--clicks human: seconds a person waits for an acknowledgement "
                        "(Discord says the interaction failed after 3) before trying again "
                        "later")
    parser.add_argument("--followup-wait", type=float, default=10.0,
                        help="--clicks human: seconds a person waits for a deferred answer "
                        "before counting it never followed up")
    parser.add_argument("--open-concurrency", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chat", type=float, default=0.0,
                        help="lines a minute a watcher says in each table's channel")
    parser.add_argument("--then-rate", type=float, default=0.0,
                        help="after the measured run, play at this rate (moves/s) and report "
                             "it apart: does an overloaded bot recover when the load drops?")
    parser.add_argument("--then-seconds", type=float, default=30.0)
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
    parser.add_argument("--bot-python", default=sys.executable,
                        help="the Python that runs the bot (e.g. a virtualenv with an earlier "
                        "checkout's requirements, for --bot-dir); default: this one")
    parser.add_argument("--bot-dir", help="run the bot from another checkout (an earlier "
                        "commit, to compare in the same run): git worktree add DIR COMMIT")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="the bot traces its allocations (slow) and reports the top sites")
    parser.add_argument("--profile", metavar="FILE",
                        help="sample the bot with py-spy while playing (collapsed stacks)")
    parser.add_argument("--profile-gil", action="store_true",
                        help="with --profile: only the samples holding the GIL (the bot's "
                        "Python CPU, threads waiting for the GIL left out; C code that "
                        "releases it, such as zlib, is not seen)")
    parser.add_argument("--restart-profile", metavar="FILE",
                        help="sample the restarted bot with py-spy for its first 6 s")
    parser.add_argument("--census", metavar="FILE",
                        help="the bot appends a census of its gc-tracked objects by type to "
                        "FILE (JSON lines) with the tables open and after playing (each "
                        "after a full collection, not counted in the GC figures); the last "
                        "adds the frozen garbage; UNO_GC_SAVEALL=1 adds the cyclic garbage "
                        "(a throwaway run: it leaks)")
    parser.add_argument("--scrape", type=float, default=0.0, metavar="S",
                        help="run the bot with METRICS_PORT and GET its /metrics every S "
                        "seconds while measuring (0: no metrics, the default)")
    parser.add_argument("--quiet", action="store_true")
    return parser


def settle(args: argparse.Namespace) -> argparse.Namespace:
    """The options' defaults that depend on others, paths made absolute."""
    if args.bot_dir:
        args.bot_dir = Path(args.bot_dir).resolve()
    if args.restart_compare:
        args.restart_compare = Path(args.restart_compare).resolve()
    if args.census:
        args.census = str(Path(args.census).resolve())
    if args.table is None:
        v2 = os.environ.get("UNO_TABLE_V2")
        args.table = ("embed" if v2 == "0" else "v2") if v2 else (
            "embed" if args.clicks == "bot" else "v2")
    if args.guilds <= 0:
        args.guilds = max(1, args.tables // 50)
    # the loopback logs every problem it sees; the report counts them instead
    logging.getLogger("loopback").setLevel(logging.ERROR)
    return args


def main() -> None:
    args = settle(make_parser(__doc__.split("\n\n")[0]).parse_args())
    result = asyncio.run(Bench(args).run())
    result["command"] = command_of("bench/bench_tables.py", args)
    show(result, as_json=args.json)


def command_of(script: str, args: argparse.Namespace) -> str:
    """The command that reproduces this run (the table and the bot's Python said outright)."""
    command = [a for a in sys.argv[1:] if a != "--quiet"]
    if "--table" not in command:
        command += ["--table", args.table]
    return " ".join(shlex.quote(a) for a in ["python", script, *command])


def show(result: dict[str, Any], *, as_json: bool) -> None:
    """Print the report: JSON, or one line a figure."""
    if as_json:
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
