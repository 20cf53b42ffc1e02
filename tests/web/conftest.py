"""A real gunicorn on a real redis-server for the web front end's browser tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.gunicorn import GunicornServer


@pytest.fixture(scope="module")
def play_server(redis_url: str) -> Iterator[GunicornServer]:
    """The service with two workers on the session's Redis, under its own key prefix."""
    server = GunicornServer(
        env={"STORE_URL": redis_url, "STORE_PREFIX": "webtest", "ACCESS_LOG": "0"}, workers=2
    ).start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def patient_expectations() -> None:
    """Page assertions wait up to 20 s: on a loaded machine a bot's turn in the
    background runner may take longer than Playwright's default 5 s."""
    from playwright.sync_api import expect

    expect.set_options(timeout=20_000)


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script, from exactly the version web/package-lock.json pins."""
    from pathlib import Path

    from tests.support.npm import npm_ci

    web = Path(__file__).resolve().parents[2] / "web"
    with npm_ci(web):
        return (web / "node_modules" / "axe-core" / "axe.min.js").read_text()
