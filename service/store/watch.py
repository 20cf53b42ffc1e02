"""Wake-ups of a process's open streams when a game gets new events.

A `Hub` keeps, per game, the `Watch`es open in this process (a dict game id
-> watches; the API holds one per followed game, for all of that game's
streams: service/api/feeds.py). A save that appends events calls `Hub.notify` (the
memory store, in the same process) or publishes a wake-up that one reader per
process turns into `Hub.notify` (`RedisHub`: one Pub/Sub connection, one
pattern subscription covering every game, shared by all the process's
streams, and given up once none has been open for a while). A watch says
"something happened since you last looked": its holder then reads the events
from the store, so a lost or doubled wake-up costs at most a read. A watch
made with a ``deliver`` callable is handed the save's events instead, when the
wake-up carries them (`RedisHub`: the save script publishes the events it
appended), in the hub's reader: its holder needs no read unless it finds a
gap, and no thread or greenlet of its own is woken.

The events and locks are the `threading` ones, looked up when used: gevent's
once a gevent worker has patched them, so a waiting watch is a parked
greenlet, not a thread.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from service.store.codec import decode_event
from service.store.errors import StoreUnavailable

__all__ = ["Deliver", "Hub", "RedisHub", "Watch", "decode_wakeup"]

_log = logging.getLogger(__name__)

#: Takes the events (oldest first) of a save, in the hub's reader: it must not block.
Deliver = Callable[[list[dict[str, Any]]], None]


def decode_wakeup(data: bytes) -> list[dict[str, Any]] | None:
    """The events a wake-up message carries (the stored forms the save appended,
    one per line), or ``None`` for one that carries none (a deletion's, which
    carries the last ``seq`` only) or that cannot be read."""
    try:
        if data.find(b"\n") < 0:  # one event, as most saves append
            return [decode_event(data)]
        return [decode_event(line) for line in data.split(b"\n")]
    except (ValueError, KeyError, IndexError, TypeError):
        # A deletion's bare `seq` fails here too, rather than being looked for
        # in every save's message first (`bench.push_calls`). `find`, not
        # `in`: it tries the bytes as a number first.
        if data.find(b" ") >= 0:
            _log.warning("unreadable stream wake-up: %r", data[:200])
        return None


class Watch:
    """An interest in one game's new events: `wait` returns once it was notified
    (or, with ``deliver``, once notified without the events)."""

    def __init__(self, game_id: str, deliver: Deliver | None = None) -> None:
        self.game_id = game_id
        self._woken = threading.Event()
        self._deliver = deliver

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` s for a wake-up since the last `wait`; whether one came."""
        woken = self._woken.wait(max(timeout, 0.0))
        self._woken.clear()
        return woken

    def wake(self) -> None:
        """Make the current or next `wait` return ``True``."""
        self._woken.set()


class Hub:
    """The watches of one process, by game; `notify` wakes a game's watches."""

    def __init__(self) -> None:
        self._watches: dict[str, set[Watch]] = {}
        self._lock = threading.Lock()
        #: When the last open watch closed (`None`: one is open, or none ever was).
        self._idle_since: float | None = None

    @contextmanager
    def watch(self, game_id: str, deliver: Deliver | None = None) -> Iterator[Watch]:
        """A watch on `game_id`, registered before this returns (so a write after
        it, even one before the caller's next read, wakes it) and removed on exit.
        With `deliver`, a wake-up that carries the save's events calls it with them
        instead of waking the watch."""
        watch = Watch(game_id, deliver)
        while True:
            self.ready()
            with self._lock:
                if self._delivering():  # still: it may have stopped since `ready`
                    self._watches.setdefault(game_id, set()).add(watch)
                    self._idle_since = None
                    break
        try:
            yield watch
        finally:
            # The holder's callback mostly holds the holder, which holds the watch:
            # dropped, they are freed at once instead of by a full collection.
            watch._deliver = None
            with self._lock:
                watches = self._watches.get(game_id)
                if watches is not None:
                    watches.discard(watch)
                    if not watches:
                        del self._watches[game_id]
                        if not self._watches:
                            self._idle_since = time.monotonic()

    def ready(self) -> None:
        """Return once wake-ups are being delivered (here: at once)."""

    def _delivering(self) -> bool:
        """Whether wake-ups are being delivered (asked under the lock)."""
        return True

    def notify(self, game_id: str) -> None:
        """Wake every watch of `game_id`."""
        with self._lock:
            watches = list(self._watches.get(game_id, ()))
        for watch in watches:
            watch.wake()

    def notify_with(self, game_id: str, data: bytes) -> None:
        """A save of `game_id` published `data`: hand its events to the game's
        watches (decoded once, only when the game has one here), or wake them
        when it carries none."""
        # Without the lock: under the GIL a dict lookup and copying a set of
        # plain objects are each one step no other thread splits, and the
        # reader asks this for every save of every game (a gevent lock's
        # acquire and release was a measurable share of it, `bench.push_calls`).
        followed = self._watches.get(game_id)
        if not followed:
            return
        watches = tuple(followed)
        events = decode_wakeup(data)
        for watch in watches:
            deliver = watch._deliver  # read once: `Hub.watch` drops it on exit
            if events is None or deliver is None:
                watch.wake()
                continue
            # Here, not in a method of the watch: one Python call less a save.
            try:
                deliver(events)
            except Exception:  # one holder's failure is not the hub's: it reads instead
                _log.exception("stream wake-up of game %s failed", game_id)
                watch.wake()

    def notify_all(self) -> None:
        """Wake every watch (wake-ups may have been missed)."""
        with self._lock:
            watches = [w for game in self._watches.values() for w in game]
        for watch in watches:
            watch.wake()

    def close(self) -> None:
        """Wake every watch; nothing more to release here."""
        self.notify_all()


