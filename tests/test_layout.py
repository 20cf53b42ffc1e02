"""Dependencies point down the layers (.importlinter, checked by `lint-imports`):
serving → api | ops → games → bots | store → rules, the store knowing bytes and
events, not rules; the settings load no client library."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service"
LINT_IMPORTS = str(Path(sys.executable).with_name("lint-imports"))


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` on the `service` package under `root`, by the contract in .importlinter."""
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache", "--config", str(ROOT / ".importlinter")],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        check=False,
    )


def test_the_layers_import_only_downward() -> None:
    run = lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("service/rules/upward.py", "from service.games import transact\n"),
        ("service/games/upward.py", "import service.api.access\n"),
        ("service/store/upward.py", "from service.rules import engine\n"),
        ("service/bots/upward.py", "import service.store.base\n"),
    ],
)
def test_an_upward_import_breaks_the_contract(tmp_path: Path, module: str, source: str) -> None:
    shutil.copytree(SERVICE, tmp_path / "service", ignore=shutil.ignore_patterns("webui"))
    (tmp_path / module).write_text(f'"""A planted import."""\n\n{source}')
    run = lint_imports(tmp_path)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 broken" in run.stdout
    assert module.removesuffix(".py").replace("/", ".") in run.stdout


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
