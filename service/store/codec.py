"""Encodings shared by the stores, so both produce byte-identical events.

An event is stored compactly and expanded on read: ``<seq> <version> <at>
<body>``, where ``at`` is the UTC time in epoch milliseconds and ``body`` the
caller's fields as JSON with short keys (`SHORT_KEYS`: ``"type"`` is
``"T"``, ``"seat"`` is ``"S"``, ...) and the event types as numbers
(`EVENT_TYPES`), e.g. ``43 39 1796009278084 {"T":1,"S":2,"C":"DK"}`` for
``{"seq":43,"version":39,"at":"2026-11-30T03:27:58.084Z","type":"discarded",
"seat":2,"card":"DK"}`` (40 bytes instead of 85). Keys and types not in the
tables are kept as they are; a key that looks stored (a short key, or one
starting with ``~``) gets a ``~`` in front and a type that is a number is
kept in a list, so reading back is exact. The caller's part (its "tail") is encoded
once; the Redis script only prepends the store's numbers to it.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeAlias

import orjson

from service.store.tokens import url_safe_token

if TYPE_CHECKING:
    from service.store.base import Due

__all__ = [
    "EVENT_TYPES",
    "GAME_ID_PATTERN",
    "SHORT_KEYS",
    "STORE_FIELDS",
    "decode_cursor",
    "decode_event",
    "encode_cursor",
    "event_tail",
    "is_game_id",
    "key_digest",
    "lobby_page",
    "new_game_id",
    "now_iso",
    "now_ms",
    "stamp_event",
]

#: Fields the store sets on every event (the caller's values are replaced).
STORE_FIELDS = ("seq", "version", "at")

#: The form of a game id (the API's `game_id` path parameter, documented).
GAME_ID_PATTERN = "[A-Za-z0-9_-]{1,64}"
_GAME_ID = re.compile(GAME_ID_PATTERN)


def new_game_id() -> str:
    """A fresh random game id: 128 bits, URL-safe base64 (22 characters)."""
    return url_safe_token(16)


#: Game ids found well-formed lately, at most this many (then the set starts
#: over): a game request checks its id up to three times (the route, the load and
#: the save), and a set lookup costs a tenth of the pattern's match (valgrind).
#: Each entry is a string of at most 64 characters: about 0.6 MB when full.
GAME_ID_MEMO = 4096
_WELL_FORMED: set[str] = set()


def is_game_id(text: str) -> bool:
    """Whether ``text`` could be a game id (anything else is simply not found;
    checking it first keeps braces out of Redis hash tags)."""
    if type(text) is str and text in _WELL_FORMED:
        return True
    if _GAME_ID.fullmatch(text) is None:
        return False
    if len(_WELL_FORMED) >= GAME_ID_MEMO:
        _WELL_FORMED.clear()
    if type(text) is str:
        _WELL_FORMED.add(text)
    return True


def now_iso() -> str:
    """The current UTC time, ISO-8601 with milliseconds: ``2026-11-30T02:00:00.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def now_ms() -> int:
    """The current UTC time in epoch milliseconds (an event's stored ``at``)."""
    return time.time_ns() // 1_000_000


