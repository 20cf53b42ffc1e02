"""Speed: the current request, app and `g` without Flask's context proxies.

Why (the measurement): an attribute read through `flask.request`, `flask.g` or
`flask.current_app` (Werkzeug's `LocalProxy`) first fails the ordinary lookup
on the proxy itself, for which Python formats an `AttributeError` message,
and is then forwarded by Python-level code: about eight times a plain
attribute read (in-process, 1.9 µs against 0.25 µs on a loaded machine;
valgrind showed 46 such failed lookups per move against 45 per `/healthz`
counting instructions). The service's own code on a game's request path read
through the proxies some 25 times a move and 15 times a view. Measured with
`bench/wsgi_calls.py` (docs/performance.md, "What a move costs").

The one seam: the game requests' path (views, listings, moves, and the
limiter's and request log's steps that only they take) asks these functions
for the objects once and reads them directly; `LocalProxy._get_current_object`
is Werkzeug's documented way to the proxied object. Hooks every request runs
(the request log's, the metrics', the security headers) keep the proxies.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Request, current_app, g, request
from flask.ctx import _AppCtxGlobals

# No `typing.cast` here: it is a function call of its own, and these run a
# few dozen times a move.


def current_request() -> Request:
    """The request being handled (`flask.request`'s object)."""
    found: Request = request._get_current_object()  # type: ignore[attr-defined]
    return found


def current_app_object() -> Flask:
    """The app handling the request (`flask.current_app`'s object)."""
    found: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    return found


def current_g() -> _AppCtxGlobals:
    """The request's `flask.g` object."""
    found: _AppCtxGlobals = g._get_current_object()
    return found


def environ() -> dict[str, Any]:
    """The WSGI environ of the request being handled."""
    return current_request().environ
