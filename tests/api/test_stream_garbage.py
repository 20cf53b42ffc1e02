"""A stream that ends leaves no reference cycle behind: what it held is freed when
it ends, not by the collector's next full pass (which stops the whole worker for as
long as it walks and frees; docs/performance.md, "Open event streams").

Served as gunicorn's gevent worker serves them (`BalancedGeventWorker.handle` on
a gevent server, in a gevent-patched interpreter: `tests.support.under_gevent`),
with the collector off from before the streams end until it is asked what it
would have freed (`gc.DEBUG_SAVEALL` keeps that in `gc.garbage`)."""

from __future__ import annotations

import gc
import os
import socket
import struct
import types
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from tests.api.helpers import DECK, DRAW
from tests.support.under_gevent import run_under_gevent

#: Streams opened per way of ending.
STREAMS = 12


def _stream_garbage(end: Callable[[list[socket.socket], Any, str, str], None]) -> dict[str, int]:
    """Open `STREAMS` streams on one game through a gunicorn gevent worker, end them
    with `end(clients, client, game, token)`, and count what the collector then finds
    unreachable, by type: the objects a stream's request and body are made of."""
    from functools import partial

    import gevent
    from gevent.pool import Pool
    from gevent.server import StreamServer
    from gunicorn.config import Config as GunicornConfig
    from gunicorn.glogging import Logger

    from service.api.events import SLOTS_EXTENSION
    from service.app import create_app
    from service.config import Config
    from service.serving.balanced_worker import BalancedGeventWorker
    from tests.e2e.http import Client

    env = {"STORE_URL": "memory://", "RATELIMIT_ENABLED": "0", "ACCESS_LOG": "0"}
    env["STREAM_LIFETIME"] = os.environ.get("TEST_STREAM_LIFETIME", "300")
    app = create_app(Config.from_env(env))
    settings = GunicornConfig()
    worker = BalancedGeventWorker(1, os.getpid(), [], None, 30, settings, Logger(settings))
    worker.wsgi = app
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    server = StreamServer(listener, handle=partial(worker.handle, listener), spawn=Pool(100))
    server.start()
    port = listener.getsockname()[1]
    client = Client(f"http://127.0.0.1:{port}")
    seats = [{"name": "Ann"}, {"name": "Bob"}]
    created = client.post("/games", {"preset": "express", "seats": seats, "deck": DECK,
                                     "first_dealer": 1})  # fmt: skip
    assert created.status == 201, created
    game, ann = created.json["id"], created.json["seats"][0]["token"]
    clients = []
    for _ in range(STREAMS):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(f"GET /games/{game}/stream HTTP/1.1\r\nHost: test\r\n\r\n".encode())
        clients.append(sock)
    for sock in clients:
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 "), "a stream was refused"
    slots = app.extensions[SLOTS_EXTENSION]
    gc.disable()
    try:
        gc.collect()  # what came before the streams ended is not counted
        end(clients, client, game, ann)
        for _ in range(500):
            if not slots.open:
                break
            gevent.sleep(0.01)
        assert slots.open == 0, f"{slots.open} streams still open"
        gevent.sleep(0.1)  # the last stream's feed closes its reader
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        garbage, gc.garbage[:] = list(gc.garbage), []
    finally:
        gc.set_debug(0)
        gc.enable()
    client.close()
    server.stop()
    stream_kinds = (types.FrameType, types.TracebackType, types.GeneratorType, BaseException)
    return dict(
        Counter(
            type(thing).__module__ + "." + type(thing).__qualname__
            for thing in garbage
            if isinstance(thing, stream_kinds)
            or type(thing).__module__.startswith(("service.", "gunicorn.", "flask.", "werkzeug."))
        )
    )


def _reset_then_move(clients: list[socket.socket], client: Any, game: str, token: str) -> None:
    """The clients reset their connections; a move makes the worker write to each."""
    for sock in clients:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    moved = client.post(f"/games/{game}/moves", DRAW, token)
    assert moved.status == 200, moved


def _read_to_the_end(clients: list[socket.socket], client: Any, game: str, token: str) -> None:
    """The streams' lifetime ends; the clients read until the worker closes them."""
    for sock in clients:
        while sock.recv(65536):
            pass
        sock.close()


def scenario_reset_clients() -> dict[str, int]:
    """Clients gone: the worker's next write to each stream fails."""
    return _stream_garbage(_reset_then_move)


def scenario_lifetime_ends() -> dict[str, int]:
    """Each stream ends when its lifetime is over (`STREAM_LIFETIME`)."""
    os.environ["TEST_STREAM_LIFETIME"] = "0.5"
    return _stream_garbage(_read_to_the_end)


@pytest.mark.slow  # a gevent interpreter of its own running both scenarios: 2.5-5 s
def test_ended_streams_leave_no_cyclic_garbage() -> None:
    outcomes = run_under_gevent(
        {
            "reset": (scenario_reset_clients, []),
            "lifetime": (scenario_lifetime_ends, []),
        }
    )
    assert outcomes["reset"] == {}
    assert outcomes["lifetime"] == {}
