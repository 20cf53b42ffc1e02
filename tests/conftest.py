"""Shared pytest fixtures: throwaway Redis servers (see tests/support/redis_server.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.redis_server import RedisCluster, RedisServer


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A plain redis-server on a free port, shared by the whole test session.

    Tests sharing it must not flush it or rely on it being empty; use random keys
    (game ids are random) or a key prefix of their own.
    """
    server = RedisServer().start()
    yield server
    server.cleanup()


@pytest.fixture(scope="session")
def redis_url(redis_server: RedisServer) -> str:
    """``redis://127.0.0.1:PORT/0`` of the session's ``redis_server``."""
    return redis_server.url


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisCluster]:
    """A 3-master Redis Cluster on free ports, started on first use, shared by the session."""
    cluster = RedisCluster().start()
    yield cluster
    cluster.cleanup()
