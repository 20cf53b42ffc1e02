"""`npm ci` for the tests that build or type-check with Node.js."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def npm_ci(directory: Path) -> Iterator[None]:
    """Install exactly the versions of `directory`'s package-lock.json and hold the
    directory's `node_modules` until the block ends.

    The suite runs on two processes, and `npm ci` first deletes `node_modules`:
    a test of one process using the directory while the other reinstalled it
    failed (`Cannot find module`, and npm itself with ETXTBSY and ENOTEMPTY). So
    the install and everything run on it happen under an exclusive lock per
    directory (a file lock in the temporary directory, released when the block
    ends or the process dies)."""
    assert shutil.which("npm"), "these tests need Node.js 20+ and npm on PATH"
    name = hashlib.sha256(str(directory.resolve()).encode()).hexdigest()[:16]
    with open(Path(tempfile.gettempdir()) / f"rummy-npm-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=directory, env=dict(os.environ),
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"npm ci failed in {directory}:\n{done.stdout}{done.stderr}"
        yield
