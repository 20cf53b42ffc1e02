"""Streams written by their game's feed, straight to their sockets, in a gevent worker.

A stream of `events._follow` is a generator that gunicorn drives: on every
save of its game the feed wakes it, it takes its new events from the feed,
yields them, and gunicorn frames them as a chunk and sends them; then it waits
again, with a timer for its heartbeat. With many streams open on one worker,
that path made each event pushed dear in the worker's CPU (`bench.streams`;
docs/performance.md, "Open event streams", has the figures): a wake-up and
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

Saves that come within `STREAM_PUSH_INTERVAL` (50 ms) of the feed's last
write to its streams are written together once it has passed, on a timer of
the event loop: one ``send`` per stream for all of them.

The feed's pushed streams are written by one listener of the feed
(`_Pusher`), in one loop: a save's bytes are asked of the feed and framed
once per distinct (last event, viewer) among the streams, and each stream's
are sent on the plain socket under gevent's (`nonblocking_send`). With a
listener per stream, each asking and framing for itself, and gevent's
``send``, a save pushed to several streams cost noticeably more instructions
(`bench.push_calls` under valgrind; docs/performance.md, "Open event streams",
has the figures).

The body is framed as gunicorn frames it (chunked: gunicorn chunks every
HTTP/1.1 response without a Content-Length), so only a GET over HTTP/1.1 on a
plain (not TLS) gevent socket is pushed; anything else takes `_follow`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from service.api.feeds import HEARTBEAT, RETRY, Feed, Following
from service.serving.sockets import nonblocking_send

__all__ = ["PushedStream"]


def _chunk(data: bytes) -> bytes:
    """`data` as one chunk of a chunked HTTP/1.1 body (as gunicorn writes it)."""
    return b"%X\r\n%s\r\n" % (len(data), data)


class PushedStream:
    """One stream whose events the feed's readers write to `sock` (see the module docstring)."""

    __slots__ = (
        "_after",
        "_busy",
        "_clock",
        "_connection",
        "_delay",
        "_error",
        "_feed",
        "_heartbeat",
        "_lifetime",
        "_push_interval",
        "_rest",
        "_seat",
        "_send",
        "_sent_at",
        "_view",
        "_wake",
    )  # fmt: skip

    def __init__(
        self,
        feed: Feed,
        sock: Any,
        following: Following,
        send: Callable[[bytes], int] | None = None,
    ) -> None:
        """`send`: a non-blocking send on `sock` (`nonblocking_send`'s by default)."""
        self._feed = feed
        self._connection = sock
        self._send = nonblocking_send(sock) if send is None else send
        self._seat = following.seat
        #: The `seq` of the last event sent (it moves on as events are sent).
        self._after = following.after
        self._delay = following.delay
        #: What `Feed.since` answers alike for streams with the same one (and
        #: `_after`): one tuple for all the streams of a seat and delay, so that
        #: `_Pusher.push` compares them by identity.
        self._view = _views.setdefault(
            (following.seat, following.delay), (following.seat, following.delay)
        )
        self._heartbeat = following.heartbeat
        self._lifetime = following.lifetime
        self._push_interval = following.push_interval
        self._clock = following.clock
        #: When something was last sent (a heartbeat is due `heartbeat` s later).
        self._sent_at = self._clock()
        #: True while the stream's own greenlet writes, or once a send failed: the
        #: reader then leaves it alone.
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
        pusher = _Pusher.join(self._feed, self)
        try:
            while True:
                if self._error is not None:
                    try:
                        raise self._error
                    finally:
                        # Not kept: the error's traceback holds this frame, which
                        # holds the stream (a cycle only a full collection frees).
                        self._error = None
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
            pusher.leave(self)

    def _catch_up(self) -> None:
        """In the stream's greenlet: send the rest, then whatever the feed holds
        after it, until nothing is left (the reader skipped this stream meanwhile)."""
        self._busy = True
        try:
            while True:
                if self._rest:
                    rest, self._rest = self._rest, b""
                    self._connection.sendall(rest)
                    self._sent_at = self._clock()
                messages, self._after = self._feed.since(self._after, self._seat, self._delay)
                if not messages:
                    return
                self._rest = _chunk(messages)
        finally:
            self._busy = False


