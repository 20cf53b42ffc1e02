"""`POST /games/{id}/rematch` over HTTP, on the memory store and on Redis: the next
game, each player's seat of it, the refusals, two players at once, and the seats
that open after `REMATCH_SECONDS`."""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from werkzeug.test import TestResponse

from service.app import create_app, shutdown
from service.bots.dealcheck import verify_game
from service.config import MAX_REMATCH_SECONDS, Config, TestConfig
from service.worker import Runner, RunnerSettings
from tests.api.helpers import Api, bearer, problem
from tests.e2e.http import choose


def rematch(api: Api, game: str, token: str | None) -> TestResponse:
    return api.client.post(f"/games/{game}/rematch", headers=bearer(token))


def finished(api: Api) -> tuple[str, str, str]:
    """An express game of Ann (seat 0) and Bob (seat 1), played to its end."""
    game, ann, bob = api.scripted_game()
    api.play_script(game, ann, bob)
    assert api.view(game).json["status"] == "finished"  # type: ignore[index]
    return game, ann, bob


def body(answer: TestResponse) -> dict[str, Any]:
    assert answer.status_code == 200, answer.get_data(as_text=True)
    data = answer.json
    assert isinstance(data, dict)
    return data


def test_a_rematch_creates_the_next_game_and_each_player_takes_their_seat(any_api: Api) -> None:
    api = any_api
    game, ann, bob = finished(api)
    assert api.view(game).json["next_game"] is None  # type: ignore[index]
    first = body(rematch(api, game, ann))
    next_id = first["game"]["id"]
    assert first["seat"] == 1  # seats rotated: Bob sits first
    assert first["game"]["you"] == 1 and first["game"]["status"] == "waiting"
    assert [s["name"] for s in first["game"]["seats"]] == [None, "Ann"]
    assert first["game"]["preset"] == "express"
    # The old game names its next game in every view, with an event.
    for token in (None, ann, bob):
        assert api.view(game, token).json["next_game"] == next_id  # type: ignore[index]
    last = api.events(game).json["events"][-1]  # type: ignore[index]
    assert (last["type"], last["seat"], last["next_game"]) == ("rematch_offered", 0, next_id)
    # Held for Bob: not in the lobby, not joinable by others.
    assert next_id not in [g["id"] for g in api.client.get("/games").json["games"]]  # type: ignore[index]
    stranger = api.client.post(f"/games/{next_id}/join", json={"name": "Eve"})
    problem(stranger, 409, "no_open_seat")
    problem(
        api.client.post(f"/games/{next_id}/join", json={"name": "Eve", "seat": 0}),
        409,
        "seat_reserved",
    )
    # The same call again: the same seat and token, nothing written.
    again = body(rematch(api, game, ann))
    assert (again["seat"], again["token"], again["game"]["id"]) == (1, first["token"], next_id)
    assert again["game"]["version"] == first["game"]["version"]
    # Bob follows: his seat, and the game is dealt.
    follows = body(rematch(api, game, bob))
    assert follows["game"]["id"] == next_id and follows["seat"] == 0
    assert follows["game"]["status"] == "active"
    # Bob dealt first (seat 1); his seat is Ann's now: she deals, Bob plays first.
    assert follows["game"]["round"]["dealer"] == 1 and follows["game"]["round"]["turn"] == 0
    assert follows["token"] != first["token"]
    assert len(follows["game"]["hand"]) > 0
    # The new tokens are seat tokens of the next game, not of the old one.
    assert api.view(next_id, first["token"]).json["you"] == 1  # type: ignore[index]
    assert api.legal(next_id, follows["token"]).status_code == 200
    problem(api.view(game, first["token"]), 401, "invalid_token")
    assert body(rematch(api, game, bob))["token"] == follows["token"]


def test_a_stranger_a_missing_token_and_a_game_not_over_are_refused(any_api: Api) -> None:
    api = any_api
    game, ann, bob = api.scripted_game()
    problem(rematch(api, game, ann), 409, "game_not_finished")
    assert api.view(game).json["next_game"] is None  # type: ignore[index]
    api.play_script(game, ann, bob)
    _other, eve, _ = api.scripted_game()
    problem(rematch(api, game, eve), 401, "invalid_token")  # a seat of another game
    problem(rematch(api, game, None), 401, "missing_token")
    problem(rematch(api, "nosuchgame", ann), 404, "game_not_found")
    assert api.view(game).json["next_game"] is None  # type: ignore[index]
    next_id = body(rematch(api, game, bob))["game"]["id"]
    problem(rematch(api, game, eve), 401, "invalid_token")
    problem(rematch(api, next_id, eve), 401, "invalid_token")


