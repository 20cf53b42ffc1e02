"""A game survives a crash of an AOF-enabled Redis running deploy/redis.conf.

Redis is killed with SIGKILL mid-game (no shutdown save): what was answered
before the kill was already written to the append-only file, so after the
restart the game is where it was and play continues. (With `appendfsync
everysec` Redis may hold its writes back for up to 2 s while a slow fsync of the
file is still running, a busy disk: the test kills it once its AOF buffer is
empty, as deploy/README.md states the guarantee.) While Redis is down the
service answers 503 with Retry-After, and it reconnects by itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
from flask import Flask

from service.config import TestConfig
from tests.deploy.conftest import DEPLOY
from tests.ops.webclient import Answer, Game, to_app
from tests.support.redis_server import RedisServer, find_free_port

# redis-server is killed and restarted.
pytestmark = pytest.mark.slow


class ProductionRedis(RedisServer):
    """redis-server reading deploy/redis.conf, on the test's own port and directory."""

    def _args(self) -> list[str]:
        executable, *options = super()._args()
        # Options given after the file override it (port, bind, dir, no RDB saves).
        return [executable, str(DEPLOY / "redis.conf"), *options]


@pytest.fixture
def redis_aof() -> Iterator[ProductionRedis]:
    server = ProductionRedis(appendonly=True).start()
    try:
        yield server
    finally:
        server.cleanup()


def wait_for(check: Game, token: str, timeout: float = 10.0) -> Answer:
    """Poll the seat's view until the service answers 200 again."""
    deadline = time.monotonic() + timeout
    while True:
        answer = check.get(token=token)
        if answer.status == 200 or time.monotonic() > deadline:
            return answer
        time.sleep(0.1)


def wait_for_aof_written(server: RedisServer, timeout: float = 10.0) -> None:
    """Wait until Redis has written its AOF buffer to the file (a busy disk may
    postpone that write by up to 2 s under `everysec`)."""
    deadline = time.monotonic() + timeout
    while int(server.client().info("persistence")["aof_buffer_length"]) > 0:
        assert time.monotonic() < deadline, "Redis did not write its AOF buffer"
        time.sleep(0.05)


def test_game_continues_after_redis_is_killed_and_restarted(
    redis_aof: ProductionRedis, make_app: Callable[..., Flask]
) -> None:
    config = redis_aof.client().config_get("append*")
    assert config["appendonly"] == "yes"
    assert config["appendfsync"] == "everysec"

    app = make_app(
        replace(TestConfig(), STORE_URL=redis_aof.url, STORE_PREFIX=f"aof{find_free_port()}")
    )
    game = Game.create(to_app(app.test_client()), seed=5)
    game.play_turn()
    game.play_turn()
    token = game.to_move()
    drawn = game.move({"type": "draw", "source": "stock"}, token)
    assert drawn.status == 200
    before = game.get(token=token).json()

    wait_for_aof_written(redis_aof)
    redis_aof.stop(hard=True)
    down = game.get(token=token)
    assert down.status == 503
    assert down.json()["code"] == "store_unavailable"
    assert int(down.headers["retry-after"]) >= 1
    assert game.move({"type": "discard", "card": before["hand"][0]}, token).status == 503

    redis_aof.start()
    after = wait_for(game, token)
    assert after.status == 200, after.body
    assert {**after.json(), "now": None} == {**before, "now": None}  # only the server's time moved
    # Mid-turn, as it was: the drawn card can be discarded and play goes on.
    discard = game.get("/legal-moves", token).json()["moves"]
    move = next(m for m in discard if m["type"] == "discard")
    assert game.move(move, token).status == 200
    game.play_turn()
    events = game.get("/events?after=0", token).json()["events"]
    assert [event["seq"] for event in events] == list(range(1, len(events) + 1))
    assert game.view()["version"] == before["version"] + 3
