"""Speed: a JSON answer built as Werkzeug would build it, without its general-purpose steps.

Why (the measurement): ``Response(body, status=200, mimetype="application/json",
headers=...)`` copies the headers through `Headers.add`, searches the header
list before each of its two own headers is set, parses the media type for a
charset, and looks up and formats the status's reason phrase. A game's answer
is always the same shape: serialised bytes, a status code, its own few
headers. Built directly (the header list made as Werkzeug makes it, the
status line kept per code) it is a share of a view worth keeping
(docs/performance.md, the A/B table).

The one seam: `ServiceResponse`, the response class of `ServiceFlask`: the
API builds its JSON answers with the app's `response_class` like any Flask
app, and this class's constructor takes the short way for exactly that shape
(bytes, an integer status, ``mimetype="application/json"``, a dict of headers
or none), Werkzeug's constructor for every other. The answer is the one
Werkzeug's constructor makes, attribute for attribute (its private
``_status``, ``_status_code``, ``_on_close``; `tests/serving/test_answers.py`
compares the two, so a Werkzeug release that changes them fails there, and
the versions are pinned: `service.serving.versions`).
"""

from __future__ import annotations

from typing import Any

from flask import Response
from werkzeug.datastructures import Headers

from service.serving.bodies import JSON_MIMETYPE

#: Status lines by code ("200 OK"), made by Werkzeug on a code's first answer.
_STATUS_LINES: dict[int, str] = {}

#: Headers the constructor sets itself: an answer naming them takes Werkzeug's way.
_OWN = frozenset({"content-type", "content-length"})


def status_line(code: int) -> str:
    """Werkzeug's status line for `code` (the app answers a few dozen codes)."""
    line = _STATUS_LINES.get(code)
    if line is None:
        line = _STATUS_LINES[code] = Response(status=code).status
    return line


class ServiceResponse(Response):
    """Flask's response, a JSON answer of bytes built the short way."""

    def __init__(
        self,
        response: Any = None,
        status: Any = None,
        headers: Any = None,
        mimetype: str | None = None,
        content_type: str | None = None,
        direct_passthrough: bool = False,
    ) -> None:
        if (
            type(response) is not bytes
            or type(status) is not int
            or mimetype != JSON_MIMETYPE
            or content_type is not None
            or direct_passthrough
            or not (headers is None or type(headers) is dict)
        ):
            super().__init__(response, status, headers, mimetype, content_type, direct_passthrough)
            return
        pairs: list[tuple[str, str]] = []
        if headers:
            # What `Headers.add` does with a plain value (made a `str`, refused
            # with a line break), appended without its calls.
            for name, value in headers.items():
                if type(value) is not str:
                    value = str(value)
                if "\n" in value or "\r" in value:
                    raise ValueError("Header values must not contain newline characters.")
                if name.lower() in _OWN:
                    super().__init__(response, status, headers, mimetype)
                    return
                pairs.append((name, value))
        # Then what `Response.__init__` sets: the media type (JSON takes no
        # charset), then `set_data`'s length.
        pairs.append(("Content-Type", JSON_MIMETYPE))
        pairs.append(("Content-Length", str(len(response))))
        listed = Headers()
        listed._list = pairs
        self.headers = listed
        self._status = status_line(status)
        self._status_code = status
        self.direct_passthrough = False
        self._on_close = []
        self.response = [response]
