"""JSON in and out with orjson: the Flask JSON provider and request bodies."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Flask, Response
from flask.globals import _cv_app, _cv_request
from flask.json.provider import JSONProvider
from werkzeug.exceptions import RequestEntityTooLarge

from service.api.bodyread import JSON_MIMETYPE, plain_json_body
from service.api.current import current_g, current_request
from service.api.leanresponse import json_answer
from service.api.problems import Problem


class OrjsonProvider(JSONProvider):
    """Flask's `app.json` backed by orjson (fast, strict UTF-8)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        """Serialise to a `str`; `indent` gives a two-space indented document."""
        option = orjson.OPT_NON_STR_KEYS
        if kwargs.get("indent"):
            option |= orjson.OPT_INDENT_2
        if kwargs.get("sort_keys"):
            option |= orjson.OPT_SORT_KEYS
        return orjson.dumps(obj, option=option).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        """Parse JSON text."""
        return orjson.loads(s)

    def response(self, *args: Any, **kwargs: Any) -> Response:
        """A JSON response of the given object (as `flask.jsonify`)."""
        obj = self._prepare_response_obj(args, kwargs)
        return Response(orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS), mimetype=JSON_MIMETYPE)


def json_response(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response built directly from plain data (the hot path: no schema dump)."""
    return raw_json_response(orjson.dumps(obj), status, headers)


def raw_json_response(
    body: bytes, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """A JSON response from already serialised bytes (idempotent replays, listings).

    `headers` are added, not set: they are the answer's own (`ETag`, `Vary`,
    `Location`…), never the `Content-Type` or `Content-Length` made here, so
    no search for an earlier value is needed.
    """
    return json_answer(body, status, headers)


_NO_BODY = object()


def request_body() -> Any:
    """The request's JSON body, parsed once per request with orjson.

    Answers 415 for a body that is not JSON, 413 for one over
    `MAX_CONTENT_LENGTH` (raised by Werkzeug while reading, or here for a
    chunked body) and 400 for
    malformed JSON (too deep nesting included). An empty body is `None`.
    """
    # The contexts read once, `g`'s attributes in its `__dict__` (as its
    # `get` and `__setattr__` do), without `current.*`'s calls: a move's own path.
    try:
        app_context, request = _cv_app.get(), _cv_request.get().request
    except LookupError:  # outside a request: Flask's own RuntimeError
        current_request()
        raise
    context = app_context.g.__dict__
    cached = context.get("json_body", _NO_BODY)
    if cached is not _NO_BODY:
        return cached
    limit = app_context.app.config.get("MAX_CONTENT_LENGTH")
    plain = plain_json_body(request.environ, limit)
    if plain is not None:
        data = request._cached_data = plain  # as `get_data` keeps it, for any later reader
    else:
        data = request.get_data(cache=True)
        # A chunked body is cut at the limit by Werkzeug without a word: one byte
        # more in the server's stream means it was longer (413, not a silently
        # truncated body).
        if (
            request.content_length is None
            and limit is not None
            and len(data) >= limit
            and request.environ["wsgi.input"].read(1)
        ):
            raise RequestEntityTooLarge()
    if not data:
        context["json_body"] = None
        return None
    if plain is None and not request.is_json:
        raise Problem(
            415,
            "unsupported_media_type",
            "The request body must be JSON (Content-Type: application/json).",
        )
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise Problem(400, "invalid_json", f"The request body is not valid JSON: {exc}") from None
    context["json_body"] = body
    context["json_data"] = data
    return body


def request_data() -> bytes | None:
    """The bytes `request_body` parsed (`None` before it did, or for an empty body)."""
    try:
        values = _cv_app.get().g.__dict__  # `g`'s attributes, without `current_g`'s call
    except LookupError:  # outside a request: Flask's own RuntimeError
        values = current_g().__dict__
    data: bytes | None = values.get("json_data")
    return data


def install(app: Flask) -> None:
    """Make orjson the app's JSON provider."""
    app.json_provider_class = OrjsonProvider
    app.json = OrjsonProvider(app)
