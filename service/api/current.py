"""Speed: the current request, app and `g` without Flask's context proxies.

Why (the measurement): an attribute read through `flask.request`, `flask.g` or
`flask.current_app` (Werkzeug's `LocalProxy`) first fails the ordinary lookup
on the proxy itself, for which Python formats an `AttributeError` message,
and is then forwarded by Python-level code: several times a plain
attribute read. The service's own code on a game's request path read through
the proxies many times a request. Measured with `bench/wsgi_calls.py` under
valgrind (docs/performance.md, "What a move costs" and "What every request
costs", have the figures).

The one seam: the request path (views, listings, moves, and the hooks every
request runs: the request log's, the metrics', the limiter's, the security
headers') asks these functions for the objects once and reads them directly.
They read the context variables that Flask's proxies themselves read
(`flask.globals._cv_request` and `_cv_app`, Flask 2.3 and later), a fraction
of the cost of `LocalProxy._get_current_object` (Werkzeug's documented way to
the proxied object, still taken outside a context, for Flask's own error).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Request, current_app, g, request
from flask.ctx import _AppCtxGlobals
from flask.globals import _cv_app, _cv_request

# No `typing.cast` here: it is a function call of its own, and these run a
# few dozen times a move.


def current_request() -> Request:
    """The request being handled (`flask.request`'s object)."""
    try:
        return _cv_request.get().request
    except LookupError:  # outside a request: Flask's own RuntimeError
        found: Request = request._get_current_object()  # type: ignore[attr-defined]
        return found


def current_app_object() -> Flask:
    """The app handling the request (`flask.current_app`'s object)."""
    try:
        return _cv_app.get().app
    except LookupError:
        found: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
        return found


def current_g() -> _AppCtxGlobals:
    """The request's `flask.g` object."""
    try:
        return _cv_app.get().g
    except LookupError:
        found: _AppCtxGlobals = g._get_current_object()
        return found


def environ() -> dict[str, Any]:
    """The WSGI environ of the request being handled."""
    return current_request().environ
