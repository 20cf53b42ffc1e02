"""A real gunicorn for the bot client tests, on the embedded memory store."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import service.bots.expert as expert
from tests.support.gunicorn import GunicornServer

#: The expert's budget in these tests: a few worlds per choice, and no time cap so
#: that its choices do not depend on the machine's load.
SMALL_EXPERT_BUDGET = expert.Budget(nodes=24, seconds=None)

#: One worker (the memory store lives in one process); self-play from one
#: address at full speed would only wait on the rate limits (tested in tests/ops).
BOTS_ENV = {"STORE_URL": "memory://", "RATELIMIT_ENABLED": "0", "ACCESS_LOG": "0"}


@pytest.fixture(scope="package")
def service_url() -> Iterator[str]:
    """Base URL of a gunicorn shared by the tests of this package."""
    with GunicornServer(BOTS_ENV, workers=1) as server:
        yield server.url


@pytest.fixture(autouse=True)
def small_expert_budget() -> Iterator[None]:
    """Every test here plays the expert on :data:`SMALL_EXPERT_BUDGET`."""
    with expert.budget(SMALL_EXPERT_BUDGET):
        yield
