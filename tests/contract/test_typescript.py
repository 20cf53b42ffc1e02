"""TypeScript types generated from the contract by openapi-typescript, as a TypeScript
client author would make them: they generate without a warning, and `tsc --noEmit`
accepts `tests/contract/ts/check.ts`, which builds a create request and every move
shape with them (versions pinned by `tests/contract/ts/package-lock.json`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.npm import npm_ci

TS = Path(__file__).resolve().parent / "ts"

pytestmark = pytest.mark.slow


def run(*command: str) -> str:
    """Run a command in tests/contract/ts; fail the test with its output when it fails."""
    done = subprocess.run(
        command, cwd=TS, env=dict(os.environ), capture_output=True, text=True, timeout=600,
        check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{output}"
    return output


def test_typescript_types_from_the_contract_build_every_move() -> None:
    with npm_ci(TS):
        output = run("npm", "run", "check")
        generated = [line for line in output.splitlines() if "openapi-typescript" in line]
        assert generated, output
        assert not [line for line in output.lower().splitlines() if "warn" in line], output
        schema = (TS / "schema.d.ts").read_text()
        for name in ("DrawMove", "MeldMove", "LayoffMove", "DiscardMove", "SwapJokerMove"):
            assert f"{name}: {{" in schema, name