def _at_once(api: Api, game: str, tokens: dict[str, str]) -> dict[str, TestResponse]:
    """Each token's rematch call, all sent at once from threads of their own."""
    answers: dict[str, TestResponse] = {}
    start = threading.Barrier(len(tokens))

    def ask(name: str, token: str) -> None:
        client = api.client.application.test_client()
        start.wait()
        answers[name] = client.post(f"/games/{game}/rematch", headers=bearer(token))

    threads = [threading.Thread(target=ask, args=item) for item in tokens.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_two_players_asking_at_once_get_one_next_game(any_api: Api) -> None:
    api = any_api
    for _ in range(3):
        game, ann, bob = finished(api)
        answers = _at_once(api, game, {"ann": ann, "bob": bob})
        a, b = body(answers["ann"]), body(answers["bob"])
        assert a["game"]["id"] == b["game"]["id"] == api.view(game).json["next_game"]  # type: ignore[index]
        assert {a["seat"], b["seat"]} == {0, 1}
        offered = [
            e
            for e in api.events(game).json["events"]
            if e["type"] == "rematch_offered"  # type: ignore[index]
        ]
        assert len(offered) == 1
        assert api.view(a["game"]["id"]).json["status"] == "active"  # type: ignore[index]


@pytest.fixture(params=["memory", "redis"])
def quick_api(request: pytest.FixtureRequest) -> Iterator[tuple[Api, Any]]:
    """An app whose rematches hold seats for 1 s, with its store (no runner thread:
    the test runs the runner itself)."""
    config = replace(TestConfig(), REMATCH_SECONDS=1, RUNNER_IN_PROCESS=False)
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        config = replace(config, STORE_URL=url, STORE_PREFIX=f"t{uuid.uuid4().hex[:8]}")
    app = create_app(config)
    yield Api(app.test_client()), app.extensions["rummy.store"]
    shutdown(app)


def test_seats_nobody_claims_within_rematch_seconds_open_in_the_lobby(
    quick_api: tuple[Api, Any],
) -> None:
    api, store = quick_api
    game, ann, bob = finished(api)
    started = time.time()
    next_id = body(rematch(api, game, ann))["game"]["id"]
    runner = Runner(store, RunnerSettings(repair_every=0))
    runner.run_once()
    if time.time() - started < 0.9:  # before its time the seat stays held
        assert next_id not in [g["id"] for g in api.client.get("/games").json["games"]]  # type: ignore[index]
    time.sleep(max(0.0, started + 1.05 - time.time()))
    runner.run_once()  # the due entry: the held seat opens, the game is listed
    listed = [g for g in api.client.get("/games").json["games"] if g["id"] == next_id]  # type: ignore[index]
    assert [s["open"] for s in listed[0]["seats"]] == [True, False]
    problem(rematch(api, game, bob), 409, "rematch_seat_released")
    joined = api.client.post(f"/games/{next_id}/join", json={"name": "Eve"})
    assert joined.status_code == 201 and joined.json["seat"] == 0  # type: ignore[index]
    assert joined.json["game"]["status"] == "active"  # type: ignore[index]


def test_a_join_after_the_time_takes_the_seat_before_the_runner_opened_it(
    quick_api: tuple[Api, Any],
) -> None:
    api, _store = quick_api
    game, ann, _bob = finished(api)
    next_id = body(rematch(api, game, ann))["game"]["id"]
    time.sleep(1.05)
    joined = api.client.post(f"/games/{next_id}/join", json={"name": "Eve"})
    assert joined.status_code == 201, joined.json
    assert joined.json["seat"] == 0  # type: ignore[index]


def test_rematch_seconds_is_bounded() -> None:
    assert Config().REMATCH_SECONDS == 300
    assert Config.from_env({"REMATCH_SECONDS": "0"}).REMATCH_SECONDS == 1
    assert Config.from_env({"REMATCH_SECONDS": "5"}).REMATCH_SECONDS == 5
    too_long = str(MAX_REMATCH_SECONDS + 1)
    assert Config.from_env({"REMATCH_SECONDS": too_long}).REMATCH_SECONDS == MAX_REMATCH_SECONDS


def _play_to_the_end(api: Api, game: str, token: str) -> dict[str, Any]:
    """Ann plays her seat (`tests.e2e.http.choose`) until the game is over; her view."""
    rng = random.Random(7)
    view: dict[str, Any] = {}
    for _ in range(3000):
        view = api.view(game, token).json or {}
        if view["status"] == "finished":
            break
        legal = api.legal(game, token).json or {}
        move = choose(legal["moves"], rng, view["hand"])
        assert api.move(game, token, move).status_code == 200
    assert view["status"] == "finished"
    return view


def test_a_rematch_with_a_bot_starts_at_once_passes_the_deal_and_verifies(any_api: Api) -> None:
    """Ann and a greedy bot: her rematch seats the bot first and Ann second, is dealt
    at once (no seat to wait for) by the seat the last game's first dealer had, and
    its deals check out (`verify`)."""
    api = any_api
    created = api.create(
        preset="express", seats=[{"name": "Ann"}, {"bot": "greedy"}], seed=3, first_dealer=0
    ).json
    assert created is not None
    game, token = created["id"], created["seats"][0]["token"]
    _play_to_the_end(api, game, token)
    answer = body(rematch(api, game, token))
    next_id = answer["game"]["id"]
    assert answer["seat"] == 1
    assert [s["kind"] for s in answer["game"]["seats"]] == ["bot", "human"]
    assert answer["game"]["status"] in ("active", "finished")
    first = api.events(next_id, answer["token"]).json["events"][0]  # type: ignore[index]
    assert first["type"] == "game_created" and first["first_dealer"] == 0
    view = _play_to_the_end(api, next_id, answer["token"])
    events = api.events(next_id, answer["token"], after=0).json["events"]  # type: ignore[index]
    report = verify_game(view, events)
    assert report.mismatches == []
    assert any("the dealer is the one the rules give" in line for line in report.lines)
