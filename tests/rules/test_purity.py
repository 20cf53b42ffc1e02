"""`service/rules` imports nothing of the service outside itself (at import time or
inside functions): the rules depend on nothing, everything else depends on them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "service" / "rules"


def imported_modules(path: Path) -> list[str]:
    """Every module an ``import`` or ``from … import`` anywhere in the file names."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: relative import"
            names.append(node.module or "")
    return names


@pytest.mark.parametrize("path", sorted(RULES.glob("*.py")), ids=lambda p: p.name)
def test_rules_import_only_the_rules_of_the_service(path: Path) -> None:
    outside = [
        name
        for name in imported_modules(path)
        if name.split(".")[0] == "service" and not name.startswith("service.rules")
    ]
    assert outside == []


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from service.bots.strategies import STRATEGIES\n")
    assert imported_modules(module) == ["service.bots.strategies"]
