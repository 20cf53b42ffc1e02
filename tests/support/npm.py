"""`npm ci` for the tests that build or type-check with Node.js."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

#: Failures of `npm ci` that are races of the machine, not of the lock file: npm
#: runs a package's install script (esbuild's runs the binary it just wrote) while
#: another of its processes still holds that file open for writing (ETXTBSY), and
#: then cannot clean up the half-installed tree (ENOTEMPTY). Seen under load when
#: the suite runs on two processes; another `npm ci` then succeeds.
TRANSIENT = ("ETXTBSY", "ENOTEMPTY")
ATTEMPTS = 3


def npm_ci(directory: Path) -> None:
    """Install exactly the versions of `directory`'s package-lock.json; fail the
    test with npm's output when it fails for any reason but a transient one, or
    for that one three times."""
    assert shutil.which("npm"), "these tests need Node.js 20+ and npm on PATH"
    output = ""
    for _ in range(ATTEMPTS):
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=directory, env=dict(os.environ),
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        if done.returncode == 0:
            return
        output = done.stdout + done.stderr
        if not any(code in output for code in TRANSIENT):
            break
    raise AssertionError(f"npm ci failed in {directory}:\n{output}")
