"""Speed: the hot operations' views called straight from their routes.

Why (the measurement): through a `MethodView`'s route, Flask's view function
makes an instance of the class per request and calls its
`dispatch_request`, which finds the method by the request's and calls it,
each step reading `flask.request` or `flask.current_app` through Werkzeug's
proxies: a share of a view's and a legal-moves list's CPU worth keeping
(docs/performance.md, the A/B table).

The one seam: `dispatch_hot_operations(app)`, called by the app factory once
the blueprints are registered. For each of `HOT_OPERATIONS` it routes that
method of the route to the class's method *as decorated*, bound to one
instance made here: every decorator on the method (flask-smorest's
`arguments` parsing the body into the view's argument, its `response`, any
decorator added later) runs on every request, exactly as through the class.
Any other method of the route (``HEAD``, ``DELETE``…) takes the class's way.
The classes keep no state per instance (the service's views are plain
functions of the request), which is what lets one instance serve them all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask, Response
from flask.globals import _cv_request

#: (endpoint, method) of the operations called straight from their routes: a
#: move, a seat's view and a legal-moves list.
HOT_OPERATIONS: tuple[tuple[str, str], ...] = (
    ("moves.Moves", "POST"),
    ("games.Game", "GET"),
    ("moves.LegalMoves", "GET"),
)


def dispatch_directly(app: Flask, endpoint: str, method: str) -> None:
    """Answer `method` requests of the `MethodView` route `endpoint` by
    calling the class's decorated method (see the module docstring)."""
    through_class: Any = app.view_functions[endpoint]
    decorated: Callable[..., Response] = getattr(through_class.view_class(), method.lower())

    def view(**values: Any) -> Response:
        # The request's method read from Flask's context variable, not its proxy.
        if _cv_request.get().request.environ["REQUEST_METHOD"] == method:
            return decorated(**values)
        return through_class(**values)  # type: ignore[no-any-return]

    view.__name__ = through_class.__name__
    view.__doc__ = through_class.__doc__
    view.view_class = through_class.view_class  # type: ignore[attr-defined]
    view.through_class = through_class  # type: ignore[attr-defined]
    app.view_functions[endpoint] = view


def dispatch_hot_operations(app: Flask) -> None:
    """Call each of `HOT_OPERATIONS` straight from its route."""
    for endpoint, method in HOT_OPERATIONS:
        dispatch_directly(app, endpoint, method)
