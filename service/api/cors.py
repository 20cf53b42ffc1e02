"""CORS for browser front ends: only the origins of `CORS_ORIGINS`."""

from __future__ import annotations

from flask import Flask, Response, request

EXPOSED = "ETag, Location, Retry-After, Idempotency-Replayed"
ALLOWED_HEADERS = "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key"
ALLOWED_METHODS = "GET, POST, OPTIONS"


def install(app: Flask) -> None:
    """Add CORS headers to answers for allowed origins (none by default)."""
    origins = frozenset(app.config.get("CORS_ORIGINS") or ())
    if not origins:
        return

    @app.after_request
    def _cors(response: Response) -> Response:
        origin = request.headers.get("Origin")
        if origin is None or ("*" not in origins and origin not in origins):
            return response
        response.headers["Access-Control-Allow-Origin"] = "*" if "*" in origins else origin
        if "*" not in origins:
            response.vary.add("Origin")
        response.headers["Access-Control-Expose-Headers"] = EXPOSED
        if request.method == "OPTIONS":
            response.headers["Access-Control-Allow-Methods"] = ALLOWED_METHODS
            response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
            response.headers["Access-Control-Max-Age"] = "600"
        return response
