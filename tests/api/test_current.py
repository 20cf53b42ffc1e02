"""`service.api.current`: the request's objects without Flask's proxies."""

from __future__ import annotations

from flask import Flask, current_app, g, request

from service.api import current


def test_the_objects_are_those_the_proxies_stand_for(app: Flask) -> None:
    with app.test_request_context("/games/x", headers={"Authorization": "Bearer t"}):
        assert current.current_request() is request._get_current_object()  # type: ignore[attr-defined]
        assert current.current_app_object() is current_app._get_current_object()  # type: ignore[attr-defined]
        assert current.current_g() is g._get_current_object()
        assert current.environ()["HTTP_AUTHORIZATION"] == "Bearer t"
        current.current_g().seen = 1
        assert g.seen == 1


def test_outside_a_request_flask_says_so(app: Flask) -> None:
    import pytest

    for read in (current.current_request, current.current_app_object, current.current_g):
        with pytest.raises(RuntimeError, match="outside of"):
            read()
    with app.app_context():
        assert current.current_app_object() is app
        with pytest.raises(RuntimeError, match="outside of request context"):
            current.current_request()
