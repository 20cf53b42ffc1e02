"""`GET /games/{id}/replay?seq=N`: a game as it was just after event N, replayed
by the engine: a seat's view with its token (never another hand or the stock),
every hand without one once the game is over, and a clear 4xx otherwise."""

from __future__ import annotations

import random
from typing import Any

from flask import Flask

from tests.api.helpers import bearer
from tests.api.test_from_record import app, finished, position  # noqa: F401 - fixtures
from tests.e2e.http import choose

Finished = tuple[str, dict[int, dict[int, dict[str, Any]]], dict[str, Any]]


def test_the_replay_of_a_finished_game_shows_every_hand_and_ends_as_it_ended(
    app: Flask,  # noqa: F811
    finished: Finished,  # noqa: F811
) -> None:
    game, _, record = finished
    client = app.test_client()
    events = record["events"]
    last = events[-1]["seq"]
    end = client.get(f"/games/{game}/replay", query_string={"seq": last})
    assert end.status_code == 200, end.json
    assert end.headers["Cache-Control"].startswith("public")
    body = end.json
    assert body["seq"] == body["last_seq"] == last and body["event"] == events[-1]
    assert body["view"]["status"] == "finished"
    assert [s["score"] for s in body["view"]["seats"]] == record["scores"]
    # Mid-game: every hand, each the record's deal minus what it played.
    move = next(e for e in events if e["type"] == "discarded")
    mid = client.get(f"/games/{game}/replay", query_string={"seq": move["seq"]}).json
    assert mid["view"]["round"]["discard_pile"][-1] == move["card"]
    assert [len(h) for h in mid["hands"]] == [s["hand_size"] for s in mid["view"]["seats"]]
    assert "hand" not in mid["view"]


def test_a_seat_replays_only_what_it_saw(app: Flask) -> None:  # noqa: F811
    client = app.test_client()
    # A game in play: the replay is a seat's; without a token it is refused.
    seats = [{"name": "A", "client_seed": "a1"}, {"bot": "greedy"}]
    created = client.post("/games", json={"preset": "express", "seats": seats}).json
    token = created["seats"][0]["token"]
    live = created["id"]
    rng = random.Random(2)
    for _ in range(6):
        mine = client.get(f"/games/{live}", headers=bearer(token)).json
        moves = client.get(f"/games/{live}/legal-moves", headers=bearer(token)).json["moves"]
        client.post(
            f"/games/{live}/moves", json=choose(moves, rng, mine["hand"]), headers=bearer(token)
        )
    now = client.get(f"/games/{live}", headers=bearer(token)).json
    refused = client.get(f"/games/{live}/replay", query_string={"seq": 3})
    assert refused.status_code == 401 and refused.json["code"] == "missing_token"
    answer = client.get(
        f"/games/{live}/replay", query_string={"seq": now["last_event"]}, headers=bearer(token)
    )
    assert answer.status_code == 200, answer.json
    assert answer.headers["Cache-Control"] == "private, no-store"
    replayed = answer.json
    assert replayed["hands"] is None
    assert position(replayed["view"]) == position(now)
    for seq in range(1, now["last_event"] + 1):
        step = client.get(
            f"/games/{live}/replay", query_string={"seq": seq}, headers=bearer(token)
        ).json
        event = step["event"]
        if (
            event.get("type") == "drew"
            and event.get("seat") == 1
            and event.get("source") == "stock"
        ):
            assert "card" not in event  # the bot's stock draw stays hidden
        assert "stock" not in (step["view"]["round"] or {})


def test_a_replay_asked_for_what_it_cannot_show(app: Flask, finished: Finished) -> None:  # noqa: F811
    game, _, record = finished
    client = app.test_client()
    last = record["events"][-1]["seq"]
    for seq, status, code in (
        (0, 422, "validation_error"),
        ("x", 422, "validation_error"),
        (last + 1, 404, "event_not_found"),
    ):
        answer = client.get(f"/games/{game}/replay", query_string={"seq": seq})
        assert (answer.status_code, answer.json["code"]) == (status, code), answer.json
    assert client.get("/games/nosuch/replay", query_string={"seq": 1}).status_code == 404
    waiting = client.post("/games", json={"seats": [{"name": "A"}, {"name": None}]}).json
    token = waiting["seats"][0]["token"]
    answer = client.get(
        f"/games/{waiting['id']}/replay", query_string={"seq": 1}, headers=bearer(token)
    )
    assert answer.status_code == 409 and answer.json["code"] == "replay_unavailable"
    # A game dealt from a seed has no secret to replay from.
    seeded = client.post(
        "/games", json={"preset": "express", "seed": 5, "seats": [{"name": "A"}, {"bot": "greedy"}]}
    ).json
    answer = client.get(
        f"/games/{seeded['id']}/replay",
        query_string={"seq": 2},
        headers=bearer(seeded["seats"][0]["token"]),
    )
    assert answer.status_code == 409 and answer.json["code"] == "replay_unavailable"
