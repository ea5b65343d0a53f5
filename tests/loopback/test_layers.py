"""The loopback Discord's server sits on top (loopback/README.md, "Files"): the route modules
reach ``server.LoopbackDiscord`` through protocols of what they need, and none imports it.
(No circle, no private names, no long file: tests/tools/test_house.py, for every package.)

Read from the source with ``ast``: every import counts, also one made inside a function or
under ``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
from pathlib import Path

LOOPBACK = Path(__file__).resolve().parents[2] / "loopback"
TOP = {"server", "fixtures", "playground"}  # the server and what is built on it


def _modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text(encoding="utf-8"), str(p))
            for p in sorted(LOOPBACK.glob("*.py")) if p.stem != "__init__"}


def _imports(tree: ast.Module) -> dict[str, set[str]]:
    """loopback module -> the names taken from it (``*`` for the module itself)."""
    out: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                out.setdefault(node.module.split(".")[0], set()).update(
                    a.name for a in node.names)
            elif node.level == 1:  # from . import x
                for a in node.names:
                    out.setdefault(a.name, set()).add("*")
            elif node.module and node.module.split(".")[0] == "loopback":
                parts = node.module.split(".")
                if len(parts) == 2:
                    out.setdefault(parts[1], set()).update(a.name for a in node.names)
                else:
                    for a in node.names:
                        out.setdefault(a.name, set()).add("*")
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "loopback" and len(parts) == 2:
                    out.setdefault(parts[1], set()).add("*")
    return out


def test_only_the_top_imports_the_server() -> None:
    for m, tree in _modules().items():
        if m in TOP:
            continue
        assert "server" not in _imports(tree), f"loopback/{m}.py imports loopback/server.py"
