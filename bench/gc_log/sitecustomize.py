"""Logs every full (generation 2) garbage collection of the process, for `bench.streams`.

Imported at start-up by any Python started with this directory on ``PYTHONPATH``
and ``BENCH_GC_LOG`` naming a file (`bench.streams` starts gunicorn so: the
workers it forks inherit the hook). Each full collection appends one line to
the file: ``pid start duration collected`` (``time.monotonic`` seconds, the
clock every process of the machine shares; the objects found unreachable).
Younger collections are not logged: the hook costs them a call that returns
at once. (`bench.worker_probes` also times collections, but with a callback on
every turn of the event loop as well, which would weigh on the figures compared.)
"""

from __future__ import annotations

import gc
import os
import time
from typing import Any

_LOG = os.environ.get("BENCH_GC_LOG")
_started = 0.0


def _log_full_collections(phase: str, info: dict[str, Any]) -> None:
    global _started
    if info["generation"] != 2:
        return
    if phase == "start":
        _started = time.monotonic()
        return
    ended = time.monotonic()
    assert _LOG is not None
    with open(_LOG, "a") as log:  # one write per line: the processes' lines do not mix
        log.write(f"{os.getpid()} {_started:.6f} {ended - _started:.6f} {info['collected']}\n")


if _LOG:
    gc.callbacks.append(_log_full_collections)
