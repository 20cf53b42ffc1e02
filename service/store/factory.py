"""`open_store`: the store named by a ``STORE_URL``."""

from __future__ import annotations

import os
from typing import Any

from service.store.base import GameStore
from service.store.memory import MemoryStore
from service.store.redis import RedisStore

__all__ = ["open_store"]


def open_store(url: str | None = None, **settings: Any) -> GameStore:
    """Open the store for ``url`` (default: ``$STORE_URL``, else ``memory://``).

    Schemes: ``memory://`` · ``redis://host:port/db`` · ``rediss://…`` (TLS) ·
    ``redis+cluster://host:port`` and ``rediss+cluster://…`` (Redis Cluster, any
    node). ``settings`` go to the store: ``idle_ttl``, ``waiting_ttl``,
    ``finished_ttl``, ``record_ttl``, ``idempotency_ttl``,
    ``idempotency_bytes``, ``max_events``, ``max_wait``, ``quota_pending``
    (seconds, bytes or counts) for both; ``prefix``,
    ``socket_timeout``, ``connect_timeout``, ``retries``, ``max_connections``,
    ``pool_timeout``, ``password``, ``max_subscribers``, ``pipelining``,
    ``wakeup_read_interval``, ``wait_replicas``, ``wait_timeout_ms`` for Redis.
    No connection is made here: Redis may still be down.
    """
    if url is None:
        url = os.environ.get("STORE_URL") or "memory://"
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep:
        raise ValueError(f"STORE_URL {url!r} has no scheme (memory://, redis://, ...)")
    if scheme == "memory":
        redis_only = {
            "prefix",
            "socket_timeout",
            "connect_timeout",
            "retries",
            "max_connections",
            "pool_timeout",
            "password",
            "wakeup_read_interval",
            "max_subscribers",
            "pipelining",
            "wait_replicas",
            "wait_timeout_ms",
        }
        return MemoryStore(**{k: v for k, v in settings.items() if k not in redis_only})
    if scheme in ("redis", "rediss", "unix"):
        return RedisStore(url, **settings)
    if scheme in ("redis+cluster", "rediss+cluster"):
        base = scheme.removesuffix("+cluster")
        return RedisStore(f"{base}://{rest}", cluster=True, **settings)
    raise ValueError(
        f"unknown STORE_URL scheme {scheme!r}: use memory://, redis://, rediss:// "
        "or redis+cluster://"
    )
