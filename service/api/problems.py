"""RFC 9457 problem details: the one place that maps errors to answers.

Every error answer of the service is `application/problem+json` with `type`,
`title`, `status`, `detail` and a stable snake_case `code` (plus `errors` for
invalid fields). Views raise `Problem`; exceptions from the engine and the
store are mapped here; anything unexpected becomes a logged 500 problem.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

import orjson
from flask import Flask, Response, current_app
from werkzeug.exceptions import HTTPException

PROBLEM_MIMETYPE = "application/problem+json"
log = logging.getLogger(__name__)

#: The `code` of each HTTP error raised by Flask/Werkzeug rather than by a view.
HTTP_CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "version_mismatch",
    413: "body_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
    431: "headers_too_large",
    500: "internal_error",
    503: "service_unavailable",
}


class Problem(HTTPException):
    """An error answer with a stable `code`; raise it from a view."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        errors: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(description=detail)
        self.code = status
        self.problem_code = code
        self.errors = dict(errors) if errors is not None else None
        self.extra_headers = dict(headers or {})
        self.extra = dict(extra or {})

    @property
    def name(self) -> str:
        """The HTTP reason phrase (used as the problem's `title`)."""
        return _phrase(self.code or 500)


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def problem_response(
    status: int,
    code: str,
    detail: str,
    *,
    errors: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Response:
    """Build an `application/problem+json` response."""
    body: dict[str, Any] = {
        "type": f"https://rummy.example/problems/{code}",
        "title": _phrase(status),
        "status": status,
        "detail": detail,
        "code": code,
    }
    if errors is not None:
        body["errors"] = errors
    if extra:
        body.update(extra)
    response = Response(
        orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS), status=status, mimetype=PROBLEM_MIMETYPE
    )
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _flatten_messages(messages: Any) -> dict[str, Any]:
    """webargs nests messages by location (`json`, `query`…); drop that level."""
    if not isinstance(messages, Mapping):
        return {"_schema": messages}
    flat: dict[str, Any] = {}
    for location, value in messages.items():
        if isinstance(value, Mapping):
            flat.update({str(k): v for k, v in value.items()})
        else:
            flat[str(location)] = value
    return flat


def http_exception_response(error: HTTPException) -> Response:
    """The problem answer for any `HTTPException` (ours, Werkzeug's, webargs')."""
    if isinstance(error, Problem):
        return problem_response(
            error.code or 500,
            error.problem_code,
            error.description or error.name,
            errors=error.errors,
            headers=error.extra_headers,
            extra=error.extra,
        )
    status = error.code or 500
    headers: dict[str, str] = {
        name: value for name, value in error.get_headers() if name.lower() != "content-type"
    }
    data = getattr(error, "data", None) or {}
    headers.update(data.get("headers") or {})
    code = HTTP_CODES.get(status, "error")
    detail = error.description or _phrase(status)
    errors = None
    if status == 422 and "messages" in data:
        # webargs: the body or the query does not match its schema.
        errors = _flatten_messages(data["messages"])
        detail = "The request does not match the schema."
    if status == 404:
        detail = "No such resource."
    if status == 405:
        detail = "This method is not allowed on this resource."
    if status == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        detail = f"The request body is larger than {limit} bytes."
    return problem_response(status, code, detail, errors=errors, headers=headers)


def unexpected_exception_response(error: Exception) -> Response:
    """Log an unexpected exception and answer a 500 problem (no details leak)."""
    if current_app.config.get("RAISE_UNEXPECTED"):
        raise error
    log.exception("unexpected error while serving a request")
    return problem_response(500, "internal_error", "The server failed to answer this request.")


def register_fallback(app: Flask) -> None:
    """Install the catch-all handler for exceptions no other handler maps."""
    app.register_error_handler(Exception, unexpected_exception_response)
