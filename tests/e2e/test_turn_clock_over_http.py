"""Turn clocks end to end: gunicorn + redis-server + the runner process (`worker:`).

A 3-seat game where one human never moves still finishes: the runner plays the
absent seat's turns when its clock runs out, marks it away after two, then the
greedy bot plays it at once; the absent player's next request brings them back.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from service.bots.client import BotClient
from service.bots.http import Api
from tests.e2e.conftest import E2E_ENV
from tests.support.gunicorn import ROOT, GunicornServer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clocked(redis_url: str) -> Iterator[GunicornServer]:
    """gunicorn and one runner process on the session's Redis."""
    env = {**E2E_ENV, "STORE_URL": redis_url, "STORE_PREFIX": "clock", "RUNNER_IDLE": "0.2"}
    env["MAX_EVENTS"] = "1000"  # the whole game stays readable
    runner = subprocess.Popen(
        [sys.executable, "-m", "service.worker"],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with GunicornServer(env, workers=2) as server:
            yield server
    finally:
        runner.terminate()
        runner.wait(10)


def test_a_game_with_an_absent_human_still_finishes_and_the_human_comes_back(
    clocked: GunicornServer,
) -> None:
    created = Api(clocked.url).post(
        "/games",
        {
            "preset": "express",
            "options": {"turn_seconds": 5, "timeouts_to_away": 2},
            "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cid"}],
        },
    )
    assert created.status == 201, created.body
    game = created.body["id"]
    tokens = [seat["token"] for seat in created.body["seats"]]
    absent = Api(clocked.url, tokens[2])
    first = absent.get(f"/games/{game}").body
    assert first["turn_deadline"] is not None and first["now"]
    finals: list[dict[str, Any]] = []
    players = [
        BotClient(Api(clocked.url, token), game, "greedy", random.Random(i), wait=5)
        for i, token in enumerate(tokens[:2])
    ]
    threads = [threading.Thread(target=lambda c=c: finals.append(c.play())) for c in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(240)
    assert len(finals) == 2, "the game did not finish with a player who never moves"
    for player in players:
        player.close()
    # The runner played Cid's turns: two timeouts, then away.
    public = Api(clocked.url).get(f"/games/{game}").body
    assert public["status"] == "finished"
    assert public["seats"][2]["away"] is True
    # Cid's next request (any authenticated one) brings them back.
    view = absent.get(f"/games/{game}").body
    assert view["seats"][2]["away"] is False
    events = absent.get(f"/games/{game}/events", {"after": 0}).body["events"]
    kinds = [(e["type"], e.get("seat")) for e in events]
    assert ("seat_away", 2) in kinds and kinds[-1] == ("seat_back", 2)
