"""The events of each followed game, read once per process for all its streams.

Every open `GET /games/{id}/stream` of a game in this process reads from one
`Feed`: the feed holds the game's one `Watch`, keeps the latest `FEED_EVENTS`
events (24 by default; the store keeps more) and wakes the game's streams when they change.
A stream then takes the events after its own last one from the feed, each
redacted and encoded once per viewer (a seat, or spectators) however many
streams show it. Before this, each stream read the store on every wake-up and
redacted and encoded every event itself: with a game followed by N streams,
N reads and N encodings per move (docs/performance.md, "Open event streams").

New events reach the feed two ways. A wake-up that carries the save's events
(Redis's) hands them to the feed in the store's reader (`Feed._delivered`):
the feed keeps them at once, without a read, when they follow its last one.
Otherwise (the first read, a gap in the `seq`s, a wake-up without events:
the memory store's, a deletion's, one after the store's subscription was
lost) the feed's own reader (a thread; a greenlet under gevent) reads the
store once for all the streams. That reader also reads every
`STREAM_HEARTBEAT` s without a wake-up (a lost wake-up costs at most that
delay). Both keep events under one lock and only those after the last kept,
so whichever comes second adds no duplicate.

A feed lives while a stream of its game is open: the first stream opens it,
the last one closes it. When the game is gone or the store fails, the feed
ends: its streams end and the next stream of the game opens a new feed.

Besides waking its streams (`changed`), the feed calls its listeners after
each change and once it ended, in whichever reader made the change: the
streams a gevent worker writes from there (service/api/pushing.py) are
listeners.
"""

from __future__ import annotations

import bisect
import logging
import operator
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

import orjson

from service.rules import views
from service.store.base import GameStore
from service.store.errors import GameNotFound, StoreUnavailable

__all__ = ["HEARTBEAT", "RETRY", "Feed", "Feeds", "Following", "end_streams", "sse_event"]

_log = logging.getLogger(__name__)


#: The comment line sent when a stream has been quiet for `STREAM_HEARTBEAT` s.
HEARTBEAT = b": heartbeat\n\n"
#: A stream's first line: tells an EventSource how soon to reconnect once the
#: server closes the stream.
RETRY = b"retry: 1000\n\n"


def sse_event(event: dict[str, Any]) -> bytes:
    """One event in the text/event-stream form: its `seq` as `id`, the JSON as `data`."""
    return b"id: %d\ndata: %s\n\n" % (event["seq"], orjson.dumps(event))


#: The key of a public event's one message for every viewer (no seat is -1)
#: among its messages (`_Entry`).
_PUBLIC = views.EVERYONE


@dataclass(frozen=True)
class Following:
    """How one stream follows its feed (either way of writing it: the generator
    `events._follow` or `pushing.PushedStream`)."""

    #: The caller's seat, or `None`: a spectator.
    seat: int | None
    #: The `seq` of the last event the client has: the stream starts after it.
    after: int
    #: A spectator's `spectator_delay` (0 for a seat): an event is shown once
    #: this many more followed it.
    delay: int
    #: Seconds of silence after which a heartbeat comment is sent (`STREAM_HEARTBEAT`).
    heartbeat: float
    #: Seconds after which the stream ends (`STREAM_LIFETIME`).
    lifetime: float
    #: Shortest time in seconds between two writes of saved events to a pushed
    #: stream (`STREAM_PUSH_INTERVAL`; 0: each save's at once): `pushing._Pusher`.
    push_interval: float = 0.0
    clock: Callable[[], float] = time.monotonic


#: One kept event: its `seq`, the event, whether every viewer sees it alike
#: (`views.is_public_event`, asked once when kept), and its encoded message per
#: viewer and per view, filled as streams ask. A tuple, not an object: one is
#: made per save.
_Entry = tuple[int, dict[str, Any], bool, dict[int | None, bytes]]
_seq_of = operator.itemgetter(0)


#: The events a feed holds, replaced whole by the reader, never changed in
#: place, so a stream reads a consistent set without a lock: the entries,
#: oldest first (one list: three lists, of the events, their `seq`s and their
#: messages, were each copied per save); the last one's `seq` (0 without any);
#: and `Feed.since`'s
#: answers by its arguments (the streams of a game mostly stand at the same
#: event and viewer, and ask the same after each save). A tuple: one is made
#: per save, and a class's `__init__` cost more (`bench.push_calls`;
#: docs/performance.md, "Open event streams", has the figures).
_Kept = tuple[list[_Entry], int, dict[tuple[int, int | None, int], tuple[bytes, int]]]


