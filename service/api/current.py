"""The current request, app and `g` of the request path, through Flask's public objects.

One place names them for the request path's readers (views, listings, moves,
and the hooks every request runs), and none of them reaches past Flask's
documented objects: `flask.request`, `flask.current_app` and `flask.g`, which
stand for the objects of the request being handled. Outside a request (or an
app context) each raises Flask's own `RuntimeError`.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Request, current_app, g, has_app_context, has_request_context, request

_OUTSIDE_REQUEST = "Working outside of request context."
_OUTSIDE_APP = "Working outside of application context."


def current_request() -> Request:
    """The request being handled (`flask.request`)."""
    if not has_request_context():
        raise RuntimeError(_OUTSIDE_REQUEST)
    return request


def current_app_object() -> Flask:
    """The app handling the request (`flask.current_app`)."""
    if not has_app_context():
        raise RuntimeError(_OUTSIDE_APP)
    return current_app


def current_g() -> Any:
    """The request's `flask.g` (its attributes are the app's own, untyped)."""
    if not has_app_context():
        raise RuntimeError(_OUTSIDE_APP)
    return g


def environ() -> dict[str, Any]:
    """The WSGI environ of the request being handled."""
    return current_request().environ
