"""`spectator_delay`: spectators see the game as it was that many events earlier.

A streamed table must not help a player cheat: with `spectator_delay` N the public
view (no seat token) is the game as it stood N events ago, and the public events
stop N events short of the game's last. Seats see their game as it is.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.rules.options import MAX_SPECTATOR_DELAY
from service.rules.state import decode_state
from tests.e2e.http import choose

#: Fields of a view that are about the request, not the game as it was.
_ANSWER_FIELDS = ("id", "version", "last_event", "you", "hand", "now")


@pytest.fixture
def client(make_app: Callable[..., Flask]) -> FlaskClient:
    return make_app().test_client()


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _game_part(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in _ANSWER_FIELDS}


@pytest.mark.parametrize("delay", [1, 4])
def test_a_spectator_sees_the_game_as_it_was_n_events_earlier(
    client: FlaskClient, delay: int
) -> None:
    body = client.post(
        "/games",
        json={
            "preset": "express",
            "options": {"spectator_delay": delay},
            "seats": [{"name": "Ann"}, {"name": "Bob"}],
            # A seeded deal: `choose` plays by rule, and some deals never end
            # under it (the same discards cycle through refilled stocks).
            "seed": delay,
        },
    ).json
    assert body is not None
    game = body["id"]
    tokens = [seat["token"] for seat in body["seats"]]
    rng = random.Random(delay)
    # The game as it stood after each request: (last event, what everybody may see).
    history: list[tuple[int, dict[str, Any]]] = []
    lagging = 0
    for _ in range(1000):
        mine = client.get(f"/games/{game}", headers=_bearer(tokens[0])).json
        assert mine is not None
        history.append((mine["last_event"], _game_part(mine)))
        public = client.get(f"/games/{game}").json
        assert public is not None
        if mine["status"] == "finished":
            # Nothing left to hide: the finished game is shown as it is.
            assert _game_part(public) == _game_part(mine)
            assert public["last_event"] == mine["last_event"]
            break
        horizon = mine["last_event"] - delay
        then = [entry for entry in history if entry[0] <= horizon] or history[:1]
        assert public["last_event"] == then[-1][0]
        assert _game_part(public) == then[-1][1]
        lagging += public["last_event"] < mine["last_event"]
        # The public events stop `delay` events short of the game's last.
        seen = client.get(f"/games/{game}/events?after=0").json
        assert seen is not None
        assert seen["last"] == max(0, horizon) or not seen["events"]
        assert all(event["seq"] <= horizon for event in seen["events"])
        if lagging == 1:
            # A long-poll from there waits: the newer events are not for spectators yet.
            polled = client.get(f"/games/{game}/events?after={seen['last']}&wait=0.2").json
            assert polled is not None
            assert polled == {"events": [], "last": seen["last"]}
        seat_events = client.get(f"/games/{game}/events?after=0", headers=_bearer(tokens[0])).json
        assert seat_events is not None and seat_events["last"] == mine["last_event"]
        turn = mine["round"]["turn"]
        view = client.get(f"/games/{game}", headers=_bearer(tokens[turn])).json
        legal = client.get(f"/games/{game}/legal-moves", headers=_bearer(tokens[turn])).json
        assert view is not None and legal is not None
        move = choose(legal["moves"], rng, view["hand"])
        answer = client.post(f"/games/{game}/moves", json=move, headers=_bearer(tokens[turn]))
        assert answer.status_code == 200, answer.json
    assert history[-1][1]["status"] == "finished"
    assert lagging > 10


def test_without_a_delay_the_spectator_sees_the_game_as_it_is(client: FlaskClient) -> None:
    body = client.post("/games", json={"seats": [{"name": "Ann"}, {"bot": "greedy"}]}).json
    assert body is not None
    game, token = body["id"], body["seats"][0]["token"]
    mine = client.get(f"/games/{game}", headers=_bearer(token)).json
    public = client.get(f"/games/{game}").json
    assert mine is not None and public is not None
    assert public["options"]["spectator_delay"] == 0
    assert _game_part(public) == _game_part(mine)
    assert public["last_event"] == mine["last_event"]


def test_the_delay_is_bounded(client: FlaskClient) -> None:
    seats = [{"name": "Ann"}, {"name": "Bob"}]
    for bad in (-1, MAX_SPECTATOR_DELAY + 1, "3", True):
        answer = client.post("/games", json={"seats": seats, "options": {"spectator_delay": bad}})
        assert answer.status_code == 422, bad
        assert answer.json is not None and "spectator_delay" in answer.json["errors"]
    top = {"spectator_delay": MAX_SPECTATOR_DELAY}
    assert client.post("/games", json={"seats": seats, "options": top}).status_code == 201


def test_the_engine_counts_every_event_it_emits_as_the_store_numbers_them(
    client: FlaskClient,
) -> None:
    """A spectator's place in the game is an event count: it must be the `seq` of the
    game's last event after joining, moves, bots and a player leaving."""
    body = client.post(
        "/games",
        json={
            "options": {"spectator_delay": 2},
            "seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": None}, {"bot": "random"}],
        },
    ).json
    assert body is not None
    game = body["id"]
    store = client.application.extensions["rummy.store"]

    def counted_as_stored() -> None:
        loaded = store.load(game)
        assert decode_state(loaded.state).event_count == loaded.last_event

    counted_as_stored()
    joined = client.post(f"/games/{game}/join", json={"name": "Cy"}).json
    assert joined is not None
    counted_as_stored()
    tokens = {0: body["seats"][0]["token"], 1: body["seats"][1]["token"], 2: joined["token"]}
    left = client.post(f"/games/{game}/leave", headers=_bearer(tokens[1]))
    assert left.status_code == 200, left.json
    counted_as_stored()
    rng = random.Random(1)
    for _ in range(30):
        view = client.get(f"/games/{game}", headers=_bearer(tokens[0])).json
        assert view is not None
        if view["status"] != "active":
            break
        turn = view["round"]["turn"]
        token = tokens[0] if turn == 0 else tokens[2]
        legal = client.get(f"/games/{game}/legal-moves", headers=_bearer(token)).json
        mine = client.get(f"/games/{game}", headers=_bearer(token)).json
        assert legal is not None and mine is not None
        move = choose(legal["moves"], rng, mine["hand"])
        assert (
            client.post(f"/games/{game}/moves", json=move, headers=_bearer(token)).status_code
            == 200
        )
        counted_as_stored()
