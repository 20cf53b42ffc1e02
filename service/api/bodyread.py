"""Speed: a plain JSON request body read straight from the server's input.

Why (the measurement): reading a move's body through Werkzeug (`get_data`: the
request's stream property, `get_input_stream`, a `LimitedStream` and its
`readall`, the content length parsed twice, the media type parsed) cost about
as much as pushing the request's context, a noticeable share of a move in
sampling profiles. A body that declares its length, fits the limit, is sent as
``application/json`` and comes from a server that ends the input at its
length (``wsgi.input_terminated``: gunicorn) is read here in one call; every
other request (chunked, too large, another media type, another server) takes
Werkzeug's way, with its answers (413, 415). Measured with `bench/wsgi_calls.py`
(docs/performance.md, "What a move costs", has the figures).

The one seam: `service.api.jsonio.request_body` asks `plain_json_body` first.
"""

from __future__ import annotations

from typing import Any

#: The media type of the service's JSON bodies, asked and answered.
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
