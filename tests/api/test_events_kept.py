"""Only the latest MAX_EVENTS events are kept: a client further behind sees the gap."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
from flask import Flask

from service.app import create_app, shutdown
from service.config import TestConfig
from tests.api.helpers import DRAW, Api


@pytest.fixture(params=["memory", "redis"])
def small_api(request: pytest.FixtureRequest) -> Iterator[Api]:
    """An app that keeps 2 events per game, on the memory store, then on Redis."""
    config = replace(TestConfig(), MAX_EVENTS=2)
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        config = replace(config, STORE_URL=url, STORE_PREFIX=f"t{uuid.uuid4().hex[:8]}")
    app = create_app(config)
    yield Api(app.test_client())
    shutdown(app)


def test_a_client_behind_the_kept_events_gets_those_left_and_a_gap(small_api: Api) -> None:
    game, ann, _ = small_api.scripted_game()
    small_api.move(game, ann, DRAW)
    view = small_api.client.get(f"/games/{game}", headers={"Authorization": f"Bearer {ann}"})
    last = view.json["last_event"]
    assert last >= 3
    body = small_api.events(game, ann, after=0).json
    seqs = [event["seq"] for event in body["events"]]
    # The first answered seq is above after + 1: the events between are gone.
    assert seqs == [last - 1, last] and seqs[0] > 0 + 1
    assert body["last"] == last
    assert body["events"][-1]["type"] == "drew" and body["events"][-1]["card"] == "S9"
    # A client within the kept events misses nothing.
    assert [e["seq"] for e in small_api.events(game, ann, after=last - 1).json["events"]] == [last]


def test_a_worker_keeps_feed_events_of_a_followed_game_at_most_max_events(
    make_app: Callable[..., Flask],
) -> None:
    from service.api.events import FEEDS_EXTENSION
    from service.config import Config

    assert Config.from_env({}).FEED_EVENTS == 24
    assert Config.from_env({"FEED_EVENTS": "3"}).FEED_EVENTS == 3
    assert Config.from_env({"FEED_EVENTS": "0"}).FEED_EVENTS == 1  # at least one
    assert make_app(replace(TestConfig(), FEED_EVENTS=3)).extensions[FEEDS_EXTENSION].keep == 3
    smaller = make_app(replace(TestConfig(), FEED_EVENTS=24, MAX_EVENTS=2))
    assert smaller.extensions[FEEDS_EXTENSION].keep == 2
