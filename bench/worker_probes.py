"""Probes inside a gunicorn gevent worker, for `bench.tail` (never in production).

Installed by ``bench/probe.gunicorn.conf.py`` once a worker has loaded the app;
every second the worker writes one line ``PROBE {json}`` to stderr (gunicorn's
log) with what it saw since the last line:

- ``loop``: how long the event loop's iterations took, from one ``prepare``
  (just before the loop polls its sockets) to the next: a long iteration is a
  stretch in which no socket was read;
- ``gc``: garbage collections per generation, and the longest, in ms (wall
  clock: what the worker's requests waited); ``gc_cpu`` the same in the
  thread's CPU time (a wall time well above it is the worker taken off its
  core while it collected);
- ``connections``: the connections the worker holds (`BalancedGeventWorker`);
- ``rss``: the worker's resident memory, in bytes (``/proc/self/statm``).
"""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import Any

import gevent
import orjson

REPORT_EVERY = 1.0


class _Probes:
    def __init__(self, worker: Any) -> None:
        self.worker = worker
        self.iterations: list[float] = []
        self.last_prepare: float | None = None
        #: Per generation, each collection's (wall-clock, CPU) seconds.
        self.collections: dict[int, list[tuple[float, float]]] = {0: [], 1: [], 2: []}
        self.collecting_since = 0.0
        self.collecting_cpu_since = 0.0

    def on_prepare(self) -> None:
        now = time.perf_counter()
        if self.last_prepare is not None:
            self.iterations.append(now - self.last_prepare)
        self.last_prepare = now

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.collecting_since = time.perf_counter()
            self.collecting_cpu_since = time.thread_time()
        else:
            wall = time.perf_counter() - self.collecting_since
            cpu = time.thread_time() - self.collecting_cpu_since
            self.collections[info["generation"]].append((wall, cpu))

    def report(self) -> None:
        iterations, self.iterations = sorted(self.iterations), []
        collections, self.collections = self.collections, {0: [], 1: [], 2: []}
        line = {
            "pid": os.getpid(),
            "t": time.time(),
            "connections": getattr(self.worker, "connections", None),
            "rss": _resident_bytes(),
            "loop": _summary(iterations),
            "gc": {
                str(gen): _summary(sorted(wall for wall, _ in took))
                for gen, took in collections.items()
            },
            "gc_cpu": {
                str(gen): _summary(sorted(cpu for _, cpu in took))
                for gen, took in collections.items()
            },
        }
        sys.stderr.write("PROBE " + orjson.dumps(line).decode() + "\n")


def _resident_bytes() -> int:
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _summary(sorted_seconds: list[float]) -> dict[str, float]:
    n = len(sorted_seconds)
    if not n:
        return {"n": 0}
    ms = [s * 1000 for s in sorted_seconds]
    return {
        "n": n,
        "p50": round(ms[n // 2], 3),
        "p99": round(ms[min(n - 1, int(n * 0.99))], 3),
        "max": round(ms[-1], 3),
        "total": round(sum(ms), 3),
    }


def install(worker: Any) -> None:
    """Start the probes in this worker (call once the app is loaded)."""
    probes = _Probes(worker)
    watcher = gevent.get_hub().loop.prepare()
    watcher.start(probes.on_prepare)
    gc.callbacks.append(probes.on_gc)

    def report_forever() -> None:
        while True:
            gevent.sleep(REPORT_EVERY)
            probes.report()

    worker._bench_probes = (probes, watcher, gevent.spawn(report_forever))
