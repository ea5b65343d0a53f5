"""A loopback Discord for tests: a small gateway + REST server on 127.0.0.1.

See ``server.LoopbackDiscord`` and ``fixtures`` for the pytest plugin.
"""

from .bot_process import BotProcess
from .fixtures import LoopbackTest
from .models import Channel, Guild, Message, Overwrite, Problem, Refusal, Role
from .server import Fault, LoopbackDiscord
from .users import (
    InteractionFailed,
    InteractionResult,
    Member,
)

__all__ = [
    "BotProcess",
    "Channel",
    "Fault",
    "Guild",
    "InteractionFailed",
    "InteractionResult",
    "LoopbackDiscord",
    "LoopbackTest",
    "Member",
    "Message",
    "Overwrite",
    "Problem",
    "Refusal",
    "Role",
]
