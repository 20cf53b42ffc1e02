"""Fixtures of the API tests: an app on the memory store, and on a throwaway Redis.

The memory-store app serves the tests of one module (building one, with its OpenAPI
document, costs more than most of these tests): a test works on games it creates and
asserts on those only. `any_api` builds a fresh app per test: the lobby tests list
every open game of its store.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app, shutdown
from service.config import TestConfig
from tests.api.helpers import Api


@pytest.fixture(scope="module")
def app() -> Iterator[Flask]:
    """An app on its own memory store, shared by the module's tests."""
    app = create_app(TestConfig())
    yield app
    shutdown(app)


@pytest.fixture(scope="module")
def client(app: Flask) -> FlaskClient:
    """A test client of `app`."""
    return app.test_client()


@pytest.fixture(scope="module")
def api(client: FlaskClient) -> Api:
    """Game helpers over `client` (memory store)."""
    return Api(client)


@pytest.fixture(params=["memory", "redis"])
def any_api(request: pytest.FixtureRequest) -> Iterator[Api]:
    """Game helpers over an app on the memory store, then on a throwaway Redis."""
    if request.param == "memory":
        config = TestConfig()
    else:
        url = request.getfixturevalue("redis_url")
        config = replace(TestConfig(), STORE_URL=url, STORE_PREFIX=f"t{uuid.uuid4().hex[:8]}")
    app = create_app(config)
    yield Api(app.test_client())
    shutdown(app)
