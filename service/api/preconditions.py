"""Game versions as HTTP validators: `ETag`, `If-Match`, `If-None-Match`.

The entity tag of a game is its version and the version's epoch (a random tag
of the save that made it: `service.store.base.Loaded.epoch`), quoted:
`"17.3f9a1c2b4d5e6f70"`. The epoch keeps a tag naming one state even across a
Redis failover, where a promoted replica that lacks the last saves makes the
same version numbers again (docs/reliability.md, "Failover"). `If-Match` on a
move accepts that tag, the version alone (`"17"`, as the body's `version`
gives it: any epoch), either with `W/`, or `*`; any other form answers 400
`invalid_if_match` (documented in the OpenAPI description of the header).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from flask import Response

from service.games.values import Expected
from service.http.current import environ
from service.http.problems import Problem

_TAG = re.compile(r'^\s*(?:W/)?"(\d{1,18})(?:\.([0-9a-f]{1,32}))?"\s*$')


def etag(version: int, epoch: str = "") -> str:
    """The `ETag` header value of a game version (and its epoch, when known)."""
    return f'"{version}.{epoch}"' if epoch else f'"{version}"'


#: OpenAPI description of the optional `If-Match` header of a move (the
#: canonical forms; `if_match` also allows spaces around them).
IF_MATCH_PARAMETER = {
    "in": "header",
    "name": "If-Match",
    "description": (
        'the version the move expects: an `ETag` as given (`"17.3f9a1c2b4d5e6f70"`), or '
        'the version alone (`"17"`, whatever its epoch); stale → 412'
    ),
    "schema": {"type": "string", "pattern": r'^(\*|(W/)?"[0-9]{1,18}(\.[0-9a-f]{1,32})?")$'},
    "required": False,
}


def if_match(env: Mapping[str, Any] | None = None) -> Expected | str | None:
    """What the request's `If-Match` asks for: an `Expected`, `"*"` for any,
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
            'If-Match must be a game ETag such as "17.3f9a1c2b4d5e6f70", or a quoted '
            'version such as "17" (or either with W/, or *).',
        )
    return Expected(int(match.group(1)), match.group(2))


def check_if_match(expected: Expected | str | None, version: int, epoch: str = "") -> None:
    """Raise 412 `version_mismatch` when `If-Match` names another version, or the
    same version of another epoch (another state, made after a failover)."""
    if expected is None or expected == "*":
        return
    assert isinstance(expected, Expected)
    if expected.matches(version, epoch):
        return
    named = etag(expected.version, expected.epoch or "")
    raise Problem(
        412,
        "version_mismatch",
        f"The game is at {etag(version, epoch)}, not {named}.",
        headers={"ETag": etag(version, epoch)},
        extra={"version": version},
    )


def not_modified(version: int, epoch: str = "") -> bool:
    """Whether `If-None-Match` already names this version and epoch (answer 304)."""
    header = environ().get("HTTP_IF_NONE_MATCH")  # `If-None-Match`
    if not header:
        return False
    if header.strip() == "*":
        return True
    wanted = etag(version, epoch)
    for part in header.split(","):
        tag = part.strip()
        if tag.startswith("W/"):
            tag = tag[2:]
        if tag == wanted:
            return True
    return False


def conditional_get(
    version: int, answer: Callable[[dict[str, str]], Response], epoch: str = ""
) -> Response:
    """A read of game `version`: 304 when `If-None-Match` already names it (before
    any view or listing is made), else `answer(headers)`; both with the version's
    `ETag` and `Vary: Authorization` (the answer depends on the caller's token)."""
    headers = {"ETag": etag(version, epoch), "Vary": "Authorization"}
    if not_modified(version, epoch):
        return Response(status=304, headers=headers)
    return answer(headers)
