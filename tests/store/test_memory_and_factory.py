"""The memory store's idle expiry (on a fake clock) and `open_store`'s URLs."""

from __future__ import annotations

import pytest

from service.store.base import IdempotencyRecord
from service.store.errors import GameNotFound
from service.store.factory import open_store
from service.store.memory import MemoryStore
from service.store.redis import RedisStore


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_idle_games_expire_and_every_write_refreshes_the_ttl() -> None:
    clock = FakeClock()
    store = MemoryStore(idle_ttl=100, idempotency_ttl=30, clock=clock)
    kept = store.create(b"s", lobby={"n": 1}).game_id
    idle = store.create(b"s", lobby={"n": 2}).game_id

    clock.now += 90
    assert store.save(kept, 1, b"t", [], IdempotencyRecord(0, "k", "fp", 200, b"{}")).saved
    clock.now += 20  # idle: 110 s untouched; kept: 20 s since its save
    with pytest.raises(GameNotFound):
        store.load(idle)
    assert store.save(idle, 1, b"t").status == "not_found"
    assert store.load(kept).version == 2
    assert [item["id"] for item in store.lobby()[0]] == [kept]
    assert store.get_idempotency(kept, 0, "k") is not None

    clock.now += 20  # the record is 40 s old, past its 30 s
    assert store.get_idempotency(kept, 0, "k") is None
    clock.now += 100
    with pytest.raises(GameNotFound):
        store.events(kept, 0)
    assert store.lobby() == ([], None)


def test_open_store_picks_the_backend_from_the_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STORE_URL", raising=False)
    assert isinstance(open_store(), MemoryStore)
    assert isinstance(
        open_store("memory://", idle_ttl=5, prefix="ignored", pipelining=False), MemoryStore
    )

    plain = open_store("redis://127.0.0.1:1/2", idle_ttl=60, prefix="p")
    assert isinstance(plain, RedisStore)
    assert (plain.cluster, plain.prefix, plain.idle_ttl_ms) == (False, "p", 60_000)
    assert plain.pipelining
    unpipelined = open_store("redis://127.0.0.1:1/2", pipelining=False)
    assert isinstance(unpipelined, RedisStore) and not unpipelined.pipelining
    tls = open_store("rediss://example.invalid:6380/0")
    assert isinstance(tls, RedisStore) and tls.url.startswith("rediss://")
    cluster = open_store("redis+cluster://127.0.0.1:7000")
    assert isinstance(cluster, RedisStore)
    assert (cluster.cluster, cluster.url) == (True, "redis://127.0.0.1:7000")

    monkeypatch.setenv("STORE_URL", "redis://127.0.0.1:1/0")
    assert isinstance(open_store(), RedisStore)


@pytest.mark.parametrize("url", ["mysql://x", "nonsense", "http://127.0.0.1"])
def test_open_store_refuses_unknown_urls(url: str) -> None:
    with pytest.raises(ValueError, match="STORE_URL"):
        open_store(url)
