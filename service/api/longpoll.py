"""Waiting long-polls (`GET /games/{id}/events?wait=S`), bounded and abandoned early.

A long-poll that finds nothing to answer waits for the game's next events: on
the store's `watch` (one subscription per worker process for all of them, as
the event streams use, not a Redis connection each), in slices of
`DISCONNECT_CHECK` seconds, between which it looks whether its client is still
there. A client that hung up frees its place within a slice instead of at the
end of its ``wait``.

Waiting places are counted per worker process (`WaitSlots`): at most
``LONGPOLL_WAITING_MAX`` at once (then ``503 too_many_long_polls``), of which at
most ``LONGPOLL_PER_ADDRESS`` for one client (its address as the rate limiter
sees it, an IPv6 one by its /64; then ``429 long_poll_quota_exceeded``), both
with ``Retry-After``: one client's long-polls cannot take every connection of
a worker, and other requests (``/healthz`` included) are still served.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flask import Flask, current_app

from service.http.problems import Problem
from service.ops.ratelimit import client_address, client_key
from service.serving.sockets import client_gone
from service.store.base import GameStore

__all__ = [
    "DISCONNECT_CHECK",
    "LONGPOLL_RETRY_AFTER",
    "WAIT_SLOTS_EXTENSION",
    "WaitSlots",
    "init_long_polls",
    "poll_until",
    "wait_a_slice",
    "wait_for_events",
    "waiting_place",
]

#: The 429 of an operation that long-polls (its OpenAPI description, one text).
LONG_POLL_429 = (
    "Rate limited (`rate_limited`), or this client holds its most waiting "
    "long-polls (`long_poll_quota_exceeded`); see Retry-After"
)

#: Seconds between two looks of a waiting long-poll at its client's connection.
DISCONNECT_CHECK = 0.25
#: Seconds a long-poll refused a waiting place is asked to wait.
LONGPOLL_RETRY_AFTER = 2
#: The app extension holding this process's `WaitSlots`.
WAIT_SLOTS_EXTENSION = "rummy.longpoll_slots"


class WaitSlots:
    """The waiting long-polls of one worker process: at most ``limit``, at most
    ``per_client`` of one client (0: no limit)."""

    def __init__(self, limit: int, per_client: int) -> None:
        self.limit = limit
        self.per_client = per_client
        self.waiting = 0
        #: Waiting long-polls per client (only clients with one: bounded by `limit`).
        self.by_client: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, client: str) -> str:
        """Take a place for ``client``: ``""``, or which cap refused it
        (``"worker"`` or ``"client"``)."""
        with self._lock:
            held = self.by_client.get(client, 0)
            if self.per_client and held >= self.per_client:
                return "client"
            if self.limit and self.waiting >= self.limit:
                return "worker"
            self.waiting += 1
            self.by_client[client] = held + 1
            return ""

    def give_back(self, client: str) -> None:
        """Return a place `take` gave ``client``."""
        with self._lock:
            self.waiting -= 1
            held = self.by_client.pop(client, 1) - 1
            if held > 0:
                self.by_client[client] = held


def init_long_polls(app: Flask) -> None:
    """Give the app its per-process waiting places."""
    app.extensions[WAIT_SLOTS_EXTENSION] = WaitSlots(
        int(app.config["LONGPOLL_WAITING_MAX"]), int(app.config["LONGPOLL_PER_ADDRESS"])
    )


def _refused(cap: str, slots: WaitSlots) -> Problem:
    retry = {"Retry-After": str(LONGPOLL_RETRY_AFTER)}
    if cap == "client":
        return Problem(
            429,
            "long_poll_quota_exceeded",
            f"This client already holds {slots.per_client} waiting long-polls on this server "
            "(LONGPOLL_PER_ADDRESS); follow a game's events with GET /games/{id}/stream, "
            "or retry later.",
            headers=retry,
        )
    return Problem(
        503,
        "too_many_long_polls",
        f"This server holds its most waiting long-polls ({slots.limit}, LONGPOLL_WAITING_MAX); "
        "retry shortly.",
        headers=retry,
    )


@contextmanager
def waiting_place() -> Iterator[None]:
    """Hold a waiting place for the current request's client while the block
    runs; raises the 429 or 503 problem when a cap is reached."""
    slots: WaitSlots = current_app.extensions[WAIT_SLOTS_EXTENSION]
    client = client_key(client_address(int(current_app.config["RATELIMIT_PROXY_HOPS"])))
    refused = slots.take(client)
    if refused:
        raise _refused(refused, slots)
    try:
        yield
    finally:
        slots.give_back(client)


def wait_for_events(
    store: GameStore, game_id: str, after: int, wait: float, environ: dict[str, Any]
) -> list[dict[str, Any]] | None:
    """The game's events after ``after``, waiting up to ``wait`` s for the first
    (``[]`` when none came); ``None`` when the client hung up meanwhile."""
    deadline = time.monotonic() + wait
    with store.watch(game_id) as watch:
        # Read after the watch is registered: a save in between still wakes it.
        found = store.events(game_id, after)
        while not found:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            woken = watch.wait(min(remaining, DISCONNECT_CHECK))
            if client_gone(environ):
                return None
            if woken:
                found = store.events(game_id, after)
    return found


def wait_a_slice(longest: float, environ: dict[str, Any]) -> bool:
    """Sleep `DISCONNECT_CHECK` s (at most ``longest``); whether the client is
    still there after it."""
    time.sleep(max(0.0, min(longest, DISCONNECT_CHECK)))
    return not client_gone(environ)


def poll_until(done: Callable[[], bool], wait: float, environ: dict[str, Any]) -> bool:
    """Look at ``done()`` every `DISCONNECT_CHECK` s for up to ``wait`` s (a
    wait with nothing to watch, as a quick-play ticket's); whether it came true.
    Ends early, false, once the client has hung up."""
    deadline = time.monotonic() + wait
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or client_gone(environ):
            return False
        time.sleep(min(remaining, DISCONNECT_CHECK))
        if done():
            return True
