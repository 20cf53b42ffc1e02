"""The move body's schema, skipping marshmallow for plain bodies.

Nearly every move a client sends is one plain move in canonical form
(`{"type": "discard", "card": "SK"}`). For those, `MoveRequestSchema.load`
would return an equal dict after 40-140 µs of validation (a meld costs most);
the subclass here returns the body at once. Anything else (other forms of
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
from service.rules.cards import JOKER, NATURAL_CARDS

_CODES = frozenset((*NATURAL_CARDS, JOKER))
_FIELDS = {
    "draw": frozenset({"type", "source"}),
    "discard": frozenset({"type", "card"}),
    "meld": frozenset({"type", "cards"}),
    "layoff": frozenset({"type", "meld", "cards"}),
    "swap_joker": frozenset({"type", "meld", "card"}),
    "reengage": frozenset({"type"}),
}


def _is_code(value: object) -> bool:
    return type(value) is str and value in _CODES


def is_plain_move(body: object) -> bool:
    """Whether `body` is one move whose every field the schema would accept unchanged."""
    if type(body) is not dict:
        return False
    kind = body.get("type")
    if type(kind) is not str or _FIELDS.get(kind) != body.keys():
        return False
    # Every field of the shape is present (the key sets are equal): check each value.
    if "source" in body and body["source"] not in ("stock", "discard"):
        return False
    if "card" in body and not _is_code(body["card"]):
        return False
    if "meld" in body:
        meld = body["meld"]
        if type(meld) is not int or not 0 <= meld <= 10_000:
            return False
    if "cards" in body:
        cards = body["cards"]
        if type(cards) is not list or not 1 <= len(cards) <= schemas.MAX_CARDS:
            return False
        if not all(_is_code(card) for card in cards):
            return False
    return True


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
