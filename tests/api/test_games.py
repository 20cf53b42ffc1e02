"""Presets, create, lobby, join and views."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.api.helpers import ANN_HAND, DECK, Api, bearer, etag_version, problem


def test_presets_list_every_option(client: FlaskClient) -> None:
    body = client.get("/presets").json
    assert body is not None
    names = [p["name"] for p in body["presets"]]
    assert "standard" in names and "express" in names
    standard = next(p for p in body["presets"] if p["name"] == "standard")
    assert {"ace", "scoring", "end", "target_score", "stock_refill"} <= set(standard["options"])
    assert client.get("/presets/express").json["name"] == "express"  # type: ignore[index]
    problem(client.get("/presets/nope"), 404, "preset_not_found")


def test_create_answers_201_with_location_etag_and_tokens_of_taken_seats(any_api: Api) -> None:
    answer = any_api.create(seats=[{"name": "Ann"}, {"name": None}, {"bot": "greedy"}])
    assert answer.status_code == 201
    body = answer.json
    assert body is not None
    assert answer.headers["Location"] == f"/games/{body['id']}"
    assert etag_version(answer.headers["ETag"]) == body["version"]
    assert body["status"] == "waiting"
    seats = body["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "bot"]
    assert "token" in seats[0] and len(seats[0]["token"]) >= 40
    assert "token" not in seats[1] and "token" not in seats[2]
    assert seats[1]["name"] is None


def test_create_refuses_bad_presets_options_and_decks(api: Api) -> None:
    two = [{"name": "A"}, {"name": "B"}]
    problem(api.create(preset="nope", seats=two), 422, "validation_error")
    problem(api.create(seats=two, options={"ace": "sideways"}), 422, "validation_error")
    problem(api.create(seats=[{"name": "A"}]), 422, "validation_error")
    bad_card = problem(api.create(seats=two, deck=["ZZ", *DECK[1:]]), 422, "validation_error")
    assert "ZZ" in str(bad_card["errors"])
    problem(api.create(seats=two, deck=DECK[:51]), 422, "validation_error")
    problem(api.create(seats=two, first_dealer=5), 422, "validation_error")
    problem(
        api.create(seats=[{"name": "A", "bot": "greedy"}, {"name": "B"}]), 422, "validation_error"
    )
    problem(api.create(seats=[{"bot": "cheater"}, {"name": "B"}]), 422, "validation_error")


def test_views_show_a_seat_its_hand_and_nobody_else_any_card(any_api: Api) -> None:
    game, ann, bob = any_api.scripted_game()
    mine = any_api.view(game, ann)
    assert mine.status_code == 200
    view = mine.json
    assert view is not None
    assert view["id"] == game and view["you"] == 0 and view["status"] == "active"
    assert sorted(view["hand"]) == sorted(ANN_HAND)
    assert etag_version(mine.headers["ETag"]) == view["version"]
    public = any_api.view(game).json
    assert public is not None
    assert "hand" not in public and "you" not in public
    text = any_api.view(game, bob).get_data(as_text=True)
    assert '"SQ"' not in text and '"D10"' not in text  # Ann's cards, not on the table
    assert '"seed"' not in text and "token" not in text  # (`client_seed` is public)


def test_a_bad_token_is_401_never_a_public_view(any_api: Api) -> None:
    game, ann, _ = any_api.scripted_game()
    other_game, other_ann, _ = any_api.scripted_game()
    problem(any_api.view(game, "not-a-token"), 401, "invalid_token")
    problem(any_api.view(game, other_ann), 401, "invalid_token")  # another game's seat
    malformed = any_api.client.get(f"/games/{game}", headers={"Authorization": "Basic abc"})
    problem(malformed, 401, "invalid_token")
    problem(any_api.legal(game, other_ann), 401, "invalid_token")
    problem(any_api.events(game, other_ann), 401, "invalid_token")
    assert any_api.view(other_game, other_ann).status_code == 200
    assert any_api.view(game, ann).status_code == 200


def test_if_none_match_answers_304_until_the_game_changes(api: Api) -> None:
    game, ann, _ = api.scripted_game()
    first = api.view(game, ann)
    tag = first.headers["ETag"]
    unchanged = api.view(game, ann, **{"If-None-Match": tag})
    assert unchanged.status_code == 304 and unchanged.headers["ETag"] == tag
    assert (
        api.client.get(
            f"/games/{game}/legal-moves", headers={**bearer(ann), "If-None-Match": tag}
        ).status_code
        == 304
    )
    api.move(game, ann, {"type": "draw", "source": "stock"})
    changed = api.view(game, ann, **{"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag


def test_join_takes_a_seat_and_deals_when_full(any_api: Api) -> None:
    created = any_api.create(seats=[{"name": "Ann"}, {"name": None}, {"name": None}]).json
    assert created is not None
    game = created["id"]
    joined = any_api.client.post(f"/games/{game}/join", json={"name": "Cid", "seat": 2})
    assert joined.status_code == 201
    body = joined.json
    assert body is not None
    assert body["seat"] == 2 and body["game"]["you"] == 2 and body["game"]["status"] == "waiting"
    assert etag_version(joined.headers["ETag"]) == body["game"]["version"]
    assert any_api.view(game, body["token"]).json["you"] == 2  # type: ignore[index]
    taken = any_api.client.post(f"/games/{game}/join", json={"name": "Dee", "seat": 2})
    problem(taken, 409, "seat_taken")
    last = any_api.client.post(f"/games/{game}/join", json={"name": "Bob"})
    assert last.status_code == 201
    assert last.json["seat"] == 1  # type: ignore[index]
    assert last.json["game"]["status"] == "active"  # type: ignore[index]
    assert len(last.json["game"]["hand"]) == 7  # type: ignore[index]
    full = any_api.client.post(f"/games/{game}/join", json={"name": "Eve"})
    assert full.status_code == 409
    problem(any_api.client.post(f"/games/{game}/join", json={}), 422, "validation_error")


def test_lobby_lists_waiting_games_only_paginated(any_api: Api) -> None:
    ids = []
    for _ in range(3):
        body = any_api.create(seats=[{"name": "Ann"}, {"name": None}]).json
        assert body is not None
        ids.append(body["id"])
    any_api.scripted_game()  # active from the start: never listed
    seen: list[dict[str, object]] = []
    cursor = None
    for _ in range(10):
        query = {"status": "waiting", "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = any_api.client.get("/games", query_string=query).json
        assert page is not None
        assert len(page["games"]) <= 2
        seen += page["games"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    listed = {g["id"]: g for g in seen}
    assert set(ids) <= set(listed)
    summary = listed[ids[0]]
    assert set(summary) == {"id", "preset", "deal", "seats", "created"}
    assert summary["seats"] == [
        {"seat": 0, "name": "Ann", "kind": "human", "open": False},
        {"seat": 1, "name": None, "kind": "human", "open": True},
    ]
    any_api.client.post(f"/games/{ids[0]}/join", json={"name": "Bob"})
    after = any_api.client.get("/games", query_string={"limit": 100}).json
    assert after is not None
    assert ids[0] not in {g["id"] for g in after["games"]}
    problem(any_api.client.get("/games?status=active"), 422, "validation_error")
    problem(any_api.client.get("/games?limit=0"), 422, "validation_error")
    problem(any_api.client.get("/games?limit=1000"), 422, "validation_error")


def test_an_all_bot_game_is_played_to_its_end_at_once(api: Api) -> None:
    answer = api.create(preset="express", seats=[{"bot": "random"}, {"bot": "greedy"}], seed=3)
    assert answer.status_code == 201
    body = answer.json
    assert body is not None and body["status"] == "finished"
    view = api.view(body["id"]).json
    assert view is not None and view["winners"]


def test_an_expert_bot_seat_answers_a_human_move(api: Api) -> None:
    answer = api.create(preset="express", seats=[{"name": "Ann"}, {"bot": "expert"}], seed=5)
    assert answer.status_code == 201
    body = answer.json
    assert body is not None
    game, token = body["id"], body["seats"][0]["token"]
    for _ in range(200):
        view = api.view(game, token).json
        assert view is not None
        if view["status"] == "finished":
            break
        assert view["round"]["turn"] == 0  # the expert has always moved already
        listed = api.legal(game, token).json
        assert listed is not None
        moves = listed["moves"]
        move = next((m for m in moves if m["type"] == "discard"), moves[-1])
        assert api.move(game, token, move).status_code == 200
    assert view["status"] == "finished" and view["winners"]
