"""Encodings shared by the stores, so both produce byte-identical events.

An event is stored as its JSON with the store's fields first:
``{"seq":3,"version":2,"at":"2026-11-30T02:00:00.123Z","type":"discarded",...}``.
The caller's part (its "tail") is encoded once with orjson; the Redis script
only prepends the store's fields to it.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

__all__ = [
    "STORE_FIELDS",
    "decode_cursor",
    "decode_event",
    "encode_cursor",
    "event_tail",
    "is_game_id",
    "key_digest",
    "new_game_id",
    "now_iso",
    "stamp_event",
]

#: Fields the store sets on every event (the caller's values are replaced).
STORE_FIELDS = ("seq", "version", "at")

_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def new_game_id() -> str:
    """A fresh random game id: 128 bits, URL-safe base64 (22 characters)."""
    return secrets.token_urlsafe(16)


def is_game_id(text: str) -> bool:
    """Whether ``text`` could be a game id (anything else is simply not found;
    checking it first keeps braces out of Redis hash tags)."""
    return _GAME_ID.fullmatch(text) is not None


def now_iso() -> str:
    """The current UTC time, ISO-8601 with milliseconds: ``2026-11-30T02:00:00.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def event_tail(event: Mapping[str, Any]) -> bytes:
    """The caller's fields of an event, encoded to follow the store's fields.

    Raises ``TypeError`` for anything that is not JSON-able (before any write).
    """
    body = {k: v for k, v in event.items() if k not in STORE_FIELDS}
    encoded = orjson.dumps(body)
    # b"{}" -> b"}", b'{"type":1}' -> b',"type":1}'
    return b"}" if encoded == b"{}" else b"," + encoded[1:]


def stamp_event(seq: int, version: int, at: str, tail: bytes) -> bytes:
    """The stored form of one event (the Redis script builds the same bytes)."""
    return b'{"seq":%d,"version":%d,"at":"%s"%s' % (seq, version, at.encode(), tail)


def decode_event(data: bytes) -> dict[str, Any]:
    """A stored event back as a dict."""
    event: dict[str, Any] = orjson.loads(data)
    return event


def key_digest(key: str) -> str:
    """SHA-256 hex of an idempotency key: bounded, safe to put in a key name."""
    return hashlib.sha256(key.encode()).hexdigest()


def encode_cursor(score: int, game_id: str) -> str:
    """A lobby cursor: the position just after this entry."""
    return f"{score}.{game_id}"


def decode_cursor(cursor: str | None) -> tuple[int, str] | None:
    """The (score, game id) of a cursor; ``None`` or a malformed one starts at the top."""
    if not cursor:
        return None
    score, _, game_id = cursor.partition(".")
    if not score.isdigit() or not is_game_id(game_id):
        return None
    return int(score), game_id