def _kept(entries: list[_Entry]) -> _Kept:
    """The kept events of `entries` (a list not changed after)."""
    return entries, entries[-1][0] if entries else 0, {}


class Feed:
    """One game's events for the streams of this process (see the module docstring)."""

    def __init__(self, store: GameStore, game_id: str, *, keep: int, reread: float) -> None:
        self.game_id = game_id
        self._store = store
        self._keep = keep
        self._reread = reread
        self._kept = _kept([])
        #: Set (and dropped) each time the kept events change or the feed ends;
        #: made when a stream asks for it (`changed`): pushed streams never do.
        self._changed: threading.Event | None = None
        #: Set once the first read is done (or the feed ended before it); and the
        #: same as a plain flag, asked per save (`Event.is_set` is a call).
        self._loaded = threading.Event()
        self._read_once = False
        self.ended = False
        self._closing = False
        #: Called after each change and once the feed ended, in the order they
        #: came: a tuple replaced whole (under `_listening`), so that `_publish`
        #: walks it without a copy per save.
        self._listeners: tuple[Callable[[], None], ...] = ()
        self._listening = threading.Lock()
        #: Held while the kept events change and the change is published: the
        #: feed's reader and the store's (`_delivered`) may both add events.
        self._lock = threading.Lock()
        #: Whether deliveries may do without the lock: in a gevent worker the
        #: feed's readers are greenlets of one thread, and neither switches
        #: inside the sections the lock guards (nothing there waits: sends that
        #: never block, events set), so no other reader can run in between. A
        #: gevent lock taken and released per save was a measurable share of a
        #: save's cost (`bench.push_calls`; docs/performance.md, "Open event streams").
        self._greenlets = _greenlet_threads()
        self._cleanup = ExitStack()
        # Watching before the first read: a save between the two still wakes it.
        # In a gevent worker the watch calls `_deliver` itself: one call less a save.
        deliver = self._deliver if self._greenlets else self._delivered
        self._watch = self._cleanup.enter_context(store.watch(game_id, deliver))
        self._reader = threading.Thread(target=self._read, name="rummy-feed", daemon=True)
        self._reader.start()

    @property
    def changed(self) -> threading.Event:
        """The event set when the kept events next change (or the feed ends): take
        it before `since`, then wait on it, and no change is missed."""
        changed = self._changed
        if changed is None:
            with self._lock:  # one event for all the streams that ask before the change
                changed = self._changed
                if changed is None:
                    changed = self._changed = threading.Event()
        return changed

    def wait_loaded(self, timeout: float) -> bool:
        """Wait up to `timeout` s for the first read; whether it is done."""
        return self._loaded.wait(timeout)

    def since(self, after: int, viewer: int | None, delay: int = 0) -> tuple[bytes, int]:
        """The messages of the kept events after `after` as `viewer` (a seat, or
        `None`: a spectator) may see them, and the `seq` of the last one (`after`
        without any). A spectator of a game with `spectator_delay` gets an event
        once `delay` more followed it."""
        kept = self._kept
        entries, last, answers = kept
        if last <= after:
            return b"", after
        if len(entries) > 1 and entries[-2][0] == after and not (viewer is None and delay):
            # Only the last event, as a stream that had everything before asks
            # after each save: without the searches, the range and the join
            # nor an answer kept for it.
            return Feed._message(entries[-1], viewer), last
        asked = (after, viewer, delay)
        answer = answers.get(asked)
        if answer is None:
            # Racing streams may both work it out: the same answer either way.
            answer = answers[asked] = self._since(kept, after, viewer, delay)
        return answer

    def since_everyone(self, after: int) -> tuple[bytes, int] | None:
        """What `since(after, viewer)` answers every viewer alike (any seat, a
        spectator without delay) when the only event after `after` is one that
        every viewer sees as it is, else `None` (ask per viewer)."""
        entries = self._kept[0]
        if len(entries) > 1 and entries[-2][0] == after and entries[-1][2]:
            return Feed._message(entries[-1], None), entries[-1][0]
        return None

    @staticmethod
    def _since(kept: _Kept, after: int, viewer: int | None, delay: int) -> tuple[bytes, int]:
        entries, last, _ = kept
        if viewer is None and delay:
            last -= delay
        start = bisect.bisect_right(entries, after, key=_seq_of)
        stop = bisect.bisect_right(entries, last, start, key=_seq_of)
        if start >= stop:
            return b"", after
        message = Feed._message
        parts = [message(entries[index], viewer) for index in range(start, stop)]
        return b"".join(parts), entries[stop - 1][0]

    @staticmethod
    def _message(entry: _Entry, viewer: int | None) -> bytes:
        """The message of a kept event as `viewer` sees it (encoded once)."""
        _, event, public, encoded = entry
        if public:
            # Every viewer alike: asked once when kept, not per viewer (a
            # public event asked by 4 seats and the spectators found its
            # view 5 times, `bench.push_calls --viewers 0,1,2,3,s,s`).
            message = encoded.get(_PUBLIC)
            if message is None:
                message = encoded[_PUBLIC] = sse_event(event)
            return message
        message = encoded.get(viewer)
        if message is None:
            # Racing streams may both encode it: the same bytes either way.
            # One encoding per view, not per viewer: a draw from the stock
            # encoded for each of 4 seats and the spectators cost noticeably
            # more a draw (`bench.push_calls --viewers`).
            # Not public (asked when kept): its view and redaction without asking
            # again, once each per viewer and view (`bench.push_calls --viewers
            # 0,1,2,3,s,s`). A spectator's view of such an event is the
            # spectators' (`None`).
            view = None if viewer is None else views.private_view(event, viewer)
            message = encoded.get(view)
            if message is None:
                message = encoded[view] = sse_event(views.redact_private_event(event, viewer))
            encoded[viewer] = message
        return message

    def listen(self, listener: Callable[[], None]) -> None:
        """Call `listener` after each change of the kept events and once the feed
        ended, in the reader that made the change (it must not block: that
        reader serves every stream of the game, the store's every game)."""
        with self._listening:
            if listener not in self._listeners:
                self._listeners = (*self._listeners, listener)

    def unlisten(self, listener: Callable[[], None]) -> None:
        """Stop calling `listener`."""
        with self._listening:
            self._listeners = tuple(each for each in self._listeners if each != listener)

    def close(self) -> None:
        """Stop watching and let the reader end."""
        self._closing = True
        self._cleanup.close()
        self._watch.wake()

    def _read(self) -> None:
        try:
            while not self._closing:
                after = self._kept[1]
                try:
                    fresh = self._store.events(self.game_id, after)
                except (GameNotFound, StoreUnavailable):
                    return
                with self._lock:
                    # A read answers every event kept after `after`: one whose
                    # first `seq` skips some means those are gone from the store.
                    last = self._kept[1]
                    fresh = [event for event in fresh if event["seq"] > last]
                    if fresh:
                        self._keep_also(fresh)
                    self._read_once = True
                    self._loaded.set()
                self._watch.wait(self._reread)
        except Exception:
            _log.exception("stream feed of game %s failed", self.game_id)
        finally:
            with self._lock:
                self.ended = True
                self._loaded.set()
                self._publish()

    def _delivered(self, events: list[dict[str, Any]]) -> None:
        """A save's events, handed over by the store's reader (it must not block):
        kept at once if they follow the last kept, else the feed's reader reads."""
        with self._lock:
            self._deliver(events)

    def _deliver(self, events: list[dict[str, Any]]) -> None:
        """`_delivered`'s work, under the lock (or in a greenlet that does not switch)."""
        if self._closing or self.ended:
            return
        last = self._kept[1]
        if events and events[0]["seq"] == last + 1 and self._read_once:
            self._keep_also(events)  # as almost always: they follow the last kept
            return
        fresh = [event for event in events if event["seq"] > last]
        if not fresh:
            return  # the reader read them already
        if not self._read_once or fresh[0]["seq"] != last + 1:
            self._watch.wake()  # a gap (or no first read yet): read what is missing
            return
        self._keep_also(fresh)

    def _keep_also(self, fresh: list[dict[str, Any]]) -> None:
        """Keep `fresh` (after the last kept) and publish the change (under the lock)."""
        entries = self._kept[0]
        drop = len(entries) + len(fresh) - self._keep
        entries = entries[drop:] if drop > 0 else entries[:]
        is_public = views.is_public_event
        for event in fresh:  # a loop, not a list made and joined: one event a save
            entries.append((event["seq"], event, is_public(event), {}))
        self._kept = (entries, entries[-1][0], {})  # `fresh` is never empty
        self._publish()

    def _publish(self) -> None:
        # Under the lock, as `changed` makes the next event. Made per save, the
        # event (and a frozen dataclass holding the kept events was) cost some 7,000
        # instructions a save, with no pushed stream waiting (`bench.push_calls`).
        changed, self._changed = self._changed, None
        if changed is not None:
            changed.set()
        for listener in self._listeners:
            try:
                listener()
            except Exception:  # one stream's failure is not the feed's
                _log.exception("stream of game %s failed", self.game_id)


