"""Storage under attack, over gunicorn on a Redis of the test's own: a full
Redis, per-client quotas, short lives for unjoined and finished games."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis

from tests.security.conftest import RedisFactory, ServeFactory

pytestmark = pytest.mark.slow


def call(url: str, method: str = "GET", body: Any = None) -> tuple[int, dict[str, str], Any]:
    """One request; the status, headers and JSON answer (or raw bytes)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            status, headers, raw = answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        status, headers, raw = error.code, dict(error.headers), error.read()
    try:
        return status, headers, json.loads(raw)
    except ValueError:
        return status, headers, raw


def fill(client: redis.Redis) -> None:
    """Write junk until Redis refuses even a small write (its maxmemory, noeviction).

    A refused large write may leave room for small ones (its own input buffer
    counted), so the filling goes on in small writes until those fail too.
    """
    refused_small = 0
    for index in range(200_000):
        size = 1024 if refused_small or index > 20_000 else 16 * 1024
        try:
            client.set(f"junk:{index}", b"x" * size)
        except redis.exceptions.ResponseError as error:
            assert "maxmemory" in str(error)
            refused_small += size == 1024
            if refused_small >= 3:
                return
            size = 1024
    raise AssertionError("Redis never refused a write")


def test_a_full_redis_makes_readyz_fail(redis_factory: RedisFactory, serve: ServeFactory) -> None:
    store = redis_factory("--maxmemory", "8mb", "--maxmemory-policy", "noeviction")
    server = serve(store)
    assert call(server.url + "/readyz")[0] == 200
    fill(store.client())
    # PING still answers; the write probe does not.
    assert store.client().ping()
    status, headers, problem = call(server.url + "/readyz")
    assert status == 503
    assert problem["code"] == "store_unavailable"
    assert "Retry-After" in headers
    # Liveness is not readiness: the process is fine.
    assert call(server.url + "/healthz")[0] == 200
    # Room again: ready again, by itself.
    client = store.client()
    for key in client.scan_iter("junk:*"):
        client.delete(key)
    assert call(server.url + "/readyz")[0] == 200


def _create(url: str, seats: list[dict[str, Any]], client: str) -> tuple[int, dict[str, str], Any]:
    data = json.dumps({"seats": seats}).encode()
    request = urllib.request.Request(url + "/games", data=data, method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("X-Forwarded-For", client)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


WAITING = [{"name": "Ann"}, {"name": None}]
ACTIVE = [{"name": "Ann"}, {"name": "Bob"}]


def test_per_client_quotas_refuse_at_the_edge(
    redis_factory: RedisFactory, serve: ServeFactory
) -> None:
    server = serve(
        redis_factory(),
        env={"QUOTA_WAITING_GAMES": "3", "QUOTA_ACTIVE_GAMES": "5", "RATELIMIT_PROXY_HOPS": "1"},
    )
    url = server.url
    waiting = [_create(url, WAITING, "10.0.0.1") for _ in range(3)]
    assert [status for status, _, _ in waiting] == [201, 201, 201]
    status, headers, problem = _create(url, WAITING, "10.0.0.1")
    assert status == 429
    assert problem["code"] == "game_quota_exceeded"
    assert "QUOTA_WAITING_GAMES" in problem["detail"]
    assert headers["Retry-After"]
    # Another client is not held back by the first one's games.
    assert _create(url, WAITING, "10.0.0.2")[0] == 201
    # A waiting game that someone joins is in play: its waiting slot frees.
    mine = waiting[0][2]["id"]
    assert call(url + f"/games/{mine}/join", "POST", {"name": "Cy"})[0] == 201
    assert _create(url, WAITING, "10.0.0.1")[0] == 201
    # Games in play count with the waiting ones against QUOTA_ACTIVE_GAMES.
    assert _create(url, ACTIVE, "10.0.0.1")[0] == 201
    status, _, problem = _create(url, ACTIVE, "10.0.0.1")
    assert (status, problem["code"]) == (429, "game_quota_exceeded")
    assert "QUOTA_ACTIVE_GAMES" in problem["detail"]


def test_a_quota_holds_for_creates_sent_at_once(
    redis_factory: RedisFactory, serve: ServeFactory
) -> None:
    # Twelve creates from one client at the same moment, over two workers,
    # against a quota of three waiting games: the counting and noting race
    # each other, yet exactly three games are made and the rest refused.
    server = serve(
        redis_factory(),
        env={"QUOTA_WAITING_GAMES": "3", "RATELIMIT_PROXY_HOPS": "1"},
        workers=2,
    )
    start = threading.Barrier(12)

    def create() -> tuple[int, dict[str, str], Any]:
        start.wait()
        return _create(server.url, WAITING, "10.0.0.7")

    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda _: create(), range(12)))
    statuses = sorted(status for status, _, _ in answers)
    assert statuses == [201] * 3 + [429] * 9
    for status, headers, body in answers:
        if status == 429:
            assert body["code"] == "game_quota_exceeded"
            assert "QUOTA_WAITING_GAMES" in body["detail"]
            assert headers["Retry-After"]
    made = {body["id"] for status, _, body in answers if status == 201}
    assert len(made) == 3
    # The three are real games; the client is at its quota.
    for game_id in made:
        assert call(f"{server.url}/games/{game_id}")[0] == 200
    assert _create(server.url, WAITING, "10.0.0.7")[0] == 429


def test_unjoined_and_finished_games_live_shorter(
    redis_factory: RedisFactory, serve: ServeFactory
) -> None:
    store = redis_factory()
    server = serve(store, env={"WAITING_TTL": "2", "FINISHED_TTL": "300", "IDLE_TTL": "900"})
    client = store.client()
    prefix = server.env["STORE_PREFIX"]
    status, _, waiting = call(server.url + "/games", "POST", {"seats": WAITING})
    assert status == 201
    status, _, active = call(server.url + "/games", "POST", {"seats": ACTIVE})
    assert status == 201
    assert 0 < client.pttl(f"{prefix}:{{{waiting['id']}}}:g") <= 2000
    assert 300_000 < client.pttl(f"{prefix}:{{{active['id']}}}:g") <= 900_000
    listed = [game["id"] for game in call(server.url + "/games")[2]["games"]]
    assert waiting["id"] in listed
    # Nobody joined: gone within its TTL, from the lobby too.
    deadline = 50
    while call(server.url + f"/games/{waiting['id']}")[0] != 404 and deadline:
        deadline -= 1
        import time

        time.sleep(0.1)
    assert call(server.url + f"/games/{waiting['id']}")[0] == 404
    listed = [game["id"] for game in call(server.url + "/games")[2]["games"]]
    assert waiting["id"] not in listed
