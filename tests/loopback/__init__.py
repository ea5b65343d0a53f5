"""A loopback Discord for tests: a small gateway + REST server on 127.0.0.1.

See ``server.LoopbackDiscord`` and ``fixtures`` for the pytest plugin.
"""

from .bot_process import BotProcess
from .fixtures import LoopbackTest
from .models import Channel, Guild, Message, Problem
from .server import LoopbackDiscord
from .users import (
    InteractionFailed,
    InteractionResult,
    Member,
)

__all__ = [
    "BotProcess",
    "Channel",
    "Guild",
    "InteractionFailed",
    "InteractionResult",
    "LoopbackDiscord",
    "LoopbackTest",
    "Member",
    "Message",
    "Problem",
]
