"""The wake-up subscription read straight off its socket (service/serving/subscription.py),
on the session's throwaway redis-server."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest
import redis

from service.serving.subscription import PatternSubscription


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    connection = redis.Redis.from_url(redis_url)
    yield connection
    connection.close()


def _subscribe(client: redis.Redis, read_interval: float) -> tuple[PatternSubscription, str]:
    prefix = f"test-sub-{uuid.uuid4().hex}"
    return PatternSubscription(client, f"{prefix}:*", 1.0, read_interval=read_interval), prefix


def _next(subscription: PatternSubscription) -> tuple[bytes, float]:
    """The next message's data and when it was handed out."""
    message = subscription.get_message(timeout=5.0)
    assert message is not None
    return message["data"], time.monotonic()


@pytest.mark.parametrize("interval", [0.3, 0.0])
def test_reads_come_at_most_once_per_read_interval(client: redis.Redis, interval: float) -> None:
    """After a read that took everything, the next waits out the read interval; the
    messages published meanwhile come out of one read, one after the other."""
    subscription, prefix = _subscribe(client, interval)
    try:
        client.publish(f"{prefix}:g", b"first")
        started = time.monotonic()
        first, first_at = _next(subscription)
        assert first == b"first" and first_at - started < 0.2  # the first read: at once
        for number in range(3):
            client.publish(f"{prefix}:g", b"later %d" % number)
        later = [_next(subscription) for _ in range(3)]
        assert [data for data, _ in later] == [b"later 0", b"later 1", b"later 2"]
        if interval:
            assert later[0][1] - first_at >= interval - 0.02  # held until the interval passed
            assert later[2][1] - later[0][1] < 0.1  # the rest came with it
        else:
            assert later[2][1] - first_at < 0.2
    finally:
        subscription.close()


def test_a_read_that_filled_its_buffer_is_followed_at_once(client: redis.Redis) -> None:
    """More waiting than one read takes: the reads follow one another without the interval."""
    subscription, prefix = _subscribe(client, 5.0)
    subscription.READ_SIZE = 512  # type: ignore[misc]  # many reads for the burst below
    try:
        for number in range(40):
            client.publish(f"{prefix}:g", b"%03d" % number + b"." * 100)
        time.sleep(0.1)  # all of it arrived
        started = time.monotonic()
        got = [_next(subscription)[0][:3] for _ in range(40)]
        assert got == [b"%03d" % number for number in range(40)]
        assert time.monotonic() - started < 2.0  # not one 5 s interval waited
    finally:
        subscription.close()
