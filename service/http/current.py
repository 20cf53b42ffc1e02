"""The current request, app and `g` of the request path, read once per reader.

An attribute read through `flask.request`, `flask.g` or `flask.current_app`
(Werkzeug's `LocalProxy`) is forwarded by Python-level code on every read,
several times a plain read; the request path's readers (views, listings,
moves, the hooks every request runs) read many attributes. So they ask these
functions for the objects once and read them directly. The objects come from
`LocalProxy._get_current_object`, the documented way to the object a proxy
stands for (Flask's "Notes On Proxies"); outside a request (or an app
context) it raises Flask's own `RuntimeError`.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Request, current_app, g, request


def current_request() -> Request:
    """The request being handled (`flask.request`'s object)."""
    found: Request = request._get_current_object()  # type: ignore[attr-defined]
    return found


def current_app_object() -> Flask:
    """The app handling the request (`flask.current_app`'s object)."""
    found: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    return found


def current_g() -> Any:
    """The request's `flask.g` object (its attributes are the app's own, untyped)."""
    return g._get_current_object()


def environ() -> dict[str, Any]:
    """The WSGI environ of the request being handled."""
    return current_request().environ
