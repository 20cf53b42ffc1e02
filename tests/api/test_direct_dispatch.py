"""`dispatch_directly`: a move goes straight to `make_move`, a view to `view_game`
and a legal-moves list to `legal_moves`, each answering as its class answers;
other methods of a route keep the class's way."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask, Response
from flask.views import MethodView

from service.api import games, moves
from service.api.games import GAME_ENDPOINT, Game
from service.api.moves import LEGAL_MOVES_ENDPOINT, MOVES_ENDPOINT, LegalMoves, Moves
from service.api.smorest import Api, Blueprint, dispatch_directly
from service.serving.flaskapp import ServiceFlask
from tests.api.helpers import DRAW, etag_version, problem
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
    assert etag_version(answer.headers["ETag"]) == answer.json["version"]  # type: ignore[index]
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


#: The GET routes dispatched directly: (endpoint, class, the path after the game id).
_DIRECT_GETS = [
    pytest.param(GAME_ENDPOINT, Game, "", id="view"),
    pytest.param(LEGAL_MOVES_ENDPOINT, LegalMoves, "/legal-moves", id="legal-moves"),
]


@pytest.mark.parametrize(("endpoint", "view_class", "suffix"), _DIRECT_GETS)
def test_a_get_does_not_go_through_the_class(
    api: Client, monkeypatch: pytest.MonkeyPatch, endpoint: str, view_class: type, suffix: str
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("dispatched through the class")

    monkeypatch.setattr(view_class, "dispatch_request", refuse)
    game, ann, _ = api.scripted_game()
    answer = api.client.get(f"/games/{game}{suffix}", headers={"Authorization": f"Bearer {ann}"})
    assert answer.status_code == 200
    unchanged = api.client.get(
        f"/games/{game}{suffix}",
        headers={"Authorization": f"Bearer {ann}", "If-None-Match": answer.headers["ETag"]},
    )
    assert unchanged.status_code == 304
    problem(
        api.client.get(f"/games/nosuchgame{suffix}", headers={"Authorization": f"Bearer {ann}"}),
        404,
        "game_not_found",
    )
    # HEAD keeps the class's way (Flask hands it to `get`).
    with pytest.raises(AssertionError, match="through the class"):
        api.client.head(f"/games/{game}{suffix}")


@pytest.mark.parametrize(("endpoint", "view_class", "suffix"), _DIRECT_GETS)
def test_the_class_answers_a_get_as_the_route_does(
    api: Client, endpoint: str, view_class: type, suffix: str
) -> None:
    app = api.client.application
    direct = app.view_functions[endpoint]
    assert direct is not games.view_game and direct is not moves.legal_moves
    assert direct.view_class is view_class  # type: ignore[attr-defined]
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
