"""Events: sequence, redaction per viewer, long-poll."""

from __future__ import annotations

import threading
from typing import Any

from tests.api.helpers import DRAW, Api, problem


def _events(api: Api, game: str, token: str | None, **query: Any) -> dict[str, Any]:
    answer = api.events(game, token, **query)
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert body is not None
    return dict(body)


def test_events_follow_the_game_and_hide_stock_draws_from_others(any_api: Api) -> None:
    game, ann, bob = any_api.scripted_game()
    start = _events(any_api, game, None)
    types = [e["type"] for e in start["events"]]
    assert types[0] == "game_created" and "round_started" in types
    assert [e["seq"] for e in start["events"]] == list(range(1, len(types) + 1))
    assert start["last"] == len(types)
    any_api.move(game, ann, DRAW)
    for_ann = _events(any_api, game, ann, after=start["last"])
    for_bob = _events(any_api, game, bob, after=start["last"])
    public = _events(any_api, game, None, after=start["last"])
    drew_ann = next(e for e in for_ann["events"] if e["type"] == "drew")
    drew_bob = next(e for e in for_bob["events"] if e["type"] == "drew")
    drew_public = next(e for e in public["events"] if e["type"] == "drew")
    assert drew_ann["card"] == "S9"
    assert "S9" not in str(drew_bob) and "S9" not in str(drew_public)
    assert {"seq", "version", "at", "seat"} <= set(drew_bob)
    assert for_ann["last"] == for_bob["last"] == drew_ann["seq"]
    nothing = _events(any_api, game, None, after=for_ann["last"])
    assert nothing == {"events": [], "last": for_ann["last"]}


def test_whole_game_events_end_with_game_ended(api: Api) -> None:
    game, ann, bob = api.scripted_game()
    api.play_script(game, ann, bob)
    types = [e["type"] for e in _events(api, game, bob)["events"]]
    for expected in ("melded", "laid_off", "discarded", "went_out", "round_ended", "game_ended"):
        assert expected in types
    assert types[-1] == "game_ended"


def test_wait_is_bounded(api: Api) -> None:
    game, _, _ = api.scripted_game()
    problem(api.events(game, wait=31), 422, "validation_error")
    problem(api.events(game, wait=-1), 422, "validation_error")
    problem(api.events(game, wait="soon"), 422, "validation_error")
    problem(api.events(game, after=-1), 422, "validation_error")


def start_long_poll(api: Api) -> tuple[str, str, int, list[dict[str, Any]], threading.Thread]:
    """A scripted game, its last event, and a thread long-polling for the next one."""
    game, ann, _ = api.scripted_game()
    last = _events(api, game, None)["last"]
    found: list[dict[str, Any]] = []
    waiter = threading.Thread(
        target=lambda: found.append(_events(api, game, None, after=last, wait=20))
    )
    waiter.start()
    return game, ann, last, found, waiter


def test_long_poll_returns_the_next_event(api: Api) -> None:
    game, ann, last, found, waiter = start_long_poll(api)
    api.move(game, ann, DRAW)
    waiter.join(25)
    assert not waiter.is_alive()
    assert found and found[0]["events"] and found[0]["events"][0]["seq"] == last + 1


def test_long_poll_without_news_answers_empty(api: Api) -> None:
    game, _, _ = api.scripted_game()
    last = _events(api, game, None)["last"]
    assert _events(api, game, None, after=last, wait=0.2) == {"events": [], "last": last}
