"""Idempotency records stay small: a pointer (status, version), never a whole view."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import replace

import redis
from flask import Flask

from service.config import TestConfig
from tests.api.helpers import Api, etag_version

DRAW = {"type": "draw", "source": "stock"}


def test_a_keyed_move_stores_a_pointer_and_a_retry_rebuilds_the_answer(
    redis_url: str, make_app: Callable[..., Flask]
) -> None:
    prefix = f"idem{uuid.uuid4().hex[:8]}"
    api = Api(
        make_app(replace(TestConfig(), STORE_URL=redis_url, STORE_PREFIX=prefix)).test_client()
    )
    game, ann, _bob = api.scripted_game()
    first = api.move(game, ann, DRAW, **{"Idempotency-Key": "draw-1"})
    assert first.status_code == 200
    # The record holds the status and the version, not the view (kilobytes for 24 h).
    client = redis.Redis.from_url(redis_url)
    (record_key,) = client.keys(f"{prefix}:{{{game}}}:idem:*")
    record = client.hgetall(record_key)
    assert record[b"status"] == b"200" and record[b"body"] == b"2"
    assert client.memory_usage(record_key) < 512 < len(first.get_data())
    # Same version: the very first answer (with the server's time of this one).
    again = api.move(game, ann, DRAW, **{"Idempotency-Key": "draw-1"})
    assert again.headers["Idempotency-Replayed"] == "true"
    assert {**again.get_json(), "now": None} == {**first.get_json(), "now": None}
    # The game moved on: the seat's view now, the move not applied twice.
    hand = first.get_json()["hand"]
    assert api.move(game, ann, {"type": "discard", "card": hand[-1]}).status_code == 200
    later = api.move(game, ann, DRAW, **{"Idempotency-Key": "draw-1"})
    assert later.status_code == 200
    assert later.headers["Idempotency-Replayed"] == "true"
    assert later.get_json()["version"] == 3 == api.view(game, ann).get_json()["version"]
    assert etag_version(later.headers["ETag"]) == 3
