"""Moves: the scripted game, refusals, versions, retries and idempotency."""

from __future__ import annotations

from typing import Any

import pytest

from service.api.access import STORE_EXTENSION
from service.store.base import SaveResult
from tests.api.helpers import DRAW, Api, etag_version, problem


def test_a_scripted_game_is_played_to_its_end(any_api: Api) -> None:
    game, ann, bob = any_api.scripted_game()
    last = any_api.play_script(game, ann, bob)
    assert last["status"] == "finished"
    assert last["winners"] == [0]
    assert last["hand"] == []
    assert last["rounds"][0]["reason"] == "went_out" and last["rounds"][0]["winner"] == 0
    problem(any_api.move(game, bob, DRAW), 409, "game_not_active")


def test_legal_moves_are_the_moves_shapes_empty_off_turn_and_401_without_a_seat(
    any_api: Api,
) -> None:
    game, ann, bob = any_api.scripted_game()
    mine = any_api.legal(game, ann)
    body = mine.json
    assert body is not None
    assert etag_version(mine.headers["ETag"]) == body["version"]
    assert {"type": "draw", "source": "stock"} in body["moves"]
    assert {"type": "draw", "source": "discard"} in body["moves"]
    assert any_api.legal(game, bob).json["moves"] == []  # type: ignore[index]
    # A spectator has no moves to make: without a token the answer is 401, not `[]`.
    problem(any_api.legal(game), 401, "missing_token")
    any_api.move(game, ann, DRAW)
    after = any_api.legal(game, ann).json
    assert after is not None
    assert {"type": "meld", "cards": ["H2", "H3", "H4"]} in after["moves"]
    assert {"type": "discard", "card": "S9"} in after["moves"]


def test_refused_moves_answer_409_with_the_engine_code(any_api: Api) -> None:
    game, ann, bob = any_api.scripted_game()
    problem(any_api.move(game, bob, DRAW), 409, "not_your_turn")
    problem(any_api.move(game, ann, {"type": "discard", "card": "SQ"}), 409, "must_draw_first")
    any_api.move(game, ann, DRAW)
    problem(any_api.move(game, ann, DRAW), 409, "already_drew")
    problem(
        any_api.move(game, ann, {"type": "meld", "cards": ["HA", "H2", "H3"]}),
        409,
        "card_not_in_hand",
    )


def test_moves_need_a_seat_token(api: Api) -> None:
    game, _, _ = api.scripted_game()
    problem(api.move(game, None, DRAW), 401, "missing_token")
    problem(api.move(game, "wrong", DRAW), 401, "invalid_token")


def test_malformed_moves_are_422(api: Api) -> None:
    game, ann, _ = api.scripted_game()
    problem(api.move(game, ann, {"type": "fly"}), 422, "validation_error")
    problem(api.move(game, ann, {}), 422, "validation_error")
    problem(api.move(game, ann, {"type": "draw"}), 422, "validation_error")
    problem(
        api.move(game, ann, {"type": "draw", "source": "stock", "x": 1}), 422, "validation_error"
    )
    bad = problem(api.move(game, ann, {"type": "discard", "card": "Q9"}), 422, "validation_error")
    assert "Q9" in bad["detail"] or "Q9" in str(bad.get("errors"))
    dup = problem(
        api.move(game, ann, {"type": "meld", "cards": ["H2", "H2", "H3"]}), 422, "validation_error"
    )
    assert "H2" in dup["detail"]
    problem(api.move(game, ann, {"actions": []}), 422, "validation_error")
    problem(api.move(game, ann, {"actions": [DRAW] * 500}), 422, "validation_error")
    problem(api.move(game, ann, {"actions": [DRAW], "type": "draw"}), 422, "validation_error")
    problem(api.move(game, ann, [DRAW]), 422, "validation_error")
    assert api.view(game, ann).json["version"] == 1  # type: ignore[index]


def test_actions_are_all_or_nothing(any_api: Api) -> None:
    game, ann, _ = any_api.scripted_game()
    before = any_api.view(game, ann).json
    assert before is not None
    body = {
        "actions": [
            DRAW,
            {"type": "meld", "cards": ["H2", "H3", "H4"]},
            {"type": "discard", "card": "HA"},
        ]
    }
    problem(any_api.move(game, ann, body), 409, "card_not_in_hand")
    after = any_api.view(game, ann).json
    assert after is not None and before is not None
    assert {**after, "now": None} == {**before, "now": None}  # only the server's time moved
    body["actions"][2] = {"type": "discard", "card": "S9"}
    done = any_api.move(game, ann, body).json
    assert done is not None
    assert done["version"] == before["version"] + 1
    assert done["round"]["turn"] == 1


