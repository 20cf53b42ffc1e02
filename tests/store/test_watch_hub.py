"""`RedisHub`: `ready` waits for the outcome of the reader's attempt to subscribe;
the subscription is given up when idle and taken again after a failure."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import Any

import pytest

from service.store.errors import StoreUnavailable
from service.store.redis import RedisStore
from service.store.watch import RedisHub
from tests.support.redis_server import RedisServer


class QuietPubSub:
    """A subscription on which nothing is ever published."""

    def __init__(self) -> None:
        self.closed = threading.Event()

    def get_message(self, ignore_subscribe_messages: bool, timeout: float) -> Any:
        self.closed.wait(min(timeout, 0.05))
        return None

    def close(self) -> None:
        self.closed.set()


def hub_of(subscribe: Any) -> RedisHub:
    hub = RedisHub(subscribe, lambda channel: None, (ConnectionError,))
    # Only a hung reader would meet this bound: the test would hang, not pass.
    hub.READY_TIMEOUT = 3600.0
    hub.RECONNECT_PAUSE = 0.01
    return hub


@pytest.mark.timeout(60)
def test_a_failed_attempt_fails_ready_at_once_not_after_a_fixed_wait() -> None:
    def refused() -> Any:
        raise ConnectionError("connection refused")

    hub = hub_of(refused)
    try:
        with pytest.raises(StoreUnavailable, match="not established"):
            hub.ready()
    finally:
        hub.close()


@pytest.mark.timeout(60)
def test_ready_returns_once_a_slow_attempt_subscribes() -> None:
    entered, release = threading.Event(), threading.Event()
    pubsub = QuietPubSub()

    def slow() -> Any:
        entered.set()
        release.wait()  # as a busy machine connecting a cluster client
        return pubsub

    hub = hub_of(slow)
    outcome: list[BaseException | None] = []

    def wait_ready() -> None:
        try:
            hub.ready()
            outcome.append(None)
        except BaseException as exc:  # pragma: no cover - reported below
            outcome.append(exc)

    waiter = threading.Thread(target=wait_ready)
    waiter.start()
    assert entered.wait(30)
    assert outcome == []  # still waiting for the attempt
    release.set()
    waiter.join()
    try:
        assert outcome == [None]
        with hub.watch("g") as watch:
            hub.notify("g")
            assert watch.wait(5.0) is True
    finally:
        hub.close()
    assert pubsub.closed.wait(30)


@pytest.mark.timeout(60)
def test_the_subscription_is_given_up_once_no_watch_is_left_and_taken_again_after() -> None:
    subscriptions: list[QuietPubSub] = []

    def subscribe() -> Any:
        subscriptions.append(QuietPubSub())
        return subscriptions[-1]

    hub = hub_of(subscribe)
    hub.IDLE_CLOSE, hub.POLL = 0.1, 0.01
    try:
        with hub.watch("g"), hub.watch("h") as other:
            pass
        assert subscriptions[0].closed.wait(30)  # no watch left: unsubscribed
        with hub.watch("g"), hub.watch("h") as other:
            assert len(subscriptions) == 2  # the next watch subscribes again
            with hub.watch("h"):
                pass
            time.sleep(0.3)  # well past IDLE_CLOSE with watches still open
            assert not subscriptions[1].closed.is_set()
            hub.notify("h")
            assert other.wait(5.0) is True
        assert subscriptions[1].closed.wait(30)
    finally:
        hub.close()


@pytest.mark.timeout(60)
def test_a_redis_stores_watches_get_the_events_again_after_the_subscription_was_cut(
    store_redis: RedisServer,
) -> None:
    store = RedisStore(store_redis.url, prefix=f"t{uuid.uuid4().hex[:12]}")
    writer = RedisStore(store_redis.url, prefix=store.prefix)
    try:
        game = store.create(b"s", [{"type": "game_created"}]).game_id
        delivered: list[int] = []
        with store.watch(game, lambda events: delivered.extend(e["seq"] for e in events)) as w:
            assert writer.save(game, 1, b"t", [{"type": "drew", "seat": 0}]).saved
            until(lambda: delivered == [2])
            # The server drops the subscription: the hub wakes the watch, and again
            # once subscribed anew (what was published between is lost: read it).
            assert store_redis.client().client_kill_filter(_type="pubsub") >= 1
            assert w.wait(10.0) is True
            assert w.wait(10.0) is True
            assert writer.save(game, 2, b"t", [{"type": "drew", "seat": 1}]).saved
            until(lambda: delivered == [2, 3])
    finally:
        writer.close()
        store.close()


def until(condition: Any) -> None:
    deadline = time.monotonic() + 10.0
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_wake_up_carrying_no_events_is_read_as_none_and_only_garbage_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from service.store.codec import stamp_event
    from service.store.watch import decode_wakeup

    caplog.set_level(logging.WARNING, logger="service.store.watch")
    assert decode_wakeup(b"17") is None  # a deletion's: the last `seq` only
    assert decode_wakeup(b"") is None
    assert caplog.records == []
    assert decode_wakeup(b"1 2 x {") is None  # unreadable: logged
    assert len(caplog.records) == 1
    one, two = stamp_event(4, 3, 0, b'{"T":1}'), stamp_event(5, 3, 0, b'{"T":0}')
    assert [e["type"] for e in decode_wakeup(one + b"\n" + two) or []] == ["discarded", "drew"]
