"""Discord's write limits as the outbox (``_outbox.py``) keeps them, and the interaction
tokens that write outside the global one.

Channel routes (``/channels/{id}/messages``) share the bot's global limit of 50 requests a
second with everything else it does, besides five writes per five seconds per channel; an
interaction's followup webhook works for 15 minutes, outside the global limit, with a bucket
of its own (five requests per two seconds). :class:`Buckets` keeps one channel's windows,
:class:`Budget` the process's writes a second; :func:`usable` says whether an interaction can
carry a write now, as a :class:`Token` kept without the interaction itself.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import discord

WRITES_PER_WINDOW = 5
WRITE_WINDOW = 5.0
"""Discord allows five writes per five seconds per channel (posts and edits alike)."""
TOKEN_WRITES = 5
TOKEN_WINDOW = 2.0
"""An interaction token's webhook bucket: five requests per two seconds."""
TOKEN_LIFE = 14 * 60.0
"""An interaction token works for 15 minutes; a minute is kept in hand."""
ANSWER_WAIT_STEPS = 25
"""Steps of 20 ms a post waits for its carrying interaction to be answered."""


@dataclass(frozen=True)
class Token:
    """An answered interaction's followup webhook, kept without the interaction itself."""

    id: int
    webhook: discord.Webhook
    expires: float
    """Monotonic seconds after which the token is not used any more."""


Carrier = discord.Interaction[Any] | Token | None
"""A channel's newest interaction (or its token): its webhook may carry a write."""


class Budget:
    """Writes per second for the whole process, handed out first come, first served."""

    def __init__(self, per_second: float) -> None:
        self.gap = 1.0 / per_second
        self.next = 0.0

    def reserve(self) -> float:
        """Take the next write's place: how many seconds until it comes."""
        now = time.monotonic()
        slot = max(now, self.next)
        self.next = slot + self.gap
        return slot - now

    def free_at(self) -> float:
        """When the next place would come (monotonic seconds)."""
        return max(time.monotonic(), self.next)


class Buckets:
    """One channel's recent writes: on the channel route, and through each token."""

    def __init__(self) -> None:
        self.channel: deque[float] = deque()
        self.tokens: dict[int, deque[float]] = {}

    async def room(self, token_id: int | None, scale: float) -> deque[float]:
        """Wait until one more write fits in the bucket of the token ``token_id`` (None:
        the channel route's window), time running ``scale`` times as long; the bucket, to
        note the write in once it goes."""
        if token_id is not None:
            window = TOKEN_WINDOW * scale
            for old in [t for t, w in self.tokens.items()
                        if not w or w[-1] < time.monotonic() - window]:
                del self.tokens[old]  # buckets that have emptied
            writes = self.tokens.setdefault(token_id, deque())
            limit = TOKEN_WRITES
        else:
            writes, limit, window = self.channel, WRITES_PER_WINDOW, WRITE_WINDOW * scale
        while True:
            now = time.monotonic()
            while writes and writes[0] <= now - window:
                writes.popleft()
            if len(writes) < limit:
                return writes
            await asyncio.sleep(writes[0] + window - now + 0.01)


async def answered(carrier: Carrier) -> None:
    """Give an interaction that is being answered a moment to be (the click that moved the
    game is answered right after the move is saved, while its table is being gathered)."""
    if not isinstance(carrier, discord.Interaction):
        return
    for _ in range(ANSWER_WAIT_STEPS):
        if carrier.response.is_done():
            return
        await asyncio.sleep(0.02)


def usable(carrier: Carrier) -> Token | None:
    """The webhook an interaction lets the bot write through now: answered (not with a
    private "thinking" message, whose first followup would replace it) and not about to
    expire; None when there is none."""
    if carrier is None or isinstance(carrier, Token):
        return carrier if carrier is not None and carrier.expires > time.monotonic() else None
    if not carrier.response.is_done():
        return None
    if carrier.response.type is discord.InteractionResponseType.deferred_channel_message:
        return None
    age = (discord.utils.utcnow() - carrier.created_at).total_seconds()
    if age >= TOKEN_LIFE:
        return None
    return Token(carrier.id, carrier.followup, time.monotonic() + TOKEN_LIFE - age)


def settled(carrier: Carrier) -> Carrier:
    """An answered interaction as its token (or nothing, if it can carry no post), one that
    is not answered yet as it is: an interaction with its message, members and response is
    a reference cycle of some 30 objects, and kept as the carrier until the table's next
    click it outlived the young garbage collections and waited for a full one (or, frozen,
    was never freed)."""
    if carrier is not None and not isinstance(carrier, Token) and carrier.response.is_done():
        return usable(carrier)
    return carrier
