"""`RedisHub.ready` waits for the outcome of the reader's attempt to subscribe."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from service.store.errors import StoreUnavailable
from service.store.watch import RedisHub


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
