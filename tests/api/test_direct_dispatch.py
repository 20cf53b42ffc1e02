"""`dispatch_directly`: a move goes straight to `make_move`, and answers as the
`Moves` class answers; other methods of a route keep the class's way."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask, Response
from flask.views import MethodView

from service.api import moves
from service.api.moves import MOVES_ENDPOINT, Moves
from service.api.smorest import Api, Blueprint, dispatch_directly
from service.serving.flaskapp import ServiceFlask
from tests.api.helpers import DRAW, problem
from tests.api.helpers import Api as Client


def _small_app(handled: list[str]) -> Flask:
    app = ServiceFlask("t")
    app.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.1.0")
    api = Api(app)
    blp = Blueprint("things", __name__, url_prefix="/things")

    @blp.route("/<string:name>")
    class Thing(MethodView):
        @blp.response(200)
        def get(self, name: str) -> Response:
            handled.append(f"class-get-{name}")
            return Response(f"get {name}")

        @blp.response(200)
        def post(self, name: str) -> Response:
            handled.append(f"class-post-{name}")
            return Response(f"post {name}")

    api.register_blueprint(blp)

    def post_thing(name: str) -> Response:
        handled.append(f"direct-post-{name}")
        return Response(f"post {name}", headers={"X-Direct": "1"})

    dispatch_directly(app, "things.Thing", "POST", post_thing)
    return app


def test_the_method_goes_to_the_handler_and_the_others_to_the_class() -> None:
    handled: list[str] = []
    app = _small_app(handled)
    client = app.test_client()
    posted = client.post("/things/a")
    assert (posted.status_code, posted.data, posted.headers["X-Direct"]) == (200, b"post a", "1")
    assert client.get("/things/b").data == b"get b"
    assert client.head("/things/c").status_code == 200
    assert client.options("/things/d").status_code == 200  # Flask's automatic answer
    assert client.put("/things/e").status_code == 405
    assert handled == ["direct-post-a", "class-get-b", "class-get-c"]
    view: Any = app.view_functions["things.Thing"]
    assert view.view_class.__name__ == "Thing"


def test_the_documentation_is_the_classes() -> None:
    app = _small_app([])
    spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    assert set(spec["paths"]["/things/{name}"]) >= {"get", "post"}


def test_a_move_does_not_go_through_the_class(api: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("dispatched through the class")

    monkeypatch.setattr(Moves, "dispatch_request", refuse)
    game, ann, bob = api.scripted_game()
    answer = api.move(game, ann, DRAW)
    assert answer.status_code == 200
    assert answer.headers["ETag"] == f'"{answer.json["version"]}"'  # type: ignore[index]
    problem(api.move(game, bob, DRAW), 409, "not_your_turn")


def test_the_class_answers_a_move_as_the_route_does(api: Client) -> None:
    app = api.client.application
    direct = app.view_functions[MOVES_ENDPOINT]
    assert direct is not moves.make_move
    game, ann, _ = api.scripted_game()
    key = {"Idempotency-Key": "k1"}
    first = api.move(game, ann, DRAW, **key)  # straight to `make_move`
    app.view_functions[MOVES_ENDPOINT] = direct.through_class  # type: ignore[attr-defined]
    try:
        replayed = api.move(game, ann, DRAW, **key)
        through_class = api.move(game, ann, {"type": "discard", "card": "SQ"})
    finally:
        app.view_functions[MOVES_ENDPOINT] = direct
    assert first.status_code == replayed.status_code == through_class.status_code == 200
    assert replayed.headers["Idempotency-Replayed"] == "true"
    assert replayed.headers["ETag"] == first.headers["ETag"]
    assert list(through_class.headers.keys()) == list(first.headers.keys())
    assert set(through_class.json) == set(first.json)  # type: ignore[arg-type]
