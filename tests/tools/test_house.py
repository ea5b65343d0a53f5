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

from support import privates
from support.house import (
    DRAWING,
    IMPORTS,
    ROOT,
    SOURCES,
    TREES,
    cycle,
    drawn_floors,
    is_face,
    room_of,
)
from support.privates import third_party_privates

MAX_LINES = 600
BIG = {
    # file: why it may be longer than MAX_LINES (a reason a reader accepts, or a to-do)
    "cogs/uno/_outbox.py": "to-do: one channel's writes are queued, routed and paced here "
                           "with one state per channel; the routes (pace, write, attempt, "
                           "post, edit, delete: how one write reaches Discord) go to a "
                           "module of their own with the state they use (issue 29 added "
                           "the reminders and the channel's newest ids); the replies route "
                           "of a game where the bot is no member (the token chain, its "
                           "lapse notice; issue 31) goes to a module beside it",
}
"""Files allowed past MAX_LINES, each with its reason. A file that shrinks below the limit
must leave this list (the test says so), so the list only ever shrinks."""


def test_no_import_circle_anywhere() -> None:
    graph = {m: {n for n in deps if not is_face(n)}
             for m, deps in IMPORTS.items() if not is_face(m)}
    found = cycle(graph)
    assert found is None, "import circle: " + " -> ".join(found or [])


def test_the_cycle_finder_finds_one() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None


FLOORS = drawn_floors(DRAWING.read_text(encoding="utf-8"))
"""The house as docs/architecture.md draws it: each room (a file or a folder) on its floor."""


def test_the_drawing_has_every_room_and_only_those() -> None:
    """Every module of the code stands in a room of the drawing, and every room drawn
    holds a module: the drawing is the house as it is."""
    homeless = sorted(m for m in SOURCES if room_of(m, FLOORS) is None)
    assert not homeless, f"not in docs/architecture.md's drawing: {homeless}"
    used = {room_of(m, FLOORS) for m in SOURCES}
    empty = sorted(set(FLOORS) - used)
    assert not empty, f"drawn in docs/architecture.md, but no such module: {empty}"


def test_imports_run_down_the_drawing() -> None:
    """A module imports only modules on its floor or below (type-only and lazy imports
    included), for every room of the house."""
    wrong = []
    for name, deps in IMPORTS.items():
        here = room_of(name, FLOORS)
        assert here is not None
        for dep in deps:
            there = room_of(dep, FLOORS)
            assert there is not None
            if FLOORS[there] > FLOORS[here]:
                wrong.append(f"{name} (floor {FLOORS[here]}, {here}) imports {dep} "
                             f"(floor {FLOORS[there]}, {there})")
    assert not wrong, "\n".join(wrong)


def test_the_drawing_reader_reads_floors_and_continuations() -> None:
    text = ("intro\n```house\n floor 2   bot.py  the entry\n            │\n"
            " floor 1   cogs/uno/_x.py, cogs/uno/table/   what they are\n"
            "           cogs/uno/art/  pictures\n```\nafter")
    assert drawn_floors(text) == {"bot.py": 2, "cogs/uno/_x.py": 1, "cogs/uno/table/": 1,
                                  "cogs/uno/art/": 1}


@pytest.mark.parametrize(("low", "high"), [
    ("engine", ("discord", "aiohttp", "aiosqlite", "asyncpg", "sqlite3")),
    ("data", ("discord",)),
    ("cogs.uno.table", ("discord", "aiohttp")),
    ("cogs.uno.art", ("discord", "aiohttp")),
    ("settings", ("discord",)),
])
def test_the_pure_rooms_know_no_discord(low: str, high: tuple[str, ...]) -> None:
    """The rules, the storage, the tables and the pictures work without Discord."""
    wrong = []
    for name, tree in TREES.items():
        if name != low and not name.startswith(low + "."):
            continue
        for node in ast.walk(tree):
            targets = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module or ""] if isinstance(node, ast.ImportFrom)
                       and node.level == 0 else [])
            wrong += [f"{name} imports {t}" for t in targets
                      if any(t == h or t.startswith(h + ".") for h in high)]
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


def test_no_private_name_of_a_library_anywhere() -> None:
    """The bot and the loopback use their libraries' public API only (issue 28): an
    upgrade, a security fix above all, needs no one who knows a library's insides."""
    found = third_party_privates((name, str(SOURCES[name].relative_to(ROOT)), tree)
                                 for name, tree in TREES.items())
    assert not found, "\n".join(found)


def test_the_private_name_finder_finds_them(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    code = '''
import discord
from discord.ui.view import _walk_all_components
import aiohttp._http_parser


class Store(discord.ui.View):
    def _refresh(self) -> None:
        self._children = []


class Ours:
    def __init__(self) -> None:
        self._mine = 1

    def peek(self, item: discord.ui.Item) -> None:
        item._parent = None
        getattr(item, "_view", None)
        self._mine = item.view
'''
    (tmp_path / "support_probe.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(privates, "OURS", (*privates.OURS, "support_probe"))
    found = third_party_privates([("support_probe", "probe.py", ast.parse(code))])
    said = "\n".join(found)
    for expected in ("imports _walk_all_components", "private module aiohttp._http_parser",
                     "uses ._parent of item", "getattrs '_view'", "Store uses _refresh",
                     "Store uses _children"):
        assert expected in said, (expected, said)
    assert "_mine" not in said, said
