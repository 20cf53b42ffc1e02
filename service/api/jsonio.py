"""JSON in and out with orjson: the Flask JSON provider, request bodies and answers.

Only Flask's public objects are used here: the request's `get_data` and
`is_json`, the app's `response_class`. The app's classes are the service's
(`service.serving`), which read a plain JSON body and build a JSON answer on
shorter paths, behind those same calls.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Flask, Response
from flask.json.provider import JSONProvider
from werkzeug.exceptions import RequestEntityTooLarge

from service.http.current import current_app_object, current_g, current_request
from service.http.problems import Problem

#: The media type of the service's JSON bodies, asked and answered.
JSON_MIMETYPE = "application/json"


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
        """A JSON response of the given object (as `flask.jsonify`: one
        positional argument, several, or keyword arguments)."""
        if args and kwargs:
            raise TypeError("app.json.response() takes either args or kwargs, not both")
        obj: Any = args[0] if len(args) == 1 else (args or kwargs or None)
        return raw_json_response(orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS))


def json_response(obj: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response built directly from plain data (the hot path: no schema dump)."""
    return raw_json_response(orjson.dumps(obj), status, headers)


def raw_json_response(
    body: bytes, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """A JSON response from already serialised bytes, with the answer's own
    `headers` (`ETag`, `Vary`, `Location`…)."""
    answer: Response = current_app_object().response_class(
        body, status=status, mimetype=JSON_MIMETYPE, headers=headers
    )
    return answer


_NO_BODY = object()


def request_body() -> Any:
    """The request's JSON body, parsed once per request with orjson.

    Answers 415 for a body that is not JSON, 413 for one over
    `MAX_CONTENT_LENGTH` (raised by Werkzeug while reading, or here for a
    chunked body) and 400 for
    malformed JSON (too deep nesting included). An empty body is `None`.
    """
    values = current_g().__dict__
    cached = values.get("json_body", _NO_BODY)
    if cached is not _NO_BODY:
        return cached
    request = current_request()
    limit = request.max_content_length
    data = request.get_data(cache=True)
    # A chunked body is cut at the limit by Werkzeug without a word: one byte
    # more in the server's stream means it was longer (413, not a silently
    # truncated body).
    if (
        limit is not None
        and len(data) >= limit
        and request.content_length is None
        and request.environ["wsgi.input"].read(1)
    ):
        raise RequestEntityTooLarge()
    if not data:
        values["json_body"] = None
        return None
    # The plain media type without parsing it (`is_json` parses the header).
    if request.environ.get("CONTENT_TYPE") != JSON_MIMETYPE and not request.is_json:
        raise Problem(
            415,
            "unsupported_media_type",
            "The request body must be JSON (Content-Type: application/json).",
        )
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise Problem(400, "invalid_json", f"The request body is not valid JSON: {exc}") from None
    values["json_body"] = body
    return body


def install(app: Flask) -> None:
    """Make orjson the app's JSON provider."""
    app.json_provider_class = OrjsonProvider
    app.json = OrjsonProvider(app)
