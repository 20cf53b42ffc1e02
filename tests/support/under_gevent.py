"""Run functions in a fresh interpreter whose sockets gevent has patched, as in a
gunicorn gevent worker, and print what they return as JSON.

    python -m tests.support.under_gevent '{"name": ["tests.store.test_x:scenario_x", ["ARG"]]}'

`run_under_gevent` does that from a test and returns the decoded results.
"""

from __future__ import annotations

if __name__ == "__main__":
    from gevent import monkey

    monkey.patch_all()  # first, before anything imports socket or threading

import importlib
import json
import subprocess
import sys
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: The line of the child's output that carries the results.
_MARK = "UNDER-GEVENT-RESULT "


class Outcomes:
    """What each named call of one interpreter returned or raised."""

    def __init__(self, outcomes: Mapping[str, Mapping[str, Any]]) -> None:
        self._outcomes = outcomes

    def __getitem__(self, name: str) -> Any:
        """The call's JSON-able result; an `AssertionError` with its traceback if it raised."""
        outcome = self._outcomes[name]
        if "error" in outcome:
            raise AssertionError(f"{name} raised:\n{outcome['error']}")
        return outcome["result"]


def run_under_gevent(
    calls: Mapping[str, tuple[Callable[..., Any], Sequence[str]]], timeout: float = 120
) -> Outcomes:
    """Each named ``function(*args)``, one after the other in the order given, in one
    gevent-patched interpreter (one start-up for all of them)."""
    targets = {
        name: [f"{function.__module__}:{function.__qualname__}", list(args)]
        for name, (function, args) in calls.items()
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.under_gevent", json.dumps(targets)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith(_MARK)]
    if done.returncode != 0 or not lines:
        failed = f"under gevent failed ({done.returncode})"
        raise AssertionError(f"{failed}:\n{done.stdout}\n{done.stderr}")
    return Outcomes(json.loads(lines[-1].removeprefix(_MARK)))


def main() -> None:
    """Call each ``module:function`` of argv's JSON with its arguments; print the results
    (or the traceback of what a call raised)."""
    outcomes: dict[str, dict[str, Any]] = {}
    for name, (target, args) in json.loads(sys.argv[1]).items():
        module, _, function = target.partition(":")
        try:
            result = getattr(importlib.import_module(module), function)(*args)
        except Exception:
            outcomes[name] = {"error": traceback.format_exc()}
        else:
            outcomes[name] = {"result": result}
    print(_MARK + json.dumps(outcomes), flush=True)


if __name__ == "__main__":
    main()
