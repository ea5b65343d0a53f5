"""Simulated people playing UNO through the bot's UI, for end-to-end tests.

A :class:`Human` decides only from what its member sees: the newest table message (whose
turn it is, card counts, UNO marks) and its own ephemeral hand menu (select options, buttons).
The saved game (:func:`support.games.saved_state`) is read only by :class:`PrivacyWatch`,
to check what each message shows against the true hands; it never drives a decision.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from loopback.models import Channel, Message
from loopback.users import InteractionResult, Member
from support.games import rows, saved_state

CARD = r"[RBGY](?:\d[UNO!]?|\+[12]|[SRG])|W(?:\+4|G|V)?"
TICKED = re.compile(rf"`({CARD})`")
LABELLED = re.compile(rf"\(({CARD})\)")
COLOUR_BUTTONS = {"R": "Red", "B": "Blue", "G": "Green", "Y": "Yellow"}
TURN_PING = re.compile(
    r"<@(\d+)>(?:, it's your turn\.|: accept or challenge|: choose the card|: name the starting"
    r"|: keep or pass the hand)")
PLAYER_ROW = re.compile(r"\*\*(?P<name>[^*]+)\*\*(?P<cpu> 🤖(?: [^:*]+)?)?: (?P<n>\d+) cards?")
"""A player's row on the table (a computer player's robot and level after the name)."""


def hands_of(state: dict[str, Any] | None) -> dict[str, list[str]]:
    if not state or not state.get("game"):
        return {}
    return {p: list(h) for p, h in state["game"]["hands"].items()}


def component_strings(msg: Message | dict[str, Any]) -> list[str]:
    comps = msg.components if isinstance(msg, Message) else msg.get("components") or []
    out: list[str] = []
    stack = list(comps)
    while stack:
        c = stack.pop()
        out += [str(c.get(k)) for k in ("label", "placeholder") if c.get(k)]
        if c.get("type") == 10 and c.get("content"):  # a Components V2 text display
            out.append(str(c["content"]))
        for item in c.get("items") or []:  # a media gallery's descriptions (alt text)
            if isinstance(item, dict) and item.get("description"):
                out.append(str(item["description"]))
        for o in c.get("options") or []:
            out += [str(o.get("label", "")), str(o.get("description", ""))]
        stack += list(c.get("components") or [])
        if isinstance(c.get("accessory"), dict):
            stack.append(c["accessory"])
    return out


def shown_codes(text: str) -> list[str]:
    return TICKED.findall(text) + LABELLED.findall(text)


def option_codes(msg: Message) -> list[str]:
    codes = []
    for sel in msg.selects():
        for o in sel.get("options") or []:
            value = str(o.get("value", "")).partition("|")[0]
            if re.fullmatch(CARD, value):
                codes.append(value)
    return codes


def payload_text(p: dict[str, Any]) -> str:
    """Readable text of a stored payload (content, embeds, component labels)."""
    bits = [p.get("content") or "", json.dumps(p.get("embeds") or [], ensure_ascii=False)]
    return "\n".join(bits + component_strings(p))


_CARD_LABEL = (r"(?:[🟥🟦🟩🟨] (?:(?:red|blue|green|yellow) )?"
               r"(?:\d(?: \[[UNO!]\])?|Draw One|Draw Two|Skip|Reverse|Grab-2-Towers)"
               r"|🌈 (?:Wild Draw Four|Wild Grab-A-Tower|Wild|Victory Lap))")
# Where a public message may name a card: one played, turned up, on top of the pile, drawn
# to choose the dealer (shown to all), or blocked by a tower. Anything else names a card
# that may sit in a hand.
_PUBLIC_CARD_CONTEXTS = [
    re.compile(r"plays " + _CARD_LABEL),
    re.compile(r"The first card is " + _CARD_LABEL),
    re.compile(r"Top card: \*\*" + _CARD_LABEL + r"\*\*"),
    re.compile(r"Cards drawn for the deal: [^\n]*"),
    re.compile(r"blocks the " + _CARD_LABEL),
]


_LABEL_RUN = re.compile(rf"({_CARD_LABEL})(?: ×(\d+))?")
HAND_LINES = ("**Your hand**", "**Hand in front of you**", "Your hand: ")
"""The lines of a private message that name the cards of a hand by their labels."""


@functools.cache
def _codes_by_label() -> dict[str, str]:
    """Every card's code by its English label ("🟦 blue 5 [U]" -> "B5U")."""
    from cogs.uno.table.words.cards import card_label
    from engine import Card, ParseError

    out: dict[str, str] = {}
    tails = [*(f"{n}{i}" for n in range(10) for i in ("", "U", "N", "O", "!")),
             "+1", "+2", "S", "R", "G"]
    for code in [*(c + t for c in "RBGY" for t in tails), "W", "W+4", "WG", "WV"]:
        try:
            card = Card.parse(code)
        except ParseError:
            continue
        out[card_label(card, None)] = card.code
    return out