def iso_of_ms(ms: int) -> str:
    """Epoch milliseconds as ISO-8601 UTC with milliseconds (as `now_iso` writes)."""
    return _iso_of_second(ms // 1000) + _MILLIS[ms % 1000]


#: ``.000Z`` to ``.999Z``: an event's time after its second (`iso_of_ms`).
_MILLIS = tuple(f".{millis:03d}Z" for millis in range(1000))


@lru_cache(maxsize=64)
def _iso_of_second(seconds: int) -> str:
    """Epoch seconds as ISO-8601 UTC to the second, remembered: the saves of one
    second share it, and building the whole time through `datetime` for each
    new millisecond was a good share of every save a worker with streams open
    decodes (`bench.push_calls` under valgrind; docs/performance.md, "Open
    event streams", has the figures)."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")[:-6]


#: Stored short names of the events' keys (at any depth). Upper case, so
#: never the same as a real key.
SHORT_KEYS: Mapping[str, str] = {
    "type": "T",
    "seat": "S",
    "card": "C",
    "source": "O",
    "cards": "K",
    "meld": "M",
    "id": "I",
    "owner": "W",
    "result": "R",
    "number": "N",
    "hands": "H",
    "rummy": "Y",
    "jokers": "J",
    "discard_pile": "P",
    "stock_size": "Z",
    "scores": "X",
    "dealer": "D",
    "first": "F",
    "reason": "E",
    "winner": "V",
    "winners": "VV",
    "points": "Q",
    "name": "A",
    "kind": "B",
    "refills": "G",
    "preset": "U",
    "players": "L",
    "seats": "SS",
    "joker": "JJ",
    "stand_in": "SI",
}
_LONG_KEYS = {short: long for long, short in SHORT_KEYS.items()}
#: Stored numbers of the event types (the value of ``type`` at the top level): a
#: compression dictionary of the stored form, not the vocabulary (that is
#: `service.rules.events`, which the store does not import). Frozen: stored
#: events carry these numbers for days, so a number never changes meaning; a
#: type missing here is stored by its name, so a new event needs no entry.
EVENT_TYPES: tuple[str, ...] = (
    "drew",
    "discarded",
    "melded",
    "laid_off",
    "round_started",
    "round_ended",
    "went_out",
    "stock_refilled",
    "game_created",
    "game_ended",
    "seat_taken",
    "joker_swapped",
    "seat_rejoined",
    "seat_eliminated",
    "reengaged",
    "seat_left",
    "seat_away",
    "seat_back",
    "reengage_offered",
    "reengage_declined",
    "pot_opened",
)
_TYPE_NUMBERS = {name: number for number, name in enumerate(EVENT_TYPES)}


def _short_key(key: Any) -> Any:
    if not isinstance(key, str):
        return key  # orjson refuses it (TypeError)
    if key in _LONG_KEYS or key.startswith("~"):
        return "~" + key  # a key that looks stored is escaped
    return SHORT_KEYS.get(key, key)


class _LongKeys(dict[str, str]):
    """Stored keys to their long names: a short one by the table, an escaped one
    (``~``) without its ``~``, any other as it is."""

    def __missing__(self, key: str) -> str:
        return key[1:] if key.startswith("~") else key


#: Stored keys to their long names: a dict lookup, no Python call for a short key.
_LONG_NAMES_BY_KEY = _LongKeys(_LONG_KEYS)


def _rename_keys(value: Any, rename: Callable[[str], str]) -> Any:
    """``value`` with every mapping key inside it passed through ``rename``."""
    if isinstance(value, dict):
        return _rename_into({}, value, rename)
    if isinstance(value, list):
        items = []
        for item in value:
            if isinstance(item, (dict, list)):
                item = _rename_keys(item, rename)
            items.append(item)
        return items
    return value


def _rename_into(
    renamed: dict[Any, Any], value: dict[Any, Any], rename: Callable[[str], str]
) -> Any:
    """`renamed` with ``value``'s items added under their keys passed through ``rename``."""
    # Loops, not comprehensions, and no call per scalar: a worker with streams
    # open decodes every save they follow (`bench.push_calls`, docs/performance.md).
    for key, item in value.items():
        if isinstance(item, (dict, list)):
            item = _rename_keys(item, rename)
        renamed[rename(key)] = item
    return renamed


def _long_named_into(renamed: dict[Any, Any], value: dict[Any, Any]) -> dict[Any, Any]:
    """`renamed` with ``value``'s items added under their keys' long names, at any
    depth: `_rename_into` with the long names, for what `orjson.loads` made (plain
    dicts and lists, new: a list is renamed in place, and one of scalars is
    left as it is). A meld's or a lay-off's event, decoded by a worker with
    streams open for every save they follow, took about twice a flat event's
    instructions through `_rename_into` (`bench.push_calls`; docs/performance.md
    has the figures)."""
    names = _LONG_NAMES_BY_KEY
    for key, item in value.items():
        kind = type(item)
        if kind is dict:
            item = _long_named_into({}, item)
        elif kind is list:
            _long_named_in_list(item)
        renamed[names[key]] = item
    return renamed


def _long_named_in_list(items: list[Any]) -> None:
    """The dicts inside `items` (at any depth) with their keys' long names, in place."""
    for index, item in enumerate(items):
        kind = type(item)
        if kind is dict:
            items[index] = _long_named_into({}, item)
        elif kind is list:
            _long_named_in_list(item)


#: The stored form of the top-level keys a save meets most, by table: the long
#: names that have a short one, and the short names (escaped, as `_short_key` does).
_STORED_KEYS: dict[str, str] = {**SHORT_KEYS, **{short: "~" + short for short in _LONG_KEYS}}
_STORE_FIELD_SET = frozenset(STORE_FIELDS)


#: Flat events' stored forms kept per process before the table is emptied.
TAILS_KEPT = 4096

#: A flat event's items (every value a `str` or an `int`, no `bool`) → its tail.
_TAILS: dict[tuple[tuple[Any, Any], ...], bytes] = {}


def event_tail(event: Mapping[str, Any]) -> bytes:
    """The caller's fields of an event in their stored form (compact JSON).

    Raises ``TypeError`` for anything that is not JSON-able (before any write).

    Speed: the form of a flat event is kept by its items. Most of a move's
    events are a draw or a discard, whose few values recur (a seat, a source, a
    card), and encoding one costs about twice its look-up (valgrind;
    docs/performance.md, "What a move costs", has the figures). Only values of
    exactly `str` or `int` are kept: equal values of other types (``1``,
    ``True`` and ``1.0``) are stored apart. At most `TAILS_KEPT`, then all forgotten.
    """
    for value in event.values():
        kind = type(value)
        if kind is not str and kind is not int:
            return _event_tail(event)
    items = tuple(event.items())
    tail = _TAILS.get(items)
    if tail is None:
        tail = _event_tail(event)
        if len(_TAILS) >= TAILS_KEPT:
            _TAILS.clear()
        _TAILS[items] = tail
    return tail


def _event_tail(event: Mapping[str, Any]) -> bytes:
    # `_rename_keys` with `_short_key` over the event less the store's fields, its
    # top level in one loop: a save encodes every event of a move.
    body: dict[Any, Any] = {}
    for key, item in event.items():
        if key in _STORE_FIELD_SET:
            continue
        if isinstance(item, (dict, list)):
            item = _rename_keys(item, _short_key)
        stored = _STORED_KEYS.get(key) if type(key) is str else None
        body[_short_key(key) if stored is None else stored] = item
    if "T" in body:
        kind = body["T"]
        if isinstance(kind, str) and kind in _TYPE_NUMBERS:
            body["T"] = _TYPE_NUMBERS[kind]
        elif type(kind) is int or isinstance(kind, list):
            body["T"] = [kind]  # a type that is a number itself: kept apart
    return orjson.dumps(body)


def stamp_event(seq: int, version: int, at_ms: int, tail: bytes) -> bytes:
    """The stored form of one event (the Redis script builds the same bytes)."""
    return b"%d %d %d %s" % (seq, version, at_ms, tail)


def decode_event(data: bytes) -> dict[str, Any]:
    """A stored event back in its full form."""
    # The three numbers and the body in one parse, as a JSON array (the first
    # three spaces are the separators): splitting and `int` on each number
    # cost more an event (`bench.push_calls`; docs/performance.md, "Open event streams").
    seq, version, at_ms, body = orjson.loads(b"[%b]" % data.replace(b" ", b",", 3))
    if type(seq) is not int or type(version) is not int or type(at_ms) is not int:
        raise ValueError(f"a stored event's numbers are not integers: {data[:100]!r}")
    if type(body) is not dict:
        raise TypeError(f"a stored event's body is not an object: {data[:100]!r}")
    event: dict[str, Any] = {
        "seq": seq,
        "version": version,
        "at": _iso_of_second(at_ms // 1000) + _MILLIS[at_ms % 1000],  # `iso_of_ms`, inline
    }
    if data.count(b"{") == 1:
        # No object inside the body (no other brace, even in a string): only
        # its own keys to rename, in one loop. Renaming them at once by their
        # tuple's long names (`tuple`, a lookup and `update(zip(...))`) cost
        # more per event (`bench.push_calls`; docs/performance.md has the figures).
        long_names = _LONG_NAMES_BY_KEY
        for key, item in body.items():
            event[long_names[key]] = item
    else:
        _long_named_into(event, body)  # the caller's fields follow the store's
    kind = event.get("type")
    if type(kind) is int:
        event["type"] = EVENT_TYPES[kind]
    elif isinstance(kind, list):
        event["type"] = kind[0]
    return event


def due_text(due: Due) -> str:
    """How a due entry's reason is stored: the reason, then its owner after a
    space when it has one (a queued game's ``why``)."""
    return f"{due.reason} {due.owner}" if due.owner else due.reason


def key_digest(key: str) -> str:
    """SHA-256 hex of an idempotency key: bounded, safe to put in a key name."""
    return hashlib.sha256(key.encode()).hexdigest()


#: Most lobby entries one `lobby_page` looks at when a filter skips entries; past
#: that, the page ends early with a cursor to go on from (docs/security.md).
LOBBY_SCAN = 1000

LobbyRow: TypeAlias = tuple[int, str, dict[str, Any]]


def lobby_page(
    rows: Iterator[LobbyRow],
    limit: int,
    where: Callable[[Mapping[str, Any]], bool] | None = None,
    scan: int = LOBBY_SCAN,
) -> tuple[list[dict[str, Any]], str | None]:
    """One lobby page from ``rows`` (score, game id, summary) in listing order, after
    the cursor: the first ``limit`` summaries ``where`` accepts (each with ``"id"``),
    and the cursor of the next page (``None``: no more). At most ``scan`` rows are
    looked at; a page cut short by that still carries a cursor."""
    items: list[dict[str, Any]] = []
    last: tuple[int, str] | None = None
    for scanned, (score, game_id, summary) in enumerate(rows, start=1):
        if where is None or where(summary):
            if len(items) == limit:
                return items, None if last is None else encode_cursor(*last)
            items.append({**summary, "id": game_id})
        last = (score, game_id)
        if scanned >= scan:
            return items, encode_cursor(*last)
    return items, None


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