class _Pusher:
    """The pushed streams of one feed, and the feed's one listener for them: a
    save's new bytes are asked of the feed and framed once per distinct
    (last event, viewer, delay) of its streams, then written to each in one loop
    (before, each stream was a listener of its own that asked and framed for
    itself: `bench.push_calls` counts the difference)."""

    __slots__ = ("_clock", "_feed", "_interval", "_pushed_at", "_streams", "_timer")

    def __init__(self, feed: Feed, clock: Callable[[], float], interval: float) -> None:
        self._feed = feed
        #: The streams, in the order they joined (a dict: ordered, removal by key).
        self._streams: dict[PushedStream, None] = {}
        #: The first stream's clock and push interval: the streams of a feed share them.
        self._clock = clock
        self._interval = interval
        #: When the streams were last written (by `_clock`).
        self._pushed_at = -interval
        #: The event loop's timer of a write put off until the interval has
        #: passed, while one is pending.
        self._timer: Any = None

    @classmethod
    def join(cls, feed: Feed, stream: PushedStream) -> _Pusher:
        """Add `stream` to its feed's pusher (made and listening with the first)."""
        pusher = _pushers.get(feed)
        if pusher is None:
            pusher = _pushers[feed] = cls(feed, stream._clock, stream._push_interval)
            feed.listen(pusher.push)
        pusher._streams[stream] = None
        return pusher

    def leave(self, stream: PushedStream) -> None:
        """Remove `stream`; the last one out stops the pusher listening."""
        self._streams.pop(stream, None)
        if not self._streams:
            self._cancel()
            self._feed.unlisten(self.push)
            if _pushers.get(self._feed) is self:
                del _pushers[self._feed]

    def push(self) -> None:
        """Called by the reader that changed the feed: write each stream's new
        events now, or, within the push interval of the last write, once it has
        passed (a timer of the event loop), together with any saved meanwhile.

        Each write to a connection is a system call and a TCP segment the
        worker pays for, whatever it carries: a game played by bots or a fast
        table saves tens of times a second, and with a few streams on each game
        a write per save was most of what pushing cost the worker (`bench.streams
        --pushes-only`; docs/performance.md, "Open event streams"). A table of
        people saves seconds apart: each save goes out at once."""
        if self._timer is not None:
            return  # the pending write takes this save's events too
        feed = self._feed
        if not feed.ended:
            wait = self._pushed_at + self._interval - self._clock()
            if wait > 0:
                from gevent import get_hub  # only gevent workers push (`pushable_socket`)

                self._timer = get_hub().loop.timer(wait)
                self._timer.start(self._write)
                return
        self._write()

    def _cancel(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.close()

    def _write(self) -> None:
        """Write each stream's new events now, without waiting (a stream whose
        greenlet is writing is only woken)."""
        self._cancel()
        feed = self._feed
        streams = self._streams
        if not streams:
            return
        if feed.ended:
            for stream in streams:
                stream._wake.set()  # each catches up and ends in its greenlet
        since = feed.since
        # Asked and framed once per (last event, viewer and delay) in this save
        # (made when first needed: mostly `everyone` answers every stream).
        framed: dict[tuple[int, tuple[int | None, int]], tuple[bytes, int]] | None = None
        last = (b"", b"")  # the last messages framed, and their chunk
        # The answer of the stream before, for the next one that stands at the
        # same event with the same view (as the streams of a game mostly do):
        # without a tuple made and hashed per stream (`bench.push_calls`).
        asked_after, asked_view, data, after, size = -1, None, b"", 0, 0
        # The answer every viewer without a delay gets alike after the `seq`
        # `everyone_asked` (`Feed.since_everyone`: one event after it, shown to
        # all as it is, as after most saves), framed once for all the views:
        # asked per view, the streams of 4 seats and 2 spectators cost more
        # (`bench.push_calls --viewers 0,1,2,3,s,s`; docs/performance.md has the figures).
        everyone_asked, everyone = -1, None
        since_everyone = feed.since_everyone
        now = self._pushed_at = self._clock()
        # The dict itself, not a copy: nothing in this loop switches greenlets
        # (sends that never wait, events set), so no stream joins or leaves
        # meanwhile; each line here runs per stream and save (`bench.push_calls`).
        for stream in streams:
            if stream._busy:  # writing itself, or failed: its greenlet catches up or ends
                stream._wake.set()
                continue
            if stream._after != asked_after or stream._view is not asked_view:
                asked_after, asked_view = stream._after, stream._view
                if asked_after != everyone_asked:
                    everyone_asked = asked_after
                    shown = since_everyone(asked_after)
                    if shown is not None:
                        last = (shown[0], _chunk(shown[0]))
                        everyone = (last[1], shown[1])
                    else:
                        everyone = None
                if everyone is not None and not stream._delay:
                    data, after = everyone
                else:
                    asked = (asked_after, asked_view)
                    if framed is None:
                        framed = {}
                    answer = framed.get(asked)
                    if answer is None:
                        messages, after = since(asked_after, stream._seat, stream._delay)
                        if messages is not last[0]:  # viewers shown the same bytes: framed once
                            last = (messages, _chunk(messages) if messages else b"")
                        answer = framed[asked] = (last[1], after)
                    data, after = answer
                size = len(data)
            if not size:
                continue
            try:
                sent = stream._send(data)
            except BlockingIOError:
                sent = 0
            except OSError as error:
                # Without its traceback: it would hold this frame and the feed's
                # readers' until the stream's greenlet raises it. Busy: skipped
                # by the next pushes until then.
                stream._error = error.with_traceback(None)
                stream._busy = True
                stream._wake.set()
                continue
            stream._after = after
            stream._sent_at = now
            if sent < size:
                stream._rest = data[sent:]
                stream._busy = True
                stream._wake.set()


#: The pusher of each feed with pushed streams (in a gevent worker: one thread).
_pushers: dict[Feed, _Pusher] = {}
#: Each (seat, delay) of a pushed stream, once: a few seats and delays in all.
_views: dict[tuple[int | None, int], tuple[int | None, int]] = {}
