"""Admission: a worker runs a few requests at a time, the others wait their turn in order.

Under gevent every request of a worker is a greenlet, and they all share one
CPU: with 16 moves in flight, each one's turns (read the request, Redis load,
Redis compare-and-set, answer) were interleaved with fifteen others', and a
move waited wherever the loop happened to pick it next. Its latency was the
sum of those waits: 17 ms at the median, over 40 ms at the 99th percentile.
Letting only `limit` requests run the app at once, and the rest start in
arrival order, keeps the CPU as busy (a couple of requests cover each
other's Redis round trips) and makes latency a queue's: the same median, a
99th percentile of 27-35 ms (docs/performance.md, "Tail latency").

A request handed a turn after waiting first lets the event loop poll once
(`HANDOVER_PAUSE`): a turn is handed over through gevent's callbacks, which
run before the loop polls its sockets, and when Redis replies came back
before they were read, the whole queue ran in one pass (10-40 ms) while no
new request was read; moves' p99 fell from 27-35 to 25-26 ms.

Off by default (``ADMITTED_REQUESTS=0``) since a gevent worker pipelines its
store commands (service/store/pipelining.py): admitted requests are what a
loop turn's Redis write can batch, and a limit kept the batches small.

A request that waits on something other than the CPU for long, a long-poll,
gives its turn back meanwhile (`waiting`). A request that has waited
`PATIENCE` seconds for a turn runs without one: when Redis hangs and every
running request waits for its timeout, the others still get their own error
answer in time, as they did without admission.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Final

#: The WSGI environ key of a request's `Turn`.
ENVIRON_KEY: Final = "service.admission"
#: Seconds a request waits for a turn before it runs anyway.
PATIENCE: Final = 1.0
#: The pause of a request handed a turn after waiting: under gevent (which
#: patches `time.sleep`), a timer that fires after the event loop's next poll.
HANDOVER_PAUSE: Final = 1e-6

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class Turns:
    """`limit` turns handed out in the order they were asked for (no barging).

    A released turn goes straight to the longest waiter, so a request that
    arrives just then cannot take it first. The locks and events are the
    `threading` ones: gevent's once gunicorn's gevent worker has patched them.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("a worker needs at least one turn")
        self.limit = limit
        self._free = limit
        self._waiting: deque[threading.Event] = deque()
        self._lock = threading.Lock()

    @property
    def waiting(self) -> int:
        """Requests waiting for a turn."""
        return len(self._waiting)

    def take(self, timeout: float | None = None) -> bool:
        """Wait for a turn (at most `timeout` s); whether one was given."""
        with self._lock:
            if self._free > 0 and not self._waiting:
                self._free -= 1
                return True
            handed = self._new_event()
            self._waiting.append(handed)
        try:
            handed.wait(timeout)
        except BaseException:  # killed while waiting: pass on a turn handed meanwhile
            with self._lock:
                if handed.is_set():
                    self._pass_on()
                else:
                    self._waiting.remove(handed)
            raise
        with self._lock:
            if not handed.is_set():
                self._waiting.remove(handed)
                return False
        # Let the loop poll before this request runs: else, when Redis answers
        # before its replies are read, each request in the queue ran whole and
        # handed its turn to the next within one pass of gevent's callbacks
        # (10-40 ms), and no socket was read meanwhile.
        try:
            time.sleep(HANDOVER_PAUSE)
        except BaseException:  # killed in the pause: the turn is ours to pass on
            self.give_back()
            raise
        return True

    def _new_event(self) -> threading.Event:
        # Looked up per call: this module is imported before gevent patches `threading`.
        return threading.Event()

    def give_back(self) -> None:
        """Return a turn: to the longest waiter, else to the free ones."""
        with self._lock:
            self._pass_on()

    def _pass_on(self) -> None:
        if self._waiting:
            self._waiting.popleft().set()
        else:
            self._free += 1


class Turn:
    """One request's place: held while the request runs the app."""

    def __init__(self, turns: Turns) -> None:
        self._turns = turns
        self.held = False

    def take(self, timeout: float | None = PATIENCE) -> None:
        """Wait for a turn (after `timeout` s, go on without one)."""
        self.held = self._turns.take(timeout)

    def give_back(self) -> None:
        """Return the turn if held."""
        if self.held:
            self.held = False
            self._turns.give_back()


class Admission:
    """WSGI middleware: at most `limit` requests run `app` at once, the rest in arrival order."""

    def __init__(self, app: WSGIApp, limit: int) -> None:
        self.app = app
        self.turns = Turns(limit)

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        """Run `app` in a turn (the response body, built by then, is sent after)."""
        turn = environ[ENVIRON_KEY] = Turn(self.turns)
        turn.take()
        try:
            return self.app(environ, start_response)
        finally:
            turn.give_back()


@contextmanager
def waiting(environ: dict[str, Any]) -> Iterator[None]:
    """Give this request's turn to others while it waits (a long-poll), then take one again."""
    turn = environ.get(ENVIRON_KEY)
    if not isinstance(turn, Turn) or not turn.held:
        yield
        return
    turn.give_back()
    try:
        yield
    finally:
        turn.take()
