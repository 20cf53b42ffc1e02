"""Fair deals in public games: nobody fixes the deal of a game strangers may join.

A `seed`, a `deck` or a `first_dealer` fixes (or steers) the deal, so whoever gave
it knows every hand; a game with an open seat refuses them. Every game says how
its cards are dealt (`deal`) in its views, its lobby summary and `game_created`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.rules.cards import build_deck

OPEN_TABLE = [{"name": "Ann"}, {"name": None}, {"bot": "greedy"}]
PRIVATE_TABLE = [{"name": "Ann"}, {"name": "Bob"}, {"bot": "greedy"}]


@pytest.fixture
def client(make_app: Callable[..., Flask]) -> FlaskClient:
    return make_app().test_client()


def _lobby(client: FlaskClient) -> list[dict[str, Any]]:
    body = client.get("/games?status=waiting").json
    assert body is not None
    games: list[dict[str, Any]] = body["games"]
    return games


@pytest.mark.parametrize(
    "fixed",
    [{"seed": 7}, {"deck": build_deck()}, {"first_dealer": 0}, {"seed": 0, "first_dealer": 1}],
    ids=["seed", "deck", "first_dealer", "seed+first_dealer"],
)
def test_a_game_with_an_open_seat_refuses_a_fixed_deal(
    client: FlaskClient, fixed: dict[str, Any]
) -> None:
    answer = client.post("/games", json={"seats": OPEN_TABLE, **fixed})
    assert answer.status_code == 422
    problem = answer.json
    assert problem is not None
    assert answer.mimetype == "application/problem+json"
    assert problem["code"] == "fixed_deal_refused"
    assert sorted(problem["errors"]) == sorted(fixed)
    assert "open seat" in problem["detail"] and "dealt at random" in problem["detail"]
    for name in fixed:
        assert name in problem["detail"]
    assert _lobby(client) == []  # nothing was created


def test_a_seeded_game_with_an_open_seat_is_refused_even_with_every_other_seat_a_bot(
    client: FlaskClient,
) -> None:
    seats = [{"name": None}, {"bot": "random"}]
    answer = client.post("/games", json={"seats": seats, "seed": 1})
    assert answer.status_code == 422
    assert answer.json is not None and answer.json["code"] == "fixed_deal_refused"
    assert client.post("/games", json={"seats": seats}).status_code == 201


@pytest.mark.parametrize(
    ("fixed", "deal"),
    [
        ({}, "random"),
        ({"seed": 7}, "seeded"),
        ({"deck": build_deck(), "first_dealer": 1}, "explicit"),
    ],
)
def test_every_view_and_game_created_say_how_the_deal_was_made(
    client: FlaskClient, fixed: dict[str, Any], deal: str
) -> None:
    created = client.post("/games", json={"seats": PRIVATE_TABLE, **fixed})
    assert created.status_code == 201, created.json
    body = created.json
    assert body is not None
    game, token = body["id"], body["seats"][0]["token"]
    public = client.get(f"/games/{game}").json
    mine = client.get(f"/games/{game}", headers={"Authorization": f"Bearer {token}"}).json
    assert public is not None and mine is not None
    assert public["deal"] == deal and mine["deal"] == deal
    events = client.get(f"/games/{game}/events?after=0").json
    assert events is not None
    first = events["events"][0]
    assert first["type"] == "game_created" and first["deal"] == deal


def test_the_lobby_says_an_open_game_is_dealt_at_random(client: FlaskClient) -> None:
    created = client.post("/games", json={"seats": OPEN_TABLE})
    assert created.status_code == 201
    (summary,) = _lobby(client)
    assert summary["deal"] == "random"
    joined = client.post(f"/games/{summary['id']}/join", json={"name": "Cy"}).json
    assert joined is not None and joined["game"]["deal"] == "random"
