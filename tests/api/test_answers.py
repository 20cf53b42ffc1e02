"""`service.serving.answers.ServiceResponse`: the answer Werkzeug's constructor would make."""

from __future__ import annotations

import pytest
from flask import Response

from service.serving.answers import ServiceResponse


def werkzeug_answer(body: bytes, status: int, headers: dict[str, str] | None) -> Response:
    return Response(body, status=status, mimetype="application/json", headers=headers)


def json_answer(body: bytes, status: int, headers: dict[str, str] | None) -> Response:
    return ServiceResponse(body, status=status, mimetype="application/json", headers=headers)


CASES = [
    (b'{"a":1}', 200, {"ETag": '"17"'}),
    (b"{}", 201, {"Location": "/games/abc", "ETag": '"1"'}),
    (b'{"version":3,"moves":[]}', 200, None),
    (b"", 304, {}),
    (b'{"x":"\xc3\xa9"}', 422, {"Idempotency-Replayed": "true", "Vary": "Authorization"}),
    (b"[]", 599, None),  # a code without a reason phrase
]


@pytest.mark.parametrize(("body", "status", "headers"), CASES)
def test_the_answer_is_the_one_werkzeug_makes(
    body: bytes, status: int, headers: dict[str, str] | None
) -> None:
    lean, plain = json_answer(body, status, headers), werkzeug_answer(body, status, headers)
    assert isinstance(lean, Response)
    assert vars(lean) == vars(plain)  # every attribute the constructor sets, and no other
    assert list(lean.headers.items()) == list(plain.headers.items())
    assert (lean.status, lean.status_code, lean.get_data()) == (plain.status, status, body)
    environ = {"REQUEST_METHOD": "GET", "SERVER_NAME": "x", "SERVER_PORT": "80"}
    lean_app, lean_status, lean_headers = lean.get_wsgi_response(environ)
    plain_app, plain_status, plain_headers = plain.get_wsgi_response(environ)
    assert (lean_status, lean_headers) == (plain_status, plain_headers)
    assert b"".join(lean_app) == b"".join(plain_app)


def test_an_own_header_with_a_line_break_is_refused_as_werkzeug_refuses_it() -> None:
    with pytest.raises(ValueError):
        werkzeug_answer(b"{}", 200, {"ETag": 'a"\r\nSet-Cookie: x'})
    with pytest.raises(ValueError):
        json_answer(b"{}", 200, {"ETag": 'a"\r\nSet-Cookie: x'})


def test_answers_do_not_share_their_headers() -> None:
    first, second = json_answer(b"{}", 200, None), json_answer(b"{}", 200, None)
    first.headers["X-One"] = "1"
    assert "X-One" not in second.headers


def test_own_headers_are_added_without_headers_add(monkeypatch: pytest.MonkeyPatch) -> None:
    from werkzeug.datastructures import Headers

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("Headers.add called")

    expected = werkzeug_answer(b"{}", 200, {"ETag": '"5"', "Vary": "Authorization"})
    monkeypatch.setattr(Headers, "add", refused)
    lean = json_answer(b"{}", 200, {"ETag": '"5"', "Vary": "Authorization"})
    assert list(lean.headers.items()) == list(expected.headers.items())
    for bad in ("a\nb", "a\rb"):
        with pytest.raises(ValueError, match="newline"):
            json_answer(b"{}", 200, {"ETag": bad})


def test_any_other_answer_is_werkzeugs(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.serving import answers

    def refused(code: int) -> str:
        raise AssertionError("the short way")

    monkeypatch.setattr(answers, "status_line", refused)
    for made in (
        ServiceResponse("text", status=200, mimetype="application/json"),
        ServiceResponse(b"{}", status="200 OK", mimetype="application/json"),
        ServiceResponse(b"{}", status=200, mimetype="text/plain"),
        ServiceResponse(b"{}", status=200, content_type="application/json"),
        ServiceResponse(b"{}", status=200, mimetype="application/json", headers=[("A", "b")]),
        ServiceResponse(
            b"{}", status=200, mimetype="application/json", headers={"Content-Type": "x/y"}
        ),
    ):
        assert made.status_code == 200
    plain = Response(
        b"{}", status=200, mimetype="application/json", headers={"Content-Type": "x/y"}
    )
    assert list(made.headers.items()) == list(plain.headers.items())
