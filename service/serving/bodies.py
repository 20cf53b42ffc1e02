"""Speed: a plain JSON request body read straight from the server's input.

Why (the measurement): reading a move's body through Werkzeug (`get_data`: the
request's stream property, `get_input_stream`, a `LimitedStream` and its
`readall`, the content length parsed twice, the media type parsed) is a share
of a move worth its few lines (docs/performance.md, the A/B table). A body
that declares its length, fits the limit, is sent as ``application/json`` and
comes from a server that ends the input at its length
(``wsgi.input_terminated``: gunicorn) is read here in one call; every other
request (chunked, too large, another media type, another server) takes
Werkzeug's way, with its answers (413, 415).

The one seam: `ServiceRequest`, the request class of `ServiceFlask`; its
`get_data` is Werkzeug's, with this shorter way first. It keeps the bytes where
Werkzeug's own `get_data` keeps them (its private ``_cached_data``), so every
later reader of the body sees them: Werkzeug releases that rename it fail
`tests/serving/test_bodies.py` and the pinned versions
(`service.serving.versions`).
"""

from __future__ import annotations

from typing import Any

from flask import Request

#: The media type the short way reads.
JSON_MIMETYPE = "application/json"


def plain_json_body(environ: dict[str, Any], limit: int | None) -> bytes | None:
    """The body of a plain JSON request within `limit` bytes, or `None` when the
    request must be read the general way."""
    if environ.get("CONTENT_TYPE") != JSON_MIMETYPE or "wsgi.input_terminated" not in environ:
        return None
    length = environ.get("CONTENT_LENGTH")
    if not length or not length.isdigit() or "HTTP_TRANSFER_ENCODING" in environ:
        return None
    size = int(length)
    if limit is not None and size > limit:
        return None  # Werkzeug's way answers 413
    data: bytes = environ["wsgi.input"].read(size)
    return data


class ServiceRequest(Request):
    """Flask's request, reading a plain JSON body the short way (`plain_json_body`)."""

    def get_data(  # type: ignore[override]
        self, cache: bool = True, as_text: bool = False, parse_form_data: bool = False
    ) -> bytes | str:
        """Werkzeug's `get_data`, a plain JSON body read in one call."""
        if cache and not as_text and getattr(self, "_cached_data", None) is None:
            plain = plain_json_body(self.environ, self.max_content_length)
            if plain is not None:
                self._cached_data = plain
                return plain
        return super().get_data(cache, as_text, parse_form_data)  # type: ignore[call-overload,no-any-return]
