"""Moves per second through gunicorn for a few worker settings, with long-polls waiting.

Usage: .venv/bin/python -m bench.gunicorn_workers [--seconds 8] [--clients 8] [--pollers 4]

Starts a throwaway redis-server, then for each setting a gunicorn with
deploy/gunicorn.conf.py; `clients` threads each play draw/discard moves on
their own game over a keep-alive connection while `pollers` threads hold
`GET /events?wait=30` long-polls open. Prints moves/s and p50/p99 latency.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from tests.e2e.http import Client
from tests.support.gunicorn import CONFIG, GunicornServer
from tests.support.redis_server import RedisServer

SETTINGS = {
    "sync -w 4": ["--worker-class", "sync", "--workers", "4"],
    "gthread -w 2 --threads 4": ["--worker-class", "gthread", "--workers", "2", "--threads", "4"],
    "gthread -w 4 --threads 2": ["--worker-class", "gthread", "--workers", "4", "--threads", "2"],
    "gthread -w 2 --threads 16": ["--worker-class", "gthread", "--workers", "2", "--threads", "16"],
    "gevent -w 2": ["--worker-class", "gevent", "--workers", "2"],
}


def _player(url: str, stop: threading.Event, latencies: list[float]) -> None:
    client = Client(url)
    created = client.post("/games", {"seats": [{"name": "A"}, {"name": "B"}], "seed": 1}).json
    game, tokens = created["id"], [s["token"] for s in created["seats"]]
    turn = client.get(f"/games/{game}").json["round"]["turn"]
    while not stop.is_set():
        started = time.perf_counter()
        draw = {"type": "draw", "source": "stock"}
        view = client.post(f"/games/{game}/moves", draw, tokens[turn])
        latencies.append(time.perf_counter() - started)
        if view.status != 200:
            break
        card = view.json["hand"][0]
        started = time.perf_counter()
        view = client.post(f"/games/{game}/moves", {"type": "discard", "card": card}, tokens[turn])
        latencies.append(time.perf_counter() - started)
        if view.status != 200 or view.json["status"] != "active":
            break
        turn = view.json["round"]["turn"]
    client.close()


def _poller(url: str, game: str, stop: threading.Event) -> None:
    client = Client(url)
    while not stop.is_set():
        try:
            client.get(f"/games/{game}/events?after=100000&wait=5")
        except OSError:
            break
    client.close()


def measure(redis_url: str, args: list[str], seconds: float, clients: int, pollers: int) -> str:
    """One setting: moves/s and latency percentiles."""
    env = {"STORE_URL": redis_url, "RATELIMIT_ENABLED": "0", "ACCESS_LOG": "0"}
    server = GunicornServer(env)
    server.command = [*server.command[:-1], *args, server.command[-1]]
    with server:
        stop = threading.Event()
        setup = Client(server.url)
        quiet = setup.post("/games", {"seats": [{"name": "A"}, {"name": None}]}).json["id"]
        threads = [
            threading.Thread(target=_poller, args=(server.url, quiet, stop), daemon=True)
            for _ in range(pollers)
        ]
        latencies: list[float] = []
        threads += [
            threading.Thread(target=_player, args=(server.url, stop, latencies), daemon=True)
            for _ in range(clients)
        ]
        for thread in threads:
            thread.start()
        time.sleep(seconds)
        count = len(latencies)
        stop.set()
        for thread in threads:
            thread.join(10)
    if count < 2:
        return "no moves (starved)"
    cuts = statistics.quantiles(latencies, n=100)
    p50, p99 = cuts[49] * 1000, cuts[98] * 1000
    return f"{count / seconds:7.0f} moves/s  p50 {p50:5.1f} ms  p99 {p99:6.1f} ms"


def main() -> None:
    """Run every setting and print one line each."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--pollers", type=int, default=4)
    options = parser.parse_args()
    print(f"config {CONFIG.name}; {options.clients} players, {options.pollers} long-polls")
    with RedisServer() as redis_server:
        for name, args in SETTINGS.items():
            line = measure(
                redis_server.url, args, options.seconds, options.clients, options.pollers
            )
            print(f"{name:26s} {line}", flush=True)


if __name__ == "__main__":
    main()
