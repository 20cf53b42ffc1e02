"""`POST /games` with `from_record`: a finished game continued from one of its
versions. A record round-trips: the new game's seat views at creation equal the
original's at that version; a forged or partial record, or a version at which
the game is not in play, is refused with its code."""

from __future__ import annotations

import copy
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.config import TestConfig
from tests.api.helpers import bearer
from tests.e2e.http import choose

#: What a seat's view at a version says of the cards and the scores (not of
#: the game's id, version, deal or clock, which a new game has of its own).
COMPARED = ("you", "hand", "round", "rounds", "status", "preset", "options")
SEAT_FACTS = ("seat", "name", "kind", "score", "hand_size", "has_melded", "known_cards")


def position(view: dict[str, Any]) -> dict[str, Any]:
    """The part of a seat's view a continued game must reproduce."""
    return {
        **{key: view.get(key) for key in COMPARED},
        "seats": [{key: seat.get(key) for key in SEAT_FACTS} for seat in view["seats"]],
    }


Played = tuple[str, dict[int, dict[int, dict[str, Any]]]]


def played_game(client: FlaskClient, preset: str, seed: int) -> Played:
    """A game of three people (played here) and a bot, to its end: its id, and
    each person's view at every version a person was to move at (by version)."""
    seats = [{"name": f"P{i}", "client_seed": f"s{i}"} for i in range(3)] + [{"bot": "greedy"}]
    # Two rounds: a game of the default target may run past the events kept.
    options = {"end": "rounds", "rounds": 2}
    body = client.post("/games", json={"preset": preset, "options": options, "seats": seats}).json
    assert body is not None
    game = body["id"]
    tokens = [seat.get("token") for seat in body["seats"]]
    rng = random.Random(seed)
    seen: dict[int, dict[int, dict[str, Any]]] = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = client.get(f"/games/{game}").json
        assert view is not None
        if view["status"] == "finished":
            return game, seen
        if view["round"] is None:  # between rounds: a decision to re-engage
            deciding = (view.get("reengage") or {}).get("seats") or [None]
            seat = deciding[0]
        else:
            seat = view["round"]["turn"]
        if seat is None or tokens[seat] is None:
            time.sleep(0.01)  # the runner plays the bot
            continue
        for person in range(3):
            mine = client.get(f"/games/{game}", headers=bearer(tokens[person])).json
            assert mine is not None
            seen.setdefault(mine["version"], {})[person] = mine
        auth = bearer(tokens[seat])
        moves = client.get(f"/games/{game}/legal-moves", headers=auth).json["moves"]  # type: ignore[index]
        hand = seen[max(seen)][seat]["hand"]
        client.post(f"/games/{game}/moves", json=choose(moves, rng, hand), headers=auth)
    raise AssertionError("the game did not end in time")


@pytest.fixture(scope="module")
def app() -> Flask:
    from service.app import create_app

    # Records are sent whole in some tests: a body limit a record fits in.
    return create_app(replace(TestConfig(), ACCESS_LOG=False, MAX_CONTENT_LENGTH=1024 * 1024))


@pytest.fixture(scope="module")
def finished(app: Flask) -> tuple[str, dict[int, dict[int, dict[str, Any]]], dict[str, Any]]:
    """A finished game of two rounds, every event kept: its views by version, its
    whole record."""
    client = app.test_client()
    for seed in range(10):
        game, seen = played_game(client, "standard", seed)
        record = client.get(f"/games/{game}/record").json
        assert record is not None
        if len(record["rounds"]) >= 2 and record["events"][0]["seq"] == 1:
            return game, seen, record
    raise AssertionError("ten games none of which kept every event of two rounds")


def continued(client: FlaskClient, **spec: Any) -> Any:
    return client.post("/games", json={"from_record": spec})


