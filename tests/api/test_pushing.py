"""Streams the feed's reader writes straight to their sockets (service/api/pushing.py),
under gevent as in a gunicorn gevent worker (`tests.support.under_gevent`): a
socket pair stands for the client's connection, a small feed for the game's."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from service.api.feeds import HEARTBEAT, RETRY, Following
from service.api.pushing import PushedStream
from service.serving.sockets import nonblocking_send
from tests.support.under_gevent import run_under_gevent


class FakeFeed:
    """What a stream uses of a `Feed`: events appended as the reader would, each
    shown to a viewer as ``id: SEQ`` and the viewer's name, padded to `size`."""

    def __init__(self, size: int = 10) -> None:
        self.size = size
        self.last = 0
        self.ended = False
        self.listeners: dict[Callable[[], None], None] = {}

    def since(self, after: int, viewer: int | None, delay: int = 0) -> tuple[bytes, int]:
        parts = [
            b"id: %d\ndata: %s\n\n" % (seq, str(viewer).encode().ljust(self.size, b"."))
            for seq in range(after + 1, self.last + 1)
        ]
        return b"".join(parts), max(after, self.last)

    def since_everyone(self, after: int) -> tuple[bytes, int] | None:
        return None  # each viewer is shown its own name

    def listen(self, listener: Callable[[], None]) -> None:
        self.listeners[listener] = None

    def unlisten(self, listener: Callable[[], None]) -> None:
        self.listeners.pop(listener, None)

    def add(self, count: int = 1) -> None:
        self.last += count
        for listener in list(self.listeners):
            listener()

    def end(self) -> None:
        self.ended = True
        for listener in list(self.listeners):
            listener()


class CountingSend:
    """A non-blocking send that counts the writes that could not be sent whole at once."""

    def __init__(self, send: Callable[[bytes], int]) -> None:
        self.send = send
        self.partial = 0

    def __call__(self, data: bytes) -> int:
        try:
            sent = self.send(data)
        except BlockingIOError:
            self.partial += 1
            raise
        self.partial += sent < len(data)
        return sent


def _chunked(data: bytes) -> bytes:
    return b"%X\r\n%s\r\n" % (len(data), data)


def _serve(stream: PushedStream, sock: Any) -> Any:
    """Drive the stream's body as gunicorn does (each item a chunk, then the last chunk)."""
    import gevent

    def run() -> str:
        try:
            for item in stream.body():
                sock.sendall(_chunked(item))
            sock.sendall(b"0\r\n\r\n")
            return "ended"
        except OSError as error:
            return f"OSError {error.errno}"

    return gevent.spawn(run)


def _read_body(sock: Any) -> bytes:
    """The whole chunked body from `sock`, its framing checked."""
    buffer, body = b"", b""
    while True:
        while b"\r\n" not in buffer:
            buffer += sock.recv(65536) or b""
        size_line, buffer = buffer.split(b"\r\n", 1)
        size = int(size_line, 16)
        while len(buffer) < size + 2:
            more = sock.recv(65536)
            assert more, "the body was cut"
            buffer += more
        chunk, tail, buffer = buffer[:size], buffer[size : size + 2], buffer[size + 2 :]
        assert tail == b"\r\n"
        if size == 0:
            assert buffer == b""
            return body
        body += chunk


def scenario_a_slow_reader() -> dict[str, Any]:
    """300 events of 2 kB pushed to a client that reads nothing until the game
    ended: most writes meet a full socket; then every event arrives once, in order."""
    import gevent

    server, client = socket.socketpair()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    feed = FakeFeed(size=2000)
    feed.add(3)  # before the stream: sent through "gunicorn"
    counting = CountingSend(nonblocking_send(server))
    stream = PushedStream(
        feed,  # type: ignore[arg-type]
        server,
        Following(seat=1, after=1, delay=0, heartbeat=60.0, lifetime=60.0),
        send=counting,
    )
    served = _serve(stream, server)
    gevent.sleep(0.05)
    for _ in range(150):
        feed.add(2)  # as the reader after each save
        gevent.sleep(0)
    feed.end()
    reader = gevent.spawn(_read_body, client)
    body = reader.get(timeout=30)
    outcome = served.get(timeout=30)
    ids = [int(line[4:]) for line in body.split(b"\n") if line.startswith(b"id: ")]
    return {
        "starts_with_retry": body.startswith(RETRY),
        "ids_in_order": ids == list(range(2, 304)),
        "as_its_viewer": body.count(b"data: 1....") == len(ids),
        "partial_writes": counting.partial,
        "outcome": outcome,
        "listeners_left": len(feed.listeners),
    }


