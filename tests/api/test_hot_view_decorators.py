"""A decorator added to a hot view (a move, a seat's view, a legal-moves list)
runs on every request to it, and the move's body reaches the view as its
declared argument."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Response

from service.api import moves
from service.api.games import Game
from service.api.moves import LegalMoves, MoveBody, Moves
from service.app import create_app, shutdown
from service.config import TestConfig
from tests.api.helpers import DRAW, etag_version, problem
from tests.api.helpers import Api as Client

#: Each hot operation: its class, method, and a request to it (`api`, game, token).
_HOT = [
    pytest.param(Moves, "post", id="move"),
    pytest.param(Game, "get", id="view"),
    pytest.param(LegalMoves, "get", id="legal-moves"),
]


def _ask(api: Client, view_class: type, game: str, token: str) -> Any:
    if view_class is Moves:
        return api.move(game, token, DRAW)
    suffix = "/legal-moves" if view_class is LegalMoves else ""
    return api.client.get(f"/games/{game}{suffix}", headers={"Authorization": f"Bearer {token}"})


@pytest.fixture
def recorded(request: pytest.FixtureRequest) -> Iterator[tuple[Client, list[tuple[Any, ...]]]]:
    """An app built after a decorator was added to one hot view (the class and
    method of the test's parameters): the calls it saw."""
    view_class, method = (
        request.node.callspec.params["view_class"],
        request.node.callspec.params["method"],
    )
    calls: list[tuple[Any, ...]] = []
    original = getattr(view_class, method)

    @functools.wraps(original)
    def decorated(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append((*args, *kwargs.values()))
        return original(self, *args, **kwargs)

    setattr(view_class, method, decorated)
    app = create_app(TestConfig())
    try:
        yield Client(app.test_client()), calls
    finally:
        setattr(view_class, method, original)
        shutdown(app)


@pytest.mark.parametrize(("view_class", "method"), _HOT)
def test_a_decorator_added_to_a_hot_view_runs(
    recorded: tuple[Client, list[tuple[Any, ...]]],
    view_class: type,
    method: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api, calls = recorded
    game, ann, _ = api.scripted_game()
    bodies: list[Any] = []
    if view_class is Moves:
        make_move = moves.make_move

        def seen(game_id: str, body: MoveBody) -> Response:
            bodies.append(body)
            return make_move(game_id, body)

        monkeypatch.setattr(moves, "make_move", seen)
    answer = _ask(api, view_class, game, ann)
    assert answer.status_code == 200, answer.json
    assert calls == [(game,)]
    if view_class is Moves:
        # flask-smorest's `arguments` parsed the body into the view's argument.
        assert [body.raw for body in bodies] == [DRAW]
        assert etag_version(answer.headers["ETag"]) == answer.json["version"]


def test_a_malformed_move_is_refused_by_its_declared_body(api: Client) -> None:
    game, ann, _ = api.scripted_game()
    problem(api.move(game, ann, {"type": "fly"}), 422, "validation_error")
