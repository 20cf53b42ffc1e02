"""Seat tokens as a request carries them: the SHA-256 a game keeps of a token,
and that digest taken once per request (the rate limiter and the seat lookup
both need it)."""

from __future__ import annotations

import hashlib
from typing import Any, Final

from flask import has_request_context

from service.http.current import current_request


def hash_token(token: str) -> str:
    """The sha256 hex digest kept in the engine's `Seat.token_hash`."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


#: Where a request's WSGI environ keeps ``(token, hash_token(token))`` once taken.
DIGEST_ENVIRON_KEY: Final = "rummy.token_sha256"


def token_digest(token: str, env: dict[str, Any] | None = None) -> str:
    """`hash_token(token)`, taken once per request.

    Speed: the rate limiter's count and the seat lookup both hash the request's
    token; the first keeps the digest in the request's environ (``env``, else
    the current request's), beside the ``Authorization`` header that already
    holds the token, and the second reads it back (`hash_token` is dear for
    what it does, most of it OpenSSL's set-up of the hash: counted under
    valgrind, docs/performance.md, "What a move costs", has the figures).
    Outside a request the token is simply hashed.
    """
    if env is None:
        if not has_request_context():
            return hash_token(token)
        env = current_request().environ
    seen = env.get(DIGEST_ENVIRON_KEY)
    if seen is not None and seen[0] == token:
        digest: str = seen[1]
        return digest
    digest = hash_token(token)
    env[DIGEST_ENVIRON_KEY] = (token, digest)
    return digest
