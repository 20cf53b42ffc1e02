"""Rate limits per client address and per seat token: 429 with Retry-After.

A bare Flask app carries the limiter here, so the limiter is tested on its
own; tests/ops/test_gunicorn_ops.py drives the whole service past a limit.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis
from flask import Flask
from werkzeug.test import TestResponse

from service.ops import metrics, ratelimit
from service.ops.ratelimit import Limit, client_key
from tests.support.redis_server import RedisServer, find_free_port


def make_app(**settings: object) -> Flask:
    """A tiny app with the limiter and two routes, its clock stopped mid-window."""
    app = Flask("ratelimit-test")
    app.config.update({"STORE_URL": "memory://", **settings})
    app.add_url_rule("/thing", "thing", lambda: "ok")
    app.add_url_rule("/healthz", "healthz", lambda: "ok")
    limiter = ratelimit.init_app(app)
    if limiter is not None:
        # A fixed time, so no test can straddle the end of a window.
        limiter.clock = lambda: 60 * 16_666_700 + 30.0
    return app


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def assert_rate_limited(response: TestResponse, limit: Limit) -> None:
    assert response.status_code == 429
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == "rate_limited"
    assert body["status"] == 429
    retry_after = int(response.headers["Retry-After"])
    assert 1 <= retry_after <= limit.seconds
    # The clock of make_app stands 30 s into a 60 s window.
    if limit.seconds == 60:
        assert retry_after == 30


def refused(scope: str) -> float:
    """How many requests the ``scope`` limit has refused in this process."""
    value = metrics.REGISTRY.get_sample_value("rummy_rate_limited_total", {"scope": scope})
    return value or 0.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [("600/60", Limit(600, 60)), ("5/second", Limit(5, 1)), (" 100 / minute ", Limit(100, 60))],
)
def test_limit_parse(text: str, expected: Limit) -> None:
    assert Limit.parse(text) == expected


@pytest.mark.parametrize("text", ["600", "0/60", "10/0", "ten/60", "10/fortnight"])
def test_limit_parse_refuses_nonsense(text: str) -> None:
    with pytest.raises(ValueError, match="COUNT/SECONDS"):
        Limit.parse(text)


def test_address_limit_answers_429_with_retry_after() -> None:
    client = make_app(RATELIMIT_PER_ADDRESS="3/60", RATELIMIT_PER_TOKEN="0").test_client()
    before = refused("address")
    statuses = [client.get("/thing").status_code for _ in range(3)]
    assert statuses == [200, 200, 200]
    assert_rate_limited(client.get("/thing"), Limit(3, 60))
    assert refused("address") == before + 1
    # Probes are never limited; another address has its own count.
    assert client.get("/healthz").status_code == 200
    assert client.get("/thing", environ_base={"REMOTE_ADDR": "10.9.9.9"}).status_code == 200


def test_token_limit_is_per_token_whatever_the_address() -> None:
    client = make_app(RATELIMIT_PER_ADDRESS="0", RATELIMIT_PER_TOKEN="2/60").test_client()
    for address in ("10.0.0.1", "10.0.0.2"):
        answer = client.get(
            "/thing", headers=bearer("tok-a"), environ_base={"REMOTE_ADDR": address}
        )
        assert answer.status_code == 200
    assert_rate_limited(client.get("/thing", headers=bearer("tok-a")), Limit(2, 60))
    assert client.get("/thing", headers=bearer("tok-b")).status_code == 200
    # Without a token only the address limit (off here) applies.
    assert client.get("/thing").status_code == 200


def test_proxy_hops_take_the_client_from_x_forwarded_for() -> None:
    app = make_app(RATELIMIT_PER_ADDRESS="1/60", RATELIMIT_PER_TOKEN="0", RATELIMIT_PROXY_HOPS=1)
    client = app.test_client()
    # Behind one proxy: the right-most entry is the address that proxy saw.
    for client_address in ("198.51.100.1", "198.51.100.2"):
        xff = {"X-Forwarded-For": f"203.0.113.7, {client_address}"}
        assert client.get("/thing", headers=xff).status_code == 200
    xff = {"X-Forwarded-For": "198.51.100.1"}
    assert client.get("/thing", headers=xff).status_code == 429


def test_disabled_limiter_installs_nothing() -> None:
    app = make_app(RATELIMIT_ENABLED=False, RATELIMIT_PER_ADDRESS="1/60")
    assert "ratelimit" not in app.extensions
    client = app.test_client()
    assert [client.get("/thing").status_code for _ in range(3)] == [200, 200, 200]


def test_windows_restart_the_count() -> None:
    counters = ratelimit.MemoryCounters()
    hit = ratelimit.Hit("address", "a:x", Limit(2, 10))
    assert [counters.incr([hit], now)[0] for now in (100.0, 101.0, 109.9)] == [1, 2, 3]
    assert counters.incr([hit], 110.0) == [1]


def test_redis_counts_are_shared_by_every_process_and_expire(redis_server: RedisServer) -> None:
    settings = {
        "STORE_URL": redis_server.url,
        "STORE_PREFIX": f"rltest{find_free_port()}",
        "RATELIMIT_PER_ADDRESS": "0",
        "RATELIMIT_PER_TOKEN": "3/60",
    }
    # Two apps stand for two worker processes (or two hosts) on one Redis.
    first, second = make_app(**settings).test_client(), make_app(**settings).test_client()
    assert first.get("/thing", headers=bearer("shared")).status_code == 200
    assert second.get("/thing", headers=bearer("shared")).status_code == 200
    assert first.get("/thing", headers=bearer("shared")).status_code == 200
    assert_rate_limited(second.get("/thing", headers=bearer("shared")), Limit(3, 60))
    keys = redis_server.client().keys(f"{settings['STORE_PREFIX']}:rl:t:*")
    assert len(keys) == 1
    ttl = redis_server.client().pttl(keys[0])
    assert 0 < ttl <= 120_000
    # The token itself is not in Redis, only a hash of it.
    assert b"shared" not in keys[0]


def test_redis_down_refuses_requests_with_503_and_retry_after() -> None:
    # Fails closed: a request that cannot be counted is not let through.
    dead = f"redis://127.0.0.1:{find_free_port()}/0"
    client = make_app(STORE_URL=dead, RATELIMIT_PER_ADDRESS="100/60").test_client()
    answers = [client.get("/thing") for _ in range(3)]
    assert [answer.status_code for answer in answers] == [503, 503, 503]
    assert all(answer.headers["Retry-After"] == "1" for answer in answers)
    assert answers[0].get_json()["code"] == ratelimit.UNAVAILABLE_CODE


def test_redis_client_ignores_store_settings_in_the_url() -> None:
    client = ratelimit.redis_client("redis://127.0.0.1:1/2?prefix=x&max_events=5")
    assert isinstance(client, redis.Redis)
    assert client.connection_pool.connection_kwargs["db"] == 2


def test_counts_ride_with_the_load_and_a_refused_move_changes_nothing(
    redis_server: RedisServer, make_app: Callable[..., Flask]
) -> None:
    from dataclasses import replace

    from service.config import TestConfig
    from tests.api.helpers import DECK

    prefix = f"rlride{find_free_port()}"
    config = replace(
        TestConfig(),
        STORE_URL=redis_server.url,
        STORE_PREFIX=prefix,
        RATELIMIT_ENABLED=True,
        RATELIMIT_PER_ADDRESS="0",
        RATELIMIT_PER_TOKEN="3/60",
    )
    app = make_app(config)
    limiter = app.extensions["ratelimit"]
    assert limiter.rides_with_loads
    limiter.clock = lambda: 60 * 16_666_700 + 30.0
    client = app.test_client()
    body = {"seats": [{"name": "Ann"}, {"name": "Bob"}], "deck": DECK, "first_dealer": 1}
    created = client.post("/games", json=body).get_json()
    game, token = created["id"], created["seats"][0]["token"]
    draw = {"type": "draw", "source": "stock"}

    before = refused("token")
    assert client.get(f"/games/{game}", headers=bearer(token)).status_code == 200
    assert client.post(f"/games/{game}/moves", json=draw, headers=bearer(token)).status_code == 200
    version = client.get(f"/games/{game}").get_json()["version"]  # no token: not counted
    # A request that ends before its load (a bad body) is counted on its own.
    assert client.post(f"/games/{game}/moves", json={}, headers=bearer(token)).status_code == 422
    discard = {"type": "discard", "card": "SQ"}
    answer = client.post(f"/games/{game}/moves", json=discard, headers=bearer(token))
    assert_rate_limited(answer, Limit(3, 60))
    assert refused("token") == before + 1
    # Refused right after the load that carried its count: nothing was saved.
    assert client.get(f"/games/{game}").get_json()["version"] == version
    key = redis_server.client().keys(f"{prefix}:rl:t:*")[0]
    assert int(redis_server.client().get(key)) == 4
    # A bad body past the limit is refused too (its answer replaced after the fact).
    assert_rate_limited(
        client.post(f"/games/{game}/moves", json={}, headers=bearer(token)), Limit(3, 60)
    )


def test_address_hits_kept_are_bounded_and_counts_survive_forgetting_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ratelimit, "ADDRESS_HITS_KEPT", 3)
    app = make_app(RATELIMIT_PER_ADDRESS="2/60", RATELIMIT_PER_TOKEN="0")
    limiter = app.extensions["ratelimit"]
    client = app.test_client()
    sizes = []
    for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.1"):
        assert client.get("/thing", environ_base={"REMOTE_ADDR": address}).status_code == 200
        sizes.append(len(limiter._address_hits))
    assert sizes == [1, 2, 3, 1, 2]  # full at 3: forgotten all at once
    # 10.0.0.1's hit was made anew; its count went on: the third request is refused.
    assert client.get("/thing", environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 429


def test_token_hits_kept_are_bounded_by_digest_and_counts_survive_forgetting_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ratelimit, "TOKEN_HITS_KEPT", 3)
    app = make_app(RATELIMIT_PER_ADDRESS="0", RATELIMIT_PER_TOKEN="2/60")
    limiter = app.extensions["ratelimit"]
    client = app.test_client()
    sizes = []
    for token in ("tok-1", "tok-2", "tok-3", "tok-4", "tok-1"):
        answer = client.get("/thing", headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200
        sizes.append(len(limiter._token_hits))
    assert sizes == [1, 2, 3, 1, 2]  # full at 3: forgotten all at once
    assert not any("tok-" in key for key in limiter._token_hits)  # digests, never tokens
    # tok-1's hit was made anew; its count went on: the third request is refused.
    answer = client.get("/thing", headers={"Authorization": "Bearer tok-1"})
    assert answer.status_code == 429
    assert ratelimit.TOKEN_HITS_KEPT == 3


def test_a_counters_key_is_made_once_per_window() -> None:
    counters = ratelimit.RedisCounters("redis://127.0.0.1:1/0", "p")  # never connects
    hit = ratelimit.Hit("token", "t:abc", Limit(5, 60))
    [(first, ttl_ms)] = counters.keys([hit], 120.0)
    assert (first, ttl_ms) == ("p:rl:t:abc:2", 120_000)
    [(again, _)] = counters.keys([hit], 179.9)
    assert again is first  # the same window: the key kept with the hit
    assert counters.keys([hit], 180.0) == [("p:rl:t:abc:3", 120_000)]
    assert counters.keys([hit], 179.0) == [("p:rl:t:abc:2", 120_000)]  # a clock set back
    other = ratelimit.RedisCounters("redis://127.0.0.1:1/0", "q")
    assert other.keys([hit], 179.0) == [("q:rl:t:abc:2", 120_000)]  # another prefix


def test_the_limiter_and_the_seat_lookup_hash_a_token_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from types import SimpleNamespace

    from service.api import auth
    from service.http import tokens

    hashed: list[str] = []
    real_hash = tokens.hash_token

    def hash_token(token: str) -> str:
        hashed.append(token)
        return real_hash(token)

    monkeypatch.setattr(tokens, "hash_token", hash_token)
    app = make_app(RATELIMIT_PER_TOKEN="5/60")
    limiter = app.extensions["ratelimit"]
    seats = [SimpleNamespace(token_hash=real_hash(name)) for name in ("a", "b")]
    with app.test_request_context("/thing", headers=bearer("b")):
        [_, token_hit] = limiter.hits()
        assert token_hit.key == "t:" + real_hash("b")[:32]
        assert auth.seat_of(seats, "b") == 1
        assert hashed == ["b"]
        assert auth.seat_of(seats, "a") == 0  # another token is hashed, not taken as "b"
        assert hashed == ["b", "a"]
    assert auth.seat_of(seats, "b") == 1  # outside a request: hashed each time
    assert hashed == ["b", "a", "b"]


def test_the_address_counter_is_the_peer_without_proxies_and_the_forwarded_one_with() -> None:
    app = make_app()
    limiter = app.extensions["ratelimit"]

    def keys(environ: dict[str, str]) -> list[str]:
        with app.test_request_context("/thing", environ_base=environ):
            return [hit.key for hit in limiter.hits()]

    assert keys({"REMOTE_ADDR": "10.1.2.3"}) == ["a:10.1.2.3"]
    assert keys({"REMOTE_ADDR": ""}) == ["a:unknown"]
    limiter.proxy_hops = 1
    forwarded = {"REMOTE_ADDR": "10.1.2.3", "HTTP_X_FORWARDED_FOR": "203.0.113.9"}
    assert keys(forwarded) == ["a:203.0.113.9"]
    assert keys({"REMOTE_ADDR": "10.1.2.3"}) == ["a:10.1.2.3"]  # no header: the peer


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("10.1.2.3", "10.1.2.3"),
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("unknown", "unknown"),
        ("not:an:address", "not:an:address"),
    ],
)
def test_an_ipv6_client_is_its_64(address: str, key: str) -> None:
    assert client_key(address) == key


def test_addresses_of_one_ipv6_64_share_one_count() -> None:
    # A client given a /64 picks any of 2**64 addresses: each one its own count
    # would make the per-address limit (and the game quotas) no limit at all.
    client = make_app(RATELIMIT_PER_ADDRESS="3/60", RATELIMIT_PER_TOKEN="0").test_client()
    statuses = [
        client.get("/thing", environ_base={"REMOTE_ADDR": f"2001:db8:5:6::{n:x}"}).status_code
        for n in range(1, 5)
    ]
    assert statuses == [200, 200, 200, 429]
    assert client.get("/thing", environ_base={"REMOTE_ADDR": "2001:db8:5:7::1"}).status_code == 200