def scenario_a_quiet_stream() -> dict[str, Any]:
    """A stream with nothing to push: heartbeats, then the end of its lifetime."""
    server, client = socket.socketpair()
    feed = FakeFeed()
    stream = PushedStream(
        feed,  # type: ignore[arg-type]
        server,
        Following(seat=None, after=0, delay=0, heartbeat=0.05, lifetime=0.4),
    )
    served = _serve(stream, server)
    body = _read_body(client)
    return {
        "heartbeats": body.count(HEARTBEAT),
        "body_is_retry_and_heartbeats": body.replace(HEARTBEAT, b"") == RETRY,
        "outcome": served.get(timeout=30),
        "listeners_left": len(feed.listeners),
    }


def scenario_a_gone_client() -> dict[str, Any]:
    """The client closes its end: the next push fails and the stream ends."""
    import gevent

    server, client = socket.socketpair()
    feed = FakeFeed()
    stream = PushedStream(
        feed,  # type: ignore[arg-type]
        server,
        Following(seat=0, after=0, delay=0, heartbeat=60.0, lifetime=60.0),
    )
    served = _serve(stream, server)
    gevent.sleep(0.05)
    client.close()
    for _ in range(3):
        feed.add()
        gevent.sleep(0.01)
    return {"outcome": served.get(timeout=30), "listeners_left": len(feed.listeners)}


def scenario_a_client_that_never_reads(send_timeout: str) -> dict[str, Any]:
    """Events of 2 kB pushed on, every 10 ms, to a client that never reads, on a
    socket whose timeout is `send_timeout` as the balanced worker sets it
    (``SEND_TIMEOUT``; a negative one: none, gevent's default): with it, the
    stream's greenlet gives up its write once it has waited that long."""
    import time

    import gevent

    server, client = socket.socketpair()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    if float(send_timeout) >= 0:
        server.settimeout(float(send_timeout))
    feed = FakeFeed(size=2000)
    counting = CountingSend(nonblocking_send(server))
    stream = PushedStream(
        feed,  # type: ignore[arg-type]
        server,
        Following(seat=0, after=0, delay=0, heartbeat=60.0, lifetime=60.0),
        send=counting,
    )
    served = _serve(stream, server)
    started = time.monotonic()
    full_at = None
    while not served.ready() and time.monotonic() - started < 3.0:
        feed.add()
        if full_at is None and counting.partial:
            full_at = time.monotonic()  # from now on the stream's greenlet writes
        gevent.sleep(0.01)
    ended = served.ready()
    if not ended:
        served.kill()
    return {
        "outcome": served.get() if ended else "still writing",
        "after_full": None if full_at is None else time.monotonic() - full_at,
        "listeners_left": len(feed.listeners),
    }


def scenario_streams_of_one_feed() -> dict[str, Any]:
    """Streams of one feed at different viewers and last events: each is pushed
    its own viewer's events after its own last one, once; then they end."""
    import gevent

    feed = FakeFeed()
    feed.add(4)
    followings = {
        "seat 0": Following(seat=0, after=4, delay=0, heartbeat=60.0, lifetime=60.0),
        "seat 0 behind": Following(seat=0, after=1, delay=0, heartbeat=60.0, lifetime=60.0),
        "seat 1": Following(seat=1, after=4, delay=0, heartbeat=60.0, lifetime=60.0),
        "spectator": Following(seat=None, after=4, delay=0, heartbeat=60.0, lifetime=60.0),
    }
    clients, served = {}, []
    for name, following in followings.items():
        server, client = socket.socketpair()
        stream = PushedStream(feed, server, following)  # type: ignore[arg-type]
        served.append(_serve(stream, server))
        clients[name] = client
    gevent.sleep(0.05)
    listening = len(feed.listeners)
    for _ in range(5):
        feed.add()  # as the reader after each save
        gevent.sleep(0)
    feed.end()
    outcomes = [greenlet.get(timeout=30) for greenlet in served]
    bodies = {}
    for name, client in clients.items():
        body = _read_body(client)
        ids = [int(line[4:]) for line in body.split(b"\n") if line.startswith(b"id: ")]
        viewer = str(followings[name].seat).encode()
        bodies[name] = {
            "ids": ids,
            "as_its_viewer": body.count(b"data: " + viewer + b".") == len(ids),
        }
    return {
        "listening": listening,
        "bodies": bodies,
        "outcomes": outcomes,
        "listeners_left": len(feed.listeners),
    }


class RecordingSend:
    """A non-blocking send that records when each write went out and the event ids in it."""

    def __init__(self, send: Callable[[bytes], int]) -> None:
        self.send = send
        self.writes: list[tuple[float, list[int]]] = []

    def __call__(self, data: bytes) -> int:
        import time

        ids = [int(line[4:]) for line in data.split(b"\n") if line.startswith(b"id: ")]
        self.writes.append((time.monotonic(), ids))
        return self.send(data)


