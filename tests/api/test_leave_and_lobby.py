"""Leaving a seat, deleting a waiting game, one seat per token, and the lobby's order
and filters, on the memory store and on Redis."""

from __future__ import annotations

import time

from werkzeug.test import TestResponse

from tests.api.helpers import DRAW, Api, bearer, problem


def _lobby_ids(api: Api, **query: object) -> list[str]:
    answer = api.client.get("/games", query_string=query)
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert body is not None
    return [game["id"] for game in body["games"]]


def _waiting(api: Api, preset: str = "standard", open_seats: int = 1) -> tuple[str, str]:
    answer = api.create(preset=preset, seats=[{"name": "Ann"}] + [{"name": None}] * open_seats)
    assert answer.status_code == 201, answer.json
    body = answer.json
    assert body is not None
    return body["id"], body["seats"][0]["token"]


def _join(api: Api, game: str, name: str, token: str | None = None) -> str:
    answer = api.client.post(f"/games/{game}/join", json={"name": name}, headers=bearer(token))
    assert answer.status_code == 201, answer.json
    body = answer.json
    assert body is not None
    return str(body["token"])


def _leave(api: Api, game: str, token: str | None) -> TestResponse:
    return api.client.post(f"/games/{game}/leave", headers=bearer(token))


def test_leaving_a_waiting_game_opens_the_seat_again(any_api: Api) -> None:
    game, ann = _waiting(any_api, open_seats=2)
    bob = _join(any_api, game, "Bob")
    left = any_api.client.post(f"/games/{game}/leave", headers=bearer(bob))
    assert left.status_code == 200, left.json
    assert left.json is not None and left.json["seats"][1]["name"] is None
    events = any_api.events(game).json
    assert events is not None
    assert events["events"][-1] == {**events["events"][-1], "type": "seat_left", "seat": 1}
    lobby = any_api.client.get("/games").json
    assert lobby is not None
    listed = next(g for g in lobby["games"] if g["id"] == game)
    assert [s["open"] for s in listed["seats"]] == [False, True, True]
    # Bob's token no longer counts; the seat can be taken again.
    problem(any_api.view(game, bob), 401, "invalid_token")
    _join(any_api, game, "Cid")
    assert ann


def test_leaving_an_active_game_hands_the_seat_to_the_greedy_bot(any_api: Api) -> None:
    game, ann, bob = any_api.scripted_game()
    left = any_api.client.post(f"/games/{game}/leave", headers=bearer(bob))
    assert left.status_code == 200, left.json
    view = left.json
    assert view is not None and view["seats"][1]["kind"] == "bot"
    # The token no longer moves (nor reads as a seat).
    problem(any_api.move(game, bob, DRAW), 401, "invalid_token")
    # Ann plays her turn; the bot answers at once, in the same save.
    assert any_api.move(game, ann, DRAW).status_code == 200
    after = any_api.move(game, ann, {"type": "discard", "card": "SQ"})
    assert after.status_code == 200
    assert after.json is not None and after.json["round"]["turn"] == 0
    types = [e["type"] for e in (any_api.events(game).json or {})["events"]]
    assert "seat_left" in types
    # A finished game cannot be left.
    finished, a2, b2 = any_api.scripted_game()
    any_api.play_script(finished, a2, b2)
    problem(_leave(any_api, finished, a2), 409, "game_not_active")


def test_leave_needs_a_seat_token(any_api: Api) -> None:
    game, _, _ = any_api.scripted_game()
    problem(_leave(any_api, game, None), 401, "missing_token")
    problem(_leave(any_api, game, "nope"), 401, "invalid_token")
    problem(_leave(any_api, "no-such-game", "nope"), 404, "game_not_found")


def test_the_creator_deletes_a_waiting_game_and_nobody_else_may(any_api: Api) -> None:
    game, ann = _waiting(any_api, open_seats=2)
    bob = _join(any_api, game, "Bob")
    problem(any_api.client.delete(f"/games/{game}"), 401, "missing_token")
    problem(any_api.client.delete(f"/games/{game}", headers=bearer(bob)), 403, "not_creator")
    deleted = any_api.client.delete(f"/games/{game}", headers=bearer(ann))
    assert deleted.status_code == 204
    problem(any_api.view(game), 404, "game_not_found")
    assert game not in _lobby_ids(any_api)
    # A game being played cannot be deleted.
    active, ann2, _ = any_api.scripted_game()
    problem(
        any_api.client.delete(f"/games/{active}", headers=bearer(ann2)), 409, "game_not_waiting"
    )


def test_one_token_cannot_take_two_seats_of_a_game(any_api: Api) -> None:
    game, ann = _waiting(any_api, open_seats=2)
    refused = any_api.client.post(
        f"/games/{game}/join", json={"name": "Ann again"}, headers=bearer(ann)
    )
    problem(refused, 409, "already_seated")
    bob = _join(any_api, game, "Bob")
    problem(
        any_api.client.post(f"/games/{game}/join", json={"name": "Bo"}, headers=bearer(bob)),
        409,
        "already_seated",
    )
    # A token of another game is no seat of this one.
    other, carl = _waiting(any_api)
    _join(any_api, game, "Carl", carl)
    assert other


def test_the_lobby_lists_the_newest_first_and_filters(any_api: Api) -> None:
    made = []
    for preset, free in (("standard", 1), ("express", 2), ("standard", 3), ("express", 1)):
        made.append((_waiting(any_api, preset, free)[0], preset, free))
        time.sleep(0.003)  # distinct creation times (ms)
    ids = [game for game, _, _ in made]
    assert _lobby_ids(any_api) == ids[::-1]
    assert _lobby_ids(any_api, preset="express") == [ids[3], ids[1]]
    assert _lobby_ids(any_api, open_seats=2) == [ids[2], ids[1]]
    assert _lobby_ids(any_api, preset="standard", open_seats=2) == [ids[2]]
    assert _lobby_ids(any_api, preset="nonesuch") == []
    # Pages of a filtered listing cover every match once.
    first = any_api.client.get("/games", query_string={"open_seats": 1, "limit": 3}).json
    assert first is not None and len(first["games"]) == 3 and first["next_cursor"]
    rest = any_api.client.get(
        "/games", query_string={"open_seats": 1, "limit": 3, "cursor": first["next_cursor"]}
    ).json
    assert rest is not None
    assert [g["id"] for g in first["games"] + rest["games"]] == ids[::-1]
    problem(any_api.client.get("/games?open_seats=0"), 422, "validation_error")
    problem(any_api.client.get("/games?open_seats=7"), 422, "validation_error")
