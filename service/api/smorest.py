"""flask-smorest adapted to this service: problem+json errors, orjson bodies."""

from __future__ import annotations

import http
from collections.abc import Callable
from typing import Any, TypeVar, cast

import flask_smorest
import marshmallow as ma
from flask import Response
from flask_smorest.utils import prepare_response
from webargs import core
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from service.api.jsonio import request_body
from service.api.schemas import ProblemSchema
from service.http.problems import PROBLEM_MIMETYPE, http_exception_response
from service.serving.doconly import doc_only

_F = TypeVar("_F", bound=Callable[..., Any])

_C = TypeVar("_C", bound=type)


class SelfParsingSchema(ma.Schema):
    """A body schema whose `load` is the body's parser (no fields of its own):
    `BodyParser` hands it the JSON body directly."""


class BodyParser(FlaskParser):
    """webargs parser that reads JSON bodies through `request_body()` (orjson, 415/400)."""

    def parse(
        self, argmap: Any, req: Any = None, *, location: str | None = None, **kwargs: Any
    ) -> Any:
        """webargs' `parse`; the JSON body of a `SelfParsingSchema` is loaded by
        the schema itself, without webargs' per-field steps (it has no fields)."""
        if isinstance(argmap, SelfParsingSchema) and (location or self.location) == "json":
            body = self.load_json(req, argmap)
            return argmap.load({} if body is core.missing else body)
        return super().parse(argmap, req, location=location, **kwargs)

    def load_json(self, req: Any, schema: Any) -> Any:
        """The request's JSON body (`request_body`), webargs' `missing` without one."""
        body = request_body()
        return core.missing if body is None else body


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """A flask-smorest Blueprint using `BodyParser`, documenting problem answers."""

    ARGUMENTS_PARSER = BodyParser()

    # Typed faces of flask-smorest's (untyped) decorators.

    def route(self, rule: str, **options: Any) -> Callable[[_C], _C]:
        """Register a `MethodView` class under `rule`."""
        return cast(Callable[[_C], _C], super().route(rule, **options))

    def arguments(self, schema: Any, **kwargs: Any) -> Callable[[_F], _F]:
        """Parse and check a request location (body, query, headers) with `schema`."""
        return cast(Callable[[_F], _F], super().arguments(schema, **kwargs))

    def response(self, status_code: int, schema: Any = None, **kwargs: Any) -> Callable[[_F], _F]:
        """Document the success answer."""
        return cast(Callable[[_F], _F], super().response(status_code, schema, **kwargs))

    def alt_response(self, status_code: int, **kwargs: Any) -> Callable[[_F], _F]:
        """Document another answer."""
        return doc_only(super().alt_response(status_code, **kwargs))

    def doc(self, **kwargs: Any) -> Callable[[_F], _F]:
        """Add raw OpenAPI fields to an operation."""
        return doc_only(super().doc(**kwargs))

    def problem(self, status: int, description: str) -> Callable[[_F], _F]:
        """Document an error answer: `application/problem+json` with the problem schema."""
        return self.alt_response(
            status, schema=ProblemSchema, content_type=PROBLEM_MIMETYPE, description=description
        )


#: `security` of an operation that needs a seat token (`Authorization: Bearer <token>`).
SEAT_REQUIRED: list[dict[str, list[str]]] = [{"seatToken": []}]
#: `security` of an operation that needs a quick-play ticket's secret.
TICKET_REQUIRED: list[dict[str, list[str]]] = [{"ticketSecret": []}]
#: `security` of an operation that answers with or without a seat token.
SEAT_OPTIONAL: list[dict[str, list[str]]] = [{}, {"seatToken": []}]

#: Standard descriptions of the error answers shared by many operations.
COMMON_ERRORS: dict[int, str] = {
    400: "Malformed JSON (`invalid_json`) or header",
    401: "Missing or wrong seat token (`missing_token`, `invalid_token`)",
    404: "No such game (`game_not_found`)",
    413: "Body larger than MAX_CONTENT_LENGTH (`body_too_large`)",
    415: "Body is not JSON (`unsupported_media_type`)",
    429: (
        "Rate limited (`rate_limited`), or a per-client game quota reached "
        "(`game_quota_exceeded`, creating or joining a game); see Retry-After"
    ),
    503: (
        "Store unavailable (`store_unavailable`) or requests cannot be counted "
        "(`rate_limit_unavailable`), see Retry-After"
    ),
}


def common_errors(blp: Blueprint, *statuses: int) -> Callable[[_F], _F]:
    """Document several of the `COMMON_ERRORS` on one operation."""

    def decorate(func: _F) -> _F:
        for status in statuses:
            func = blp.problem(status, COMMON_ERRORS[status])(func)
        return func

    return decorate


class Api(flask_smorest.Api):  # type: ignore[misc]
    """flask-smorest `Api` answering and documenting RFC 9457 problems."""

    ERROR_SCHEMA = ProblemSchema

    def handle_http_exception(self, error: HTTPException) -> Response:
        """Answer any HTTP error as `application/problem+json`, keeping `Allow` etc."""
        return http_exception_response(error)

    def _register_responses(self) -> None:
        """Document every error response with the problem schema and media type."""
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            content_type = self.DEFAULT_RESPONSE_CONTENT_TYPE
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
                content_type = PROBLEM_MIMETYPE
            prepare_response(response, self.spec, content_type)
            self.spec.components.response(status.name, response, lazy=True)
        response = {"description": "Default error response", "schema": self.ERROR_SCHEMA}
        prepare_response(response, self.spec, PROBLEM_MIMETYPE)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)