def test_if_match_makes_a_move_conditional(any_api: Api) -> None:
    game, ann, _ = any_api.scripted_game()
    version = any_api.view(game, ann).json["version"]  # type: ignore[index]
    stale = any_api.move(game, ann, DRAW, **{"If-Match": f'"{version - 1}"'})
    body = problem(stale, 412, "version_mismatch")
    assert etag_version(stale.headers["ETag"]) == version and body["version"] == version
    assert any_api.view(game, ann).json["version"] == version  # type: ignore[index]
    ok = any_api.move(game, ann, DRAW, **{"If-Match": f'"{version}"'})
    assert ok.status_code == 200 and etag_version(ok.headers["ETag"]) == version + 1
    weak = any_api.move(
        game, ann, {"type": "discard", "card": "S9"}, **{"If-Match": f'W/"{version + 1}"'}
    )
    assert weak.status_code == 200
    problem(any_api.move(game, None, DRAW, **{"If-Match": "17"}), 401, "missing_token")


def test_an_if_match_naming_the_version_of_another_epoch_is_412(any_api: Api) -> None:
    """After a failover a promoted replica makes the same version numbers again
    for other states: the ETag's epoch tells them apart (docs/reliability.md)."""
    game, ann, _ = any_api.scripted_game()
    tag = any_api.view(game, ann).headers["ETag"]
    version = etag_version(tag)
    other = f'"{version}.{"0" * 16}"'
    body = problem(any_api.move(game, ann, DRAW, **{"If-Match": other}), 412, "version_mismatch")
    assert body["version"] == version
    # A view asked with that other tag is not "not modified" either.
    assert any_api.view(game, ann, **{"If-None-Match": other}).status_code == 200
    assert any_api.view(game, ann, **{"If-None-Match": tag}).status_code == 304
    ok = any_api.move(game, ann, DRAW, **{"If-Match": tag})
    assert ok.status_code == 200 and etag_version(ok.headers["ETag"]) == version + 1


def test_malformed_if_match_is_400_and_star_matches_any(api: Api) -> None:
    game, ann, _ = api.scripted_game()
    problem(api.move(game, ann, DRAW, **{"If-Match": "17"}), 400, "invalid_if_match")
    problem(api.move(game, ann, DRAW, **{"If-Match": '"abc"'}), 400, "invalid_if_match")
    assert api.move(game, ann, DRAW, **{"If-Match": "*"}).status_code == 200


def _store(api: Api) -> Any:
    return api.client.application.extensions[STORE_EXTENSION]


