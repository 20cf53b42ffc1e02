"""Bot-seconds per client (`BOT_SECONDS_PER_OWNER`): past its budget a client's bot
turns are left to the runner, queued in its name; other clients play theirs."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from flask import Flask

from service.app import RUNNER_EXTENSION
from service.config import TestConfig
from service.store.base import owner_tag
from service.worker import BOTS

EXPERTS = {"preset": "standard", "seats": [{"bot": "expert"}] * 4, "seed": 5}


def bot_moves(app: Flask, game: str) -> int:
    """Bot moves played so far in ``game``."""
    events = app.test_client().get(f"/games/{game}/events?after=0&limit=1000").json
    assert events is not None
    return sum(e["type"] in ("drew", "discarded") for e in events["events"])


def test_a_client_past_its_bot_seconds_leaves_its_bots_to_the_runner(
    make_app: Callable[..., Flask],
) -> None:
    # 0.1 s at once, refilled at about nothing: one create's worth of bot play.
    config = dataclasses.replace(
        TestConfig(), BOT_SECONDS_PER_REQUEST=0.1, BOT_SECONDS_PER_OWNER=0.001
    )
    app = make_app(config)
    app.extensions[RUNNER_EXTENSION].stop()  # look at the queue instead
    client = app.test_client()

    def create(address: str) -> str:
        answer = client.post("/games", json=EXPERTS, environ_base={"REMOTE_ADDR": address})
        assert answer.status_code == 201 and answer.json is not None
        return str(answer.json["id"])

    first = create("192.0.2.1")
    assert bot_moves(app, first) > 0  # within the client's budget
    second = create("192.0.2.1")  # the same client: its budget is spent
    assert bot_moves(app, second) == 0
    other = create("192.0.2.2")  # another client has its own
    assert bot_moves(app, other) > 0
    store = app.extensions["rummy.store"].inner
    claims = {c.game_id: c for c in store.claim_due(time.time() + 1, 10, 30)}
    assert (claims[second].reason, claims[second].owner) == (BOTS, owner_tag("a:192.0.2.1"))
    assert claims[other].owner == owner_tag("a:192.0.2.2")


def test_without_a_budget_per_client_each_request_plays_its_own(
    make_app: Callable[..., Flask],
) -> None:
    config = dataclasses.replace(TestConfig(), BOT_SECONDS_PER_REQUEST=0.1)  # no per-client
    app = make_app(config)
    app.extensions[RUNNER_EXTENSION].stop()
    client = app.test_client()
    for _ in range(3):
        answer = client.post("/games", json=EXPERTS)
        assert answer.json is not None
        assert bot_moves(app, answer.json["id"]) > 0
