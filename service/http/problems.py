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
from typing import Any, NamedTuple

import orjson
from flask import Flask, Response, current_app
from werkzeug.exceptions import HTTPException

from service.rules.moves import ERROR_CODES

PROBLEM_MIMETYPE = "application/problem+json"
log = logging.getLogger(__name__)


class ProblemCode(NamedTuple):
    """A row of the problem catalogue: the status a code is answered with, when,
    and whether it is the code of any other error of that status (`HTTP_CODES`)."""

    status: int
    when: str
    generic: bool = False


#: Every problem `code` the service answers that is not a rule's refusal, with its
#: status and when it happens; the rules' refusals (409) are `ERROR_CODES` of
#: `service.rules.moves`. Together they are the documented enum of `Problem.code`
#: (a test fails when the code base answers a code missing here).
API_PROBLEM_CODES: dict[str, ProblemCode] = {
    "invalid_json": ProblemCode(400, "the body is not JSON, or is nested too deeply"),
    "invalid_if_match": ProblemCode(
        400,
        'If-Match is not a game `ETag` such as `"17.3f9a1c2b4d5e6f70"`, a quoted version '
        'such as `"17"`, either with `W/`, or `*`',
    ),
    "invalid_last_event_id": ProblemCode(
        400, "`Last-Event-ID` of a stream is not an event's `seq`"
    ),
    "bad_request": ProblemCode(400, "another malformed request", generic=True),
    "missing_token": ProblemCode(401, "the request needs a seat token and sent none"),
    "invalid_token": ProblemCode(
        401, "the Authorization header is malformed or not a seat of this game"
    ),
    "unauthorized": ProblemCode(401, "another authentication failure", generic=True),
    "invalid_ticket_secret": ProblemCode(
        401, "the bearer token is not the secret of this quick-play ticket"
    ),
    "not_creator": ProblemCode(403, "only the seat that created a game may delete it"),
    "hints_disabled": ProblemCode(
        403, "the game's option `hints` is false: no seat may ask for a hint"
    ),
    "game_not_found": ProblemCode(404, "no game has this id (or it has been forgotten)"),
    "preset_not_found": ProblemCode(404, "no preset has this name"),
    "ticket_not_found": ProblemCode(
        404, "no quick-play ticket has this id (cancelled, expired, or never queued)"
    ),
    "event_not_found": ProblemCode(404, "the game has no event of this `seq` (yet) to replay to"),
    "not_found": ProblemCode(404, "no such resource", generic=True),
    "method_not_allowed": ProblemCode(
        405, "the resource does not answer this method (see `Allow`)", generic=True
    ),
    "not_acceptable": ProblemCode(
        406, "the answer cannot be given in an accepted media type", generic=True
    ),
    "body_timeout": ProblemCode(
        408, "the request body did not arrive in time (the connection is closed)"
    ),
    "replay_unavailable": ProblemCode(
        409,
        "the game cannot be replayed: it has not started, is not dealt at random, or its "
        "first events are no longer kept (`MAX_EVENTS`)",
    ),
    "already_seated": ProblemCode(
        409, "the token already holds a seat of this game: no second join"
    ),
    "game_not_waiting": ProblemCode(
        409, "the game has started: it can no longer be deleted (leave it)"
    ),
    "ticket_matched": ProblemCode(
        409, "the quick-play ticket is matched (or being matched): it can no longer leave"
    ),
    "game_not_finished": ProblemCode(409, "a rematch is asked for before the game is over"),
    "rematch_seat_released": ProblemCode(
        409,
        "the caller's seat of the rematch is no longer held for them (`REMATCH_SECONDS` "
        "passed, or they left it): join it from the lobby if it is still open",
    ),
    "conflict": ProblemCode(409, "another conflict with the game's state", generic=True),
    "version_mismatch": ProblemCode(
        412, "If-Match names another version than the game's current one", generic=True
    ),
    "body_too_large": ProblemCode(413, "the body is larger than MAX_CONTENT_LENGTH", generic=True),
    "uri_too_long": ProblemCode(414, "the URL is too long", generic=True),
    "unsupported_media_type": ProblemCode(
        415, "the body is not sent as application/json", generic=True
    ),
    "validation_error": ProblemCode(
        422,
        "the body, query or a header does not match its schema, or "
        "options, a deck or a card code are not valid (`errors` names the fields)",
        generic=True,
    ),
    "idempotency_key_reused": ProblemCode(
        422, "an Idempotency-Key was used before with another body"
    ),
    "fixed_deal_refused": ProblemCode(
        422,
        "`seed`, `deck` or `first_dealer` given for a game with an "
        "open seat (a stranger must never join a stacked deal)",
    ),
    "record_refused": ProblemCode(
        422,
        "`from_record` names no finished game's whole record, or `at_version` is not "
        "a version of it at which the game is in play",
    ),
    "record_mismatch": ProblemCode(
        422,
        "a move of the record does not replay by the rules, or makes other events than "
        "the record shows (a forged or damaged record)",
    ),
    "rate_limited": ProblemCode(
        429, "too many requests from this token or address; see Retry-After", generic=True
    ),
    "game_quota_exceeded": ProblemCode(
        429,
        "this client already has as many unfinished games (or waiting ones, or ones of "
        "bots only) as it may create or join; see Retry-After",
    ),
    "long_poll_quota_exceeded": ProblemCode(
        429,
        "this client already holds as many waiting long-polls on this server as it may; "
        "see Retry-After",
    ),
    "ticket_quota_exceeded": ProblemCode(
        429,
        "this client already holds as many waiting quick-play tickets as it may; see Retry-After",
    ),
    "too_many_hints": ProblemCode(
        429,
        "this seat asked for more hints than `HINT_PER_MINUTE` allows; see Retry-After "
        "(its moves go on)",
    ),
    "headers_too_large": ProblemCode(431, "the request headers are too large", generic=True),
    "internal_error": ProblemCode(500, "the service failed (a bug: it is logged)", generic=True),
    "store_unavailable": ProblemCode(503, "the game store does not answer; see Retry-After"),
    "busy": ProblemCode(
        503, "the game changed too often while the request was applied; see Retry-After"
    ),
    "rate_limit_unavailable": ProblemCode(
        503,
        "the request cannot be counted against its rate limit "
        "(the limiter's store does not answer); see Retry-After",
    ),
    "too_many_streams": ProblemCode(
        503,
        "this server holds as many event streams as it may; long-poll meanwhile, see Retry-After",
    ),
    "too_many_long_polls": ProblemCode(
        503, "this server holds as many waiting long-polls as it may; see Retry-After"
    ),
    "queue_full": ProblemCode(
        503, "a quick-play queue asked for holds as many tickets as it may; see Retry-After"
    ),
    "service_unavailable": ProblemCode(
        503, "the service cannot answer now; see Retry-After", generic=True
    ),
    "error": ProblemCode(0, "any other HTTP error status"),
}


#: The `code` of each HTTP error raised by Flask/Werkzeug rather than by a view.
HTTP_CODES: dict[int, str] = {
    row.status: code for code, row in API_PROBLEM_CODES.items() if row.generic
}

#: Every problem `code` (the documented enum).
PROBLEM_CODES: tuple[str, ...] = (*API_PROBLEM_CODES, *ERROR_CODES)


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


def game_not_found(game_id: str) -> Problem:
    """The 404 answer for a game id no game has (or one of the wrong form)."""
    return Problem(404, "game_not_found", f"There is no game {game_id!r}.")


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def problem_document(status: int, code: str, detail: str) -> dict[str, Any]:
    """The members every problem answer has: `type`, `title`, `status`, `detail`, `code`."""
    return {
        "type": f"https://rummy.example/problems/{code}",
        "title": _phrase(status),
        "status": status,
        "detail": detail,
        "code": code,
    }


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
    body = problem_document(status, code, detail)
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
        only = next(iter(errors.values())) if len(errors) == 1 else None
        if isinstance(only, list) and len(only) == 1 and isinstance(only[0], str):
            detail = f"{next(iter(errors))}: {only[0]}"
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
