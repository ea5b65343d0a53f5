"""What the capacity benchmark's simulated people read in a private hand, old or new.

The bot's hand was a menu answered anew at every My hand: a "Play a card…" select, a
"Towers to grab…" select and a "Card to keep…" select (the bot of an earlier checkout,
``--bot-dir``). Since issue 17 it is a live panel: each distinct card a button
(``uno:pc:<gid>:<serial>:<code>[:u]``, enabled when playable, ``:u`` = and call UNO), the
towers a card grabs buttons (``uno:tb:…``, a pair in one click), instant UNO's keep buttons
(``uno:kb:…``), and the bot edits the panel through the token of the last interaction that
showed it (``PATCH /webhooks/{app}/{token}/messages/@original``). These helpers read
either, so one run can compare an old bot with the new one: the people use what the bot
offers.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from loopback.models import Message

CARD_FAMILY, TOWER_FAMILY, KEEP_FAMILY = "uno:pc:", "uno:tb:", "uno:kb:"
DECISIONS = frozenset(("Draw", "Play it", "Keep it", "Accept +4", "Challenge", "Keep", "Pass",
                       "Red", "Blue", "Green", "Yellow", "Reopen"))
"""Labels of the buttons by which a panel asks its player for something (with the card,
tower and keep buttons, and a Victory Lap's "Keep, <colour>")."""
DEAD = ("stopped following the game", "moved to a newer message", "The game is over")
"""A panel that says one of these no longer follows the game: its player opens it again."""
MOVE_NOTES = ("You drew", "You kept", "You called UNO", "Since you last looked", "Caught",
              "🏁", "Done.")
"""Lines a move's answer puts above the hand (anything else there is a refusal's reason)."""


def enabled(msg: Message) -> list[dict[str, Any]]:
    return [b for b in msg.buttons() if not b.get("disabled")]


def family(msg: Message, prefix: str) -> list[str]:
    """The custom_ids of the enabled buttons of a family (``uno:pc:``, ``uno:tb:``...)."""
    return [str(b["custom_id"]) for b in enabled(msg)
            if str(b.get("custom_id", "")).startswith(prefix)]


def cards(msg: Message) -> list[str]:
    """The playable card buttons (custom_ids; those ending ``:u`` also call UNO)."""
    return family(msg, CARD_FAMILY)


def offers_cards_as_buttons(msg: Message) -> bool:
    """The hand shows its cards as buttons (the live panel), playable or not."""
    return any(str(b.get("custom_id", "")).startswith(CARD_FAMILY) for b in msg.buttons())


_READ: WeakKeyDictionary[Message, tuple[int, bool, bool]] = WeakKeyDictionary()
"""What ``decides`` and ``dead`` found in a message, at its version (``change_seq``): the
generator asks them of eight tables' panels every tick, most of which have not changed."""


def _read(msg: Message) -> tuple[bool, bool]:
    """(decides, dead but for deletion) of ``msg`` as it is now."""
    seen = _READ.get(msg)
    if seen is None or seen[0] != msg.change_seq:
        text = msg.text()
        stale = any(d in text for d in DEAD) and "Reopen" not in msg.button_labels()
        seen = _READ[msg] = (msg.change_seq, _decides(msg), stale)
    return seen[1], seen[2]


def decides(msg: Message) -> bool:
    """The panel asks its player for something now (their turn, a question of the card
    they picked, an answer they owe, Reopen)."""
    return _read(msg)[0]


def _decides(msg: Message) -> bool:
    for b in enabled(msg):
        cid, label = str(b.get("custom_id", "")), str(b.get("label", ""))
        if cid.startswith((CARD_FAMILY, TOWER_FAMILY, KEEP_FAMILY)) or label in DECISIONS \
                or label.startswith("Keep,"):
            return True
    return False


def dead(msg: Message) -> bool:
    """The panel no longer follows the game (its player must open it again)."""
    return msg.deleted or _read(msg)[1]


def refusal(msg: Message) -> str | None:
    """The reason a panel shows above the hand after a click that was refused or out of
    date (the bot answers such a click in the panel itself), else None."""
    text = msg.text()
    head, sep, _rest = text.partition("**Your hand**")
    if not sep:
        head, sep, _rest = text.partition("**Hand in front of you**")
    if not sep:
        return None
    lines = [x for x in head.splitlines() if x.strip()]
    odd = [x for x in lines if not x.startswith(MOVE_NOTES)
           and "hand when the Wild Draw Four was played" not in x]
    return odd[0] if odd else None
