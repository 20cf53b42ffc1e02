"""The web front end's own checks: type-check against the contract, unit tests, and a
build identical to the one committed in the package (so `pip install` ships what
`web/` says)."""

from __future__ import annotations

import filecmp
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.npm import npm_ci

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
COMMITTED = ROOT / "service" / "webui" / "static"

pytestmark = pytest.mark.slow


def run(*command: str, env: dict[str, str] | None = None) -> str:
    """Run a command in web/; fail the test with its output when it fails."""
    done = subprocess.run(
        command, cwd=WEB, env={**os.environ, **(env or {})}, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def node_modules() -> Iterator[None]:
    """`npm ci`: exactly the versions of web/package-lock.json, web/ held by this
    process while the module's tests run."""
    with npm_ci(WEB):
        yield


def test_types_from_the_contract_check(node_modules: None) -> None:
    """The API types are generated from openapi/openapi.json, then `tsc --noEmit` (strict):
    a contract change that breaks the page fails here."""
    run("npm", "run", "typecheck")
    assert "paths" in (WEB / "src" / "api" / "schema.d.ts").read_text()


def test_unit_tests_pass(node_modules: None) -> None:
    out = run("npx", "vitest", "run")
    assert "passed" in out


def tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_committed_build_is_current(node_modules: None, tmp_path: Path) -> None:
    """Rebuilding web/ gives byte for byte the build committed in service/webui/static."""
    out = tmp_path / "static"
    run("npm", "run", "gen")
    run("npx", "vite", "build", env={"WEB_OUT_DIR": str(out)})
    assert tree(out) == tree(COMMITTED), (
        "the committed build is stale: run `npm ci && npm run build` in web/ and commit "
        "service/webui/static"
    )
    _same, mismatch, errors = filecmp.cmpfiles(out, COMMITTED, tree(out), shallow=False)
    assert mismatch == [] and errors == [], f"stale build files: {mismatch + errors}"
