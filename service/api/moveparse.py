"""Speed: a move request's parsed moves kept per body, for the bodies moves repeat.

Why (the measurement): `parse_request` (the move's shape checked, its fields
parsed, its card codes read in any accepted form, a frozen move built) is a
share of a move worth keeping (`bench/wsgi_calls.py --phase moves` under
valgrind; docs/performance.md, "What a move costs", has the figures), yet most
moves are draws and discards whose bodies recur byte for byte: a game's 52
cards and two draws. A body's moves depend on its bytes
alone (orjson reads the same bytes to the same value, and `parse_request` is
a function of that value), and moves are frozen, so the moves of a body seen
before are handed out again.

The one seam: `service.api.moves.make_move` asks `parsed_moves` for its moves.
A body that does not parse raises as before and is not kept; only bodies of at
most `BODY_BYTES_KEPT` bytes are kept, at most `MOVES_KEPT` of them, then all
forgotten (docs/security.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from service.rules.moves import Move, parse_request

#: Bodies kept per process before the table is emptied.
MOVES_KEPT: Final = 1024
#: The longest body kept (a draw or a discard is some 30-40 bytes).
BODY_BYTES_KEPT: Final = 128

#: A body's bytes → its moves (a tuple: shared, never changed).
_KEPT: dict[bytes, tuple[Move, ...]] = {}


def parsed_moves(data: bytes | None, body: Any) -> Sequence[Move]:
    """`parse_request(body)`, where `body` is what `data` parses to (`None`: not
    known), kept for a short body (shared: do not change it)."""
    if data is not None:
        found = _KEPT.get(data)
        if found is not None:
            return found
    moves = tuple(parse_request(body))
    if data is not None and len(data) <= BODY_BYTES_KEPT:
        if len(_KEPT) >= MOVES_KEPT:
            _KEPT.clear()
        _KEPT[data] = moves
    return moves
