"""Game versions as HTTP validators: `ETag`, `If-Match`, `If-None-Match`.

The entity tag of a game is its version, quoted: `"17"`. `If-Match` on a
move accepts `"17"`, `W/"17"` or `*`; any other form answers 400
`invalid_if_match` (documented in the OpenAPI description of the header).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from flask import Response

from service.api.current import environ
from service.api.problems import Problem

_TAG = re.compile(r'^\s*(?:W/)?"(\d{1,18})"\s*$')


def etag(version: int) -> str:
    """The `ETag` header value of a game version."""
    return f'"{version}"'


#: OpenAPI description of the optional `If-Match` header of a move (the
#: canonical forms; `if_match` also allows spaces around them).
IF_MATCH_PARAMETER = {
    "in": "header",
    "name": "If-Match",
    "description": 'the version the move expects, quoted: `"17"`; stale → 412',
    "schema": {"type": "string", "pattern": r'^(\*|(W/)?"[0-9]{1,18}")$'},
    "required": False,
}


def if_match(env: Mapping[str, Any] | None = None) -> int | str | None:
    """The version the request's `If-Match` asks for: an int, `"*"` for any,
    `None` if absent; 400 `invalid_if_match` for any other form.

    ``env``: the request's WSGI environ, when the caller holds it already.
    """
    if env is None:
        env = environ()
    value = env.get("HTTP_IF_MATCH")  # `If-Match`
    if value is None:
        return None
    if value.strip() == "*":
        return "*"
    match = _TAG.match(value)
    if match is None:
        raise Problem(
            400,
            "invalid_if_match",
            'If-Match must be a quoted game version such as "17" (or W/"17", or *).',
        )
    return int(match.group(1))


def check_if_match(expected: int | str | None, version: int) -> None:
    """Raise 412 `version_mismatch` when `If-Match` names another version."""
    if expected is None or expected == "*" or expected == version:
        return
    raise Problem(
        412,
        "version_mismatch",
        f"The game is at version {version}, not {expected}.",
        headers={"ETag": etag(version)},
        extra={"version": version},
    )


def not_modified(version: int) -> bool:
    """Whether `If-None-Match` already names this version (answer 304)."""
    header = environ().get("HTTP_IF_NONE_MATCH")  # `If-None-Match`
    if not header:
        return False
    if header.strip() == "*":
        return True
    wanted = etag(version)
    for part in header.split(","):
        tag = part.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        if tag == wanted:
            return True
    return False


def conditional_get(version: int, answer: Callable[[dict[str, str]], Response]) -> Response:
    """A read of game `version`: 304 when `If-None-Match` already names it (before
    any view or listing is made), else `answer(headers)`; both with the version's
    `ETag` and `Vary: Authorization` (the answer depends on the caller's token)."""
    headers = {"ETag": etag(version), "Vary": "Authorization"}
    if not_modified(version):
        return Response(status=304, headers=headers)
    return answer(headers)