def label_codes(line: str) -> list[str]:
    """The cards a hand's line names by their labels ("🟥 red 1, 🟩 green 2 ×2"), one code
    per card held."""
    labels = _codes_by_label()
    return [labels[m.group(1)] for m in _LABEL_RUN.finditer(line) if m.group(1) in labels
            for _ in range(int(m.group(2) or 1))]


def button_codes(msg: Message | dict[str, Any]) -> list[str]:
    """The cards a hand panel's buttons show (a message, or one version of it), one code
    per card held (a button's label ends "×2" for two alike; "and call UNO!" buttons
    repeat a card)."""
    codes: list[str] = []
    stack = list(msg.components if isinstance(msg, Message) else msg.get("components") or [])
    buttons = []
    while stack:
        c = stack.pop(0)
        if c.get("type") == 2:
            buttons.append(c)
        stack += list(c.get("components") or [])
    for b in buttons:
        parts = str(b.get("custom_id", "")).split(":")
        if parts[:2] != ["uno", "pc"] or parts[5:] == ["u"]:
            continue
        many = re.search(r" ×(\d+)$", str(b.get("label", "")))
        codes += [parts[4]] * (int(many.group(1)) if many else 1)
    return codes


def stray_card_labels(text: str) -> list[str]:
    """Card labels in ``text`` outside the contexts where a card is public."""
    for pattern in _PUBLIC_CARD_CONTEXTS:
        text = pattern.sub("", text)
    return re.findall(_CARD_LABEL, text)


