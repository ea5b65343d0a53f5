"""The house's shape, kept by a test (docs/architecture.md): no import circle anywhere, the
rooms import one way, no module reaches into another's private names, no file grows past
a size a reader can hold.

Read from the source with ``ast``: every import counts, also one made inside a function or
under ``if TYPE_CHECKING:``, since a circle through either still ties the modules together.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("cogs", "data", "engine", "loopback")
TOP = ("bot", "settings", "gcwatch")
MAX_LINES = 600
BIG = {
    # file: why it may be longer than MAX_LINES (a reason a reader accepts, or a to-do)
    "cogs/uno/art/_compose.py": "the table picture's layout, one drawing routine per part",
}
"""Files allowed past MAX_LINES, each with its reason. A file that shrinks below the limit
must leave this list (the test says so), so the list only ever shrinks."""


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    found = {name: ROOT / f"{name}.py" for name in TOP}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


def _imports(tree: ast.Module, here: str, modules: set[str]) -> dict[str, set[str]]:
    """module -> the names ``here`` takes from it (a name that is itself a module counts as
    an import of that module, not of the package that holds it)."""
    out: dict[str, set[str]] = {}
    package = here if here in _PACKAGES else here.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for a in node.names:
                sub = f"{source}.{a.name}"
                if sub in modules:
                    out.setdefault(sub, set()).add("*")
                elif source in modules:
                    out.setdefault(source, set()).add(a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in modules:
                    out.setdefault(a.name, set()).add("*")
    out.pop(here, None)
    return out


_PACKAGES = {_module_name(p.parent) for p in ROOT.glob("*/**/__init__.py")}
SOURCES = _sources()
TREES = {name: ast.parse(path.read_text(encoding="utf-8"), str(path))
         for name, path in SOURCES.items()}
IMPORTS = {name: _imports(tree, name, set(SOURCES)) for name, tree in TREES.items()}


def _is_face(name: str) -> bool:
    """A package's ``__init__`` that only hands names on: importing a submodule runs it,
    and its arrows are the package's exports, not a dependency of the importer."""
    return name in _PACKAGES


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
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


def test_no_import_circle_anywhere() -> None:
    graph = {m: {n for n in deps if not _is_face(n)}
             for m, deps in IMPORTS.items() if not _is_face(m)}
    cycle = _cycle(graph)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_one() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize(("low", "high"), [
    ("engine", ("cogs", "data", "loopback", "bot", "settings")),
    # (data may read the engine's settings and editions: a server's defaults are checked
    # against the same ranges as a game's)
    ("data", ("cogs", "loopback", "bot")),
    ("cogs.uno.table", ("discord", "cogs.uno._", "loopback", "bot")),
    ("settings", ("cogs", "data", "engine", "loopback", "bot")),
])
def test_rooms_import_one_way(low: str, high: tuple[str, ...]) -> None:
    """The engine and the data know nothing above them; the tables know no Discord."""
    wrong = []
    for name, tree in TREES.items():
        if name != low and not name.startswith(low + "."):
            continue
        for node in ast.walk(tree):
            targets = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module or ""] if isinstance(node, ast.ImportFrom)
                       and node.level == 0 else [])
            wrong += [f"{name} imports {t}" for t in targets
                      if any(t == h or t.startswith(h if h.endswith("_") else h + ".")
                             for h in high)]
    assert not wrong, wrong


def test_no_module_uses_another_modules_private_names() -> None:
    wrong = [f"{name} takes {sorted(n for n in names if _private(n))} from {source}"
             for name, deps in IMPORTS.items() for source, names in deps.items()
             if any(_private(n) for n in names)]
    assert not wrong, wrong


def _private(name: str) -> bool:
    """A private name (``_x``); ``_`` itself is gettext's translation function, public by
    convention."""
    return name.startswith("_") and not name.startswith("__") and name != "_"


def test_files_stay_readable() -> None:
    lines = {str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines())
             for p in SOURCES.values()}
    too_long = {f: n for f, n in lines.items() if n > MAX_LINES and f not in BIG}
    assert not too_long, f"over {MAX_LINES} lines without a stated reason: {too_long}"
    shrunk = [f for f in BIG if lines.get(f, 0) <= MAX_LINES]
    assert not shrunk, f"no longer over {MAX_LINES} lines: take them off BIG: {shrunk}"
