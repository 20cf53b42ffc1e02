"""`Idempotency-Key`: a retried move replays its first answer.

A record (game, seat, key) → (fingerprint of the request, status, the version
the move produced) is written by the same compare-and-set that saves the
move, so a move and its record are never apart; a retry rebuilds the answer
from the game (`service.api.moves.Moves.post`), so a record stays a few dozen
bytes however large a view is. Refused moves (409) are not recorded.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson
from flask import request

from service.http.current import environ
from service.http.problems import Problem

MAX_KEY_LENGTH = 255

#: OpenAPI description of the optional `Idempotency-Key` header of a move.
IDEMPOTENCY_KEY_PARAMETER = {
    "in": "header",
    "name": "Idempotency-Key",
    "description": "1 to 255 printable ASCII characters; a retry replays the answer",
    "schema": {
        "type": "string",
        "minLength": 1,
        "maxLength": MAX_KEY_LENGTH,
        "pattern": f"^[ -~]{{1,{MAX_KEY_LENGTH}}}$",
    },
    "required": False,
}


def idempotency_key(env: Mapping[str, Any] | None = None) -> str | None:
    """The request's `Idempotency-Key`, checked: 1 to 255 printable ASCII characters.

    ``env``: the request's WSGI environ, when the caller holds it already.
    """
    if env is None:
        env = environ()
    key: str | None = env.get("HTTP_IDEMPOTENCY_KEY")  # `Idempotency-Key`
    if key is None:
        return None
    if not 1 <= len(key) <= MAX_KEY_LENGTH or not all(" " <= ch <= "~" for ch in key):
        raise Problem(
            422,
            "validation_error",
            "Idempotency-Key must be 1 to 255 printable ASCII characters.",
            errors={"Idempotency-Key": ["1 to 255 printable ASCII characters"]},
        )
    return key


def fingerprint(body: Any) -> str:
    """sha256 of method, path and the canonical JSON of the body."""
    canonical = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
    digest = hashlib.sha256()
    digest.update(request.method.encode())
    digest.update(b" ")
    digest.update(request.path.encode())
    digest.update(b"\n")
    digest.update(canonical)
    return digest.hexdigest()


def key_reused() -> Problem:
    """The 422 answer for a key already used with another body."""
    return Problem(
        422,
        "idempotency_key_reused",
        "This Idempotency-Key was already used with another request body.",
    )
