"""A loopback Discord: a small gateway + REST server on 127.0.0.1 that a real discord.py bot
logs in to. The tests drive it (``fixtures`` is the pytest plugin), and the playground
(``playground``, ``web``) shows it in a browser.
"""

from typing import TYPE_CHECKING, Any

from .bot_process import BotProcess
from .models import Channel, Guild, Message, Overwrite, Problem, Refusal, Role
from .server import Fault, LoopbackDiscord
from .users import (
    InteractionFailed,
    InteractionResult,
    Member,
)

if TYPE_CHECKING:
    from .fixtures import LoopbackTest


def __getattr__(name: str) -> Any:
    # the pytest plugin needs pytest: import it only when asked for
    if name == "LoopbackTest":
        from .fixtures import LoopbackTest

        return LoopbackTest
    raise AttributeError(name)


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
