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

from service.http.current import environ as current_environ

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
    """``Cache-Control: SECRET_CACHE_CONTROL`` on an answer that may carry secrets."""
    headers.set("Cache-Control", SECRET_CACHE_CONTROL)


def install(app: Flask) -> None:
    """Add the security headers to every answer of ``app``."""
    app.after_request(add_security_headers)
