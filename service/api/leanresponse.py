"""Speed: a JSON answer built as Werkzeug would build it, without its general-purpose steps.

Why (the measurement): ``Response(body, status=200, mimetype="application/json")``
with an ``ETag`` added searches the header list before each of its two headers
is set, parses the media type for a charset, and looks up and formats the
status's reason phrase. A game's answer is always the same shape: serialised
bytes, a status code, the two headers of its body and its own headers. Built
directly (the two body headers put in the header list as Werkzeug would put
them, the status line kept per code) it takes about a third of the
instructions (valgrind; docs/performance.md, "What a move costs", has the
figures).

The one seam: `service.api.jsonio.raw_json_response` calls `json_answer`. The
answer is an ordinary `flask.Response`, with the attributes Werkzeug's own
constructor gives it (`tests/api/test_leanresponse.py` compares the two, so a
Werkzeug release that changes them fails there); the answer's own headers are
added as `Headers.add` adds them, a value with a line break refused.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask import Response
from werkzeug.datastructures import Headers

from service.api.bodyread import JSON_MIMETYPE

#: Status lines by code ("200 OK"), made by Werkzeug on a code's first answer.
_STATUS_LINES: dict[int, str] = {}


def status_line(code: int) -> str:
    """Werkzeug's status line for `code` (the app answers a few dozen codes)."""
    line = _STATUS_LINES.get(code)
    if line is None:
        line = _STATUS_LINES[code] = Response(status=code).status
    return line


def json_answer(body: bytes, status: int, headers: Mapping[str, str] | None) -> Response:
    """``Response(body, status=status, mimetype="application/json")`` with `headers` added."""
    answer: Response = object.__new__(Response)
    listed = Headers()
    # What `Response.__init__` sets: the media type (JSON takes no charset), then
    # `set_data`'s length.
    listed._list = pairs = [("Content-Type", JSON_MIMETYPE), ("Content-Length", str(len(body)))]
    if headers:
        # What `Headers.add` does with a plain value (its `_str_header_value`:
        # made a `str`, refused with a line break), appended without its calls.
        for name, value in headers.items():
            if type(value) is not str:
                value = str(value)
            if "\n" in value or "\r" in value:
                raise ValueError("Header values must not contain newline characters.")
            pairs.append((name, value))
    answer.headers = listed
    answer._status = status_line(status)
    answer._status_code = status
    answer.direct_passthrough = False
    answer._on_close = []
    answer.response = [body]
    return answer
