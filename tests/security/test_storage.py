"""Storage under attack, over gunicorn on a Redis of the test's own: a full
Redis, per-client quotas, short lives for unjoined and finished games."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
import redis

from tests.security.conftest import RedisFactory, ServeFactory

pytestmark = pytest.mark.slow


def call(url: str, method: str = "GET", body: Any = None) -> tuple[int, dict[str, str], Any]:
    """One request; the status, headers and JSON answer (or raw bytes)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            status, headers, raw = answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        status, headers, raw = error.code, dict(error.headers), error.read()
    try:
        return status, headers, json.loads(raw)
    except ValueError:
        return status, headers, raw


def fill(client: redis.Redis) -> None:
    """Write junk until Redis refuses even a small write (its maxmemory, noeviction).

    A refused large write may leave room for small ones (its own input buffer
    counted), so the filling goes on in small writes until those fail too.
    """
    refused_small = 0
    for index in range(200_000):
        size = 1024 if refused_small or index > 20_000 else 16 * 1024
        try:
            client.set(f"junk:{index}", b"x" * size)
        except redis.exceptions.ResponseError as error:
            assert "maxmemory" in str(error)
            refused_small += size == 1024
            if refused_small >= 3:
                return
            size = 1024
    raise AssertionError("Redis never refused a write")


def test_a_full_redis_makes_readyz_fail(redis_factory: RedisFactory, serve: ServeFactory) -> None:
    store = redis_factory("--maxmemory", "8mb", "--maxmemory-policy", "noeviction")
    server = serve(store)
    assert call(server.url + "/readyz")[0] == 200
    fill(store.client())
    # PING still answers; the write probe does not.
    assert store.client().ping()
    status, headers, problem = call(server.url + "/readyz")
    assert status == 503
    assert problem["code"] == "store_unavailable"
    assert "Retry-After" in headers
    # Liveness is not readiness: the process is fine.
    assert call(server.url + "/healthz")[0] == 200
    # Room again: ready again, by itself.
    client = store.client()
    for key in client.scan_iter("junk:*"):
        client.delete(key)
    assert call(server.url + "/readyz")[0] == 200
