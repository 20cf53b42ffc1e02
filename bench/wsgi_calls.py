"""A request's cost inside a gevent worker, counted in instructions: the app called in-process.

Usage (from the project root; needs ``valgrind``, Debian ``apt-get install valgrind``)::

    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/view.cg \\
        .venv/bin/python -m bench.wsgi_calls --phase view --callgrind
    .venv/bin/python -m bench.wsgi_calls --phase moves       # CPU µs per request, no valgrind
    .venv/bin/python -m bench.wsgi_calls --phase moves --profile /tmp/moves.prof  # cProfile

Wall and CPU times on a shared machine swing by tens of percent from one minute to the
next; valgrind's instruction count does not, so two versions of the code can be
compared one after the other. The script gevent-patches itself as gunicorn's gevent
worker does, starts a throwaway redis-server, builds the app from the production
settings (``bench.http.app_env``: rate limits counted in the load, the request log on,
metrics in multi-process files), applies the worker's GC and greenlet settings, and
calls the WSGI app the way the worker does, from ``--concurrency`` greenlets at once
(their store commands pipelined). It plays the first moves of 16 scripted 4-player
games (`bench.plan`), then times ``--requests`` requests of one phase: ``hello``
(``/healthz``), ``view`` or ``legal`` (a seat's view or legal moves, the seat to
move), ``moves`` (the scripted moves of the 16 games, one in flight per game).

With ``--callgrind`` (under valgrind started with ``--instr-atstart=no``) only those
requests are instrumented (``callgrind_control -i on``, then ``off``): the
instructions per request are the ``totals:`` line of the output file divided by the
requests. Not counted: gunicorn's own work (parsing the request, writing the
answer) and the kernel's.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402 - after the patching, as in a gevent worker
import io  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import gevent  # noqa: E402
import orjson  # noqa: E402

GAMES = 16
#: Moves played into each game before the measured requests.
PLAYED = 30


def environ(method: str, path: str, token: str | None = None, body: bytes = b"") -> dict[str, Any]:
    """A WSGI environ as gunicorn builds it for a request from ``wrk``."""
    env: dict[str, Any] = {
        "REQUEST_METHOD": method, "SCRIPT_NAME": "", "PATH_INFO": path, "QUERY_STRING": "",
        "RAW_URI": path, "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": "40000",
        "HTTP_HOST": "127.0.0.1:8000", "wsgi.version": (1, 0), "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.multithread": False,
        "wsgi.multiprocess": True, "wsgi.run_once": False, "wsgi.input_terminated": True,
    }  # fmt: skip
    if token:
        env["HTTP_AUTHORIZATION"] = "Bearer " + token
    if body:
        env["CONTENT_TYPE"] = "application/json"
        env["CONTENT_LENGTH"] = str(len(body))
    return env


def caller(app: Any) -> Callable[..., tuple[str, bytes]]:
    """``call(method, path, token, body) -> (status, body)`` through the WSGI app."""

    def call(method: str, path: str, token: str | None = None, body: bytes = b"") -> Any:
        status: list[str] = []
        result = app(environ(method, path, token, body), lambda s, h, e=None: status.append(s))
        data = b"".join(result)
        getattr(result, "close", lambda: None)()
        return status[0], data

    return call


def callgrind(switch: str) -> None:
    """Turn valgrind's instrumentation of this process on or off (and wait until it is)."""
    command = subprocess.Popen(["callgrind_control", "-i", switch, str(os.getpid())])
    while command.poll() is None:
        time.sleep(0.05)  # valgrind acts on the command between our instructions


def main() -> None:
    """Set up, measure one phase, report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--phase", default="view", choices=["hello", "view", "legal", "moves"])
    parser.add_argument("--requests", type=int, default=320)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--callgrind", action="store_true", help="count with valgrind")
    parser.add_argument("--without", help="a speed module switched off (bench.without)")
    parser.add_argument("--json", action="store_true", help="print the CPU µs as JSON")
    parser.add_argument("--profile", help="write cProfile's statistics of the phase to this file")
    parser.add_argument(
        "--batches",
        action="store_true",
        help="after the warm-up, time --requests requests per line read on stdin (bench.ab)",
    )
    args = parser.parse_args()
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp()
    if args.without:
        from bench.without import switch_off

        switch_off(args.without)  # before the app's modules are imported

    from bench import http
    from bench.plan import plan_game
    from service.serving.gc_tuning import tune_gc_for_serving
    from tests.support.redis_server import RedisServer

    redis = RedisServer().start()
    try:
        os.environ.update(http.app_env(redis.url, 2))
        from service.app import create_app

        call = caller(create_app())
        games = []
        for seed in range(1, GAMES + 1):
            plan = plan_game(seed, 4, "standard", max_moves=5000)
            seats = [{"name": f"p{i}"} for i in range(4)]
            body = orjson.dumps({"preset": "standard", "seats": seats, "seed": seed})
            status, data = call("POST", "/games", None, body)
            assert status.startswith("201"), data
            made = orjson.loads(data)
            tokens = [seat["token"] for seat in made["seats"]]
            for seat, move in plan.moves[:PLAYED]:
                status, data = call("POST", f"/games/{made['id']}/moves", tokens[seat], move)
                assert status.startswith("200"), data
            games.append((made["id"], tokens, plan.moves))
        played = [PLAYED] * GAMES
        # As `deploy/gunicorn.conf.py` and `BalancedGeventWorker` set a worker up.
        tune_gc_for_serving()
        gevent.config.track_greenlet_tree = False

        def get(index: int) -> None:
            game_id, tokens, moves = games[index % GAMES]
            token = tokens[moves[PLAYED][0]]
            path = {"hello": "/healthz", "view": f"/games/{game_id}"}.get(
                args.phase, f"/games/{game_id}/legal-moves"
            )
            status, data = call("GET", path, None if args.phase == "hello" else token)
            assert status.startswith("200"), data

        def play(game: int, count: int) -> None:
            game_id, tokens, moves = games[game]
            for _ in range(count):
                seat, move = moves[played[game]]
                status, data = call("POST", f"/games/{game_id}/moves", tokens[seat], move)
                assert status.startswith("200"), data
                played[game] += 1

        def run(requests: int) -> int:
            if args.phase == "moves":
                each = requests // GAMES
                gevent.joinall(
                    [gevent.spawn(play, g, each) for g in range(GAMES)], raise_error=True
                )
                return each * GAMES
            workers = [
                gevent.spawn(lambda k=k: [get(i) for i in range(k, requests, args.concurrency)])
                for k in range(args.concurrency)
            ]
            gevent.joinall(workers, raise_error=True)
            return requests

        run(GAMES * 5 if args.phase == "moves" else 200)  # warm up
        if args.batches:
            print("ready", flush=True)
            for _ in sys.stdin:
                started = time.process_time()
                done = run(args.requests)
                print((time.process_time() - started) / done * 1e6, flush=True)
            return
        if args.callgrind:
            callgrind("on")
        started = time.process_time()
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            done = profiler.runcall(run, args.requests)
            profiler.dump_stats(args.profile)
        else:
            done = run(args.requests)
        cpu = time.process_time() - started
        if args.callgrind:
            callgrind("off")
            print(
                f"{args.phase}: {done} requests instrumented: instructions per request = "
                f"the 'totals:' line of valgrind's output file / {done}"
            )
        elif args.json:
            print(orjson.dumps({"phase": args.phase, "us": cpu / done * 1e6}).decode())
        else:
            print(f"{args.phase}: {done} requests, {cpu / done * 1e6:.0f} µs CPU each")
    finally:
        redis.stop()


if __name__ == "__main__":
    main()
