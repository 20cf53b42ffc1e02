"""The streams' cost per save in a worker, in instructions: a game's feed and streams in-process.

Usage (from the project root; needs ``valgrind``, and ``redis-server`` for ``--read``)::

    .venv/bin/python -m bench.push_calls                         # 6 spectators' streams
    .venv/bin/python -m bench.push_calls --viewers 0,1,2,3,s,s   # 4 seats and 2 spectators
    .venv/bin/python -m bench.push_calls --read                  # reading the messages
    .venv/bin/python -m bench.push_calls --no-valgrind           # CPU µs per save instead

What a gevent worker does with one save's wake-up once it was read off the
subscription (`Hub.notify_with`): decode the events the message carries, hand
them to the game's feed, which keeps them and has every stream's new bytes
written to its socket (service/api/feeds.py, service/api/pushing.py). The
messages are those a save script publishes for the moves of a scripted
4-player game (`bench.plan`: draws, discards, melds, lay-offs, new rounds),
each stream's socket one end of a socket pair (the other end read only at the
end, to check that every stream got every event). The first ``--warm`` saves
are not counted; the next ``--saves`` are, under valgrind's callgrind with the
instrumentation on only around them, the collector tuned as in a worker. The
figure: the instructions per save, less those of the same run with no save
counted (turning the instrumentation on and off), repeatable on a loaded
machine; the kernel's work in each ``send`` is not counted.

``--read`` counts the step before instead: reading the messages off the
subscription's connection (`PatternSubscription.get_message`) from a
redis-server that had them published just before, as a worker's reader finds
them after a wake-up.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()  # first, as in a gunicorn gevent worker

import argparse  # noqa: E402
import contextlib  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from contextlib import AbstractContextManager  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import gevent  # noqa: E402
import orjson  # noqa: E402

from bench.plan import plan_game  # noqa: E402
from service.api.feeds import Feed, Following  # noqa: E402
from service.api.pushing import PushedStream  # noqa: E402
from service.rules.engine import SeatSpec, apply, new_game  # noqa: E402
from service.rules.moves import parse_move  # noqa: E402
from service.rules.options import resolve_options  # noqa: E402
from service.serving.gc_tuning import tune_gc_for_serving  # noqa: E402
from service.store.base import DEFAULT_MAX_EVENTS  # noqa: E402
from service.store.codec import event_tail, now_ms, stamp_event  # noqa: E402
from service.store.watch import Hub, Watch  # noqa: E402

GAME = "bench-push-game"


def wakeups(seed: int, count: int) -> list[bytes]:
    """The messages the save script publishes for the first `count` moves of a
    scripted 4-player game (its events in their stored form, one a line)."""
    plan = plan_game(seed, 4, "standard", max_moves=count)
    options = resolve_options("standard", {}, 4)
    seats = [SeatSpec(f"p{i}", "human", None, None) for i in range(4)]
    state, _ = new_game(options, "standard", seats, seed=seed)
    at, seq, messages = now_ms(), 0, []
    for version, (seat, body) in enumerate(plan.moves, start=1):
        state, events = apply(state, seat, parse_move(orjson.loads(body)))
        lines = []
        for event in events:
            seq += 1
            lines.append(stamp_event(seq, version, at + version, event_tail(event)))
        messages.append(b"\n".join(lines))
    if len(messages) < count:
        raise SystemExit(f"the scripted game has {len(messages)} moves, not {count}")
    return messages


class QuietStore:
    """What a feed uses of a store: its watch on the hub, and no stored events."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def watch(self, game_id: str, deliver: Any = None) -> AbstractContextManager[Watch]:
        return self.hub.watch(game_id, deliver)

    def events(self, game_id: str, after: int) -> list[dict[str, Any]]:
        return []


def serve(stream: PushedStream, sock: Any) -> None:
    """Drive the stream's body as gunicorn does: its first items written to the socket."""
    body: Iterator[bytes] = stream.body()
    for item in body:
        sock.sendall(b"%X\r\n%s\r\n" % (len(item), item))


def callgrind(switch: str) -> None:
    """Turn valgrind's instrumentation of this process on or off (and wait until it is)."""
    command = subprocess.Popen(
        ["callgrind_control", "-i", switch, str(os.getpid())], stdout=subprocess.DEVNULL
    )
    # Waited for without gevent's loop (the original, blocking `waitpid`): a
    # loop polling it ran while counted, as often as the machine was slow, and
    # moved a figure by thousands of instructions a save from run to run.
    with contextlib.suppress(ChildProcessError):  # gevent's loop reaped it already
        monkey.get_original("os", "waitpid")(command.pid, 0)
    command.returncode = 0  # reaped: the object must not wait for it again


