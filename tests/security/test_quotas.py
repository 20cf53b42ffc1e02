"""Game quotas under attack, over gunicorn (2 workers) on a Redis of the test's own.

The attacks of issue 36's quota finding: a client that creates a waiting game
and joins it itself, again and again (each create once checked only the quota
of the new game's own status, so the joins took its games in play past any
quota: 1,046 in 10 s against 100); the same from addresses rotated within one
IPv6 /64; and games of bots only, which need no human to keep the runner busy.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
import redis

from tests.security.conftest import RedisFactory, ServeFactory

pytestmark = pytest.mark.slow

WAITING = [{"name": "Ann"}, {"name": None}]
BOTS = [{"bot": "greedy"}, {"bot": "greedy"}]


def send(
    url: str, method: str = "GET", body: Any = None, client: str = "10.0.0.1"
) -> tuple[int, dict[str, str], Any]:
    """One request from ``client`` (the address the proxy in front saw)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    request.add_header("X-Forwarded-For", client)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(answer.headers), json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def create_and_join(url: str, client: str, rounds: int) -> list[int]:
    """The bypass: create a waiting game, join it from the same client, repeat;
    the create's status of each round (the loop stops at the first refusal)."""
    statuses = []
    for _ in range(rounds):
        status, _, created = send(url + "/games", "POST", {"seats": WAITING}, client)
        statuses.append(status)
        if status != 201:
            break
        joined = send(f"{url}/games/{created['id']}/join", "POST", {"name": "Me"}, client)
        assert joined[0] == 201, joined
    return statuses


def assert_quota_refusal(answer: tuple[int, dict[str, str], Any], setting: str) -> None:
    status, headers, problem = answer
    assert status == 429, answer
    assert problem["code"] == "game_quota_exceeded"
    assert setting in problem["detail"]
    assert int(headers["Retry-After"]) > 0


def owner_index_sizes(store: redis.Redis, prefix: str) -> list[int]:
    """The size of every owner's index of open games in Redis."""
    return [int(store.zcard(key)) for key in store.scan_iter(f"{prefix}:{{owner:*}}:open")]


def test_the_create_and_join_loop_stops_at_the_quota(
    redis_factory: RedisFactory, serve: ServeFactory
) -> None:
    redis_server = redis_factory()
    server = serve(
        redis_server,
        env={"QUOTA_ACTIVE_GAMES": "8", "RATELIMIT_PROXY_HOPS": "1"},
        workers=2,
    )
    url = server.url
    # Eight rounds make eight games in play; the ninth create is refused.
    assert create_and_join(url, "10.0.0.1", 20) == [201] * 8 + [429]
    assert_quota_refusal(send(url + "/games", "POST", {"seats": WAITING}), "QUOTA_ACTIVE_GAMES")
    # Joining someone else's game is refused too: it would be a ninth.
    other = send(url + "/games", "POST", {"seats": WAITING}, "10.0.0.2")[2]["id"]
    refused = send(f"{url}/games/{other}/join", "POST", {"name": "Me"})
    assert_quota_refusal(refused, "QUOTA_ACTIVE_GAMES")
    # ...and changed nothing: the seat is still open for anyone else.
    assert send(f"{url}/games/{other}/join", "POST", {"name": "Bea"}, "10.0.0.3")[0] == 201
    # Another client is not held back; the attacker's index holds its eight.
    assert create_and_join(url, "10.0.0.4", 1) == [201]
    prefix = server.env["STORE_PREFIX"]
    assert sorted(owner_index_sizes(redis_server.client(), prefix)) == [1, 1, 1, 8]


def test_addresses_rotated_within_one_ipv6_64_share_its_quota(
    redis_factory: RedisFactory, serve: ServeFactory
) -> None:
    server = serve(redis_factory(), env={"QUOTA_ACTIVE_GAMES": "5", "RATELIMIT_PROXY_HOPS": "1"})
    url = server.url
    statuses = [
        send(url + "/games", "POST", {"seats": WAITING}, f"2001:db8:7:8::{n:x}")[0]
        for n in range(1, 8)
    ]
    assert statuses == [201] * 5 + [429] * 2
    # The next /64 is another client.
    assert send(url + "/games", "POST", {"seats": WAITING}, "2001:db8:7:9::1")[0] == 201


def test_games_of_bots_only_stop_at_their_own_quota(
    redis_factory: RedisFactory, serve: ServeFactory
) -> None:
    # No runner and no bot moves within a request: the bots' games stay
    # unfinished, as a flood of long ones would.
    server = serve(
        redis_factory(),
        env={"QUOTA_BOT_GAMES": "3", "BOT_MOVES_PER_REQUEST": "0", "RATELIMIT_PROXY_HOPS": "1"},
        workers=2,
    )
    server.stop_runner()
    url = server.url
    statuses = [send(url + "/games", "POST", {"seats": BOTS})[0] for _ in range(5)]
    assert statuses == [201] * 3 + [429] * 2
    assert_quota_refusal(send(url + "/games", "POST", {"seats": BOTS}), "QUOTA_BOT_GAMES")
    # A game with a human in it is under the larger quota still.
    assert send(url + "/games", "POST", {"seats": WAITING})[0] == 201
    assert send(url + "/games", "POST", {"seats": BOTS}, "10.0.0.9")[0] == 201
