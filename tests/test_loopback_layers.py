"""The loopback Discord's modules import one way (loopback/README.md, "Files").

Read from the source with ``ast``: every import counts, also one made inside a function or
under ``if TYPE_CHECKING:``, since a circle through either still ties the modules together.
The route modules reach ``server.LoopbackDiscord`` through protocols of what they need.
"""

from __future__ import annotations

import ast
from pathlib import Path

LOOPBACK = Path(__file__).resolve().parent.parent / "loopback"
MAX_LINES = 600
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


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph``, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return [*path[path.index(n):], n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_no_import_circle_in_loopback() -> None:
    modules = _modules()
    graph = {m: {n for n in _imports(t) if n in modules} for m, t in modules.items()}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_only_the_top_imports_the_server() -> None:
    for m, tree in _modules().items():
        if m in TOP:
            continue
        assert "server" not in _imports(tree), f"loopback/{m}.py imports loopback/server.py"


def _defined(tree: ast.Module) -> set[str]:
    """Every name a module defines: functions, classes, their members and attributes."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def test_no_module_uses_another_modules_private_names() -> None:
    found = []
    for m, tree in _modules().items():
        for origin, names in _imports(tree).items():
            found += [f"loopback/{m}.py imports {n} from loopback/{origin}.py"
                      for n in names if n.startswith("_") and not n.startswith("__")]
        own = _defined(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__") and node.attr not in own):
                found.append(f"loopback/{m}.py line {node.lineno} uses .{node.attr}, "
                             "defined in another module")
    assert not found, "\n".join(found)


def test_no_loopback_module_is_over_the_limit() -> None:
    long = {p.name: n for p in LOOPBACK.glob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"over {MAX_LINES} lines: {long}"
