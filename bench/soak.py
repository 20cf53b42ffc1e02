"""Soak: concurrent bot clients play whole games against gunicorn + Redis for minutes.

Usage: .venv/bin/python -m bench.soak [--clients 16] [--seconds 120] [--workers 2]

Starts a throwaway redis-server and a gunicorn with deploy/gunicorn.conf.py
(rate limits off: every client shares one address). Each client is a bot over
HTTP on its own keep-alive connection: it creates a game (random preset, 2 to
6 seats, itself in one or two of them, server bots in the rest), then loops
on view, legal moves and one move (sometimes with `If-Match`, sometimes with
`Idempotency-Key`, sent twice), reads the events now and then, and starts a
new game when one ends. At the end it prints the requests, the answers by
status, the games played and finished, and the error lines of gunicorn's log.
Exits 1 on any 5xx, transport error or error in the log.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.e2e.http import Answer, Client, choose
from tests.robustness.logs import error_lines
from tests.support.gunicorn import GunicornServer
from tests.support.redis_server import RedisServer


@dataclass
class Tally:
    """What the clients saw, summed under a lock."""

    statuses: Counter[int] = field(default_factory=Counter)
    games: int = 0
    finished: int = 0
    moves: int = 0
    errors: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def seen(self, answer: Answer, seconds: float) -> Answer:
        """Count one answer."""
        with self.lock:
            self.statuses[answer.status] += 1
            self.latencies.append(seconds)
            if answer.status >= 500:
                self.errors.append(f"{answer.status} {answer.json}")
        return answer


class Bot:
    """One client: plays games one after another until the deadline."""

    def __init__(self, url: str, presets: dict[str, tuple[int, int]], tally: Tally, seed: int):
        self.client = Client(url)
        self.presets = presets
        self.tally = tally
        self.rng = random.Random(seed)

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, **headers: str
    ) -> Answer:
        """One request, counted."""
        started = time.perf_counter()
        answer = self.client.request(method, path, body, token=token, **headers)
        return self.tally.seen(answer, time.perf_counter() - started)

    def play(self, deadline: float) -> None:
        """Play games until `deadline` (monotonic seconds)."""
        while time.monotonic() < deadline:
            self.one_game(deadline)
        self.client.close()

    def one_game(self, deadline: float) -> None:
        """Create one game and play its human seats until it ends or time is up."""
        rng = self.rng
        preset = rng.choice(sorted(self.presets))
        low, high = self.presets[preset]
        count = rng.randint(low, min(high, 6))
        people = rng.randint(1, min(2, count))
        seats: list[dict[str, Any]] = [{"name": f"soak{i}"} for i in range(people)]
        seats += [{"bot": rng.choice(["random", "greedy"])} for _ in range(count - people)]
        rng.shuffle(seats)
        created = self.call("POST", "/games", {"preset": preset, "seats": seats})
        if created.status != 201:
            return
        with self.tally.lock:
            self.tally.games += 1
        game = created.json["id"]
        tokens = {s["seat"]: s["token"] for s in created.json["seats"] if "token" in s}
        after = 0
        while time.monotonic() < deadline:
            view = self.call("GET", f"/games/{game}")
            if view.status != 200 or view.json["status"] != "active":
                if view.status == 200 and view.json["status"] == "finished":
                    with self.tally.lock:
                        self.tally.finished += 1
                return
            seat = view.json["round"]["turn"]
            token = tokens[seat]
            legal = self.call("GET", f"/games/{game}/legal-moves", token=token)
            if legal.status != 200 or not legal.json["moves"]:
                return
            mine = self.call("GET", f"/games/{game}", token=token)
            move = choose(legal.json["moves"], rng, mine.json.get("hand"))
            headers: dict[str, str] = {}
            style = rng.random()
            if style < 0.3:
                headers["If-Match"] = f'"{legal.json["version"]}"'
            elif style < 0.4:
                headers["Idempotency-Key"] = uuid.uuid4().hex
            answer = self.call("POST", f"/games/{game}/moves", move, token=token, **headers)
            if "Idempotency-Key" in headers:  # a retry replays the same answer
                self.call("POST", f"/games/{game}/moves", move, token=token, **headers)
            if answer.status == 200:
                with self.tally.lock:
                    self.tally.moves += 1
            if rng.random() < 0.2:
                events = self.call("GET", f"/games/{game}/events?after={after}", token=token)
                if events.status == 200:
                    after = events.json["last"]


def run(url: str, clients: int, seconds: float) -> Tally:
    """Run `clients` bots against `url` for `seconds`; returns what they saw."""
    tally = Tally()
    presets = {
        p["name"]: tuple(p["options"]["players"])
        for p in Client(url).get("/presets").json["presets"]
    }
    deadline = time.monotonic() + seconds

    def bot(index: int) -> None:
        try:
            Bot(url, presets, tally, index).play(deadline)
        except OSError as exc:  # a transport error is a failure too
            with tally.lock:
                tally.errors.append(f"client {index}: {exc!r}")

    threads = [threading.Thread(target=bot, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally


def main() -> None:
    """Start redis-server and gunicorn, soak, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    redis_server = RedisServer().start()
    server = GunicornServer(
        {"STORE_URL": redis_server.url, "RATELIMIT_ENABLED": "0"}, workers=args.workers
    )
    try:
        server.start()
        started = time.monotonic()
        tally = run(server.url, args.clients, args.seconds)
        elapsed = time.monotonic() - started
    finally:
        server.stop()
        redis_server.cleanup()
    log_errors = error_lines(Path(server._log.name).read_text(errors="replace"))
    requests = sum(tally.statuses.values())
    latencies = sorted(tally.latencies)
    print(f"clients {args.clients}, {elapsed:.0f} s, gunicorn workers {args.workers}, Redis")
    print(f"requests {requests} ({requests / elapsed:.0f}/s), moves applied {tally.moves}")
    print(f"games started {tally.games}, finished {tally.finished}")
    print("answers by status:", dict(sorted(tally.statuses.items())))
    if latencies:
        p50 = latencies[len(latencies) // 2] * 1000
        p99 = latencies[int(len(latencies) * 0.99)] * 1000
        print(f"latency p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    print(
        f"5xx or transport errors: {len(tally.errors)}; error lines in the log: {len(log_errors)}"
    )
    for line in (tally.errors + log_errors)[:20]:
        print("  ", line[:300])
    sys.exit(1 if tally.errors or log_errors else 0)


if __name__ == "__main__":
    main()
