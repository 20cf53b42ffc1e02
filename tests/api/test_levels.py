"""`{"bot": "expert", "level": n}`: a seat played by a level of the expert."""

from __future__ import annotations

from service.games.caches import STATES
from tests.api.helpers import DRAW, Api, problem


def test_a_level_seat_is_played_by_that_level(api: Api) -> None:
    for level in (1, 3, 5):
        answer = api.create(
            preset="standard", seats=[{"name": "Ann"}, {"bot": "expert", "level": level}]
        )
        assert answer.status_code == 201, answer.json
        game, token = answer.json["id"], answer.json["seats"][0]["token"]
        view = api.view(game, token).json
        assert view["seats"][1]["kind"] == "bot"
        assert view["seats"][1]["name"] == f"expert{level} bot"
        state = STATES.kept(game)
        assert state is not None and state.seats[1].bot == f"expert{level}"
        if view["round"]["turn"] == 0:
            assert api.move(game, token, DRAW).status_code == 200
            discard = api.legal(game, token).json["moves"][-1]
            after = api.move(game, token, discard).json
            assert after["round"]["turn"] == 0  # the level played its turn in the request


def test_a_level_is_one_to_five_and_only_for_the_expert(api: Api) -> None:
    for seats in (
        [{"name": "Ann"}, {"bot": "expert", "level": 0}],
        [{"name": "Ann"}, {"bot": "expert", "level": 6}],
        [{"name": "Ann"}, {"bot": "expert", "level": "3"}],
        [{"name": "Ann"}, {"bot": "greedy", "level": 2}],
        [{"name": "Ann", "level": 2}, {"bot": "expert"}],
        [{"name": "Ann"}, {"bot": "expert2"}],  # the levels are not bot names
    ):
        body = problem(api.create(preset="standard", seats=seats), 422, "validation_error")
        assert "seats" in body["errors"], body
