"""flask-smorest adapted to this service: problem+json errors, orjson bodies."""

from __future__ import annotations

import http
from typing import Any

import flask_smorest
from flask import Response
from flask_smorest.utils import prepare_response
from webargs import core
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from service.api.jsonio import request_body
from service.api.problems import PROBLEM_MIMETYPE, http_exception_response
from service.api.schemas import ProblemSchema


class BodyParser(FlaskParser):
    """webargs parser that reads JSON bodies through `request_body()` (orjson, 415/400)."""

    def _raw_load_json(self, req: Any) -> Any:
        body = request_body()
        return core.missing if body is None else body


class Blueprint(flask_smorest.Blueprint):  # type: ignore[misc]
    """A flask-smorest Blueprint using `BodyParser`."""

    ARGUMENTS_PARSER = BodyParser()


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
