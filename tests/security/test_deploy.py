"""Redis as deployed: a password, protected mode; the service with and without it."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest
import redis

from tests.security.conftest import RedisFactory, ServeFactory

pytestmark = pytest.mark.slow

PASSWORD = "correct-horse-battery-staple"


def status_of(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_service_reaches_a_password_protected_redis_only_with_the_password(
    redis_factory: RedisFactory, serve: ServeFactory
) -> None:
    store = redis_factory("--protected-mode", "yes")
    # As deploy/ runs it: a password required (set once the server answers,
    # since the test helper's start-up check does not authenticate).
    store.client().config_set("requirepass", PASSWORD)
    # Anyone else is refused by Redis itself.
    with pytest.raises(redis.exceptions.AuthenticationError):
        redis.Redis(host=store.host, port=store.port, socket_timeout=2).ping()
    with_password = serve(store, env={"STORE_PASSWORD": PASSWORD})
    assert status_of(with_password.url + "/readyz") == 200
    created = urllib.request.Request(
        with_password.url + "/games",
        data=b'{"seats": [{"name": "Ann"}, {"name": null}]}',
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(created, timeout=10) as answer:
        assert answer.status == 201
    without = serve(store, env={"STORE_PASSWORD": "wrong"})
    assert status_of(without.url + "/readyz") == 503
