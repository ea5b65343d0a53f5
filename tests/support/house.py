"""The house as its imports draw it (``ast``, nothing run), for the tests that keep its
shape: every module of the project, what each takes from which, and a circle finder.

Every import counts, also one made inside a function or under ``if TYPE_CHECKING:``, since
a circle through either still ties the modules together.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("cogs", "data", "engine", "loopback", "runtime")
TOP = ("bot", "settings")


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, Path]:
    found = {name: ROOT / f"{name}.py" for name in TOP}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def imports_of(tree: ast.Module, here: str, modules: set[str]) -> dict[str, set[str]]:
    """module -> the names ``here`` takes from it (a name that is itself a module counts as
    an import of that module, not of the package that holds it)."""
    out: dict[str, set[str]] = {}
    package = here if here in PACKAGE_NAMES else here.rpartition(".")[0]
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


PACKAGE_NAMES = {module_name(p.parent) for p in ROOT.glob("*/**/__init__.py")}
SOURCES = sources()
TREES = {name: ast.parse(path.read_text(encoding="utf-8"), str(path))
         for name, path in SOURCES.items()}
IMPORTS = {name: imports_of(tree, name, set(SOURCES)) for name, tree in TREES.items()}


def is_face(name: str) -> bool:
    """A package's ``__init__`` that only hands names on: importing a submodule runs it,
    and its arrows are the package's exports, not a dependency of the importer."""
    return name in PACKAGE_NAMES


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
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


DRAWING = ROOT / "docs" / "architecture.md"
"""Where the house is drawn: its floors, in a ```house block."""


def drawn_floors(text: str) -> dict[str, int]:
    """The rooms of the drawing (a file ``a/b.py`` or a folder ``a/``) and their floors.

    In the ```house block, a line ``floor N  PATH, PATH  what they are`` starts floor N;
    a line below it that starts with paths adds them to it. Paths are the line's first
    words (separated by ", "), up to two spaces in a row; a word that is not a ``.py``
    file or a folder (``/``) ends them."""
    block = text.split("```house\n", 1)[1].split("```", 1)[0]
    floors: dict[str, int] = {}
    floor: int | None = None
    for line in block.splitlines():
        words = line.strip()
        if words.startswith("floor "):
            head, _sep, words = words[len("floor "):].partition(" ")
            floor = int(head)
            words = words.strip()
        if floor is None:
            continue
        for path in words.split("  ", 1)[0].split(", "):
            path = path.strip()
            if not path.endswith((".py", "/")):
                break
            floors[path] = floor
    return floors


def room_of(module: str, floors: dict[str, int]) -> str | None:
    """The drawing's most specific room that holds ``module`` (None: no room does)."""
    path = SOURCES[module].relative_to(ROOT).as_posix()
    found = [room for room in floors
             if room == path or (room.endswith("/") and path.startswith(room))]
    return max(found, key=len) if found else None
