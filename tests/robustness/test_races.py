"""Races: 32 clients at once on one game and one version, over HTTP on gunicorn + Redis.

With `If-Match`, exactly one move is applied per version and every other
client gets 412. Without it, a move that lost the race is applied again to the
new state: joins are applied in turn until the seats run out (then 409), a
second draw is refused 409. One `Idempotency-Key` sent by all 32 applies the
move once and every client gets its answer. Afterwards every card is accounted for and the
event sequence numbers are contiguous.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.api.helpers import DECK, DRAW
from tests.e2e.http import Answer, Client
from tests.robustness.cards import assert_all_cards_accounted_for
from tests.robustness.conftest import Live

CLIENTS = 32


def _at_once(live: Live, send: Callable[[Client, int], Answer]) -> list[Answer]:
    """Run `send(client, index)` on 32 threads released together, each on its own connection."""
    clients = [Client(live.url) for _ in range(CLIENTS)]
    for client in clients:  # connect first, so the requests start together
        assert client.get("/healthz").status == 200
    barrier = threading.Barrier(CLIENTS)

    def run(index: int) -> Answer:
        barrier.wait()
        return send(clients[index], index)

    with ThreadPoolExecutor(CLIENTS) as pool:
        answers = list(pool.map(run, range(CLIENTS)))
    for client in clients:
        client.close()
    return answers


def _check_game(live: Live, game: str) -> None:
    state = live.state(game)
    assert_all_cards_accounted_for(state)
    events = live.events(game)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    versions = [e["version"] for e in events]
    assert versions == sorted(versions)
    assert versions[-1] == live.store.load(game).version


def _new_game(live: Live) -> tuple[str, str, str]:
    created = Client(live.url).post(
        "/games",
        {
            "preset": "express",
            "seats": [{"name": "Ann"}, {"name": "Bob"}],
            "deck": DECK,
            "first_dealer": 1,
        },
    )
    assert created.status == 201
    body: dict[str, Any] = created.json
    return body["id"], body["seats"][0]["token"], body["seats"][1]["token"]


def test_with_if_match_exactly_one_move_per_version(live: Live) -> None:
    game, ann, _bob = _new_game(live)
    # Two versions in a row: the draw, then the discard of the card drawn.
    for version, move in ((1, DRAW), (2, {"type": "discard", "card": "S9"})):
        answers = _at_once(
            live,
            lambda client, _i, move=move, version=version: client.post(
                f"/games/{game}/moves", move, ann, **{"If-Match": f'"{version}"'}
            ),
        )
        statuses = Counter(a.status for a in answers)
        assert statuses == {200: 1, 412: CLIENTS - 1}, statuses
        tags = {a.headers["etag"] for a in answers}  # one version, one epoch
        assert len(tags) == 1 and tags.pop().startswith(f'"{version + 1}.')
        assert all(a.json["code"] == "version_mismatch" for a in answers if a.status == 412)
        _check_game(live, game)
    assert live.store.load(game).version == 3
    assert live.state(game).round.turn == 1  # type: ignore[union-attr]


def test_without_if_match_a_lost_move_is_applied_again_or_refused(live: Live) -> None:
    game, ann, _bob = _new_game(live)
    answers = _at_once(live, lambda client, _i: client.post(f"/games/{game}/moves", DRAW, ann))
    statuses = Counter(a.status for a in answers)
    assert statuses == {200: 1, 409: CLIENTS - 1}, statuses
    assert {a.json["code"] for a in answers if a.status == 409} == {"already_drew"}
    assert live.store.load(game).version == 2
    _check_game(live, game)


def test_concurrent_joins_fill_every_seat_once(live: Live) -> None:
    seats: list[dict[str, Any]] = [{"name": "Host"}] + [{"name": None}] * 5
    created = Client(live.url).post("/games", {"seats": seats})
    game = created.json["id"]
    answers = _at_once(
        live, lambda client, i: client.post(f"/games/{game}/join", {"name": f"J{i}"})
    )
    statuses = Counter(a.status for a in answers)
    assert statuses == {201: 5, 409: CLIENTS - 5}, statuses
    taken = sorted(a.json["seat"] for a in answers if a.status == 201)
    assert taken == [1, 2, 3, 4, 5]
    state = live.state(game)
    assert state.status == "active"
    joined = {a.json["seat"]: a.json["token"] for a in answers if a.status == 201}
    names = {i: f"J{i}" for i, a in enumerate(answers) if a.status == 201}
    assert sorted(str(s.name) for s in state.seats[1:]) == sorted(names.values())
    for seat, token in joined.items():  # each token is the seat it was given with
        assert Client(live.url).get(f"/games/{game}", token).json["you"] == seat
    _check_game(live, game)


def test_one_idempotency_key_from_32_clients_applies_the_move_once(live: Live) -> None:
    game, ann, _bob = _new_game(live)
    key = {"Idempotency-Key": "draw-once"}
    answers = _at_once(
        live, lambda client, _i: client.post(f"/games/{game}/moves", DRAW, ann, **key)
    )
    assert Counter(a.status for a in answers) == {200: CLIENTS}
    # Every client got the first answer (`now`, each answer's server time, aside).
    assert len({str({**a.json, "now": None}) for a in answers}) == 1
    assert sum(a.headers.get("idempotency-replayed") == "true" for a in answers) == CLIENTS - 1
    assert live.store.load(game).version == 2
    _check_game(live, game)
