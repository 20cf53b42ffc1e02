"""Swagger UI at `/docs`, served from the flask-swagger-ui package (no CDN); `/` leads there."""

from __future__ import annotations

from pathlib import Path

import flask_swagger_ui
from flask import Blueprint, Flask, Response, redirect, send_from_directory
from werkzeug.wrappers import Response as BaseResponse

DIST = Path(flask_swagger_ui.__file__).parent / "dist"
#: Where the Swagger UI files are served; `OPENAPI_SWAGGER_UI_URL` points here.
STATIC_URL = "/docs/static/"

blp = Blueprint("swagger_ui_files", __name__)


@blp.get("/docs/static/<path:filename>")
def swagger_ui_file(filename: str) -> Response:
    """A file of the Swagger UI distribution."""
    return send_from_directory(DIST, filename, max_age=3600)


@blp.get("/")
def root() -> BaseResponse:
    """The service's home is its interactive documentation."""
    return redirect("/docs", 302)


def install(app: Flask) -> None:
    """Serve the Swagger UI files (the page itself is flask-smorest's `/docs`)."""
    app.register_blueprint(blp)
