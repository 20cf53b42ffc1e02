"""Run one function in a fresh interpreter whose sockets gevent has patched, as in a
gunicorn gevent worker, and print what it returns as JSON.

    python -m tests.support.under_gevent tests.store.test_pipelining:scenario_x ARG...

`run_under_gevent` does that from a test and returns the decoded result.
"""

from __future__ import annotations

if __name__ == "__main__":
    from gevent import monkey

    monkey.patch_all()  # first, before anything imports socket or threading

import importlib
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: The line of the child's output that carries the result.
_MARK = "UNDER-GEVENT-RESULT "


def run_under_gevent(function: Callable[..., Any], *args: str, timeout: float = 60) -> Any:
    """``function(*args)`` in a gevent-patched interpreter; its JSON-able result."""
    target = f"{function.__module__}:{function.__qualname__}"
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.under_gevent", target, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith(_MARK)]
    if done.returncode != 0 or not lines:
        raise AssertionError(f"{target} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return json.loads(lines[-1].removeprefix(_MARK))


def main() -> None:
    """Import ``module:function`` from argv, call it with the other arguments, print its result."""
    target, *args = sys.argv[1:]
    module, _, name = target.partition(":")
    result = getattr(importlib.import_module(module), name)(*args)
    print(_MARK + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