def test_a_lost_race_is_reloaded_and_applied_again(
    any_api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    game, ann, _ = any_api.scripted_game()
    store = _store(any_api)
    real_save = store.save
    calls: list[int] = []

    def save_losing_once(*args: Any, **kwargs: Any) -> SaveResult:
        calls.append(1)
        if len(calls) == 1:
            return SaveResult("stale", 1, 0)
        result: SaveResult = real_save(*args, **kwargs)
        return result

    monkeypatch.setattr(store, "save", save_losing_once)
    answer = any_api.move(game, ann, DRAW)
    assert answer.status_code == 200 and len(calls) == 2
    assert answer.json["version"] == 2  # type: ignore[index]


def test_a_lost_race_with_if_match_is_412(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    game, ann, _ = api.scripted_game()
    store = _store(api)
    real_save = store.save

    def someone_moves_first(*args: Any, **kwargs: Any) -> SaveResult:
        monkeypatch.setattr(store, "save", real_save)
        api.move(game, ann, DRAW)  # wins the race
        result: SaveResult = real_save(*args, **kwargs)
        return result

    monkeypatch.setattr(store, "save", someone_moves_first)
    answer = api.move(game, ann, DRAW, **{"If-Match": '"1"'})
    problem(answer, 412, "version_mismatch")
    assert api.view(game, ann).json["version"] == 2  # type: ignore[index]


def test_too_many_lost_races_answer_503_busy(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    game, ann, _ = api.scripted_game()
    store = _store(api)
    calls: list[int] = []

    def always_stale(*args: Any, **kwargs: Any) -> SaveResult:
        calls.append(1)
        return SaveResult("stale", 99, 0)

    monkeypatch.setattr(store, "save", always_stale)
    answer = api.move(game, ann, DRAW)
    problem(answer, 503, "busy")
    assert answer.headers["Retry-After"] == "1"
    assert len(calls) == api.client.application.config["SAVE_RETRIES"]


def test_one_load_and_one_save_per_move(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    game, ann, _ = api.scripted_game()
    store = _store(api)
    counts = {"load": 0, "save": 0}
    for name in counts:
        real = getattr(store, name)

        def counted(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            counts[_name] += 1
            return _real(*args, **kwargs)

        monkeypatch.setattr(store, name, counted)
    api.move(game, ann, DRAW)
    assert counts == {"load": 1, "save": 1}
    api.view(game, ann)
    assert counts == {"load": 2, "save": 1}


def test_idempotency_key_replays_the_first_answer(any_api: Api) -> None:
    game, ann, bob = any_api.scripted_game()
    first = any_api.move(game, ann, DRAW, **{"Idempotency-Key": "draw-1"})
    assert first.status_code == 200 and "Idempotency-Replayed" not in first.headers
    again = any_api.move(game, ann, DRAW, **{"Idempotency-Key": "draw-1"})
    assert again.status_code == 200
    assert again.headers["Idempotency-Replayed"] == "true"
    # The same answer; only `now`, the server's time of each answer, moves on.
    assert {**again.json, "now": None} == {**first.json, "now": None}  # type: ignore[dict-item]
    assert again.headers["ETag"] == first.headers["ETag"]
    assert any_api.view(game, ann).json["version"] == first.json["version"]  # type: ignore[index]
    reused = any_api.move(
        game, ann, {"type": "discard", "card": "S9"}, **{"Idempotency-Key": "draw-1"}
    )
    problem(reused, 422, "idempotency_key_reused")
    # Another seat's key space is its own.
    problem(any_api.move(game, bob, DRAW, **{"Idempotency-Key": "draw-1"}), 409, "not_your_turn")


def test_refused_moves_are_not_recorded(api: Api) -> None:
    game, ann, _ = api.scripted_game()
    early = api.move(game, ann, {"type": "discard", "card": "SQ"}, **{"Idempotency-Key": "k"})
    problem(early, 409, "must_draw_first")
    assert api.move(game, ann, DRAW, **{"Idempotency-Key": "k"}).status_code == 200


@pytest.mark.parametrize("key", ["", "x" * 256, "naïve", "tab\tkey"])
def test_bad_idempotency_keys_are_422(api: Api, key: str) -> None:
    game, ann, _ = api.scripted_game()
    problem(api.move(game, ann, DRAW, **{"Idempotency-Key": key}), 422, "validation_error")


def test_a_malformed_move_names_its_field(api: Api) -> None:
    game, ann, _ = api.scripted_game()
    body = {"actions": [DRAW, {"type": "meld", "cards": ["H2", "2h", "H3"]}]}
    bad = problem(api.move(game, ann, body), 422, "validation_error")
    message = "card H2 is named more than once in one move"
    assert bad["errors"] == {"actions.1.cards": [message]}
    assert bad["detail"] == f"actions.1.cards: {message}"


def test_the_move_body_is_parsed_once_by_its_declared_schema(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.api import moves
    from tests.api.helpers import bearer

    calls: list[Any] = []
    parse_request = moves.parse_request

    def counting(body: Any) -> Any:
        calls.append(body)
        return parse_request(body)

    game, ann, _ = api.scripted_game()
    monkeypatch.setattr(moves, "parse_request", counting)
    headers = {**bearer(ann), "Idempotency-Key": "k", "If-Match": '"1"'}
    path = f"/games/{game}/moves"
    assert api.client.post(path, json=DRAW, headers=headers).status_code == 200
    assert calls == [DRAW]
    odd = api.client.post(path, json={"type": "discard", "card": "sk"}, headers=bearer(ann))
    assert odd.status_code in (200, 409)
    assert calls == [DRAW, {"type": "discard", "card": "sk"}]


def test_a_move_logs_its_seat_and_type_in_one_annotation(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.ops import request_log
    from tests.api.helpers import bearer

    game, ann, _ = api.scripted_game()
    annotate = request_log.annotate
    calls: list[dict[str, Any]] = []

    def counting(**fields: Any) -> None:
        calls.append(fields)
        annotate(**fields)

    monkeypatch.setattr(request_log, "annotate", counting)
    answer = api.client.post(f"/games/{game}/moves", json=DRAW, headers=bearer(ann))
    assert answer.status_code == 200
    assert calls == [{"seat": 0, "move_type": "draw"}]
