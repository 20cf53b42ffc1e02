"""`service.serving.dispatch`: the hot operations called straight from their
routes, every decorator of their views run; other methods keep the class's way."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from flask import Flask, Response
from flask.views import MethodView

from service.api import moves
from service.api.games import Game
from service.api.moves import LegalMoves, MoveBody, Moves
from service.api.smorest import Api, Blueprint
from service.app import create_app, shutdown
from service.config import TestConfig
from service.serving.dispatch import HOT_OPERATIONS, dispatch_directly
from service.serving.flaskapp import ServiceFlask
from tests.api.helpers import DRAW, etag_version, problem
from tests.api.helpers import Api as Client


def _small_app(handled: list[str]) -> Flask:
    app = ServiceFlask("t")
    app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.1.0")
    api = Api(app)
    blp = Blueprint("things", __name__, url_prefix="/things")

    def noted(func: Callable[..., Response]) -> Callable[..., Response]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Response:
            handled.append("decorator")
            return func(*args, **kwargs)

        return wrapper

    @blp.route("/<string:name>")
    class Thing(MethodView):
        @blp.response(200)
        def get(self, name: str) -> Response:
            handled.append(f"get-{name}")
            return Response(f"get {name}")

        @blp.response(200)
        @noted
        def post(self, name: str) -> Response:
            handled.append(f"post-{name}")
            return Response(f"post {name}")

    api.register_blueprint(blp)
    dispatch_directly(app, "things.Thing", "POST")
    return app


def test_the_method_goes_straight_to_the_decorated_method_the_others_to_the_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handled: list[str] = []
    app = _small_app(handled)
    view: Any = app.view_functions["things.Thing"]
    client = app.test_client()

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("through the class")

    monkeypatch.setattr(view.view_class, "dispatch_request", refuse)
    assert client.post("/things/a").data == b"post a"
    monkeypatch.undo()
    assert client.get("/things/b").data == b"get b"
    assert client.head("/things/c").status_code == 200
    assert client.options("/things/d").status_code == 200  # Flask's automatic answer
    assert client.put("/things/e").status_code == 405
    assert handled == ["decorator", "post-a", "get-b", "get-c"]
    assert view.view_class.__name__ == "Thing"


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
    endpoint = {Moves: "moves.Moves", Game: "games.Game", LegalMoves: "moves.LegalMoves"}
    assert (endpoint[view_class], method.upper()) in HOT_OPERATIONS

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("through the class")

    game, ann, _ = api.scripted_game()
    monkeypatch.setattr(view_class, "dispatch_request", refuse)  # the fast path only
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


@pytest.mark.parametrize(
    ("endpoint", "suffix"),
    [
        pytest.param("games.Game", "", id="view"),
        pytest.param("moves.LegalMoves", "/legal-moves", id="legal-moves"),
    ],
)
def test_the_class_answers_a_get_as_the_route_does(api: Client, endpoint: str, suffix: str) -> None:
    app = api.client.application
    direct = app.view_functions[endpoint]
    game, ann, bob = api.scripted_game()
    asks = [
        {"Authorization": f"Bearer {ann}"},
        {"Authorization": f"Bearer {bob}"},
        {"Authorization": "Bearer not-a-token"},
        {},
    ]
    etag = api.client.get(f"/games/{game}{suffix}", headers=asks[0]).headers["ETag"]
    asks.append({**asks[0], "If-None-Match": etag})

    def answers() -> list[tuple[int, Any, list[tuple[str, str]]]]:
        got = [api.client.get(f"/games/{game}{suffix}", headers=ask) for ask in asks]
        # Only the request id and the server's clock (`now`) differ per request.
        return [
            (
                a.status_code,
                {k: v for k, v in a.json.items() if k != "now"} if a.data else None,
                sorted((k, v) for k, v in a.headers.items() if k != "X-Request-ID"),
            )
            for a in got
        ]

    straight = answers()
    app.view_functions[endpoint] = direct.through_class  # type: ignore[attr-defined]
    try:
        through_class = answers()
    finally:
        app.view_functions[endpoint] = direct
    assert through_class == straight
    assert [status for status, _, _ in straight][-1] == 304
