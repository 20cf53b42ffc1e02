"""Other players' views while one client floods the service with expert bot turns.

Usage (from the project root)::

    .venv/bin/python -m bench.bot_flood                 # about 2 minutes (30 s phases)
    .venv/bin/python -m bench.bot_flood --seconds 60    # docs/performance.md's figures

Starts its own redis-server and gunicorn with the production config (2
workers, one trusted proxy so that clients are told apart by the address it
forwards) and the runner process, then measures the latency of the views that
four other players ask for (``GET /games/{id}`` with their seat's token, 20 a
second in all, each from an address of its own) over ``--seconds``:

1. **idle**: the views alone;
2. **flood**: while one client plays 8 games of one human seat and 5 expert
   bots each, a request every 0.2 s (about 5 a second, far under the rate
   limits): the human's seat draws and discards as soon as it is to move,
   handing the turn to the 5 experts;
3. **flood, no budget per client**: the same, with ``BOT_SECONDS_PER_OWNER=0``
   (every request plays its bots up to ``BOT_SECONDS_PER_REQUEST``, as before
   the budget).

It prints one Markdown row per phase: the views' p50 / p90 / p99 and count,
the flood's requests and the human's moves among them that were applied (each
discard hands the turn to the 5 experts: with the budget spent, the runner
plays them at its pace, and the human waits for them).
docs/performance.md ("Bot turns of one client") shows the figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from tests.support.gunicorn import GunicornServer
from tests.support.redis_server import RedisServer

#: The flooding client's address (as the proxy forwards it) and the others'.
FLOODER = "198.51.100.7"
PLAYERS = [f"203.0.113.{i}" for i in range(1, 5)]


@dataclass
class Phase:
    """One phase's figures."""

    name: str
    views: list[float] = field(default_factory=list)  # ms
    flood_requests: int = 0
    #: The flooding human's moves applied (each discard hands the turn to 5 experts).
    flood_moves: int = 0


class Client:
    """A keep-alive HTTP connection from one forwarded address."""

    def __init__(self, server: GunicornServer, address: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        self.headers = {"X-Forwarded-For": address, "Content-Type": "application/json"}

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        """One request: its status and JSON answer."""
        headers = dict(self.headers)
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body)
        try:
            self.connection.request(method, path, data, headers)
            answer = self.connection.getresponse()
        except (ConnectionError, http.client.HTTPException):
            self.connection.close()  # closed by the server: once more on a new one
            self.connection.request(method, path, data, headers)
            answer = self.connection.getresponse()
        raw = answer.read()
        return answer.status, json.loads(raw) if raw else None


def create(client: Client, body: dict[str, Any]) -> tuple[str, str]:
    """A new game and the token of its first seat."""
    status, created = client.call("POST", "/games", body)
    assert status == 201, created
    return created["id"], created["seats"][0]["token"]


def watch(server: GunicornServer, address: str, stop: threading.Event, phase: Phase) -> None:
    """One player viewing its game 5 times a second until ``stop``."""
    client = Client(server, address)
    game, token = create(client, {"preset": "standard", "seats": [{"name": "P"}, {"name": "Q"}]})
    next_at = time.monotonic()
    while not stop.is_set():
        started = time.perf_counter()
        status, _ = client.call("GET", f"/games/{game}", token=token)
        assert status == 200, status
        phase.views.append((time.perf_counter() - started) * 1000)
        next_at += 0.2
        time.sleep(max(0.0, next_at - time.monotonic()))


def flood(server: GunicornServer, stop: threading.Event, phase: Phase, games: int) -> None:
    """One client's games of one human and 5 expert bots, a request every 0.2 s."""
    client = Client(server, FLOODER)
    body = {"preset": "standard", "seats": [{"name": "H"}, *[{"bot": "expert"}] * 5]}
    tables = [create(client, body) for _ in range(games)]
    next_at = time.monotonic()
    turn = 0
    while not stop.is_set():
        game, token = tables[turn % len(tables)]
        turn += 1
        status, listed = client.call("GET", f"/games/{game}/legal-moves", token=token)
        phase.flood_requests += 1
        moves = listed["moves"] if status == 200 else []
        if moves:
            draws = [m for m in moves if m["type"] == "draw"]
            discards = [m for m in moves if m["type"] == "discard"]
            move = (draws or discards or moves)[0]
            next_at += 0.2
            time.sleep(max(0.0, next_at - time.monotonic()))
            status, _ = client.call("POST", f"/games/{game}/moves", move, token=token)
            phase.flood_requests += 1
            phase.flood_moves += status == 200
        next_at += 0.2
        time.sleep(max(0.0, next_at - time.monotonic()))


def run_phase(server: GunicornServer, name: str, seconds: float, flooding: bool) -> Phase:
    """Views of the players over ``seconds``, with or without the flood."""
    phase = Phase(name)
    stop = threading.Event()
    threads = [
        threading.Thread(target=watch, args=(server, address, stop, phase)) for address in PLAYERS
    ]
    if flooding:
        threads.append(threading.Thread(target=flood, args=(server, stop, phase, 8)))
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    return phase


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` percentile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def serve(redis: RedisServer, workers: int, extra: dict[str, str]) -> GunicornServer:
    """gunicorn (production config) and the runner on ``redis``."""
    env = {
        "STORE_URL": redis.url,
        "RATELIMIT_PROXY_HOPS": "1",
        "ACCESS_LOG": "0",
        "LOG_LEVEL": "WARNING",
        **extra,
    }
    return GunicornServer(env, workers=workers).start()


def main(argv: list[str] | None = None) -> None:
    """Run the three phases and print their table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    args = parser.parse_args(argv)
    phases = []
    with RedisServer() as redis:
        server = serve(redis, args.workers, {})
        try:
            phases.append(run_phase(server, "idle", args.seconds, flooding=False))
            phases.append(run_phase(server, "flood", args.seconds, flooding=True))
        finally:
            server.stop()
        server = serve(redis, args.workers, {"BOT_SECONDS_PER_OWNER": "0"})
        try:
            phases.append(
                run_phase(server, "flood, no budget per client", args.seconds, flooding=True)
            )
        finally:
            server.stop()
    print("| phase | views p50 / p90 / p99 (ms) | views | flood requests | flood moves |")
    print("|---|---|---|---|---|")
    for phase in phases:
        figures = " / ".join(f"{percentile(phase.views, q):.1f}" for q in (0.5, 0.9, 0.99))
        print(
            f"| {phase.name} | {figures} | {len(phase.views)} | "
            f"{phase.flood_requests or '-'} | {phase.flood_moves or '-'} |"
        )


if __name__ == "__main__":
    main()
