"""Where a request's CPU goes inside the app: cProfile of moves, views and /healthz.

Usage: .venv/bin/python -m bench.profile_app [--phase moves|view|legal|hello] [--profile]
       .venv/bin/python -m bench.profile_app --games 16 --requests 6400 --objects

Runs the app in-process (Flask test client, production settings, a throwaway
redis-server) and plays scripted 4-player games (`bench.plan`); prints the
CPU µs per request of this process (app and Redis client, not redis-server)
and, with ``--profile``, the top functions. With ``--objects``, what the
process keeps for the garbage collector once the requests are done: the app
is frozen out of its sight first (`gc.freeze`, as a serving worker does), then
the objects it tracks after a full collection are counted, by type.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import time
from collections import Counter
from collections.abc import Callable

from flask.testing import FlaskClient

from bench.plan import plan_game
from service.app import create_app
from service.config import Config
from tests.support.redis_server import RedisServer

UNLIMITED = "1000000000/60"


def games(client: FlaskClient, count: int) -> list[tuple[str, list[str], list[tuple[int, bytes]]]]:
    """`count` created games with their tokens and scripted moves."""
    made = []
    for seed in range(1, count + 1):
        plan = plan_game(seed, 4, "standard", max_moves=5000)
        seats = [{"name": f"p{i}"} for i in range(4)]
        answer = client.post("/games", json={"preset": "standard", "seats": seats, "seed": seed})
        body = answer.get_json()
        made.append((body["id"], [s["token"] for s in body["seats"]], plan.moves))
    return made


def main() -> None:
    """Profile the phases."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--profile", action="store_true", help="print cProfile tables")
    parser.add_argument("--callers", help="also print the callers of functions matching this")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument(
        "--cumulative",
        default="service|marshmallow|webargs|smorest|prometheus|redis/(client|connection)",
    )
    parser.add_argument("--phase", default="moves", choices=["moves", "view", "legal", "hello"])
    parser.add_argument("--games", type=int, default=8, help="scripted games played")
    parser.add_argument(
        "--objects", action="store_true", help="count the objects the collector tracks after"
    )
    args = parser.parse_args()
    redis = RedisServer().start()
    try:
        config = Config(
            STORE_URL=redis.url,
            RATELIMIT_PER_TOKEN=UNLIMITED,
            RATELIMIT_PER_ADDRESS=UNLIMITED,
            ACCESS_LOG=False,
        )
        app = create_app(config)
        client = app.test_client()
        client.get("/healthz")
        if args.objects:
            gc.collect()
            gc.freeze()  # the loaded app, as `tune_gc_for_serving` does in a worker
        played = games(client, args.games)
        sent: list[Callable[[], object]] = []
        for game_id, tokens, moves in played:
            for seat, body in moves:
                headers = {"Authorization": f"Bearer {tokens[seat]}"}
                if args.phase == "moves":
                    sent.append(
                        lambda g=game_id, h=headers, b=body: client.post(
                            f"/games/{g}/moves", data=b, headers=h,
                            content_type="application/json",
                        )
                    )  # fmt: skip
                elif args.phase == "view":
                    sent.append(lambda g=game_id, h=headers: client.get(f"/games/{g}", headers=h))
                elif args.phase == "legal":
                    sent.append(
                        lambda g=game_id, h=headers: client.get(
                            f"/games/{g}/legal-moves", headers=h
                        )
                    )
                else:
                    sent.append(lambda: client.get("/healthz"))
        sent = sent[: args.requests]
        for call in sent[:50] if args.phase != "moves" else []:
            call()
        profiler = cProfile.Profile(time.process_time)  # CPU, not waits on Redis
        started, cpu = time.perf_counter(), time.process_time()
        if args.profile:
            profiler.enable()
        for call in sent:
            answer = call()
            assert answer.status_code == 200, answer.get_data()  # type: ignore[attr-defined]
        profiler.disable()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(
            f"{args.phase}: {len(sent)} requests, {elapsed / len(sent) * 1e6:.0f} µs wall, "
            f"{cpu / len(sent) * 1e6:.0f} µs CPU of this process each"
            + (" (profiled)" if args.profile else "")
        )
        if args.objects:
            sent.clear()  # the requests' own closures
            gc.collect()
            tracked = gc.get_objects()
            kinds = Counter(type(o).__qualname__ for o in tracked)
            print(f"objects the collector tracks after the requests: {len(tracked)}")
            for kind, count in kinds.most_common(8):
                print(f"  {count:8d} {kind}")
        if args.profile:
            pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.cumulative)
            if args.callers:
                pstats.Stats(profiler).sort_stats("tottime").print_callers(args.callers)
    finally:
        redis.stop()


if __name__ == "__main__":
    main()