@dataclass
class PrivacyWatch:
    """Checks, after every action, each message changed since the last check."""

    db_path: str
    channel: Channel
    seq: int = 0
    found: list[str] = field(default_factory=list)
    doubtful: list[tuple[str, Counter[str], str]] = field(default_factory=list)
    """(owner, cards, problem): a private message showed cards its owner was not seen
    holding yet. The bot edits hand panels by itself and an answer can come before its
    change is saved, so the saved games read around one action may miss a hand it showed:
    it is a violation only if the owner is never seen holding those cards in the game."""
    hand_messages: int = 0
    challenge_reveals: list[tuple[int, str]] = field(default_factory=list)
    held: dict[int, dict[str, Counter[str]]] = field(default_factory=dict)
    """By round, every card each player was seen holding (the most of each code at once):
    the bot edits hand panels by itself, and an edit built a moment ago may arrive after
    the next action, showing the hand as it was then. It may show only cards its owner was
    seen holding in this game."""

    @property
    def violations(self) -> list[str]:
        """Everything found, and every doubtful private message still unexplained."""
        if any(not cards <= self._held_by(owner) for owner, cards, _p in self.doubtful):
            self.witness_log()
        return [*self.found, *(problem for owner, cards, problem in self.doubtful
                               if not cards <= self._held_by(owner))]

    def _held_by(self, owner: str) -> Counter[str]:
        own: Counter[str] = Counter()
        for held in self.held.values():
            own |= held.get(owner, Counter())
        return own

    def witness_log(self) -> None:
        """Every hand every player held in this channel's games, from the move log played
        back step by step (the saved game read around each action shows only some of
        them): a doubtful private message is explained only by a hand really held."""
        from cogs.uno._movelog import replay_document
        from engine import move_from_dict
        from engine.replay import build_game

        games: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        for game_id, seq, entry in rows(
                self.db_path, "SELECT game_id, seq, entry FROM game_log WHERE channel_id = ? "
                "ORDER BY created_at, seq", self.channel.id):
            games.setdefault(str(game_id), []).append((int(seq), json.loads(entry)))
        held = self.held.setdefault(-1, {})
        for entries in games.values():
            entries.sort(key=lambda e: e[0])
            if not entries or entries[0][0] != 0:
                continue
            doc = replay_document(entries[0][1], [e for _seq, e in entries[1:]])
            game, _lines = build_game(doc)
            for step in [None, *doc["moves"]]:
                if step is not None:
                    if step.get("leave") is True:
                        game.remove_player(step["player"])
                    else:
                        game.apply(move_from_dict(step))
                for p in game.players:
                    cards = Counter(c.code for c in game.hand(p))
                    held[p] = held.get(p, Counter()) | cards

    def check(self, pre: dict[str, Any] | None, post: dict[str, Any] | None) -> None:
        """``pre``/``post``: the saved game just before and after the action."""
        before, after = hands_of(pre), hands_of(post)
        for state in (pre, post):
            game = (state or {}).get("game") or {}
            held = self.held.setdefault(int(game.get("round") or 0), {})
            for owner, cards in hands_of(state).items():
                held[owner] = held.get(owner, Counter()) | Counter(cards)
        w4 = ((pre or {}).get("game") or {}).get("w4")
        seq = self.seq
        self.seq = self.channel.server.change_seq
        # Menus and tables are edited only while they are recent; the full history of
        # public messages is scanned again by scan_public_history.
        for msg in self.channel.all_messages[-150:]:
            if msg.change_seq <= seq:
                continue
            if msg.ephemeral_for is None:
                self._check_public(msg)
            elif not _only_files_changed(msg):
                # (a hand menu's picture is added by a later edit: its text was checked
                # against the game as it was when the menu was sent)
                self._check_private(msg, before, after, w4)

    def _check_public(self, msg: Message) -> None:
        text = "\n".join([msg.text(), *component_strings(msg)])
        found = shown_codes(text)
        if found:
            self.found.append(f"public message shows card codes {found}: {text[:300]!r}")
        stray = stray_card_labels(text)
        if stray:
            self.found.append(f"public message shows cards {stray} where no card is "
                                   f"public: {text[:300]!r}")
        if msg.selects():
            self.found.append(f"public message has a select: {msg!r}")

    def _check_private(self, msg: Message, before: dict[str, list[str]],
                       after: dict[str, list[str]], w4: dict[str, Any] | None) -> None:
        owner = str(msg.ephemeral_for)
        for line in msg.text().splitlines():
            codes = shown_codes(line)
            if "'s hand when the Wild Draw Four was played:" in line:
                if not w4 or w4.get("victim") != owner:
                    self.found.append(f"{owner} sees another hand without challenging: "
                                           f"{line!r}")
                    continue
                against = w4["player"]
                # the hand the Wild Draw Four was played from (saved with it)
                theirs = set(before.get(against, [])) | set(after.get(against, [])) | \
                    set(w4.get("hand") or [])
                if not set(codes) <= theirs:
                    self.found.append(f"challenge reveal {codes} is not {against}'s hand "
                                           f"{sorted(theirs)}")
                self.challenge_reveals.append((msg.ephemeral_for or 0, against))
                continue
            if line.startswith(HAND_LINES) and not codes:
                # a hand named by its cards' labels, each once; or its count alone, its
                # buttons showing the cards
                codes = label_codes(line) if ": " in line else button_codes(msg)
            if line.startswith("**Your hand**"):
                self.hand_messages += 1
                m = re.match(r"\*\*Your hand\*\* \((\d+) cards?\)", line)
                if not m or int(m.group(1)) != len(codes):
                    self.found.append(f"hand count does not match its cards: {line!r}")
                self.doubtful.append((owner, Counter(codes),
                                      f"{owner}'s hand message {sorted(codes)} is not a hand "
                                      "they were seen holding"))
                continue
            self.doubtful.append((owner, Counter(set(codes)),
                                  f"{owner}'s ephemeral shows cards they were not seen "
                                  f"holding: {line!r}"))
        self.doubtful.append((owner, Counter(set(option_codes(msg))),
                              f"{owner}'s menu offers cards they were not seen holding"))
        self.doubtful.append((owner, Counter(button_codes(msg)),
                              f"{owner}'s panel shows cards they were not seen holding"))

    def scan_public_history(self) -> None:
        """Every public message and every earlier version of it (edits)."""
        for msg in self.channel.all_messages:
            if msg.ephemeral_for is not None:
                continue
            self._check_public(msg)
            for old in msg.history:
                found = shown_codes(payload_text(old))
                if found:
                    self.found.append(f"an earlier version of {msg.id} showed {found}")


def _only_files_changed(msg: Message) -> bool:
    """Whether the message's last edit changed nothing but its files."""
    if not msg.history:
        return False
    last = msg.history[-1]
    return (last.get("content") == msg.content and last.get("components") == msg.components
            and last.get("embeds") == msg.embeds and last.get("attachments") != msg.attachments)


def turn_of(table: Message) -> int | None:
    """The member the table's turn line mentions (None: a computer player's turn)."""
    found = TURN_PING.findall(table.text())
    return int(found[-1]) if found else None