def scenario_push_interval(interval: float) -> dict[str, Any]:
    """Saves (one event each) pushed to a stream of a push interval of `interval`
    seconds: one, then four more 10 ms apart, then, after a quiet spell longer
    than the interval, one more. Returns each write's time after the save that
    triggered the write before it (or after the first save) and its event ids."""
    import time

    import gevent

    server, client = socket.socketpair()
    feed = FakeFeed()
    recording = RecordingSend(nonblocking_send(server))
    stream = PushedStream(
        feed,  # type: ignore[arg-type]
        server,
        Following(seat=0, after=0, delay=0, heartbeat=60.0, lifetime=60.0, push_interval=interval),
        send=recording,
    )
    served = _serve(stream, server)
    gevent.sleep(0.05)
    started = time.monotonic()
    feed.add()
    for _ in range(4):
        gevent.sleep(0.01)
        feed.add()
    gevent.sleep(interval + 0.2)
    quiet_save = time.monotonic()
    feed.add()
    gevent.sleep(0.01)
    feed.end()
    reader = gevent.spawn(_read_body, client)
    body = reader.get(timeout=30)
    ids = [int(line[4:]) for line in body.split(b"\n") if line.startswith(b"id: ")]
    return {
        "writes": [(at - started, written) for at, written in recording.writes],
        "quiet_save_written_after": [
            at - quiet_save for at, written in recording.writes if written == [6]
        ],
        "ids": ids,
        "outcome": served.get(timeout=30),
        "listeners_left": len(feed.listeners),
    }


def test_saves_within_the_push_interval_go_out_together() -> None:
    """`STREAM_PUSH_INTERVAL`: at most one write per interval to a stream; a save
    after a quiet spell goes out at once; with 0, every save is written at once."""
    outcomes = run_under_gevent(
        {"interval": (scenario_push_interval, [0.3]), "none": (scenario_push_interval, [0.0])}
    )
    spaced = outcomes["interval"]
    assert spaced["ids"] == [1, 2, 3, 4, 5, 6] and spaced["outcome"] == "ended", spaced
    (first_at, first), (second_at, second), (_, third) = spaced["writes"]
    assert (first, second, third) == ([1], [2, 3, 4, 5], [6]), spaced
    assert first_at < 0.1 and second_at - first_at >= 0.25, spaced  # held until the interval
    assert spaced["quiet_save_written_after"][0] < 0.1, spaced  # not held: none in the interval
    assert spaced["listeners_left"] == 0, spaced
    at_once = outcomes["none"]
    assert [written for _, written in at_once["writes"]] == [[1], [2], [3], [4], [5], [6]], at_once
    assert at_once["ids"] == [1, 2, 3, 4, 5, 6] and at_once["outcome"] == "ended", at_once


def test_pushed_streams_under_gevent() -> None:
    outcomes = run_under_gevent(
        {
            "slow": (scenario_a_slow_reader, []),
            "quiet": (scenario_a_quiet_stream, []),
            "gone": (scenario_a_gone_client, []),
            "one feed": (scenario_streams_of_one_feed, []),
        }
    )
    slow = outcomes["slow"]
    assert slow["starts_with_retry"] and slow["ids_in_order"] and slow["as_its_viewer"], slow
    assert slow["partial_writes"] > 0, slow  # the path under test was taken
    assert slow["outcome"] == "ended" and slow["listeners_left"] == 0, slow
    quiet = outcomes["quiet"]
    assert quiet["heartbeats"] >= 2 and quiet["body_is_retry_and_heartbeats"], quiet
    assert quiet["outcome"] == "ended" and quiet["listeners_left"] == 0, quiet
    gone = outcomes["gone"]
    assert gone["outcome"].startswith("OSError") and gone["listeners_left"] == 0, gone
    shared = outcomes["one feed"]
    assert shared["listening"] == 1, shared  # the feed's one listener for its pushed streams
    bodies = shared["bodies"]
    assert bodies["seat 0 behind"]["ids"] == list(range(2, 10)), shared
    for name in ("seat 0", "seat 1", "spectator"):
        assert bodies[name]["ids"] == list(range(5, 10)), shared
    assert all(body["as_its_viewer"] for body in bodies.values()), shared
    assert shared["outcomes"] == ["ended"] * 4 and shared["listeners_left"] == 0, shared


def test_a_stream_whose_client_never_reads_is_dropped_at_the_send_deadline() -> None:
    outcomes = run_under_gevent(
        {
            "deadline": (scenario_a_client_that_never_reads, ["0.5"]),
            "none": (scenario_a_client_that_never_reads, ["-1"]),
        }
    )
    deadline = outcomes["deadline"]
    # gevent's timeout: an OSError without errno; the feed forgets the stream.
    assert deadline["outcome"] == "OSError None", deadline
    assert deadline["after_full"] is not None and deadline["after_full"] < 0.5 + 1.0, deadline
    assert deadline["listeners_left"] == 0, deadline
    # Without it, the write waits for as long as the client does not read.
    assert outcomes["none"]["outcome"] == "still writing", outcomes["none"]
