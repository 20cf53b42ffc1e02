"""`STORE_WAIT_REPLICAS`: a save is answered once the replicas have it, else 503.

A real primary and replica (two redis-servers on free loopback ports). The
replica is frozen (SIGSTOP) to make it stop acknowledging: with the setting
on, a save is then refused with `NotReplicated` (and the API answers 503 with
``Retry-After``) within the timeout; with it off, the save is answered as
before. The save and its ``WAIT`` go in one write.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
from flask import Flask

from service.config import TestConfig
from service.store.errors import NotReplicated, StoreUnavailable
from service.store.redis import RedisStore
from tests.api.helpers import DECK, bearer
from tests.support.redis_server import RedisServer, start_replica


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[RedisServer, RedisServer]]:
    primary = RedisServer().start()
    replica = start_replica(primary)
    try:
        yield primary, replica
    finally:
        replica.cleanup()
        primary.cleanup()


def store_on(primary: RedisServer, prefix: str = "", **settings: object) -> RedisStore:
    prefix = prefix or f"w{uuid.uuid4().hex[:8]}"
    return RedisStore(primary.url, prefix=prefix, **settings)  # type: ignore[arg-type]


def test_a_save_answered_is_on_the_replica_and_one_not_acknowledged_is_refused(
    pair: tuple[RedisServer, RedisServer],
) -> None:
    primary, replica = pair
    store = store_on(primary, wait_replicas=1, wait_timeout_ms=300)
    created = store.create(b"one", lobby=None)
    game_key = f"{store.prefix}:{{{created.game_id}}}:g"
    assert replica.client().hget(game_key, "version") == b"1"  # there before the answer
    replica.freeze()
    try:
        started = time.monotonic()
        with pytest.raises(NotReplicated, match="0 of 1 replicas"):
            store.save(created.game_id, 1, b"two")
        assert 0.25 < time.monotonic() - started < 2.0  # the timeout, not the socket's
        assert isinstance(NotReplicated("x"), StoreUnavailable)  # a 503 like any store failure
        # The primary has it (a failover now may lose it: it was never acknowledged).
        assert primary.client().hget(game_key, "version") == b"2"
    finally:
        replica.thaw()
    # Once the replica answers again the next save is acknowledged (it may take
    # a moment to catch up on a busy machine: a longer timeout).
    patient = store_on(primary, store.prefix, wait_replicas=1, wait_timeout_ms=5000)
    assert patient.save(created.game_id, 2, b"three").saved
    patient.close()
    assert replica.client().hget(game_key, "version") == b"3"
    store.close()


def test_without_the_setting_a_save_does_not_wait_for_the_replica(
    pair: tuple[RedisServer, RedisServer],
) -> None:
    primary, replica = pair
    store = store_on(primary)
    created = store.create(b"one", lobby=None)
    replica.freeze()
    try:
        with primary.record_commands() as seen:
            started = time.monotonic()
            assert store.save(created.game_id, 1, b"two").saved
            assert time.monotonic() - started < 0.25
    finally:
        replica.thaw()
    assert not [command for command in seen if command.startswith(("WAIT", '"WAIT'))]
    store.close()


def test_the_wait_follows_the_save_on_its_connection_in_one_write(
    pair: tuple[RedisServer, RedisServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    primary, _ = pair
    store = store_on(primary, wait_replicas=1, wait_timeout_ms=2000)
    created = store.create(b"one", lobby=None)
    with primary.record_commands() as seen:
        assert store.save(created.game_id, 1, b"two").saved
    names = [command.split(" ", 1)[0].strip('"').upper() for command in seen]
    assert names == ["EVALSHA", "WAIT"], seen
    assert seen[1].split()[1:] == ["1", "2000"]
    store.close()


def test_the_setting_is_refused_on_a_cluster() -> None:
    with pytest.raises(ValueError, match="min-replicas-to-write"):
        RedisStore("redis://127.0.0.1:1/0", cluster=True, wait_replicas=1)


def test_a_move_not_acknowledged_answers_503_with_retry_after(
    pair: tuple[RedisServer, RedisServer], make_app: Callable[..., Flask]
) -> None:
    primary, replica = pair
    config = replace(
        TestConfig(),
        STORE_URL=primary.url,
        STORE_PREFIX=f"w{uuid.uuid4().hex[:8]}",
        STORE_WAIT_REPLICAS=1,
        STORE_WAIT_TIMEOUT_MS=300,
        RAISE_UNEXPECTED=False,
    )
    client = make_app(config).test_client()
    body = {"seats": [{"name": "Ann"}, {"name": "Bob"}], "deck": DECK, "first_dealer": 1}
    created = client.post("/games", json=body).get_json()
    game, auth = created["id"], bearer(created["seats"][0]["token"])
    move = {"type": "draw", "source": "stock"}
    replica.freeze()
    try:
        refused = client.post(
            f"/games/{game}/moves", json=move, headers={**auth, "Idempotency-Key": "k"}
        )
    finally:
        replica.thaw()
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "1"
    assert refused.get_json()["code"] == "store_unavailable"
    assert "replicas" in refused.get_json()["detail"]
    # A retry with the same key while the replica still does not answer: its
    # replay is not acknowledged either (the record is on the primary alone).
    replica.freeze()
    try:
        replayed = client.post(
            f"/games/{game}/moves", json=move, headers={**auth, "Idempotency-Key": "k"}
        )
    finally:
        replica.thaw()
    assert replayed.status_code == 503
    # Once it answers: the replay, and the draw was made once.
    again = client.post(f"/games/{game}/moves", json=move, headers={**auth, "Idempotency-Key": "k"})
    assert again.status_code == 200 and again.headers["Idempotency-Replayed"] == "true"
    assert again.get_json()["version"] == created["version"] + 1
