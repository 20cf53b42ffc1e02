"""The move body's schema, skipping marshmallow for plain bodies.

Nearly every move a client sends is one plain move in canonical form
(`{"type": "discard", "card": "SK"}`). For those, `MoveRequestSchema.load`
would return an equal dict after parsing it; the subclass here returns the
body at once, after the move classes' quick canonical check. Anything else (other forms of
card codes, `actions`, extra or missing fields, wrong types) goes through the
full schema, so errors and results stay the schema's.

The subclass keeps its base's name, so the OpenAPI document names the same
component (`MoveRequest`); the schema still documents the contract.
"""

from __future__ import annotations

from typing import Any

from flask import request

from service.api import schemas
from service.api.jsonio import request_body
from service.api.smorest import QUICK_MISS
from service.rules.moves import is_canonical_move

#: Whether a body is one move the schema would load unchanged: the move classes'
#: own check (`service.rules.moves`), so the shapes are described once.
is_plain_move = is_canonical_move


class MoveRequestSchema(schemas.MoveRequestSchema):
    """`schemas.MoveRequestSchema`, answering plain moves without validating them again."""

    def load(self, data: Any, *args: Any, **kwargs: Any) -> Any:
        """The body itself when it is a plain move, else the schema's full load."""
        if not args and not kwargs and is_plain_move(data):
            return data
        return super().load(data, *args, **kwargs)

    def quick_load(self) -> Any:
        """The request's body when it is a plain move, before webargs reads it
        (see `service.api.smorest.Blueprint.arguments`); else `QUICK_MISS`."""
        body = request_body()
        return body if is_plain_move(body) else QUICK_MISS


class MoveHeadersSchema(schemas.MoveHeadersSchema):
    """`schemas.MoveHeadersSchema` without marshmallow when the headers are acceptable.

    webargs hands the schema every request header (unknown ones excluded);
    the two it reads are picked out directly. An `Idempotency-Key` of the
    wrong length goes through the full schema, for its 422 answer.
    """

    def load(self, data: Any, *args: Any, **kwargs: Any) -> Any:
        """The two headers as the schema would load them."""
        headers: Any = getattr(data, "data", None)  # webargs' proxy over request.headers
        if args or kwargs.keys() - {"unknown"} or not hasattr(headers, "get"):
            return super().load(data, *args, **kwargs)
        loaded = _move_headers(headers)
        return super().load(data, *args, **kwargs) if loaded is QUICK_MISS else loaded

    def quick_load(self) -> Any:
        """The two headers, before webargs reads them; `QUICK_MISS` when the
        full schema must answer."""
        return _move_headers(request.headers)


def _move_headers(headers: Any) -> Any:
    """`If-Match` and `Idempotency-Key` as the schema loads them, or `QUICK_MISS`
    for a key of the wrong length (the schema's 422)."""
    loaded = {}
    if_match = headers.get("If-Match")
    if if_match is not None:
        loaded["if_match"] = if_match
    key = headers.get("Idempotency-Key")
    if key is not None:
        if not 1 <= len(key) <= 255:
            return QUICK_MISS
        loaded["idempotency_key"] = key
    return loaded
