"""Prometheus metrics of the service and the ``/metrics`` endpoint.

The counters are process-wide. Under gunicorn with several workers the
``PROMETHEUS_MULTIPROC_DIR`` variable (see :mod:`service.serving.multiproc`)
makes each worker write its values to a file and ``/metrics`` sums them all,
so a scrape answered by any worker reports the whole server.

Moves are counted by the move handler, from its answer
(:func:`record_move_answer`); store latency, compare-and-set conflicts and
created and finished games are measured by wrapping the store once at
start-up (:mod:`service.ops.store_metrics`). Each record is a dictionary
lookup and an increment: microseconds.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any, Final, TypeVar

import orjson
from flask import Flask, Response, abort, current_app, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
)

from service.http.current import current_g, current_request
from service.serving.hotmetrics import HotCounter, HotHistogram
from service.serving.multiproc import ENV_VAR

# No `*_created` series: they double the output and multi-process mode has none.
disable_created_metrics()  # type: ignore[no-untyped-call]

#: The metrics of this module live here (not in prometheus_client's global
#: registry) so importing the module twice in tests cannot clash.
REGISTRY: Final = CollectorRegistry(auto_describe=True)

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_STORE_BUCKETS = (0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)

_REQUEST_LABELS = ("method", "route", "status")
HTTP_REQUEST_DURATION: Final = Histogram(
    "rummy_http_request_duration_seconds",
    "Time to answer an HTTP request, by method, route template and status.",
    _REQUEST_LABELS,
    buckets=_LATENCY_BUCKETS,
    registry=REGISTRY,
)
_MOVE_LABELS = ("type", "result", "code")
MOVES: Final = Counter(
    "rummy_moves",
    "Move requests by move type and result (applied, replayed, refused, stale, "
    "failed) and, for refused moves, the rule's code.",
    _MOVE_LABELS,
    registry=REGISTRY,
)
CAS_CONFLICTS: Final = Counter(
    "rummy_store_cas_conflicts",
    "Saves that lost a compare-and-set race (the game had moved on).",
    registry=REGISTRY,
)
STORE_DURATION: Final = Histogram(
    "rummy_store_operation_duration_seconds",
    "Time of one store operation (a Redis round trip for the Redis store).",
    ["operation"],
    buckets=_STORE_BUCKETS,
    registry=REGISTRY,
)
# What every request or move records goes through `service.serving.hotmetrics`
# (no prometheus_client lock per increment); the rest through the metrics.
_REQUEST_DURATIONS: Final = HotHistogram(HTTP_REQUEST_DURATION, _REQUEST_LABELS, _LATENCY_BUCKETS)
_MOVE_COUNTS: Final = HotCounter(MOVES, _MOVE_LABELS)
#: The store's duration children by operation (`service.ops.store_metrics`).
STORE_DURATIONS: Final = HotHistogram(STORE_DURATION, ["operation"], _STORE_BUCKETS)
STORE_ERRORS: Final = Counter(
    "rummy_store_errors",
    "Store operations that failed (the store was unreachable).",
    ["operation"],
    registry=REGISTRY,
)
GAMES_CREATED: Final = Counter("rummy_games_created", "Games created.", registry=REGISTRY)
GAMES_FINISHED: Final = Counter(
    "rummy_games_finished", "Games that reached their end.", registry=REGISTRY
)
RATE_LIMITED: Final = Counter(
    "rummy_rate_limited",
    "Requests answered 429, by the limit that refused them (token or address).",
    ["scope"],
    registry=REGISTRY,
)

#: Label value for requests that matched no route (404s) and for methods
#: outside `KNOWN_METHODS`: labels come from fixed sets, so that random paths
#: and method names cannot create new series.
OTHER: Final = "other"
UNMATCHED_ROUTE: Final = OTHER
#: Methods counted under their own name; any other is counted as `OTHER`.
KNOWN_METHODS: Final = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

#: Request-duration children by (method, route, status), the status an int
#: as the response holds it. Every label comes from a fixed set, so this
#: stays small.
_request_children: dict[tuple[str, str, int], Any] = {}


def record_move(move_type: str, result: str, code: str = "") -> None:
    """Count one move request.

    ``move_type`` is the move's ``type`` (``"actions"`` for a batch),
    ``result`` one of ``"applied"``, ``"replayed"`` (an idempotent retry),
    ``"refused"`` (a rule forbade it; give its ``code``), ``"stale"``
    (``If-Match`` no longer matched) or ``"failed"`` (give the HTTP status).
    """
    _MOVE_COUNTS.labels(move_type, result, code).inc()


def record_rate_limited(scope: str) -> None:
    """Count one request refused by the ``scope`` rate limit."""
    RATE_LIMITED.labels(scope).inc()


T = TypeVar("T")


def timed(operation: str, call: Callable[[], T]) -> T:
    """Run ``call()``, recording its duration (and a failure) under ``operation``."""
    start = time.perf_counter()
    try:
        return call()
    except Exception:
        STORE_ERRORS.labels(operation).inc()
        raise
    finally:
        STORE_DURATION.labels(operation).observe(time.perf_counter() - start)


def render() -> tuple[bytes, str]:
    """The Prometheus text exposition of every metric, and its content type.

    In multi-process mode the values of every worker (alive or exited) are
    read from ``PROMETHEUS_MULTIPROC_DIR`` and summed.
    """
    if os.environ.get(ENV_VAR):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def local_port() -> int | None:
    """The port of this server that the current request arrived on (the
    listening socket's, not the client's ``Host`` header), if known."""
    sock = request.environ.get("gunicorn.socket")
    if sock is not None:
        try:
            return int(sock.getsockname()[1])
        except (OSError, IndexError, TypeError, ValueError):
            return None
    port = request.environ.get("SERVER_PORT")  # a development or test server's
    return int(port) if port and str(port).isdigit() else None


def metrics_view() -> Response:
    """``GET /metrics``: the Prometheus text format; with ``METRICS_PORT`` set,
    only on that port (404 on the service's own)."""
    metrics_port = int(current_app.config.get("METRICS_PORT") or 0)
    if metrics_port and local_port() != metrics_port:
        abort(404)
    body, content_type = render()
    return Response(body, status=200, headers={"Content-Type": content_type})


# The hooks run on every request: they take `g` and the request once (no
# context proxies, see `service.http.current`), and read `g`'s attributes from
# its `__dict__`, which is all `g.get` does, without the call.


def _start_timer() -> None:
    current_g().metrics_start = time.perf_counter()


def _observe_request(response: Response) -> Response:
    values = current_g().__dict__
    start = values.get("metrics_start")
    if start is not None:
        current = current_request()
        rule = current.url_rule
        route = rule.rule if rule is not None else UNMATCHED_ROUTE
        method = current.method
        if method not in KNOWN_METHODS:
            method = OTHER
        key = (method, route, response.status_code)
        child = _request_children.get(key)
        if child is None:
            child = _request_children[key] = _REQUEST_DURATIONS.labels(method, route, str(key[2]))
        child.observe(time.perf_counter() - start)
    return response


def record_move_answer(move_type: str, response: Response) -> None:
    """Count a move request by its answer: 200 applied (or replayed, for an
    ``Idempotency-Key`` retry), 409 refused with the problem's code, 412 stale,
    anything else ``failed`` with the status as code."""
    status = response.status_code
    if status == 200:
        replayed = _first_header(response, "idempotency-replayed") == "true"
        record_move(move_type, "replayed" if replayed else "applied")
    elif status == 409:
        record_move(move_type, "refused", _problem_code(response))
    elif status == 412:
        record_move(move_type, "stale")
    else:
        record_move(move_type, "failed", str(status))


def _first_header(response: Response, lower_name: str) -> str | None:
    """``response.headers.get(name)``: the first value of a header named
    ``lower_name`` in any case, or ``None``. A loop over the headers: `get` of
    a header an answer lacks raises and catches Werkzeug's `KeyError`, more
    than twice the loop's cost (valgrind; docs/performance.md, "What every
    request costs", has the figures), and an applied move lacks it."""
    size = len(lower_name)
    for name, value in response.headers:
        # The length first: most names differ in it, and `lower` makes a string.
        if len(name) == size and name.lower() == lower_name:
            return value
    return None


def _problem_code(response: Response) -> str:
    try:
        body = orjson.loads(response.get_data())
    except orjson.JSONDecodeError:
        return "unknown"
    code = body.get("code") if isinstance(body, dict) else None
    return code if isinstance(code, str) else "unknown"


def init_app(app: Flask, *, endpoint: bool = True) -> None:
    """Measure every request of ``app``; serve ``GET /metrics`` unless ``endpoint``
    is false or the app already routes ``/metrics`` (an API view documenting
    it in the OpenAPI spec, which then returns :func:`metrics_view`)."""
    app.before_request_funcs.setdefault(None, []).insert(0, _start_timer)
    app.after_request(_observe_request)
    declared = any(rule.rule == "/metrics" for rule in app.url_map.iter_rules())
    if endpoint and not declared:
        app.add_url_rule("/metrics", "metrics", metrics_view, methods=["GET"])
