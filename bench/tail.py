"""Where the moves' tail latency comes from: probes inside the workers during the moves phase.

Usage (from the project root; needs what `bench.http` needs)::

    .venv/bin/python -m bench.tail                         # about 1 minute
    STORE_PIPELINING=0 .venv/bin/python -m bench.tail  # without pipelining
    .venv/bin/python -m bench.tail --worker-class gevent   # gunicorn's stock worker

Starts its own redis-server and gunicorn with the production config plus
`bench.worker_probes` (``bench/probe.gunicorn.conf.py``), plays the moves
phase of `bench.http` once, and prints, next to wrk's p50/p99:

- how the connections were split between the workers;
- the event loop's iterations per worker (p50, p99, max): a long iteration is
  a stretch in which the worker read no socket;
- garbage collections per generation during the phase, and the longest (in
  wall-clock and in the worker's CPU);
- each worker's resident memory at the phase's first and last second;
- the time moves spent inside the app (the request log's ``duration_ms``).

docs/performance.md ("Worker set-up") explains what each figure showed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import orjson

from bench import http
from tests.support.gunicorn import GunicornServer
from tests.support.redis_server import RedisServer

PROBE_CONFIG = http.ROOT / "bench" / "probe.gunicorn.conf.py"
MOVE_ROUTE = "/games/<string:game_id>/moves"


def percentiles(values: list[float]) -> str:
    """``p50 / p99 / max`` of `values`, in ms."""
    if not values:
        return "none"
    ordered = sorted(values)
    n = len(ordered)
    p99 = ordered[min(n - 1, int(n * 0.99))]
    return f"p50 {ordered[n // 2]:.1f} / p99 {p99:.1f} / max {ordered[-1]:.1f} ms"


def read_log(path: str, start: float, end: float) -> tuple[list[dict[str, Any]], list[float]]:
    """The probe lines written between `start` and `end`, and the moves' in-app durations."""
    probes, durations = [], []
    for line in Path(path).read_text(errors="replace").splitlines():
        if line.startswith("PROBE "):
            probe = orjson.loads(line[6:])
            if start + 1 <= probe["t"] <= end:  # whole seconds inside the phase
                probes.append(probe)
        elif line.startswith("{") and MOVE_ROUTE in line:
            durations.append(float(orjson.loads(line)["duration_ms"]))
    return probes, durations


def report(probes: list[dict[str, Any]]) -> None:
    """Loop iterations and collections per worker, from the probe lines."""
    by_worker: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for probe in probes:
        by_worker[probe["pid"]].append(probe)
    for pid, lines in sorted(by_worker.items()):
        worst = max((line["loop"].get("p99", 0.0) for line in lines), default=0.0)
        longest = max((line["loop"].get("max", 0.0) for line in lines), default=0.0)
        median = sorted(line["loop"].get("p50", 0.0) for line in lines)[len(lines) // 2]
        print(
            f"  worker {pid}: loop iterations p50 {median:.2f} ms, worst second's p99 "
            f"{worst:.1f} ms, longest {longest:.1f} ms; resident memory "
            f"{lines[0]['rss'] / 2**20:.1f} → {lines[-1]['rss'] / 2**20:.1f} MiB"
        )
        for gen in ("0", "1", "2"):
            count = sum(line["gc"][gen]["n"] for line in lines)
            top = max((line["gc"][gen].get("max", 0.0) for line in lines), default=0.0)
            top_cpu = max((line["gc_cpu"][gen].get("max", 0.0) for line in lines), default=0.0)
            total_cpu = sum(line["gc_cpu"][gen].get("total", 0.0) for line in lines)
            print(
                f"    gen {gen} collections: {count}, longest {top:.1f} ms "
                f"(CPU: longest {top_cpu:.1f} ms, in all {total_cpu:.0f} ms)"
            )


def main(argv: list[str] | None = None) -> None:
    """Run the moves phase once with probes in the workers."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", type=int, default=160)
    parser.add_argument("--active", type=int, default=40)
    parser.add_argument("--worker-class", help="GUNICORN_WORKER_CLASS (default: the config's)")
    args = parser.parse_args(argv)
    env = http.app_env("", args.workers)
    if args.worker_class:
        env["GUNICORN_WORKER_CLASS"] = args.worker_class
    plans = http.make_plans(16, 4)
    with RedisServer() as redis, tempfile.TemporaryDirectory() as tmp:
        env["STORE_URL"] = redis.url
        command = [sys.executable, "-m", "gunicorn", "--config", str(PROBE_CONFIG)]
        server = GunicornServer(env, workers=args.workers, command=[*command, "service.wsgi:app"])
        server.start()
        try:
            games = http.create_games(server.url, plans, args.games)
            moves, hello = Path(tmp) / "moves.lua", Path(tmp) / "hello.lua"
            http.write_moves_data(games, moves)
            http.write_gets_data([("/healthz", None)], hello)
            http.run_wrk(server.url, "gets", hello, 5, args.connections, 1)
            split: Counter[int] = Counter()

            def sample_split() -> None:
                time.sleep(args.seconds / 2)
                split.update(server.connections_per_worker())

            sampler = threading.Thread(target=sample_split)
            start = time.time()
            sampler.start()
            result, _ = http.run_wrk(
                server.url, "moves", moves, args.seconds, args.connections, 1, args.active
            )
            end = time.time()
            sampler.join()
            probes, durations = read_log(server._log.name, start, end)
        finally:
            http.stop_gunicorn(server)
    print(
        f"moves: {result['requests'] / (result['duration_us'] / 1e6):.0f}/s, wrk p50 "
        f"{result['p50_us'] / 1000:.1f} ms, p99 {result['p99_us'] / 1000:.1f} ms "
        f"({args.connections} connections, {args.workers} workers, "
        f"STORE_PIPELINING={os.environ.get('STORE_PIPELINING', 'default')})"
    )
    print(f"connections per worker mid-phase: {sorted(split.values(), reverse=True)}")
    print(f"time inside the app (request log): {percentiles(durations)}")
    report(probes)


if __name__ == "__main__":
    main()
