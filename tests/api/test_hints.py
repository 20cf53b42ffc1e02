"""`GET /games/{id}/hint`: a legal move from the seat's view, bounded, kept and rationed."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask

import service.games.hints as games_hints
from service.api.hints import HINTS_EXTENSION
from service.app import create_app, shutdown
from service.bots.hints import REASON_CODES
from service.config import MAX_HINT_NODES, MAX_HINT_SECONDS, Config, TestConfig
from service.games.caches import STATES
from service.games.hints import Hints
from tests.api.helpers import DECK, DRAW, Api, bearer, problem


@pytest.fixture(params=["memory", "redis"])
def hint_app(request: pytest.FixtureRequest) -> Iterator[Flask]:
    """An app on the memory store, then on a throwaway Redis; hints not rationed
    unless a test sets `HINT_PER_MINUTE` itself."""
    config = replace(TestConfig(), HINT_PER_MINUTE=0, HINT_NODES=200)
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        config = replace(config, STORE_URL=url, STORE_PREFIX=f"t{uuid.uuid4().hex[:8]}")
    app = create_app(config)
    yield app
    shutdown(app)


def _game(api: Api, **options: Any) -> tuple[str, str, str]:
    """A two-player `standard` game on the scripted deck: (id, Ann's token, Bob's)."""
    answer = api.create(
        preset="standard",
        seats=[{"name": "Ann"}, {"name": "Bob"}],
        deck=DECK,
        first_dealer=1,
        options=options,
    )
    assert answer.status_code == 201, answer.json
    body = answer.json
    assert body is not None
    return body["id"], body["seats"][0]["token"], body["seats"][1]["token"]


def _hint(api: Api, game: str, token: str | None) -> Any:
    return api.client.get(f"/games/{game}/hint", headers=bearer(token))


def test_a_hint_is_a_legal_move_the_seat_can_send_as_is(hint_app: Flask) -> None:
    api = Api(hint_app.test_client())
    game, ann, bob = _game(api)
    tokens = [ann, bob]
    kinds = set()
    for _ in range(40):
        view = api.view(game, ann).json
        assert view is not None
        if view["status"] != "active":
            break
        token = tokens[view["round"]["turn"]] if view["round"] else ann
        answer = _hint(api, game, token)
        assert answer.status_code == 200, answer.json
        body = answer.json
        assert body["version"] == view["version"]
        assert body["reason"]["code"] in REASON_CODES
        assert body["reason"]["detail"]
        listed = api.legal(game, token).json
        assert body["move"] in listed["moves"]
        kinds.add(body["move"]["type"])
        moved = api.move(game, token, body["move"])
        assert moved.status_code == 200, moved.json
    assert {"draw", "discard"} <= kinds


def test_no_hint_off_the_seats_turn(hint_app: Flask) -> None:
    api = Api(hint_app.test_client())
    game, _ann, bob = _game(api)  # Ann plays first
    problem(_hint(api, game, bob), 409, "not_your_turn")


def test_a_game_with_hints_off_refuses_them_and_says_so_in_its_view(hint_app: Flask) -> None:
    api = Api(hint_app.test_client())
    game, ann, _bob = _game(api, hints=False)
    view = api.view(game, ann).json
    assert view is not None and view["options"]["hints"] is False
    problem(_hint(api, game, ann), 403, "hints_disabled")
    assert api.move(game, ann, DRAW).status_code == 200  # the game itself goes on
    on, ann_on, _ = _game(api)
    assert api.view(on, ann_on).json["options"]["hints"] is True


def test_no_hint_without_a_seat_token_or_with_a_wrong_one(hint_app: Flask) -> None:
    api = Api(hint_app.test_client())
    game, _ann, _bob = _game(api)
    problem(_hint(api, game, None), 401, "missing_token")
    problem(_hint(api, game, "not-a-token"), 401, "invalid_token")
    other, other_ann, _ = _game(api)
    assert other != game
    problem(_hint(api, game, other_ann), 401, "invalid_token")
    problem(_hint(api, "no-such-game", other_ann), 404, "game_not_found")


def test_a_repeated_hint_costs_no_search(hint_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = games_hints.hint

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(games_hints, "hint", counting)
    api = Api(hint_app.test_client())
    game, ann, _bob = _game(api)
    first = _hint(api, game, ann)
    second = _hint(api, game, ann)
    assert first.status_code == second.status_code == 200
    assert first.get_data() == second.get_data()
    assert len(calls) == 1
    hints: Hints = hint_app.extensions[HINTS_EXTENSION]
    assert hints.computed == 1
    # A new version is a new position: searched again.
    assert api.move(game, ann, first.json["move"]).status_code == 200
    assert _hint(api, game, ann).status_code == 200
    assert len(calls) == 2


def test_a_flood_of_hints_is_refused_while_the_seats_moves_go_on(redis_url: str) -> None:
    for store in ("memory://", redis_url):
        config = replace(
            TestConfig(),
            HINT_PER_MINUTE=3,
            HINT_NODES=100,
            STORE_URL=store,
            STORE_PREFIX=f"t{uuid.uuid4().hex[:8]}",
        )
        app = create_app(config)
        try:
            api = Api(app.test_client())
            game, ann, bob = _game(api)
            for _ in range(3):  # exactly the bucket: every one answered
                assert _hint(api, game, ann).status_code == 200
            refused = problem(_hint(api, game, ann), 429, "too_many_hints")
            assert "3 hints a minute" in refused["detail"]
            answer = _hint(api, game, ann)
            assert 1 <= int(answer.headers["Retry-After"]) <= 60
            # The seat's moves, views and legal moves go on; the other seat's hints too.
            assert api.move(game, ann, DRAW).status_code == 200
            assert api.legal(game, ann).status_code == 200
            discard = api.legal(game, ann).json["moves"][-1]
            assert api.move(game, ann, discard).status_code == 200
            assert _hint(api, game, bob).status_code == 200
        finally:
            shutdown(app)


def test_the_hint_sees_only_the_seats_view_and_public_events(
    hint_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[Any, ...]] = []
    real = games_hints.hint

    def spy(view: Any, moves: Any, rng: Any, memory: Any, budget: Any) -> Any:
        seen.append((view, moves, memory))
        return real(view, moves, rng, memory, budget)

    monkeypatch.setattr(games_hints, "hint", spy)
    api = Api(hint_app.test_client())
    game, ann, bob = _game(api)
    tokens = [ann, bob]
    for _ in range(24):
        view = api.view(game, ann).json
        token = tokens[view["round"]["turn"]]
        me = view["round"]["turn"]
        answer = _hint(api, game, token)
        assert answer.status_code == 200
        view_seen, _moves, memory = seen[-1]
        state = STATES.kept(game)
        assert state is not None and state.round is not None
        # One deck: a card of this round the seat cannot see (the other hand, the
        # stock) is nowhere in what the search was given (finished rounds, revealed
        # to all, were dealt from the same deck: left out).
        # The other seat's cards taken from the pile in sight of all are public.
        public = api.view(game).json["seats"][1 - me].get("known_cards") or []
        hidden = (set(state.round.hands[1 - me]) - set(public)) | set(state.round.stock)
        assert hidden
        current = {k: v for k, v in view_seen.items() if k != "rounds"}
        given = _strings(current) | _strings(memory.collected) | _strings(memory.discarded)
        assert not hidden & given, hidden & given
        assert set(view_seen["hand"]) == set(state.round.hands[me])
        assert api.move(game, token, answer.json["move"]).status_code == 200


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values()), set())
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value), set())
    return set()


def test_the_hint_settings_are_bounded_and_reach_the_search() -> None:
    edge = Config.from_env(
        {"HINT_NODES": "0", "HINT_SECONDS": "-1", "HINT_PER_MINUTE": "-5", "HINT_CACHE": "0"}
    )
    assert (edge.HINT_NODES, edge.HINT_SECONDS, edge.HINT_PER_MINUTE, edge.HINT_CACHE) == (
        1, 0.0, 0, 1,
    )  # fmt: skip
    top = Config.from_env({"HINT_NODES": "10000000", "HINT_SECONDS": "60"})
    assert (top.HINT_NODES, top.HINT_SECONDS) == (MAX_HINT_NODES, MAX_HINT_SECONDS)
    assert Config.from_env({"HINT_CACHE": "10000000"}).HINT_CACHE == 65_536
    defaults = Config()
    assert (defaults.HINT_NODES, defaults.HINT_SECONDS, defaults.HINT_PER_MINUTE) == (1200, 0.1, 12)
    app = create_app(replace(TestConfig(), HINT_NODES=77, HINT_SECONDS=0.5, HINT_PER_MINUTE=4))
    try:
        api = Api(app.test_client())
        game, ann, _bob = _game(api)
        assert _hint(api, game, ann).status_code == 200
        hints: Hints = app.extensions[HINTS_EXTENSION]
        assert (hints.budget.nodes, hints.budget.seconds, hints.per_minute) == (77, 0.5, 4)
    finally:
        shutdown(app)


def test_a_seats_bucket_holds_a_minute_of_hints_and_refills_at_that_rate() -> None:
    now = [1000.0]
    hints = Hints(nodes=10, seconds=0, per_minute=6, clock=lambda: now[0])
    assert [hints.wait("g", 0) for _ in range(6)] == [None] * 6
    assert hints.wait("g", 0) == 10  # one hint refills in 60 / 6 s
    assert hints.wait("g", 1) is None  # another seat's bucket is its own
    now[0] += 9.0
    assert hints.wait("g", 0) == 1
    now[0] += 1.0
    assert hints.wait("g", 0) is None
    assert hints.wait("g", 0) == 10
    unlimited = Hints(nodes=10, seconds=0, per_minute=0)
    assert all(unlimited.wait("g", 0) is None for _ in range(1000))