def _greenlet_threads() -> bool:
    """Whether this process's threads are gevent's greenlets (gevent patched `threading`)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and bool(monkey.is_module_patched("threading"))


#: Every `Feeds` of this process (an app's), for `end_streams`.
_every_feeds: weakref.WeakSet[Feeds] = weakref.WeakSet()


def end_streams() -> int:
    """End every stream of this process, now and from now on (a worker shutting
    down): each sends what its feed holds and closes, and its client reconnects
    (after the ``retry`` each stream starts with) to a worker still serving.
    Without this, an open stream held a stopping worker for its whole
    `STREAM_LIFETIME` or gunicorn's ``graceful_timeout``. How many feeds were open."""
    ended = 0
    for feeds in list(_every_feeds):
        ended += feeds.end_all()
    return ended


class Feeds:
    """This process's feeds, by game: opened by a game's first stream, closed by its last."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._feeds: dict[str, tuple[Feed, int]] = {}
        self._lock = threading.Lock()
        #: Set by `end_all`: a stream opened after ends at once.
        self._ending = False
        _every_feeds.add(self)

    @property
    def ending(self) -> bool:
        """Whether `end_all` ended the streams (the process is stopping)."""
        return self._ending

    def end_all(self) -> int:
        """End every feed, hence its streams, and each one opened after; how many were open."""
        with self._lock:
            self._ending = True
            feeds = [feed for feed, _ in self._feeds.values()]
        for feed in feeds:
            feed.close()  # its reader ends it: its streams send the rest and end
        return len(feeds)

    @property
    def open_feeds(self) -> int:
        """How many games have a feed open."""
        with self._lock:
            return len(self._feeds)

    @contextmanager
    def follow(self, store: GameStore, game_id: str, *, reread: float) -> Iterator[Feed]:
        """The game's feed for one stream, while the context is open (a new feed
        reads the store every `reread` s without a wake-up). Raises
        `StoreUnavailable` when the store cannot deliver wake-ups."""
        feed = self._join(game_id)
        if feed is None:
            # Made outside the lock: watching may wait for the store's subscription.
            made = Feed(store, game_id, keep=self.keep, reread=reread)
            feed = self._join(game_id, made) or made
            if feed is not made:
                made.close()  # another stream's feed got there first
        if self._ending:
            feed.close()  # the process is stopping: the stream ends at once
        try:
            yield feed
        finally:
            self._leave(feed)

    def _join(self, game_id: str, made: Feed | None = None) -> Feed | None:
        """Count one more stream on the game's feed (`made` when it has none)."""
        with self._lock:
            feed, users = self._feeds.get(game_id, (None, 0))
            if feed is None or feed.ended:
                # An ended feed stays with its streams (they end); new ones get another.
                if made is None:
                    return None
                feed, users = made, 0
            self._feeds[game_id] = (feed, users + 1)
            return feed

    def _leave(self, feed: Feed) -> None:
        with self._lock:
            current, users = self._feeds.get(feed.game_id, (None, 0))
            if current is feed and users > 1:
                self._feeds[feed.game_id] = (feed, users - 1)
                return
            if current is feed:
                del self._feeds[feed.game_id]
        # The last stream of this feed, or of one that ended and was replaced.
        feed.close()
