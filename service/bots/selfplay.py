"""Self-play over HTTP: games whose every seat is a bot client, against a running service.

    python -m service.bots.selfplay --url http://127.0.0.1:8000 --games 100 --seats 4 \\
        --preset standard --concurrency 8 [--strategy greedy] [--seed 1] [--mode turns]

It starts nothing itself. Each game is created with every seat taken (so the
answer carries every token); each seat is then played by its own
:class:`~service.bots.client.BotClient` with its own token, through the public
API only. ``--mode threads`` gives every seat a thread that long-polls the
events, as separate bot processes would (the service then needs a free thread
per waiting seat: ``concurrency * seats``); ``--mode turns`` (the default) lets one
thread per game step the seat whose turn the view shows, so no request waits.

The report gives games, moves, moves per second, move latency percentiles and
every error; the exit status is 1 when there was any error.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from service.bots.client import BotClient
from service.bots.http import Api, new_client_seed
from service.bots.strategies import STRATEGIES

MODES = ("turns", "threads")


@dataclass
class GameResult:
    """One self-played game: its id, moves and latencies, and what went wrong."""

    index: int
    game_id: str | None = None
    moves: int = 0
    stale: int = 0
    retried: int = 0
    latencies: list[float] = field(default_factory=list)
    winners: list[int] | None = None
    errors: list[str] = field(default_factory=list)


@dataclass
class Report:
    """The outcome of a self-play run."""

    games: int
    finished: int
    moves: int
    seconds: float
    latencies_ms: dict[str, float]
    stale: int
    retried: int
    errors: list[str]
    wins_by_seat: list[float]

    @property
    def moves_per_second(self) -> float:
        """Accepted moves per wall-clock second."""
        return self.moves / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-able dict."""
        return {
            "games": self.games,
            "finished": self.finished,
            "moves": self.moves,
            "seconds": round(self.seconds, 3),
            "moves_per_second": round(self.moves_per_second, 1),
            "latency_ms": self.latencies_ms,
            "stale_412": self.stale,
            "retried_503_429_or_dropped": self.retried,
            "wins_by_seat": self.wins_by_seat,
            "errors": self.errors,
        }

    def text(self) -> str:
        """A short human-readable report."""
        lat = self.latencies_ms
        lines = [
            f"games {self.games} (finished {self.finished}), moves {self.moves}, "
            f"{self.seconds:.1f} s, {self.moves_per_second:.1f} moves/s",
            "move latency ms: "
            + ", ".join(f"{k} {v:.1f}" for k, v in lat.items())
            + f"; 412 reloads {self.stale}, retries {self.retried}",
            "wins by seat: " + ", ".join(f"{w:g}" for w in self.wins_by_seat),
            f"errors: {len(self.errors)}",
            *(f"  {e}" for e in self.errors),
        ]
        return "\n".join(lines)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values`` by the nearest-rank method; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


def play_game(
    url: str,
    index: int,
    *,
    seats: int,
    preset: str,
    strategy: str,
    seed: int | None,
    mode: str = "turns",
    wait: float = 25.0,
    retries: int = 8,
    max_steps: int = 200_000,
) -> GameResult:
    """Create one game with every seat taken and play it to the end over HTTP."""
    result = GameResult(index)
    clients: list[BotClient] = []
    try:
        creator = Api(url, retries=retries)
        body: dict[str, Any] = {
            "preset": preset,
            # Each seat adds its own entropy to the deals (docs/fairness.md).
            "seats": [{"name": f"bot {i}", "client_seed": new_client_seed()} for i in range(seats)],
        }
        if seed is not None:
            body["seed"] = seed + index
        created = creator.post("/games", body)
        creator.close()
        if created.status != 201:
            raise RuntimeError(f"create answered {created.status}: {created.body}")
        result.game_id = game_id = created.body["id"]
        for seat in created.body["seats"]:
            chooser = random.Random(f"{seed}/{index}/{seat['seat']}")
            api = Api(url, seat["token"], retries=retries)
            clients.append(BotClient(api, game_id, strategy, chooser, wait=wait))
        if mode == "threads":
            _play_threads(clients, result)
        else:
            _play_turns(clients, max_steps)
        final = next((c.view for c in clients if c.finished), None)
        if final is None:
            raise RuntimeError("the game did not finish")
        result.winners = final.get("winners")
    except Exception as exc:  # report every failure, keep the other games going
        result.errors.append(f"game {index} ({result.game_id}): {type(exc).__name__}: {exc}")
    finally:
        for c in clients:
            result.moves += len(c.latencies)
            result.latencies.extend(c.latencies)
            result.stale += c.stale
            result.retried += c.api.retried
            c.close()
    return result


