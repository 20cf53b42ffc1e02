"""Streams written by their game's feed, straight to their sockets, in a gevent worker.

A stream of `events._follow` is a generator that gunicorn drives: on every
save of its game the feed wakes it, it takes its new events from the feed,
yields them, and gunicorn frames them as a chunk and sends them; then it waits
again, with a timer for its heartbeat. With 1,000 streams open on one worker,
that path cost about 50-75 µs of the worker's CPU per event pushed
(`bench.streams`, docs/performance.md, "Open event streams"): a wake-up and
a greenlet switch per stream, the generator's loop, werkzeug's and gunicorn's
per-write wrappers, a timer started and stopped per wait, and the ``send``.

Here, under gunicorn's gevent worker, a stream's own greenlet only sends what
came before it was followed; then whichever reader changed the feed (the
store's, handing over a save's events, or the feed's own after a read)
writes each stream's new events itself, at once: one ``send`` that never
waits (a socket without room gets its rest from the stream's greenlet, which
then catches up from the feed on its own, as `_follow` would, before a reader
writes to it again). The stream's greenlet sleeps until a heartbeat is due,
its lifetime ends, the feed ended or its socket needs it.

The body is framed as gunicorn frames it (chunked: gunicorn chunks every
HTTP/1.1 response without a Content-Length), so only a GET over HTTP/1.1 on a
plain (not TLS) gevent socket is pushed; anything else takes `_follow`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from service.api.feeds import HEARTBEAT, RETRY, Feed, Following

__all__ = ["PushedStream", "pushable_socket"]


def pushable_socket(environ: dict[str, Any]) -> Any | None:
    """The client's socket, when the stream may be written to it directly: a GET
    over HTTP/1.1 served by gunicorn's gevent worker on a plain socket."""
    sock = environ.get("gunicorn.socket")
    if sock is None or environ.get("REQUEST_METHOD") != "GET":
        return None
    if environ.get("SERVER_PROTOCOL") != "HTTP/1.1":
        return None  # HTTP/1.0: gunicorn sends the body unframed
    try:
        from gevent import socket as gevent_socket
    except ImportError:  # pragma: no cover - gevent is a dependency
        return None
    # Exactly gevent's plain socket: not TLS (whose partial writes differ), not a sync worker's.
    return sock if type(sock) is gevent_socket.socket else None


def _chunk(data: bytes) -> bytes:
    """`data` as one chunk of a chunked HTTP/1.1 body (as gunicorn writes it)."""
    return b"%X\r\n%s\r\n" % (len(data), data)


#: The last messages framed by `_chunk_once`, and their chunk.
_last_chunk: tuple[bytes, bytes] = (b"", b"")


def _chunk_once(data: bytes) -> bytes:
    """`_chunk(data)`, framed once for the streams of a game that are pushed the
    same messages one after another (`Feed.since` answers them the same bytes)."""
    global _last_chunk
    last = _last_chunk
    if last[0] is data:
        return last[1]
    chunk = _chunk(data)
    _last_chunk = (data, chunk)
    return chunk


class PushedStream:
    """One stream whose events the feed's readers write to `sock` (see the module docstring)."""

    def __init__(
        self,
        feed: Feed,
        sock: Any,
        following: Following,
    ) -> None:
        self._feed = feed
        self._sock = sock
        self._seat = following.seat
        #: The `seq` of the last event sent (it moves on as events are sent).
        self._after = following.after
        self._delay = following.delay
        self._heartbeat = following.heartbeat
        self._lifetime = following.lifetime
        self._clock = following.clock
        #: When something was last sent (a heartbeat is due `heartbeat` s later).
        self._sent_at = self._clock()
        #: True while the stream's own greenlet writes: the reader then leaves it alone.
        self._busy = False
        #: What the reader could not send at once (the greenlet sends it).
        self._rest = b""
        self._error: OSError | None = None
        self._wake = threading.Event()

    def body(self) -> Iterator[bytes]:
        """The response body gunicorn iterates: its first chunks go through gunicorn
        (which sends the headers with them), the rest straight to the socket."""
        ends = self._clock() + self._lifetime
        yield RETRY
        while True:
            messages, self._after = self._feed.since(self._after, self._seat, self._delay)
            if not messages:
                break
            yield messages
        self._sent_at = self._clock()
        # No switch between the last read above and this: no event is missed.
        self._feed.listen(self._pushed)
        try:
            while True:
                if self._error is not None:
                    raise self._error
                if self._busy:
                    self._catch_up()
                    continue
                if self._feed.ended:
                    self._catch_up()
                    return
                now = self._clock()
                if now >= ends:
                    return
                due = self._sent_at + self._heartbeat
                if now >= due:
                    self._busy = True
                    self._rest = _chunk(HEARTBEAT)
                    continue
                self._wake.wait(min(due, ends) - now)
                self._wake.clear()
        finally:
            self._feed.unlisten(self._pushed)

    def _pushed(self) -> None:
        """Called by the reader that changed the feed: write the new events now,
        without waiting."""
        if self._busy or self._error is not None:
            self._wake.set()  # the greenlet catches up (or ends) itself
            return
        if self._feed.ended:
            self._wake.set()
        messages, after = self._feed.since(self._after, self._seat, self._delay)
        if not messages:
            return
        data = _chunk_once(messages)
        try:
            sent = self._sock.send(data, 0, 0.0)  # gevent's: timeout 0, never waits
        except BlockingIOError:
            sent = 0
        except OSError as error:
            self._error = error
            self._wake.set()
            return
        self._after = after
        self._sent_at = self._clock()
        if sent < len(data):
            self._rest = data[sent:]
            self._busy = True
            self._wake.set()

    def _catch_up(self) -> None:
        """In the stream's greenlet: send the rest, then whatever the feed holds
        after it, until nothing is left (the reader skipped this stream meanwhile)."""
        self._busy = True
        try:
            while True:
                if self._rest:
                    rest, self._rest = self._rest, b""
                    self._sock.sendall(rest)
                    self._sent_at = self._clock()
                messages, self._after = self._feed.since(self._after, self._seat, self._delay)
                if not messages:
                    return
                self._rest = _chunk(messages)
        finally:
            self._busy = False
