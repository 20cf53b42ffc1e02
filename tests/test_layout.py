"""Dependencies point inward: the store knows bytes and events, not rules; the bots
know the rules, not the API or the store; the settings load no client library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.rules.test_purity import imported_modules

SERVICE = Path(__file__).resolve().parents[1] / "service"


def service_imports(package: str) -> dict[str, list[str]]:
    """For each module of ``service/<package>``, the service modules it imports."""
    found = {}
    for path in sorted((SERVICE / package).glob("*.py")):
        names = [n for n in imported_modules(path) if n.split(".")[0] == "service"]
        found[path.name] = names
    return found


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("store", ("service.rules", "service.api", "service.bots", "service.ops")),
        ("bots", ("service.api", "service.store", "service.ops", "service.serving")),
    ],
)
def test_a_layer_does_not_import_the_layers_above_it(
    package: str, forbidden: tuple[str, ...]
) -> None:
    crossing = {
        module: [name for name in names if name.startswith(forbidden)]
        for module, names in service_imports(package).items()
    }
    assert {module: names for module, names in crossing.items() if names} == {}


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from service.rules.engine import apply\n")
    assert imported_modules(module) == ["service.rules.engine"]


def test_reading_the_settings_loads_neither_redis_nor_gevent() -> None:
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, service.config; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'redis', 'gevent', 'flask'}))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert loaded == "[]"
