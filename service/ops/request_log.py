"""One structured JSON log line per request, and the ``X-Request-ID`` header.

Each line carries the request id (the client's ``X-Request-ID`` when it is a
sane token, else a fresh one; echoed in the response), method, route template,
path, status and duration, and — where the request has them — the game id,
the seat and the move type. Views add fields with :func:`annotate`.

Nothing from the request headers or body is logged apart from the request id:
seat tokens travel only in ``Authorization`` and so never reach the log.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import time
from datetime import UTC, datetime
from typing import Any, Final

import orjson
from flask import Flask, Response, has_request_context

from service.http.current import current_g, current_request
from service.ops import linewriter

#: The logger of the request lines; its records are complete JSON documents.
logger: Final = logging.getLogger("service.access")

REQUEST_ID_HEADER: Final = "X-Request-ID"
#: A client's request id is kept only if it is short and plain (no spaces,
#: quotes or control characters), so it cannot forge or break a log line.
_SAFE_ID: Final = re.compile(r"[A-Za-z0-9._:\-]{1,128}")

#: Fields a view may add with :func:`annotate`.
ANNOTATIONS: Final = frozenset({"game_id", "seat", "move_type", "result", "code"})


def annotate(**fields: Any) -> None:
    """Add fields (``seat=0``, ``move_type="discard"``…) to this request's log line."""
    if not fields.keys() <= ANNOTATIONS:
        raise ValueError(f"not a request log field: {sorted(fields.keys() - ANNOTATIONS)}")
    if not has_request_context():
        return  # called outside a request (a unit test): nothing to log
    values = current_g().__dict__
    extra = values.get("log_fields")
    if extra is None:
        values["log_fields"] = fields  # the keyword arguments' own dict
    else:
        extra.update(fields)


def request_id() -> str:
    """The id of the current request (after :func:`init_app`'s hook has run)."""
    rid = current_g().get("request_id")
    return rid if isinstance(rid, str) else ""


def new_request_id() -> str:
    """A fresh request id: a random (version 4) UUID's 32 hex digits, as
    ``uuid.uuid4().hex`` gives, without building a `uuid.UUID`."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # the version
    raw[8] = raw[8] & 0x3F | 0x80  # the variant
    return raw.hex()


#: The last second a line was stamped with, and its text (one tuple, replaced
#: whole, so that threads never pair a second with another's text).
_last_second: list[tuple[int, str]] = [(-1, "")]


def timestamp() -> str:
    """Now as ``datetime.now(UTC).isoformat(timespec="milliseconds")`` gives
    it (``2026-12-02T02:48:23.123+00:00``), the date and time formatted once
    per second: formatting a `datetime` was a large share of a line's cost
    (valgrind; docs/performance.md, "What every request costs", has the figures)."""
    second, nanos = divmod(time.time_ns(), 1_000_000_000)
    cached = _last_second[0]
    if cached[0] != second:
        text = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        cached = _last_second[0] = (second, text)
    return f"{cached[1]}.{nanos // 1_000_000:03d}+00:00"


# The hooks run on every request: they take the request and `g` once (no
# context proxies, see `service.http.current`) and read the header from the
# WSGI environ (`X-Request-ID` is `HTTP_X_REQUEST_ID` there).


def _begin() -> None:
    context = current_g()
    context.log_start = time.perf_counter()
    given = current_request().environ.get("HTTP_X_REQUEST_ID")
    context.request_id = given if given and _SAFE_ID.fullmatch(given) else new_request_id()


def _finish(response: Response) -> Response:
    values = current_g().__dict__  # `g.get` reads it, with a call of its own
    rid = values.get("request_id") or new_request_id()
    # Added, not set (which first looks for the name among the headers): only
    # this hook writes the header.
    response.headers.add(REQUEST_ID_HEADER, rid)
    if not logger.isEnabledFor(logging.INFO):
        return response
    current = current_request()
    start = values.get("log_start")
    rule = current.url_rule
    line: dict[str, Any] = {
        "ts": timestamp(),
        "event": "request",
        "request_id": rid,
        "method": current.method,
        "route": rule.rule if rule is not None else None,
        "path": current.path,
        "status": response.status_code,
        "duration_ms": round((time.perf_counter() - start) * 1000, 3) if start else None,
    }
    view_args = current.view_args
    if view_args:
        game_id = view_args.get("game_id")
        if game_id is not None:
            line["game_id"] = game_id
    extra = values.get("log_fields")
    if extra:
        line.update(extra)
    linewriter.write(logger, orjson.dumps(line).decode())
    return response


def configure_logging(level: str = "INFO") -> None:
    """Send the request lines, bare, to stderr (once per process)."""
    if not any(getattr(h, "_rummy_access", False) for h in logger.handlers):
        handler = linewriter.LineHandler(sys.stderr)
        handler._rummy_access = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
    logger.setLevel(level.upper())
    logger.propagate = False


def init_app(app: Flask) -> None:
    """Log every request of ``app`` and give each an ``X-Request-ID``.

    Settings: ``ACCESS_LOG`` (default on) and ``LOG_LEVEL`` (default ``INFO``;
    ``WARNING`` silences the request lines).
    """
    # First of all before-request hooks, so that requests refused by a later
    # hook (rate limit, content type) still get an id and a duration.
    app.before_request_funcs.setdefault(None, []).insert(0, _begin)
    app.after_request(_finish)
    if app.config.get("ACCESS_LOG", True):
        configure_logging(str(app.config.get("LOG_LEVEL", "INFO")))
    else:
        logger.setLevel(logging.WARNING)