def uno_forgotten(table: Message) -> list[str]:
    """Names shown with one card and no UNO! mark."""
    out = []
    for line in table.text().splitlines():
        m = PLAYER_ROW.search(line)
        if m and m.group("n") == "1" and "UNO!" not in line:
            out.append(m.group("name"))
    return out


def is_answer(text: str) -> bool:
    """A move's private answer (as opposed to a one-sentence refusal)."""
    return ("**Your hand**" in text or text.startswith(("You drew", "You kept", "Caught!"))
            or "'s hand when" in text or "**Hand in front of you**" in text)


def is_table(m: Message) -> bool:
    return "My hand" in m.button_labels()


@dataclass
class Stats:
    counts: Counter[str] = field(default_factory=Counter)
    refusals: list[str] = field(default_factory=list)
    catch_refusals: list[str] = field(default_factory=list)

    def add(self, what: str) -> None:
        self.counts[what] += 1


class Human:
    """One simulated person."""

    def __init__(self, member: Member, rng: random.Random, stats: Stats, watch: PrivacyWatch,
                 *, forget: float = 0.3, challenge: float = 0.4) -> None:
        self.m = member
        self.rng = rng
        self.stats = stats
        self.watch = watch
        self.forget = forget
        self.challenge = challenge
        self.hand: list[str] = []
        self.uno_after_keep = False

    @property
    def name(self) -> str:
        return self.m.name.capitalize()

    def _state(self) -> dict[str, Any] | None:
        return saved_state(self.watch.db_path, self.m.channel)

    async def _do(self, action: Any, *args: Any, **kwargs: Any) -> InteractionResult:
        pre = self._state()
        r: InteractionResult = await action(*args, **kwargs)
        self.watch.check(pre, self._state())
        return r

    async def catch(self) -> InteractionResult:
        pre = self._state()
        panels = self.m.ephemerals()
        shown = [p.change_seq for p in panels]
        r = await self._do(self.m.click, "Catch")
        refusal = None if is_answer(r.text) else r.text
        if r.response_type == 6:
            # A catcher whose hand panel is live is answered there, the click acknowledged
            # with no message, a catch made or refused: a catch made is saved before the
            # acknowledgement; a refusal shows on top of the panel.
            refusal = None if self._state() != pre else await self._panel_note(panels, shown)
        if refusal is None:
            self.stats.add("catch ok")
        else:
            self.stats.add("catch refused")
            self.stats.catch_refusals.append(refusal)
        return r

    async def _panel_note(self, panels: list[Message], shown: list[int]) -> str:
        """The first line of the panel the bot edited next (the reason of a refusal)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 3
        while loop.time() < deadline:
            for panel, seq in zip(panels, shown, strict=True):
                if panel.change_seq != seq:
                    return panel.text().split("\n", 1)[0]
            await self.m.channel.server.wait_change(0.2)
        return "(no answer in the panel)"

    def _caught_before_uno(self) -> bool:
        """The last click was UNO! with one card after a keep, and the saved game shows
        more than one card now: someone caught us between the menu and the click."""
        tried, self.uno_after_keep = self.uno_after_keep, False
        hand = hands_of(self._state()).get(str(self.m.id), [])
        return tried and len(hand) > 1

    async def take_turn(self) -> bool:
        """Open My hand and play the turn; False when the menu says it isn't our turn."""
        r = await self._do(self.m.click, "My hand")
        menu = r.message
        assert menu is not None and menu.ephemeral_for == self.m.id, r
        acted = False
        for _step in range(10):
            result = await self._step(menu)
            if result is None:
                break
            acted = True
            if result.response_type != 7 and not is_answer(result.text):
                if self._caught_before_uno():
                    # UNO! after keeping a drawn card, but a computer player caught us
                    # first (a race people meet too): the bot rightly refused
                    self.stats.add("uno too late: caught first")
                    break
                self.stats.refusals.append(f"{self.name}: {result.text}")
                break
            menu = result.message
            assert menu is not None
        return acted

    async def _step(self, menu: Message) -> InteractionResult | None:
        text = menu.text()
        first = text.splitlines()[0] if text else ""
        if first.startswith("**Your hand**"):
            self.hand = TICKED.findall(first)
        labels = menu.button_labels()
        selects = {s.get("placeholder"): s for s in menu.selects()}
        rng = self.rng
        cards = [b for b in menu.buttons()
                 if str(b.get("custom_id", "")).startswith("uno:pc:") and not b.get("disabled")]
        if cards:
            ids = [str(b["custom_id"]) for b in cards]
            calls = [i for i in ids if i.endswith(":u")]
            if calls:
                if rng.random() < self.forget:
                    self.stats.add("forgot uno")
                    ids = [i for i in ids if not i.endswith(":u")]
                else:
                    self.stats.add("uno with play")
                    ids = calls
            elif rng.random() < 0.04:
                self.stats.add("draw instead")
                return await self._do(self.m.click, "Draw", message=menu)
            plain = [i for i in ids if not i.split(":")[4].startswith("W")]
            laps = [i for i in ids if i.split(":")[4].startswith("WV")]
            if laps and rng.random() < 0.5:
                self.stats.add("victory lap")
                return await self._do(self.m.click, custom_id=rng.choice(laps), message=menu)
            self.stats.add("play")
            return await self._do(self.m.click, custom_id=rng.choice(plain or ids),
                                  message=menu)
        towers = [str(b["custom_id"]) for b in menu.buttons()
                  if str(b.get("custom_id", "")).startswith("uno:tb:")]
        if towers:
            self.stats.add("towers")
            return await self._do(self.m.click, custom_id=rng.choice(towers), message=menu)
        kept = [str(b["custom_id"]) for b in menu.buttons()
                if str(b.get("custom_id", "")).startswith("uno:kb:")]
        if kept:
            self.stats.add("keep")
            return await self._do(self.m.click, custom_id=rng.choice(kept), message=menu)
        if "Card to keep…" in selects:
            options = [str(o["value"]) for o in selects["Card to keep…"]["options"]]
            self.stats.add("keep")
            return await self._do(self.m.select, rng.choice(options), message=menu)
        if "Red" in labels:
            counts = Counter(c[0] for c in self.hand if c[0] in COLOUR_BUTTONS)
            colour = counts.most_common(1)[0][0] if counts else rng.choice("RBGY")
            self.stats.add("colour")
            return await self._do(self.m.click, COLOUR_BUTTONS[colour], message=menu)
        if "Challenge" in labels:
            if rng.random() < self.challenge:
                self.stats.add("challenge")
                return await self._do(self.m.click, "Challenge", message=menu)
            self.stats.add("accept")
            return await self._do(self.m.click, "Accept +4", message=menu)
        keeps = [label for label in labels if label == "Keep" or label.startswith("Keep, ")]
        if keeps:
            # Victory Lap: pass the hand on (while we may) or keep it, at random
            if "Pass" in labels and rng.random() < 0.5:
                self.stats.add("lap pass")
                return await self._do(self.m.click, "Pass", message=menu)
            self.stats.add("lap keep")
            return await self._do(self.m.click, rng.choice(keeps), message=menu)
        if "Play it" in labels:
            if rng.random() < 0.85:
                self.stats.add("play it")
                return await self._do(self.m.click, "Play it", message=menu)
            self.stats.add("keep it")
            return await self._do(self.m.click, "Keep it", message=menu)
        if "Draw" in labels:
            self.stats.add("draw")
            return await self._do(self.m.click, "Draw", message=menu)
        live = [str(b.get("label", "")) for b in menu.buttons() if not b.get("disabled")]
        if live == ["UNO!"] and "kept" in text:
            self.stats.add("uno after keep")
            self.uno_after_keep = True
            return await self._do(self.m.click, "UNO!", message=menu)
        return None


async def play_until_won(channel: Channel, humans: Iterable[Human], rng: random.Random, *,
                         max_tables: int = 3000, wait: float = 15.0,
                         unfinished_ok: bool = False, won: str = "won the game"
                         ) -> Message | None:
    """Follow the table (posted anew or edited in place) until someone wins the game (a
    message says ``won``); return the winning announcement (None after ``max_tables``
    versions of the table when ``unfinished_ok``)."""
    by_id = {h.m.id: h for h in humans}
    by_name = {h.name: h for h in by_id.values()}
    last = 0

    def fresh(m: Message) -> bool:
        return (m.change_seq > last and is_table(m)) or won in m.text()

    for _ in range(max_tables):
        msg = await channel.wait_for(fresh, timeout=wait)
        if won in msg.text():
            return msg
        last = msg.change_seq
        forgot = [by_name[n] for n in uno_forgotten(msg) if n in by_name]
        if forgot:
            catchers = [h for h in by_id.values() if h not in forgot]
            if catchers:
                await rng.choice(catchers).catch()
        turn = turn_of(msg)
        if turn in by_id:
            await by_id[turn].take_turn()
    if unfinished_ok:
        return None
    raise AssertionError(f"no winner after {max_tables} tables")
