"""Servers of the end-to-end tests: real gunicorn (production config) on a real Redis."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from tests.support.gunicorn import GunicornServer

#: Games are played by one test client at full speed from one address: the
#: rate limits (tested in tests/ops) would only slow these tests down.
E2E_ENV = {"RATELIMIT_ENABLED": "0", "ACCESS_LOG": "0"}


@pytest.fixture(scope="session")
def redis_env(redis_url: str) -> dict[str, str]:
    """The environment of a gunicorn serving games from the session's Redis."""
    return {**E2E_ENV, "STORE_URL": redis_url, "STORE_PREFIX": f"e2e{uuid.uuid4().hex[:8]}"}


@pytest.fixture(scope="session")
def redis_gunicorn(redis_env: dict[str, str]) -> Iterator[GunicornServer]:
    """gunicorn with 2 workers on the session's Redis."""
    with GunicornServer(redis_env, workers=2) as server:
        yield server


@pytest.fixture(scope="session")
def second_gunicorn(redis_env: dict[str, str]) -> Iterator[GunicornServer]:
    """Another gunicorn instance on the same Redis and key prefix."""
    with GunicornServer(redis_env, workers=2) as server:
        yield server
