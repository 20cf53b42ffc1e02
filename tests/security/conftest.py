"""Servers for the hostile-client tests: real redis-server and gunicorn, started here.

Every test of `tests/security/` plays an attacker against the service as it is
deployed: gunicorn with the production config (deploy/gunicorn.conf.py, gevent
workers), the app's production settings (rate limits on) and a Redis server of
its own, so a test may fill, starve or stop that Redis without touching any
other test's server.

- ``redis_factory(*extra_args)`` starts a throwaway ``redis-server`` (e.g.
  ``"--maxmemory", "2mb"``) and stops it after the test;
- ``serve(redis=None, env={}, workers=1)`` starts gunicorn on that Redis (the
  memory store without one) with `HOSTILE_ENV` plus ``env`` and stops it after
  the test;
- ``hardened`` is one Redis + gunicorn (2 workers) shared by a module, for
  tests that only read answers.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest

from tests.support.gunicorn import GunicornServer
from tests.support.redis_server import RedisServer

#: Production settings, with the request log off (its lines would only fill the
#: test's log file). Rate limits stay on: they are part of what is attacked.
HOSTILE_ENV = {"ACCESS_LOG": "0", "LOG_LEVEL": "WARNING"}

RedisFactory = Callable[..., RedisServer]
ServeFactory = Callable[..., GunicornServer]


@pytest.fixture
def redis_factory() -> Iterator[RedisFactory]:
    """Start throwaway redis-servers with extra arguments; all stopped after the test."""
    started: list[RedisServer] = []

    def start(*extra_args: str) -> RedisServer:
        server = RedisServer(extra_args=tuple(extra_args)).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.cleanup()


def service_env(redis: RedisServer | None, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a gunicorn on ``redis`` (memory store for ``None``)."""
    full = dict(HOSTILE_ENV)
    if redis is not None:
        full["STORE_URL"] = redis.url
        full["STORE_PREFIX"] = f"sec{uuid.uuid4().hex[:8]}"
    full.update(env or {})
    return full


@pytest.fixture
def serve() -> Iterator[ServeFactory]:
    """Start gunicorn (production config) on a Redis; stopped after the test."""
    started: list[GunicornServer] = []

    def start(
        redis: RedisServer | None = None, env: dict[str, str] | None = None, workers: int = 1
    ) -> GunicornServer:
        server = GunicornServer(service_env(redis, env), workers=workers).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def hardened() -> Iterator[GunicornServer]:
    """One Redis and one gunicorn (2 workers) shared by a module's tests."""
    with RedisServer() as redis, GunicornServer(service_env(redis), workers=2) as server:
        yield server
