"""Events: sequence, redaction per viewer, long-poll."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from flask import Flask

from service.api.longpoll import WAIT_SLOTS_EXTENSION, WaitSlots
from service.config import TestConfig
from service.serving.sockets import client_gone
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


def test_waiting_places_are_capped_per_client_and_per_worker() -> None:
    slots = WaitSlots(limit=3, per_client=2)
    assert [slots.take("a"), slots.take("a"), slots.take("a")] == ["", "", "client"]
    assert [slots.take("b"), slots.take("c")] == ["", "worker"]
    slots.give_back("a")
    assert slots.take("c") == ""
    for client in ("a", "b", "c"):
        slots.give_back(client)
    assert (slots.waiting, slots.by_client) == (0, {})  # nothing kept for gone clients


def test_long_polls_past_a_clients_places_are_refused_with_retry_after(
    make_app: Callable[..., Flask],
) -> None:
    api = Api(make_app(replace(TestConfig(), LONGPOLL_PER_ADDRESS=2)).test_client())
    game, ann, _ = api.scripted_game()
    last = _events(api, game, None)["last"]
    found: list[dict[str, Any]] = []
    waiters = [
        threading.Thread(target=lambda: found.append(_events(api, game, None, after=last, wait=20)))
        for _ in range(2)
    ]
    for waiter in waiters:
        waiter.start()
    slots = api.client.application.extensions[WAIT_SLOTS_EXTENSION]
    deadline = time.monotonic() + 5
    while slots.waiting < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    refused = api.events(game, after=last, wait=20)
    problem(refused, 429, "long_poll_quota_exceeded")
    assert refused.headers["Retry-After"] == "2"
    # Answering at once needs no place: a read without `wait`, or with news.
    assert _events(api, game, None, after=last) == {"events": [], "last": last}
    assert _events(api, game, None, after=0, wait=20)["events"]
    api.move(game, ann, DRAW)
    for waiter in waiters:
        waiter.join(10)
    assert len(found) == 2 and all(answer["events"] for answer in found)
    assert slots.waiting == 0


def test_long_polls_past_a_workers_places_answer_503(make_app: Callable[..., Flask]) -> None:
    api = Api(make_app(replace(TestConfig(), LONGPOLL_WAITING_MAX=1)).test_client())
    game, ann, _ = api.scripted_game()
    last = _events(api, game, None)["last"]
    waiter = threading.Thread(target=lambda: _events(api, game, None, after=last, wait=20))
    waiter.start()
    slots = api.client.application.extensions[WAIT_SLOTS_EXTENSION]
    deadline = time.monotonic() + 5
    while slots.waiting < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    refused = api.events(game, after=last, wait=20)
    problem(refused, 503, "too_many_long_polls")
    assert refused.headers["Retry-After"] == "2"
    api.move(game, ann, DRAW)
    waiter.join(10)
    assert not waiter.is_alive()


def test_a_hung_up_client_is_told_from_one_still_there() -> None:
    import gevent.socket

    ours, theirs = socket.socketpair()
    wrapped, other = (gevent.socket.socket(fileno=s.detach()) for s in socket.socketpair())
    try:
        for sock, peer in ((ours, theirs), (wrapped, other)):
            environ = {"gunicorn.socket": sock}
            assert not client_gone(environ)  # nothing sent yet
            peer.sendall(b"GET / HTTP/1.1\r\n")  # a pipelined request: still there
            assert not client_gone(environ)
            sock.recv(100)
            peer.close()
            assert client_gone(environ)
        assert not client_gone({})  # no socket (the test client): never told
    finally:
        for sock in (ours, wrapped):
            sock.close()
