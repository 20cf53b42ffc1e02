"""Seat tokens: random, shown once, stored only as their SHA-256, looked up by it."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any

from service.http.current import current_request
from service.http.problems import Problem
from service.http.tokens import hash_token, token_digest
from service.ops import request_log
from service.store.tokens import url_safe_token


def new_token() -> tuple[str, str]:
    """A fresh seat token and the hash the game keeps of it."""
    token = url_safe_token(32)
    return token, hash_token(token)


def rematch_token(token: str, game_id: str) -> tuple[str, str]:
    """The seat token of `game_id`'s rematch for the holder of `token` (a seat token
    of `game_id`), and its hash: an HMAC keyed with the old token, so only its
    holder can make it, and the same on every call (a second call answers the
    same seat) without the service storing it."""
    message = b"rematch:" + game_id.encode()
    key = token.encode("utf-8", "surrogateescape")
    digest = hmac.new(key, message, hashlib.sha256).digest()
    new = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    return new, hash_token(new)


def bearer_token(env: Mapping[str, Any] | None = None) -> str | None:
    """The token of `Authorization: Bearer <token>`, `None` without the header.

    Any other form of the header is a 401: a client that sent credentials
    must not silently get the public view. ``env``: the request's WSGI
    environ, when the caller holds it already.
    """
    if env is None:  # from the environ without `current.environ`'s own call
        env = current_request().environ
    header: str | None = env.get("HTTP_AUTHORIZATION")  # `Authorization`
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 512:
        raise invalid_token()
    return token


def required_token(env: Mapping[str, Any] | None = None) -> str:
    """The request's bearer token, which it must have (401 `missing_token` without).

    ``env``: the request's WSGI environ, when the caller holds it already.
    """
    token = bearer_token(env)
    if token is None:
        raise missing_token()
    return token


def invalid_token() -> Problem:
    """The 401 answer for a missing, malformed or wrong token."""
    return Problem(
        401,
        "invalid_token",
        "The bearer token is not a seat token of this game.",
        headers={"WWW-Authenticate": 'Bearer realm="rummy"'},
    )


def missing_token() -> Problem:
    """The 401 answer when a seat token is required but none was sent."""
    return Problem(
        401,
        "missing_token",
        "This request needs a seat token: Authorization: Bearer <token>.",
        headers={"WWW-Authenticate": 'Bearer realm="rummy"'},
    )


def holds_seat(seats: Sequence[Any], token: str) -> bool:
    """Whether `token` is the token of one of `seats` (see `seat_index`)."""
    return seat_index(seats, token) is not None


def seat_index(seats: Sequence[Any], token: str) -> int | None:
    """The index of the seat whose stored hash is `token`'s, `None` without one.

    The token's SHA-256 hex digest is compared with each seat's by plain
    equality, not in constant time: a comparison that stops at the first
    different character tells how many leading characters of a stored digest
    match the digest of the token sent, and an attacker cannot choose the
    digest's characters (that is a preimage search on SHA-256), so timing
    leaks nothing usable about a seat's hash, let alone its token
    (docs/security.md). Speed: `hmac.compare_digest` over every seat, with
    the digests encoded, cost several times the plain comparison (valgrind on
    `bench/wsgi_calls.py --phase moves`; docs/performance.md, "What a move
    costs", has the figures).
    """
    digest = token_digest(token)
    for index, seat in enumerate(seats):
        if seat.token_hash == digest:
            return index
    return None


def seat_of(seats: Sequence[Any], token: str, move_type: str | None = None) -> int:
    """The seat whose stored hash matches `token` (`seat_index`), else a 401 `Problem`.

    The seat goes to the request's log line, with the `move_type` of a move (one
    `annotate` call, not two: a move's own path)."""
    index = seat_index(seats, token)
    if index is None:
        raise invalid_token()
    if move_type is None:
        request_log.annotate(seat=index)
    else:
        request_log.annotate(seat=index, move_type=move_type)
    return index