def test_a_record_continued_at_a_version_gives_the_seats_what_they_saw_then(
    app: Flask, finished: tuple[str, dict[int, dict[int, dict[str, Any]]], dict[str, Any]]
) -> None:
    game, seen, record = finished
    client = app.test_client()
    versions = sorted(seen)
    second = min(v for v in versions if seen[v][0]["round"]["number"] == 2)
    picked = [versions[0], versions[len(versions) // 3], second, versions[-1]]
    for at in picked:
        answer = continued(client, game=game, at_version=at)
        assert answer.status_code == 201, answer.json
        created = answer.json
        assert created["status"] == "active"
        tokens = {seat["seat"]: seat["token"] for seat in created["seats"] if "token" in seat}
        assert sorted(tokens) == [0, 1, 2]  # each person's seat; the bot stays a bot
        for person, then in seen[at].items():
            now = client.get(f"/games/{created['id']}", headers=bearer(tokens[person])).json
            assert now is not None
            assert now["deal"] == "replayed" and now["id"] != game
            assert position(now) == position(then), (at, person)
    # The record sent whole continues alike.
    answer = continued(client, record=record, at_version=second)
    assert answer.status_code == 201, answer.json["errors"]
    seat0 = next(seat["token"] for seat in answer.json["seats"] if seat["seat"] == 0)
    now = client.get(f"/games/{answer.json['id']}", headers=bearer(seat0)).json
    assert position(now) == position(seen[second][0])


def test_the_continued_game_plays_on(
    app: Flask, finished: tuple[str, dict[int, dict[int, dict[str, Any]]], dict[str, Any]]
) -> None:
    game, seen, _ = finished
    client = app.test_client()
    at = sorted(seen)[5]
    created = continued(client, game=game, at_version=at).json
    turn = created and seen[at][0]["round"]["turn"]
    token = next(seat["token"] for seat in created["seats"] if seat["seat"] == turn)
    moves = client.get(f"/games/{created['id']}/legal-moves", headers=bearer(token)).json
    assert moves is not None and moves["moves"]
    made = client.post(
        f"/games/{created['id']}/moves", json=moves["moves"][0], headers=bearer(token)
    )
    assert made.status_code == 200, made.json
    # Its own record tells how it was dealt: from the record it continues.
    record = client.get(f"/games/{created['id']}/record").json
    assert record is not None and record["deal"] == "replayed"


def refused(answer: Any, status: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.json
    assert answer.json["code"] == code, answer.json
    return answer.json  # type: ignore[no-any-return]


def test_versions_and_games_that_cannot_be_continued(
    app: Flask, finished: tuple[str, dict[int, dict[int, dict[str, Any]]], dict[str, Any]]
) -> None:
    game, _, record = finished
    client = app.test_client()
    last = record["events"][-1]["version"]
    problem = refused(continued(client, game=game, at_version=last), 422, "record_refused")
    assert problem["errors"] == {"from_record.at_version": [f"the game is over at version {last}"]}
    refused(continued(client, game=game, at_version=last + 1), 422, "record_refused")
    refused(continued(client, game=game, at_version=0), 422, "validation_error")
    refused(continued(client, game="nosuchgame", at_version=3), 404, "game_not_found")
    live = client.post("/games", json={"seats": [{"name": "A"}, {"name": "B"}]}).json
    refused(continued(client, game=live["id"], at_version=1), 422, "record_refused")
    # A seat's record (or the public one of a live game) lacks the deals.
    seat_record = copy.deepcopy(record)
    seat_record["view"] = "seat"
    refused(continued(client, record=seat_record, at_version=3), 422, "record_refused")
    # The record's preset, options, seats and deals: nothing else with it.
    for extra in ({"seats": [{"name": "A"}, {"name": "B"}]}, {"preset": "standard"}, {"seed": 4}):
        answer = client.post(
            "/games", json={"from_record": {"game": game, "at_version": 3}, **extra}
        )
        refused(answer, 422, "validation_error")
    refused(continued(client, game=game, record=record, at_version=3), 422, "validation_error")
    refused(continued(client, at_version=3), 422, "validation_error")
    refused(client.post("/games", json={}), 422, "validation_error")  # seats or from_record


def forged(
    record: dict[str, Any], change: Callable[[list[dict[str, Any]]], None]
) -> dict[str, Any]:
    copied = copy.deepcopy(record)
    change(copied["events"])
    return copied


def test_a_forged_record_yields_no_game(
    app: Flask, finished: tuple[str, dict[int, dict[int, dict[str, Any]]], dict[str, Any]]
) -> None:
    _, _, record = finished
    client = app.test_client()
    last = record["events"][-1]["version"]
    at = last - 1

    def swap_a_drawn_card(events: list[dict[str, Any]]) -> None:
        drawn = next(e for e in events if e["type"] == "drew" and e["source"] == "stock")
        drawn["card"] = "SA" if drawn["card"] != "SA" else "HA"

    def reorder_two_moves(events: list[dict[str, Any]]) -> None:
        i = next(i for i, e in enumerate(events) if e["type"] == "discarded")
        j = next(j for j in range(i + 1, len(events)) if events[j]["type"] == "drew")
        events[i], events[j] = events[j], events[i]

    def discard_another_card(events: list[dict[str, Any]]) -> None:
        discard = next(e for e in events if e["type"] == "discarded")
        discard["card"] = "CK" if discard["card"] != "CK" else "DK"

    def change_a_score(events: list[dict[str, Any]]) -> None:
        ended = next(e for e in events if e["type"] == "round_ended")
        ended["scores"] = [score + 1 for score in ended["scores"]]

    for change in (swap_a_drawn_card, reorder_two_moves, discard_another_card, change_a_score):
        answer = continued(client, record=forged(record, change), at_version=at)
        refused(answer, 422, "record_mismatch")
    secret = copy.deepcopy(record)
    secret["game_secret"] = "0" * 64  # other deals: the first draw is another card
    refused(continued(client, record=secret, at_version=at), 422, "record_mismatch")


@pytest.mark.parametrize(
    "damage",
    [
        {"seats": 5},
        {"events": "many"},
        {"events": []},
        {"options": ["x"]},
        {"preset": 7},
        {"game_secret": "not hex"},
        {"format": "rummy-record/9"},
        {"seats": [{"kind": "bot", "bot": "nosuchbot"}] * 4},
        {"seats": [{"kind": "human", "name": "\u0000bad"}] * 4},
    ],
)
def test_a_record_of_the_wrong_shape_is_refused_not_a_crash(
    app: Flask,
    finished: tuple[str, dict[int, dict[int, dict[str, Any]]], dict[str, Any]],
    damage: dict[str, Any],
) -> None:
    _, _, record = finished
    answer = continued(app.test_client(), record={**record, **damage}, at_version=3)
    assert answer.status_code == 422, answer.json
    assert answer.json["code"] in ("record_refused", "record_mismatch", "validation_error")
