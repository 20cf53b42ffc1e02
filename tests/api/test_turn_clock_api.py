"""Turn clocks as clients see them: `turn_deadline` and `now` in views, and an away
seat's player back with any authenticated request (memory store and Redis)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from service.api.access import encode, get_store, load_game
from tests.api.helpers import DECK, DRAW, Api, bearer, problem


def _clocked_game(api: Api, **options: object) -> tuple[str, str, str]:
    answer = api.create(
        preset="express",
        options={"turn_seconds": 30, **options},
        seats=[{"name": "Ann"}, {"name": "Bob"}],
        deck=DECK,
        first_dealer=1,
    )
    assert answer.status_code == 201, answer.json
    body = answer.json
    assert body is not None
    return body["id"], body["seats"][0]["token"], body["seats"][1]["token"]


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_views_show_the_turn_deadline_and_the_servers_time(any_api: Api) -> None:
    game, ann, _ = _clocked_game(any_api)
    view = any_api.view(game, ann).json
    assert view is not None
    deadline, now = _time(view["turn_deadline"]), _time(view["now"])
    assert timedelta(seconds=29) < deadline - now <= timedelta(seconds=30)
    assert [seat["away"] for seat in view["seats"]] == [False, False]
    # The same turn keeps its deadline; the next one gets its own.
    drew = any_api.move(game, ann, DRAW).json
    assert drew is not None and drew["turn_deadline"] == view["turn_deadline"]
    passed = any_api.move(game, ann, {"type": "discard", "card": "SQ"}).json
    assert passed is not None and _time(passed["turn_deadline"]) > deadline
    # Without the option: no clock.
    plain = any_api.create(preset="express", seats=[{"name": "A"}, {"name": "B"}]).json
    assert plain is not None
    assert any_api.view(plain["id"]).json["turn_deadline"] is None  # type: ignore[index]


def test_an_away_seats_player_is_back_with_any_authenticated_request(any_api: Api) -> None:
    game, ann, bob = _clocked_game(any_api)
    with any_api.client.application.app_context():
        # As the runner leaves it after Bob's timeouts (tests/games/test_worker_clock.py).
        loaded = load_game(game)
        seats = list(loaded.state.seats)
        seats[1] = dataclasses.replace(seats[1], away=True, timeouts=2)
        state = dataclasses.replace(loaded.state, seats=tuple(seats))
        assert get_store().save(game, loaded.version, encode(game, state), []).saved
    public = any_api.view(game).json
    assert public is not None and public["seats"][1]["away"] is True
    # A request without Bob's token changes nothing; one with it brings him back.
    assert any_api.view(game, ann).json["seats"][1]["away"] is True  # type: ignore[index]
    back = any_api.client.get(f"/games/{game}/legal-moves", headers=bearer(bob))
    assert back.status_code == 200
    view = any_api.view(game).json
    assert view is not None and view["seats"][1]["away"] is False
    events = any_api.events(game).json
    assert events is not None and events["events"][-1]["type"] == "seat_back"
    assert events["events"][-1]["seat"] == 1
    # Once back, a request does not add another seat_back.
    any_api.view(game, bob)
    again = any_api.events(game, after=events["last"]).json
    assert again is not None and again["events"] == []


def test_clock_options_out_of_bounds_are_refused(any_api: Api) -> None:
    for options in ({"turn_seconds": 4}, {"turn_seconds": 3601}, {"timeouts_to_away": 11}):
        answer = any_api.create(
            preset="express", options=options, seats=[{"name": "A"}, {"name": "B"}]
        )
        problem(answer, 422, "validation_error")
