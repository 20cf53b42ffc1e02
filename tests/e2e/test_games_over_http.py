"""Whole games over HTTP against gunicorn (deploy/gunicorn.conf.py) and redis-server."""

from __future__ import annotations

import pytest

from tests.e2e.http import Client, play_to_the_end
from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow


def test_a_two_player_game_is_played_to_its_end(redis_gunicorn: GunicornServer) -> None:
    client = Client(redis_gunicorn.url)
    created = client.post(
        "/games",
        {
            "preset": "standard",
            "options": {"target_score": 60},
            "seats": [{"name": "Ann"}, {"name": "Bob"}],
            "seed": 11,
        },
    )
    assert created.status == 201, created
    game = created.json["id"]
    tokens = {s["seat"]: s["token"] for s in created.json["seats"]}
    final = play_to_the_end([client], game, tokens, seed=1)
    assert final["status"] == "finished" and final["winners"]
    assert max(s["score"] for s in final["seats"]) >= 60
    events = client.get(f"/games/{game}/events?after=0", tokens[0]).json
    seqs = [e["seq"] for e in events["events"]]
    # The store keeps a long game's latest events: contiguous up to the end.
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    assert events["last"] == final["last_event"]
    assert events["events"][-1]["type"] == "game_ended"
    client.close()


def test_a_four_player_game_with_two_bots_is_played_to_its_end(
    redis_gunicorn: GunicornServer,
) -> None:
    client = Client(redis_gunicorn.url)
    created = client.post(
        "/games",
        {
            "preset": "standard",
            "options": {"target_score": 60},
            "seats": [{"name": "Ann"}, {"bot": "random"}, {"name": None}, {"bot": "greedy"}],
        },
    )
    assert created.status == 201, created
    game = created.json["id"]
    assert created.json["status"] == "waiting"
    lobby = client.get("/games?status=waiting&limit=100").json
    assert game in {g["id"] for g in lobby["games"]}
    joined = client.post(f"/games/{game}/join", {"name": "Cid"})
    assert joined.status == 201 and joined.json["seat"] == 2
    tokens = {0: created.json["seats"][0]["token"], 2: joined.json["token"]}
    final = play_to_the_end([client], game, tokens, seed=2)
    assert final["status"] == "finished" and final["winners"]
    events = client.get(f"/games/{game}/events?after=0").json["events"]
    bot_moves = {e["seat"] for e in events if e["type"] == "discarded"}
    assert {1, 3} & bot_moves, "the bots never played"
    client.close()
