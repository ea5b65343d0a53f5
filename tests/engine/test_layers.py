"""The engine's modules import one way (docs/engine-api.md, "Where things live").

Three floors: the rules (``engine`` and its modules), the computer players built on them
(``engine.players``), and the command-line tools built on both (``engine.tools``). The rules
import neither players nor tools, and the players import no tool. Within the rules, those
below ``game.py`` never import it; and no module reaches into another's private names, not
even as an attribute (``game._end_turn``). No circle and no long file: tests/tools/
test_house.py, for every package."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from support.house import IMPORTS, ROOT, TREES

ENGINE = {name: tree for name, tree in TREES.items()
          if name == "engine" or name.startswith("engine.")}
PLAYERS = {m for m in ENGINE if m == "engine.players" or m.startswith("engine.players.")}
TOOLS = {m for m in ENGINE if m == "engine.tools" or m.startswith("engine.tools.")}
RULES = set(ENGINE) - PLAYERS - TOOLS
ABOVE_GAME = {"engine", "engine.game", "engine.replay", "engine.match",
              "engine.players.heuristic", "engine.players.search", *TOOLS}
"""The façade itself and what is built on it (the package re-exports it; the seat's view
and the playout simulator read only ``basegame.py`` and the data)."""


def _imports_from(modules: set[str], floors: tuple[str, ...]) -> list[str]:
    """``module imports target`` for every import of ``modules`` into a package of
    ``floors`` (the package itself or any module in it)."""
    return [f"{m} imports {target}" for m in sorted(modules) for target in sorted(IMPORTS[m])
            if any(target == f or target.startswith(f + ".") for f in floors)]


def test_the_floors_hold_the_modules_the_docs_name() -> None:
    """A renamed or moved module cannot leave a floor empty and its checks vacuous."""
    assert {"engine", "engine.game", "engine.basegame", "engine.replay",
            "engine.match"} <= RULES
    assert {"engine.players", "engine.players.heuristic", "engine.players.search",
            "engine.players.seatview", "engine.players.fastcards", "engine.players.fastsim",
            "engine.players.playouts"} <= PLAYERS
    assert {"engine.tools.replay", "engine.tools.simulate"} <= TOOLS


def test_the_rules_import_neither_players_nor_tools() -> None:
    wrong = _imports_from(RULES, ("engine.players", "engine.tools"))
    assert not wrong, wrong


def test_the_players_import_no_tool() -> None:
    wrong = _imports_from(PLAYERS, ("engine.tools",))
    assert not wrong, wrong


PROBE = """import importlib, sys
floors, modules = sys.argv[1].split(), sys.argv[2:]
for m in modules:
    importlib.import_module(m)
print(*sorted(m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in floors)))
"""
"""Imports ``modules`` in a fresh interpreter and prints what of ``floors`` it loaded."""


def _loaded(modules: set[str], floors: tuple[str, ...]) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, " ".join(floors), *sorted(modules)],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.split()


@pytest.mark.slow
def test_importing_a_floor_loads_nothing_above_it() -> None:
    """What Python loads, not only what the source says (an import by name at run time
    counts too): the rules load no player and no tool, the players no tool."""
    assert _loaded(RULES, ("engine.players", "engine.tools")) == []
    assert _loaded(PLAYERS, ("engine.tools",)) == []
    assert _loaded({"engine.tools.simulate"}, ("engine.players",))  # the probe does see


def test_rules_below_game_do_not_import_it() -> None:
    wrong = [m for m in ENGINE if m not in ABOVE_GAME and "engine.game" in IMPORTS[m]]
    assert not wrong, f"import engine/game.py from below it: {wrong}"


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


def test_no_engine_module_uses_another_modules_private_attributes() -> None:
    found = []
    for m, tree in ENGINE.items():
        own = _defined(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__") and node.attr not in own):
                found.append(f"{m} line {node.lineno} uses .{node.attr}, "
                             "defined in another module")
    assert not found, "\n".join(found)
