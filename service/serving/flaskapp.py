"""The Flask class of the service: Flask, minus work it repeats on every request.

Speed, measured with valgrind on ``bench/wsgi_calls.py`` (docs/performance.md,
"What every request costs"); the one seam is the class, which `create_app`
builds the app from. Each override does what Flask 3.1's method does, in the
same order, with the same hooks and signals:

- `ensure_sync` keeps its answer per plain function (Flask asks it about
  every hook and view of a request, and each answer walked
  `inspect.iscoroutinefunction`).
- `preprocess_request`, `dispatch_request`, `process_response` and
  `do_teardown_request` read the request context once from Flask's context
  variable instead of through the `flask.request` and `flask.request_ctx`
  proxies (each read through a proxy fails the ordinary lookup first, for
  which Python formats an `AttributeError`: several times a plain read; see
  `service.http.current`).
- Sessions: the service sets no ``SECRET_KEY``, so Flask opened no session
  and made a new `NullSession` for every request, and checked it after the
  answer. `NoSessions` hands every request of an app without a secret key one
  shared `NullSession`, which refuses every change as each new one did; an app
  given a secret key gets Flask's signed cookie sessions as before.
- `url_map_class`: a game path's route is remembered after its first match
  (`service.serving.routematch`).
- `request_class` reads a plain JSON body in one call (`service.serving.bodies`),
  `response_class` builds a JSON answer of bytes directly (`service.serving.answers`).

One override is not for speed: `raise_routing_exception` answers 404 where
Werkzeug's routing would redirect (``/games//x`` to ``/games/x``, its
``merge_slashes``): Werkzeug builds that redirect's ``Location`` from the
request's ``Host`` header, which the client chooses (docs/security.md).
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from itertools import chain
from typing import Any, NoReturn

from flask import Flask, Request, Response
from flask import typing as ft
from flask.globals import _cv_request
from flask.sessions import NullSession, SecureCookieSession, SecureCookieSessionInterface
from flask.signals import request_tearing_down
from werkzeug.exceptions import NotFound
from werkzeug.routing import RequestRedirect

from service.serving.answers import ServiceResponse
from service.serving.bodies import ServiceRequest
from service.serving.routematch import ServiceMap

_sentinel: Any = object()


class NoSessions(SecureCookieSessionInterface):
    """Flask's cookie sessions, with one shared `NullSession` for every
    request of an app without a secret key (see the module docstring)."""

    def __init__(self) -> None:
        self.null_session = NullSession()

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        """The shared null session without a secret key, else Flask's session."""
        if not app.secret_key:
            return self.null_session
        return super().open_session(app, request)


class ServiceFlask(Flask):
    """`Flask` with the per-request shortcuts of the module docstring."""

    session_interface = NoSessions()
    url_map_class = ServiceMap
    request_class = ServiceRequest
    response_class = ServiceResponse

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._is_coroutine: dict[Callable[..., Any], bool] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """`Flask.ensure_sync`, with the answer kept per plain function."""
        if self._is_coroutine.get(func) is False:  # a plain function seen before
            return func
        # A bound method is a new object on every access: key on its function.
        target = getattr(func, "__func__", func)
        if not inspect.isfunction(target):
            return super().ensure_sync(func)
        is_coroutine = self._is_coroutine.get(target)
        if is_coroutine is None:
            is_coroutine = self._is_coroutine[target] = inspect.iscoroutinefunction(func)
        return self.async_to_sync(func) if is_coroutine else func

    def preprocess_request(self) -> ft.ResponseReturnValue | None:
        """`Flask.preprocess_request`: the URL value preprocessors, then the
        before-request hooks, the app's first, then the blueprints'."""
        req = _cv_request.get().request
        names = (None, *reversed(req.blueprints))
        for name in names:
            if name in self.url_value_preprocessors:
                for url_func in self.url_value_preprocessors[name]:
                    url_func(req.endpoint, req.view_args)
        for name in names:
            if name in self.before_request_funcs:
                for before_func in self.before_request_funcs[name]:
                    rv = self.ensure_sync(before_func)()
                    if rv is not None:
                        return rv  # type: ignore[no-any-return]
        return None

    def raise_routing_exception(self, request: Request) -> NoReturn:
        """Flask's, with a routing redirect answered 404 (its ``Location`` would be
        built from the ``Host`` header)."""
        if isinstance(request.routing_exception, RequestRedirect):
            raise NotFound()
        super().raise_routing_exception(request)

    def dispatch_request(self) -> ft.ResponseReturnValue:
        """`Flask.dispatch_request`: the matched view's answer (or the routing
        error, or the automatic ``OPTIONS`` answer)."""
        req = _cv_request.get().request
        if req.routing_exception is not None:
            self.raise_routing_exception(req)
        rule = req.url_rule
        if getattr(rule, "provide_automatic_options", False) and req.method == "OPTIONS":
            return self.make_default_options_response()
        view_args: dict[str, Any] = req.view_args  # type: ignore[assignment]
        return self.ensure_sync(self.view_functions[rule.endpoint])(**view_args)  # type: ignore[union-attr,no-any-return]

    def process_response(self, response: Response) -> Response:
        """`Flask.process_response`: the context's after-this-request
        functions, then the after-request hooks, the blueprints' first, each
        list in reverse order of registration; then the session is saved."""
        ctx = _cv_request.get()
        for func in ctx._after_request_functions:
            response = self.ensure_sync(func)(response)
        for name in chain(ctx.request.blueprints, (None,)):
            if name in self.after_request_funcs:
                for func in reversed(self.after_request_funcs[name]):
                    response = self.ensure_sync(func)(response)
        if not self.session_interface.is_null_session(ctx._session):
            self.session_interface.save_session(self, ctx._session, response)  # type: ignore[arg-type]
        return response

    def do_teardown_request(self, exc: BaseException | None = _sentinel) -> None:
        """`Flask.do_teardown_request`: the teardown hooks, the blueprints'
        first, then the `request_tearing_down` signal."""
        if exc is _sentinel:
            exc = sys.exc_info()[1]
        for name in chain(_cv_request.get().request.blueprints, (None,)):
            if name in self.teardown_request_funcs:
                for func in reversed(self.teardown_request_funcs[name]):
                    self.ensure_sync(func)(exc)
        request_tearing_down.send(self, _async_wrapper=self.ensure_sync, exc=exc)
