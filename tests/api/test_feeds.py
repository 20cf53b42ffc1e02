"""A feed keeps the events a wake-up carries without reading the store, and reads
it when they do not follow its last one (service/api/feeds.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from service.api.feeds import Feed
from service.store.watch import Deliver, Watch


def event(seq: int) -> dict[str, Any]:
    return {"seq": seq, "version": seq, "at": "2026-12-01T10:00:00.000Z", "type": "drew"}


class Store:
    """What a feed uses of a store: `events` (counted) and `watch` (its `deliver` kept)."""

    def __init__(self, last: int) -> None:
        self.saved = [event(seq) for seq in range(1, last + 1)]
        self.reads = 0
        self.deliver: Deliver | None = None
        self.watching: Watch | None = None

    def events(self, game_id: str, after: int = 0) -> list[dict[str, Any]]:
        self.reads += 1
        return [e for e in self.saved if e["seq"] > after]

    @contextmanager
    def watch(self, game_id: str, deliver: Deliver | None = None) -> Iterator[Watch]:
        self.deliver = deliver
        self.watching = Watch(game_id, deliver)
        yield self.watching

    def save(self, *seqs: int) -> list[dict[str, Any]]:
        """Store these events; the events as a wake-up would carry them."""
        fresh = [event(seq) for seq in seqs]
        self.saved += fresh
        return fresh


def until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10.0
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def seqs_of(feed: Feed, after: int = 0) -> list[int]:
    messages, _ = feed.since(after, None)
    return [int(line.split(b" ")[1]) for line in messages.split(b"\n") if line.startswith(b"id:")]


@pytest.fixture
def fed() -> Iterator[tuple[Store, Feed]]:
    store = Store(last=3)
    feed = Feed(store, "g", keep=24, reread=3600.0)  # type: ignore[arg-type]
    assert feed.wait_loaded(10.0)
    yield store, feed
    feed.close()


def test_delivered_events_that_follow_are_kept_without_a_read(fed: tuple[Store, Feed]) -> None:
    store, feed = fed
    assert store.deliver is not None and store.reads == 1  # the first read only
    changes: list[int] = []
    feed.listen(lambda: changes.append(len(seqs_of(feed))))
    store.deliver(store.save(4, 5))
    store.deliver(store.save(6))
    assert seqs_of(feed) == [1, 2, 3, 4, 5, 6]
    assert changes == [5, 6]  # each delivery published at once, in the caller
    assert store.reads == 1


def test_events_delivered_twice_are_kept_once(fed: tuple[Store, Feed]) -> None:
    store, feed = fed
    assert store.deliver is not None
    fresh = store.save(4)
    store.deliver(fresh)
    store.deliver(fresh)
    store.deliver([event(2), event(3)])
    assert seqs_of(feed) == [1, 2, 3, 4] and store.reads == 1


def test_a_gap_in_the_delivered_events_makes_the_feed_read_what_is_missing(
    fed: tuple[Store, Feed],
) -> None:
    store, feed = fed
    assert store.deliver is not None
    store.save(4)  # its wake-up lost
    store.deliver(store.save(5, 6))
    until(lambda: seqs_of(feed) == [1, 2, 3, 4, 5, 6])
    assert store.reads == 2
    store.deliver(store.save(7))  # and the next that follows is kept as delivered
    assert seqs_of(feed) == [1, 2, 3, 4, 5, 6, 7] and store.reads == 2


def test_a_wake_up_without_events_makes_the_feed_read(fed: tuple[Store, Feed]) -> None:
    store, feed = fed
    assert store.watching is not None
    store.save(4, 5)
    store.watching.wake()
    until(lambda: seqs_of(feed) == [1, 2, 3, 4, 5])
    assert store.reads == 2


def test_deliveries_racing_the_feeds_reads_leave_no_gap_or_duplicate() -> None:
    store = Store(last=1)
    feed = Feed(store, "g", keep=10_000, reread=0.001)  # type: ignore[arg-type]
    try:
        assert feed.wait_loaded(10.0) and store.deliver is not None
        deliver = store.deliver

        def saves() -> None:
            for seq in range(2, 2001):
                fresh = store.save(seq)
                if seq % 7:  # every seventh wake-up lost
                    deliver(fresh)

        writer = threading.Thread(target=saves)
        writer.start()
        writer.join()
        until(lambda: seqs_of(feed)[-1:] == [2000])
        assert seqs_of(feed) == list(range(1, 2001))
    finally:
        feed.close()


def test_the_one_event_every_viewer_sees_alike_is_answered_for_all_at_once(
    fed: tuple[Store, Feed],
) -> None:
    store, feed = fed
    assert store.deliver is not None
    assert feed.since_everyone(3) is None  # nothing after 3 yet
    store.deliver(store.save(4))  # a draw from the discard pile: public
    shown = feed.since_everyone(3)
    assert shown is not None and shown == feed.since(3, 0) == feed.since(3, None)
    assert shown[1] == 4 and b"id: 4\n" in shown[0]
    assert feed.since_everyone(2) is None  # more than one event after 2: per viewer
    stock = {**event(5), "source": "stock", "seat": 1, "card": "S5"}
    store.saved.append(stock)
    store.deliver([stock])
    assert feed.since_everyone(4) is None  # the card is the drawer's only
    assert b"S5" in feed.since(4, 1)[0] and b"S5" not in feed.since(4, 0)[0]


def test_ending_the_streams_ends_every_feed_and_each_one_opened_after() -> None:
    from service.api.feeds import Feeds, end_streams

    store = Store(last=1)
    feeds = Feeds(keep=24)
    with feeds.follow(store, "g", reread=3600.0) as feed:  # type: ignore[arg-type]
        assert feed.wait_loaded(10.0) and not feed.ended
        changed = feed.changed
        assert end_streams() >= 1
        assert changed.wait(10.0)  # its streams are woken, and see it ended
        until(lambda: feed.ended)
        assert feeds.ending
    with feeds.follow(store, "h", reread=3600.0) as late:  # type: ignore[arg-type]
        until(lambda: late.ended)  # a stream opened while stopping ends at once
