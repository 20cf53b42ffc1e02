"""`service.serving.bodies`: plain JSON bodies read straight from a terminated input."""

from __future__ import annotations

import io
from typing import Any

import orjson
from flask import Flask
from flask.testing import FlaskClient

from service.serving.bodies import ServiceRequest, plain_json_body
from tests.api.helpers import DRAW, Api, bearer, problem

#: What gunicorn adds to every environ: it ends the input at the body's length.
TERMINATED = {"wsgi.input_terminated": True}


def body_environ(data: bytes, **changes: Any) -> dict[str, Any]:
    """The body part of a WSGI environ as gunicorn builds it."""
    env: dict[str, Any] = {
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(data)),
        "wsgi.input": io.BytesIO(data),
        **TERMINATED,
    }
    env.update(changes)
    return {k: v for k, v in env.items() if v is not None}


def test_a_plain_json_body_is_read_whole() -> None:
    assert plain_json_body(body_environ(b'{"type":"draw"}'), 100) == b'{"type":"draw"}'
    assert plain_json_body(body_environ(b'{"a":1}'), None) == b'{"a":1}'
    assert plain_json_body(body_environ(b""), 100) == b""


def test_any_other_request_is_left_to_werkzeug() -> None:
    data = b'{"type":"draw"}'
    assert plain_json_body(body_environ(data), len(data) - 1) is None  # 413 there
    assert plain_json_body(body_environ(data, CONTENT_TYPE="text/plain"), 100) is None
    assert plain_json_body(body_environ(data, CONTENT_TYPE="application/json; x=y"), 100) is None
    assert plain_json_body(body_environ(data, CONTENT_LENGTH=None), 100) is None
    assert plain_json_body(body_environ(data, CONTENT_LENGTH="-1"), 100) is None
    chunked = body_environ(data, HTTP_TRANSFER_ENCODING="chunked")
    assert plain_json_body(chunked, 100) is None
    unterminated = body_environ(data)
    del unterminated["wsgi.input_terminated"]
    assert plain_json_body(unterminated, 100) is None


def test_moves_answer_alike_read_either_way(api: Api, client: FlaskClient) -> None:
    answers = []
    for overrides in ({}, TERMINATED):
        game, ann, _ = api.scripted_game()
        answer = client.post(
            f"/games/{game}/moves", json=DRAW, headers=bearer(ann), environ_overrides=overrides
        )
        assert answer.status_code == 200, answer.json
        view = answer.json
        assert view is not None
        answers.append({k: v for k, v in view.items() if k not in ("id", "now")})
    assert answers[0] == answers[1]


def test_the_answers_to_bad_bodies_stay_the_same(app: Flask, client: FlaskClient) -> None:
    big = orjson.dumps({"preset": "x" * int(app.config["MAX_CONTENT_LENGTH"])})
    for overrides in ({}, TERMINATED):
        problem(
            client.post(
                "/games",
                data=big,
                content_type="application/json",
                environ_overrides=overrides,
            ),
            413,
            "body_too_large",
        )
        problem(
            client.post(
                "/games",
                data=b'{"preset"',
                content_type="application/json",
                environ_overrides=overrides,
            ),
            400,
            "invalid_json",
        )
        problem(
            client.post(
                "/games", data=b"{}", content_type="text/plain", environ_overrides=overrides
            ),
            415,
            "unsupported_media_type",
        )


def test_the_request_keeps_the_bytes_read_for_every_later_reader() -> None:
    body = orjson.dumps(DRAW)
    request = ServiceRequest(body_environ(body, REQUEST_METHOD="POST"))
    request.max_content_length = 1000
    assert request.get_data() == body
    assert request.get_data() == body  # kept: the input was read once
    assert request.get_json() == DRAW
    assert request.environ["wsgi.input"].read() == b""


def test_the_app_reads_bodies_with_the_service_request(app: Flask) -> None:
    assert app.request_class is ServiceRequest
