"""Headers every answer carries for safety: no sniffing, no caching of secrets.

- ``X-Content-Type-Options: nosniff`` on every answer: a browser never reads
  a JSON answer (which may hold a player's chosen name) as HTML or script.
- ``Cache-Control: private, no-store`` on every answer that may carry a seat
  token or a hand: answers to requests that send a seat token (a seat's view,
  its legal moves, its events, its moves) and to every ``POST`` (a created
  game's and a joined seat's tokens). No shared or browser cache keeps them.
"""

from __future__ import annotations

from typing import Final

from flask import Flask, Response
from werkzeug.datastructures import Headers

from service.api.current import environ as current_environ

#: The ``Cache-Control`` of answers that may carry a token or a hand.
SECRET_CACHE_CONTROL: Final = "private, no-store"


def may_carry_secrets() -> bool:
    """Whether the current request's answer may hold a seat token or a hand."""
    environ = current_environ()
    return environ["REQUEST_METHOD"] == "POST" or "HTTP_AUTHORIZATION" in environ


def add_security_headers(response: Response) -> Response:
    """``after_request`` hook: the headers of the module docstring."""
    headers = response.headers
    # Added, not set (which first looks for the name among the headers): only
    # this hook writes it. `Cache-Control` may come from a view: set.
    headers.add("X-Content-Type-Options", "nosniff")
    if may_carry_secrets():
        set_secret_cache_control(headers)
    return response


def set_secret_cache_control(headers: Headers) -> None:
    """``headers["Cache-Control"] = SECRET_CACHE_CONTROL``, as Werkzeug's `set`
    does it: the first such header (in any case) replaced and any later ones
    removed, else one appended.

    Speed: `set` checks the value for line breaks (a regular expression; this
    one is the module's constant) and lowers every name it compares, several
    times the cost of looking for the name's length first and appending to the
    list (valgrind; docs/performance.md, "What a move costs", has the figures).
    A view rarely sets it.
    """
    listed = headers._list  # Werkzeug's own list of (name, value) pairs
    for name, _ in listed:
        if len(name) == 13 and name.lower() == "cache-control":
            headers.set("Cache-Control", SECRET_CACHE_CONTROL)
            return
    listed.append(("Cache-Control", SECRET_CACHE_CONTROL))


def install(app: Flask) -> None:
    """Add the security headers to every answer of ``app``."""
    app.after_request(add_security_headers)
