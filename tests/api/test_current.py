"""`service.http.current`: the request's objects, Flask's own."""

from __future__ import annotations

import pytest
from flask import Flask, g

from service.http import current


def test_the_objects_are_the_requests(app: Flask) -> None:
    with app.test_request_context("/games/x", headers={"Authorization": "Bearer t"}):
        assert current.current_request().path == "/games/x"
        assert current.current_app_object().config is app.config
        assert current.environ()["HTTP_AUTHORIZATION"] == "Bearer t"
        current.current_g().seen = 1
        assert g.seen == 1


def test_outside_a_request_flask_says_so(app: Flask) -> None:
    for read in (current.current_request, current.current_app_object, current.current_g):
        with pytest.raises(RuntimeError, match="outside of"):
            read()
    with app.app_context():
        assert current.current_app_object().config is app.config
        with pytest.raises(RuntimeError, match="outside of request context"):
            current.current_request()
