"""Servers of the robustness tests: gunicorn (production config) on the session's redis-server,
and a reader of the stored games (the full state, hidden cards included)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from service.rules.state import GameState, decode_state
from service.store.base import GameStore
from service.store.factory import open_store
from tests.support.gunicorn import GunicornServer

#: One client address sends everything at full speed: rate limits (tested in
#: tests/ops) stay off; request lines stay on, so the logs can be checked.
ROBUST_ENV = {"RATELIMIT_ENABLED": "0"}


@dataclass
class Live:
    """A running gunicorn and the store it writes to."""

    server: GunicornServer
    store: GameStore

    @property
    def url(self) -> str:
        """Base URL of the server."""
        return self.server.url

    def state(self, game_id: str) -> GameState:
        """The full stored state of a game."""
        return decode_state(self.store.load(game_id).state)

    def events(self, game_id: str) -> list[dict[str, Any]]:
        """Every stored event of a game, unredacted."""
        return self.store.events(game_id, 0)


@pytest.fixture(scope="session")
def live(redis_url: str) -> Iterator[Live]:
    """gunicorn with 2 workers on the session's Redis, under a key prefix of its own."""
    prefix = f"rob{uuid.uuid4().hex[:8]}"
    env = {**ROBUST_ENV, "STORE_URL": redis_url, "STORE_PREFIX": prefix}
    with GunicornServer(env, workers=2) as server:
        store = open_store(redis_url, prefix=prefix)
        yield Live(server, store)
        store.close()  # before the session's redis-server stops
