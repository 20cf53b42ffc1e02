"""Each speed module switched off, for a same-run A/B (`bench.ab`).

`switch_off(name)` puts the plain framework (or plain Python) path in place of
one speed module, in this process, before the app is built: run it before any
``service`` module is imported. Each entry names the module it measures.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any


def _dispatch() -> None:
    import service.serving.dispatch

    service.serving.dispatch.dispatch_hot_operations = lambda app: None


def _bodyread() -> None:
    from flask import Request

    from service.serving.flaskapp import ServiceFlask

    ServiceFlask.request_class = Request


def _leanresponse() -> None:
    from flask import Response

    from service.serving.flaskapp import ServiceFlask

    ServiceFlask.response_class = Response


def _routematch() -> None:
    from werkzeug.routing import Map

    from service.serving.flaskapp import ServiceFlask

    ServiceFlask.url_map_class = Map


def _flaskapp() -> None:
    from flask.sessions import SecureCookieSessionInterface

    from service.serving.flaskapp import ServiceFlask

    for name in (
        "ensure_sync",
        "preprocess_request",
        "dispatch_request",
        "process_response",
        "do_teardown_request",
    ):
        delattr(ServiceFlask, name)
    ServiceFlask.session_interface = SecureCookieSessionInterface()


def _doc_only() -> None:
    import service.serving.doconly

    service.serving.doconly.doc_only = lambda decorator: decorator


def _viewcache() -> None:
    import service.games.viewcache
    from service.rules import views

    service.games.viewcache.public_view = lambda game_id, state: views.public_view(state)


def _identity() -> None:
    import service.rules.identity

    def by_identity(size: int) -> Callable[[Any], Any]:
        def decorate(function: Any) -> Any:
            def plain(*args: Any) -> Any:
                return function(*args)

            plain.kept = {}  # type: ignore[attr-defined]
            plain.__wrapped__ = function  # type: ignore[attr-defined]
            return plain

        return decorate

    service.rules.identity.by_identity = by_identity


def _seatviews() -> None:
    import service.rules.views

    class Never(dict):  # type: ignore[type-arg]
        def get(self, key: Any, default: Any = None) -> Any:
            return default

        def __setitem__(self, key: Any, value: Any) -> None:
            pass

    never = Never()
    import service.rules.seatviews

    service.rules.seatviews.SEAT_VIEWS = never
    service.rules.views.SEAT_VIEWS = never


def _evolve() -> None:
    import service.rules.evolve

    service.rules.evolve.evolve = lambda obj, **changes: dataclasses.replace(obj, **changes)


def _linewriter() -> None:
    import service.ops.linewriter

    service.ops.linewriter.write = lambda logger, line: logger.info(line)


def _hotmetrics() -> None:
    import service.serving.hotmetrics

    service.serving.hotmetrics.HotHistogram = lambda metric, labelnames, buckets: metric
    service.serving.hotmetrics.HotCounter = lambda metric, labelnames: metric


def _gc_tuning() -> None:
    import service.serving.gc_tuning

    service.serving.gc_tuning.tune_gc_for_serving = lambda: None


def _leancall() -> None:
    from service.serving import leancall

    leancall.LeanConnections = lambda client, pipelining: leancall.ClientCommands(client)


def _pipelining() -> None:
    os.environ["STORE_PIPELINING"] = "0"


#: name → (module measured, how to switch it off). Switches that change what is
#: imported run before the app's modules are (see `early`).
SWITCHES: dict[str, tuple[str, Callable[[], None]]] = {
    "dispatch": ("serving/dispatch.py", _dispatch),
    "bodyread": ("serving/bodies.py", _bodyread),
    "leanresponse": ("serving/answers.py", _leanresponse),
    "routematch": ("serving/routematch.py", _routematch),
    "flaskapp": ("serving/flaskapp.py (overrides)", _flaskapp),
    "doc_only": ("serving/doconly.py", _doc_only),
    "viewcache": ("api/viewcache.py", _viewcache),
    "identity": ("rules/identity.py", _identity),
    "seatviews": ("rules/seatviews.py", _seatviews),
    "evolve": ("rules/evolve.py", _evolve),
    "linewriter": ("ops/linewriter.py", _linewriter),
    "hotmetrics": ("serving/hotmetrics.py", _hotmetrics),
    "gc_tuning": ("serving/gc_tuning.py", _gc_tuning),
    "leancall": ("serving/leancall.py (both arms unpipelined)", _leancall),
    "pipelining": ("serving/pipelining.py", _pipelining),
}


def switch_off(name: str) -> None:
    """Switch off the speed module `name` of `SWITCHES` in this process."""
    SWITCHES[name][1]()
