"""The code standards hold: ruff lint and format, and ``mypy --strict`` on service/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_ruff_lint_is_clean() -> None:
    result = _run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run("ruff", "format", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


# From a cold cache (a new clone or worktree) mypy takes about 20 s: the edit loop runs
# `.venv/bin/mypy` itself; the full suite runs this test.
@pytest.mark.slow
def test_mypy_strict_is_clean_on_service() -> None:
    result = _run("mypy", "--strict", "service")
    assert result.returncode == 0, result.stdout + result.stderr