def measure_read(args: argparse.Namespace) -> None:
    """Publish the saves' messages, then read them off a subscription (counting the last ones)."""
    import redis

    from service.serving.subscription import PatternSubscription
    from tests.support.redis_server import RedisServer

    messages = wakeups(args.seed, args.warm + args.saves)
    server = RedisServer().start()
    try:
        client = redis.Redis.from_url(server.url)
        subscription = PatternSubscription(client, "wake:*", 5.0)

        def publish_and_read(batch: list[bytes], count: bool) -> None:
            pipe = client.pipeline(transaction=False)
            for message in batch:
                pipe.publish(f"wake:{GAME}", message)
            pipe.execute()
            time.sleep(0.2)  # all of them on the subscription's socket
            if count and args.valgrind:
                callgrind("on")
            read = 0
            while read < len(batch):
                read += subscription.get_message(timeout=1.0) is not None
            if count and args.valgrind:
                callgrind("off")

        publish_and_read(messages[: args.warm], count=False)
        publish_and_read(messages[args.warm :], count=True)
        subscription.close()
    finally:
        server.stop()


def measure(args: argparse.Namespace) -> None:
    """Set the game's feed and streams up, push the saves, check what arrived."""
    messages = wakeups(args.seed, args.warm + args.saves)
    hub = Hub()
    feed = Feed(QuietStore(hub), GAME, keep=DEFAULT_MAX_EVENTS, reread=3600.0)  # type: ignore[arg-type]
    assert feed.wait_loaded(5.0)
    ends = []
    for viewer in args.viewers.split(","):
        server, client = socket.socketpair()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        following = Following(
            seat=None if viewer == "s" else int(viewer),
            after=0, delay=0, heartbeat=3600.0, lifetime=3600.0,
        )  # fmt: skip
        gevent.spawn(serve, PushedStream(feed, server, following), server)
        ends.append(client)
    gevent.sleep(0.05)  # every stream sent its start and listens
    tune_gc_for_serving()  # as a worker is set up
    gevent.config.track_greenlet_tree = False
    for message in messages[: args.warm]:
        hub.notify_with(GAME, message)
    if args.valgrind:
        callgrind("on")
    started = time.process_time()
    for message in messages[args.warm :]:
        hub.notify_with(GAME, message)
    cpu = time.process_time() - started
    if args.valgrind:
        callgrind("off")
    gevent.sleep(0.05)
    last = messages[-1].rsplit(b"\n", 1)[-1].split(b" ", 1)[0]
    for client in ends:
        client.setblocking(False)
        received = b""
        while True:
            try:
                more = client.recv(1 << 20)
            except BlockingIOError:
                break
            received += more
        if not received.endswith(b"\n\n\r\n") or b"id: " + last + b"\n" not in received:
            raise SystemExit(f"a stream did not get the last event ({last!r}): {received[-300:]!r}")
    if not args.valgrind:
        print(f"{args.saves} saves, {cpu / args.saves * 1e6:.1f} µs CPU each")


def main() -> None:
    """Run under valgrind (or not) and report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--viewers", default="s,s,s,s,s,s", help="seats, s: a spectator")
    parser.add_argument("--saves", type=int, default=300, help="saves counted")
    parser.add_argument("--warm", type=int, default=30, help="saves before the counted ones")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--read", action="store_true", help="count reading the messages")
    parser.add_argument("--no-valgrind", dest="valgrind", action="store_false")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside or not args.valgrind:
        (measure_read if args.read else measure)(args)
        return
    counted = [instructions([*sys.argv[1:], "--saves", str(saves)]) for saves in (0, args.saves)]
    per_save = (counted[1] - counted[0]) / args.saves
    what = "reading the messages" if args.read else f"viewers {args.viewers}"
    print(
        f"{what}: {per_save:,.0f} instructions per save "
        f"({args.saves} saves of seed {args.seed}'s game after {args.warm})"
    )


def instructions(argv: list[str]) -> int:
    """The instructions counted by a run of this module with `argv` under callgrind."""
    with tempfile.TemporaryDirectory(prefix="bench-push-") as name:
        out = Path(name) / "push.cg"
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={out}", sys.executable, "-m", "bench.push_calls",
             "--inside", *argv],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        totals = re.search(r"^totals: (\d+)", out.read_text(), re.MULTILINE)
    if totals is None:
        raise SystemExit("valgrind counted nothing")
    return int(totals.group(1))


if __name__ == "__main__":
    main()
