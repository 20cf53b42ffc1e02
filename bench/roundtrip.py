"""What one Redis round trip costs in CPU, with the client and redis-server on one core
or on two.

Usage: .venv/bin/python -m bench.roundtrip [--count 20000] [--repeat 2]

Starts a throwaway redis-server, stores a 585-byte state, and sends the store's
load (`HMGET` of three fields, through `service.serving.leancall`) `count` times
in a row, one at a time, from this process: first wherever the scheduler puts
the two processes, then with both pinned to the first core, then pinned to
different cores. Prints the CPU per round trip of this process and of
redis-server, and the wall time. Nothing else runs in the loop, so the figures
are the round trip alone: a request under load pays it once per load or save.
"""

from __future__ import annotations

import argparse
import os
import time

import psutil
import redis

from service.serving.leancall import LeanConnections
from tests.support.redis_server import RedisServer

FIELDS = ("state", "version", "last_event")


def measure(
    lean: LeanConnections, server: psutil.Process, count: int
) -> tuple[float, float, float]:
    """CPU µs per round trip of this process and of the server, and wall µs."""
    for _ in range(1000):  # warm up the connection and the caches
        lean.call("HMGET", "game", *FIELDS)
    server_before = sum(server.cpu_times()[:2])
    cpu_before, wall_before = time.process_time(), time.perf_counter()
    for _ in range(count):
        lean.call("HMGET", "game", *FIELDS)
    cpu = time.process_time() - cpu_before
    wall = time.perf_counter() - wall_before
    server_cpu = sum(server.cpu_times()[:2]) - server_before
    return cpu / count * 1e6, server_cpu / count * 1e6, wall / count * 1e6


def main() -> None:
    """Measure the placements in turn, `--repeat` times."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise SystemExit("needs two cores")
    redis_server = RedisServer().start()
    try:
        pid = int(redis_server.client().info("server")["process_id"])
        server = psutil.Process(pid)
        lean = LeanConnections(redis.Redis.from_url(redis_server.url))
        lean.call("HSET", "game", "state", b"x" * 585, "version", 40, "last_event", 80)
        placements = {
            "anywhere": (set(cpus), set(cpus)),
            "one core": ({cpus[0]}, {cpus[0]}),
            "two cores": ({cpus[0]}, {cpus[1]}),
        }
        for _ in range(args.repeat):
            for name, (mine, theirs) in placements.items():
                os.sched_setaffinity(0, mine)
                os.sched_setaffinity(pid, theirs)
                client_us, server_us, wall_us = measure(lean, server, args.count)
                print(
                    f"{name:<10} client CPU {client_us:5.1f} µs, redis-server CPU "
                    f"{server_us:5.1f} µs, wall {wall_us:5.1f} µs per round trip",
                    flush=True,
                )
        lean.close()
    finally:
        os.sched_setaffinity(0, set(cpus))
        redis_server.stop()


if __name__ == "__main__":
    main()
