"""The engine's modules import one way (docs/engine-api.md, "Where things live"): the rules
below ``game.py`` never import it, and no module reaches into another's private names, not
even as an attribute (``game._end_turn``). No circle and no long file: tests/tools/
test_house.py, for every package."""

from __future__ import annotations

import ast

from support.house import IMPORTS, TREES

ENGINE = {name: tree for name, tree in TREES.items() if name.startswith("engine.")}
ABOVE_GAME = {"engine.game", "engine.replay", "engine.match", "engine.tools.simulate",
              "engine.players.heuristic", "engine.players.search"}
"""The façade itself and what is built on it."""


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
