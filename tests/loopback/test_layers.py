"""The loopback Discord's server sits on top (loopback/README.md, "Files"): the route modules
reach ``server.LoopbackDiscord`` through protocols of what they need, and none imports it.
(No circle, no private names, no long file: tests/tools/test_house.py, for every package.)"""

from __future__ import annotations

from support.house import IMPORTS

TOP = {"loopback.server", "loopback.fixtures", "loopback.playground"}
"""The server and what is built on it."""


def test_only_the_top_imports_the_server() -> None:
    wrong = [m for m, deps in IMPORTS.items()
             if m.startswith("loopback.") and m not in TOP and "loopback.server" in deps]
    assert not wrong, f"import loopback/server.py from below it: {wrong}"
