"""One JSON line per request, with X-Request-ID honoured or generated, and no token."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask import Flask

from service.ops import init_app, request_log
from tests.ops.conftest import LineCatcher

SECRET = "s3cr3t-seat-token-value"


def make_app() -> Flask:
    """A tiny app with the request log and a route shaped like the move route."""
    app = Flask("request-log-test")
    init_app(app)

    @app.post("/games/<game_id>/moves")
    def move(game_id: str) -> tuple[str, int]:
        request_log.annotate(seat=1, move_type="discard")
        return "{}", 200

    @app.get("/boom")
    def boom() -> tuple[str, int]:
        return "no", 409

    return app


def test_a_line_has_every_field_and_no_token(access_log: LineCatcher) -> None:
    client = make_app().test_client()
    answer = client.post(
        "/games/g123/moves?x=1",
        json={"type": "discard", "card": "SK"},
        headers={"Authorization": f"Bearer {SECRET}", "X-Request-ID": "req-42.a:b"},
    )
    assert answer.status_code == 200
    assert answer.headers["X-Request-ID"] == "req-42.a:b"
    (line,) = access_log.records()
    assert line["event"] == "request"
    assert line["request_id"] == "req-42.a:b"
    assert line["method"] == "POST"
    assert line["route"] == "/games/<game_id>/moves"
    assert line["path"] == "/games/g123/moves"
    assert line["status"] == 200
    assert isinstance(line["duration_ms"], float) and line["duration_ms"] >= 0
    assert line["game_id"] == "g123"
    assert line["seat"] == 1
    assert line["move_type"] == "discard"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", line["ts"])
    assert SECRET not in access_log.lines[0]


def test_request_id_is_generated_when_absent_or_unsafe(access_log: LineCatcher) -> None:
    client = make_app().test_client()
    first = client.get("/boom")
    unsafe = client.get("/boom", headers={"X-Request-ID": 'bad id" {"status": 200}'})
    too_long = client.get("/boom", headers={"X-Request-ID": "x" * 129})
    ids = [answer.headers["X-Request-ID"] for answer in (first, unsafe, too_long)]
    for rid in ids:
        assert re.fullmatch(r"[0-9a-f]{32}", rid)
    assert len(set(ids)) == 3
    assert [line["request_id"] for line in access_log.records()] == ids
    assert [line["status"] for line in access_log.records()] == [409, 409, 409]


def test_unmatched_paths_are_logged_without_a_route(access_log: LineCatcher) -> None:
    assert make_app().test_client().get("/nowhere").status_code == 404
    (line,) = access_log.records()
    assert line["route"] is None
    assert line["status"] == 404
    assert "game_id" not in line


def test_annotate_accepts_only_known_fields() -> None:
    app = make_app()
    with app.test_request_context("/"), pytest.raises(ValueError, match="token"):
        request_log.annotate(token="x")


def test_access_log_off_silences_the_lines(access_log: LineCatcher) -> None:
    app = Flask("quiet")
    app.config["ACCESS_LOG"] = False
    init_app(app)
    app.add_url_rule("/x", "x", lambda: "ok")
    try:
        answer = app.test_client().get("/x")
        assert answer.headers["X-Request-ID"]
        assert access_log.lines == []
    finally:
        request_log.configure_logging("INFO")


def test_the_service_logs_the_seat_of_every_request_with_a_token(
    access_log: LineCatcher, make_app: Callable[..., Flask]
) -> None:
    client = make_app().test_client()
    created = client.post("/games", json={"seats": [{"name": "Ann"}, {"name": None}]}).get_json()
    game_id, token = created["id"], created["seats"][0]["token"]
    joined = client.post(f"/games/{game_id}/join", json={"name": "Bob"}).get_json()
    seat_view = client.get(f"/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
    assert seat_view.status_code == 200
    assert client.get(f"/games/{game_id}").status_code == 200
    lines = access_log.records()
    assert [(line["route"], line.get("seat")) for line in lines] == [
        ("/games", None),
        ("/games/<string:game_id>/join", joined["seat"]),
        ("/games/<string:game_id>", 0),
        ("/games/<string:game_id>", None),
    ]
    assert all(line.get("game_id") == game_id for line in lines[1:])
    for line in access_log.lines:
        assert token not in line and joined["token"] not in line
