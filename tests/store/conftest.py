"""Fixtures of the store tests: one contract, three backends.

``store`` is parametrized over the memory store, a Redis store on this
package's own throwaway redis-server, and a Redis store on the session's
3-master cluster. Each test gets a fresh key prefix, so the shared lobby index
starts empty for it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from service.store.base import GameStore
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from tests.support.redis_server import RedisCluster, RedisServer

StoreFactory = Callable[..., GameStore]


@pytest.fixture(scope="package")
def store_redis() -> Iterator[RedisServer]:
    """A redis-server for the store tests only (tests here may inspect it)."""
    server = RedisServer().start()
    yield server
    server.cleanup()


@pytest.fixture(params=["memory", "redis", "cluster"])
def make_store(request: pytest.FixtureRequest, store_redis: RedisServer) -> Iterator[StoreFactory]:
    """Build stores of one backend with the given settings (closed after the test)."""
    made: list[GameStore] = []
    prefix = f"t{uuid.uuid4().hex[:12]}"

    def make(**settings: Any) -> GameStore:
        store: GameStore
        if request.param == "memory":
            store = MemoryStore(**settings)
        elif request.param == "redis":
            store = RedisStore(store_redis.url, prefix=prefix, **settings)
        else:
            cluster: RedisCluster = request.getfixturevalue("redis_cluster")
            url = f"redis://{cluster.nodes[0].host}:{cluster.nodes[0].port}"
            store = RedisStore(url, cluster=True, prefix=prefix, **settings)
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()


@pytest.fixture
def store(make_store: StoreFactory) -> GameStore:
    """A store of the parametrized backend with default settings."""
    return make_store()
