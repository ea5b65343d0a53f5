"""Where a module of ours touches a private name (``_x``) of a third-party package: the
house test that keeps the bot on its libraries' public API (tests/tools/test_house.py).

Read from the source with ``ast``, and, for the classes of ours that subclass a library's,
from the running classes (their bases' attributes and what their ``__init__`` assigns):

- an import of a private name or a private module of another package
  (``from discord.ui.view import _walk_all_components``, ``import aiohttp._http_parser``);
- an attribute ``obj._x`` on anything but ``self`` or ``cls``, or a ``getattr``-family call
  with the string ``"_x"``, where no class or function of the same module defines ``_x``
  (so it can only be someone else's: our modules never use each other's private names
  either);
- in a class that subclasses a library's, a ``self._x`` or a ``def _x`` where ``_x`` is a
  name of that library class or of its bases (overriding or reading its private state).

Dunder names (``__x__``) are the language's, not private; ``_`` alone is gettext's.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from collections.abc import Iterable, Iterator
from functools import cache

OURS = ("cogs", "data", "engine", "loopback", "runtime", "bot", "settings", "support")
GETTERS = ("getattr", "setattr", "hasattr", "delattr")


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name != "_"


def ours(module: str) -> bool:
    return module.split(".")[0] in OURS


def _is_self(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "super")


def defined_in(tree: ast.AST) -> set[str]:
    """Every name the module itself defines: its functions, classes, module names, what
    its methods assign to ``self``/``cls``, its ``__slots__``, a dataclass's fields."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
              and _is_self(node.value)):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif (isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets)):
            names |= {c.value for c in ast.walk(node.value)
                      if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    return names


def source_uses(tree: ast.Module, where: str) -> list[str]:
    """The imports and attribute uses of ``tree`` (module ``where``) that take a private
    name that is not its own."""
    own = defined_in(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not ours(node.module):
                parts = node.module.split(".")
                found += [f"{line} imports the private module {node.module}"
                          for p in parts if private(p)][:1]
                found += [f"{line} imports {a.name} from {node.module}"
                          for a in node.names if private(a.name)]
        elif isinstance(node, ast.Import):
            for a in node.names:
                if not ours(a.name) and any(private(p) for p in a.name.split(".")):
                    found.append(f"{line} imports the private module {a.name}")
        elif isinstance(node, ast.Attribute) and private(node.attr):
            if not _is_self(node.value) and node.attr not in own:
                found.append(f"{line} uses .{node.attr} of {ast.unparse(node.value)}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in GETTERS and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and private(node.args[1].value)
              and node.args[1].value not in own):
            found.append(f"{line} {node.func.id}s {node.args[1].value!r}")
    return found


@cache
def library_names(cls: type) -> frozenset[str]:
    """The private names of a library class: its attributes (methods, slots, class
    attributes) and what its methods assign to ``self``."""
    names = {n for n in vars(cls) if private(n)}
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return frozenset(names)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name) and node.value.id == "self"
                and private(node.attr)):
            names.add(node.attr)
    return frozenset(names)


def library_bases(cls: type) -> Iterator[type]:
    for base in cls.__mro__[1:]:
        if base is not object and not ours(base.__module__):
            yield base


def subclass_uses(tree: ast.Module, where: str, module: str) -> list[str]:
    """In the classes of ``module`` that subclass a library's: each ``self._x`` or ``def
    _x`` that is a private name of a library base."""
    loaded = importlib.import_module(module)
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(loaded, node.name, None)
        if not isinstance(cls, type) or cls.__module__ != module:
            continue
        theirs: set[str] = set()
        for base in library_bases(cls):
            theirs |= library_names(base)
        if not theirs:
            continue
        for inner in ast.walk(node):
            name = None
            if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                name = inner.name
            elif isinstance(inner, ast.Attribute) and _is_self(inner.value):
                name = inner.attr
            if name is not None and name in theirs:
                found.append(f"{where}:{inner.lineno} {node.name} uses {name}, a private "
                             "name of a library class it subclasses")
    return found


def third_party_privates(trees: Iterable[tuple[str, str, ast.Module]]) -> list[str]:
    """Every use of a third-party private name in ``trees`` ((module, path, tree))."""
    found: list[str] = []
    for module, where, tree in trees:
        found += source_uses(tree, where)
        found += subclass_uses(tree, where, module)
    return found