class RedisHub(Hub):
    """A `Hub` fed by one Redis Pub/Sub connection per process.

    ``subscribe()`` returns a redis-py ``PubSub`` already subscribed to the
    pattern that covers every game's wake-up channel; ``game_of(channel)`` names
    the game of a channel (or ``None``). The reader (a thread; a greenlet under
    gevent) starts with the first watch and reconnects after a failure, waking
    every watch once it is subscribed again (publishes in between are lost).
    Once no watch has been open for `IDLE_CLOSE` s, the reader closes the
    subscription and ends (else the process would wake for every save of every
    game for as long as it lives, at a cost to every move's CPU:
    docs/performance.md, "Open event streams", has the figures); the next
    watch starts another.
    """

    #: Seconds `ready` waits at most for the reader's attempt to subscribe. An
    #: attempt ends sooner on its own (the store's connect and socket timeouts);
    #: this only bounds a reader that hangs, so it is no tight clock: a loaded
    #: machine may take seconds to connect a cluster client and subscribe.
    READY_TIMEOUT = 30.0
    #: Seconds between attempts to subscribe again after a failure.
    RECONNECT_PAUSE = 0.5
    #: Seconds without any open watch after which the reader unsubscribes and
    #: ends: longer than a stream's reconnection (an EventSource's 1 s retry).
    IDLE_CLOSE = 5.0
    #: Seconds the reader waits for a message before it looks whether it is idle.
    POLL = 1.0

    def __init__(
        self,
        subscribe: Callable[[], Any],
        game_of: Callable[[bytes], str | None],
        errors: tuple[type[BaseException], ...],
    ) -> None:
        super().__init__()
        self._subscribe = subscribe
        self._game_of = game_of
        self._errors = errors
        self._subscribed = threading.Event()
        #: Notified when an attempt to subscribe ends (`_failures` counts the failed ones).
        self._attempts = threading.Condition()
        self._failures = 0
        self._closed = threading.Event()
        self._reader: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._pubsub: Any = None

    def ready(self) -> None:
        """Start the reader if needed and wait until it is subscribed; raise
        `StoreUnavailable` when its attempt fails (or takes `READY_TIMEOUT` s).

        It waits for the attempt's outcome, not for a fixed time: connecting and
        subscribing take longer on a busy machine, and a store that is down
        fails the attempt at once."""
        if self._subscribed.is_set():
            return
        with self._attempts:
            failures = self._failures
        with self._start_lock:
            if self._reader is None or not self._reader.is_alive():
                self._closed.clear()
                self._reader = threading.Thread(
                    target=self._read, name="rummy-stream-hub", daemon=True
                )
                self._reader.start()
        with self._attempts:
            self._attempts.wait_for(
                lambda: self._subscribed.is_set() or self._failures > failures,
                self.READY_TIMEOUT,
            )
        if not self._subscribed.is_set():
            raise StoreUnavailable("the wake-up subscription is not established")

    def _attempt_ended(self, failed: bool) -> None:
        with self._attempts:
            self._failures += failed
            self._attempts.notify_all()

    def _delivering(self) -> bool:
        return self._subscribed.is_set()

    def _read(self) -> None:
        first = True
        while not self._closed.is_set():
            pubsub = None
            retired = False
            try:
                try:
                    pubsub = self._pubsub = self._subscribe()
                except BaseException:
                    self._attempt_ended(failed=True)
                    raise
                self._subscribed.set()
                self._attempt_ended(failed=False)
                if not first:
                    # Whatever was published while not subscribed is lost: look again.
                    # (A reader's first subscription came before any of its watches.)
                    self.notify_all()
                first = False
                while not self._closed.is_set():
                    message = pubsub.get_message(ignore_subscribe_messages=True, timeout=self.POLL)
                    game_id = None if message is None else self._game_of(message["channel"])
                    if game_id is not None:
                        self.notify_with(game_id, message["data"])
                    elif self._idle_since is not None and self._retire_if_idle():
                        retired = True
                        return
            except self._errors as exc:
                if not self._closed.is_set():
                    _log.warning("stream wake-up subscription lost: %s", exc)
            except Exception:
                if self._closed.is_set():
                    return  # the store closed the connection under the reader
                _log.exception("stream wake-up reader failed")
            finally:
                if not retired:  # a retired reader's successor may be subscribed already
                    self._subscribed.clear()
                if pubsub is not None:
                    with contextlib.suppress(Exception):  # already broken or closed
                        pubsub.close()
            if not self._closed.is_set():
                self.notify_all()  # streams re-read now (and meet the outage, if any)
                time.sleep(self.RECONNECT_PAUSE)

    def _retire_if_idle(self) -> bool:
        """Stop delivering (then the reader ends) if no watch was open for
        `IDLE_CLOSE` s; the next `ready` starts another reader."""
        idle_since = self._idle_since
        if idle_since is None or time.monotonic() - idle_since < self.IDLE_CLOSE:
            return False
        with self._start_lock, self._lock:
            if self._watches or self._idle_since != idle_since:
                return False
            self._subscribed.clear()
            self._reader = None
            return True

    def close(self) -> None:
        """Stop the reader and wake every watch."""
        self._closed.set()
        super().close()