def _play_turns(clients: Sequence[BotClient], max_steps: int) -> None:
    """Step the seat to move, as the latest view shows, until the game is over."""
    seat = 0
    for _ in range(max_steps):
        client = clients[seat]
        moved = client.step()
        if client.finished:
            for other in clients:  # each seat reads the end of the game itself
                other.step()
            return
        view = client.view
        turn = (view.get("round") or {}).get("turn")
        out = [s["seat"] for s in view.get("seats", ()) if s.get("eliminated")]
        for s in out:  # an eliminated seat may re-engage at any time
            if s != seat:
                clients[s].step()
        if isinstance(turn, int) and (moved or turn != seat):
            seat = turn
        else:
            seat = (seat + 1) % len(clients)
    raise RuntimeError(f"no end after {max_steps} steps")


def _play_threads(clients: Sequence[BotClient], result: GameResult) -> None:
    """One thread per seat, each long-polling like a separate bot process."""
    errors: list[str] = []

    def run(client: BotClient) -> None:
        try:
            client.play()
        except Exception as exc:
            errors.append(f"seat {client.view.get('you')}: {type(exc).__name__}: {exc}")
            for other in clients:  # the game cannot go on without this seat
                other.stop.set()

    threads = [threading.Thread(target=run, args=(c,), daemon=True) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError("; ".join(errors))


def run_selfplay(
    url: str,
    games: int,
    *,
    seats: int = 4,
    preset: str = "standard",
    strategy: str = "greedy",
    concurrency: int = 8,
    seed: int | None = None,
    mode: str = "turns",
    wait: float = 25.0,
    retries: int = 8,
) -> Report:
    """Play ``games`` games, ``concurrency`` at a time, and report."""
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        results = list(
            pool.map(
                lambda i: play_game(
                    url,
                    i,
                    seats=seats,
                    preset=preset,
                    strategy=strategy,
                    seed=seed,
                    mode=mode,
                    wait=wait,
                    retries=retries,
                ),
                range(games),
            )
        )
    seconds = time.perf_counter() - started
    latencies = [x for r in results for x in r.latencies]
    wins = [0.0] * seats
    for r in results:
        for w in r.winners or ():
            wins[w] += 1 / len(r.winners or (1,))
    return Report(
        games=games,
        finished=sum(1 for r in results if r.winners is not None and not r.errors),
        moves=sum(r.moves for r in results),
        seconds=seconds,
        latencies_ms={
            name: round(percentile(latencies, q) * 1000, 2)
            for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0))
        },
        stale=sum(r.stale for r in results),
        retried=sum(r.retried for r in results),
        errors=[e for r in results for e in r.errors],
        wins_by_seat=[round(w, 2) for w in wins],
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: self-play against a running service and print the report."""
    parser = argparse.ArgumentParser(
        prog="python -m service.bots.selfplay",
        description="Self-play games of bot clients against a running service.",
    )
    parser.add_argument("--url", required=True, help="service base URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seats", type=int, default=4, choices=range(2, 7), metavar="2-6")
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--strategy", default="greedy", choices=sorted(STRATEGIES))
    parser.add_argument("--concurrency", type=int, default=8, help="games played at once")
    parser.add_argument("--seed", type=int, default=None, help="game i is created with seed+i")
    parser.add_argument("--mode", default="turns", choices=MODES)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = run_selfplay(
        args.url,
        args.games,
        seats=args.seats,
        preset=args.preset,
        strategy=args.strategy,
        concurrency=args.concurrency,
        seed=args.seed,
        mode=args.mode,
    )
    print(json.dumps(report.to_json(), indent=2) if args.json else report.text())
    return 1 if report.errors or report.finished != report.games else 0


if __name__ == "__main__":
    sys.exit(main())
