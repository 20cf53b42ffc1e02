"""Speed: a seat's entry of the public view kept while the seat and its round's counts stay.

Why (the measurement): a move's answer builds the public view of the new state,
and most of it was the four seats' dicts (with the other parts kept; counted
under valgrind, docs/performance.md, "What a move costs", has the figures), yet
a move changes one seat's hand size, flag or known cards and leaves the other
seats' entries as they were: the engine keeps their `Seat` objects and known-card tuples.

The one seam: `views.public_view` looks each seat up in `SEAT_VIEWS` by the
seat's and its known cards' identity with its index, hand size and meld flag,
and calls `seat_entry` only for one not kept. The entries are shared between
views: callers only read them (orjson serialises them).
"""

from __future__ import annotations

from typing import Any, Final

from service.rules.cards import Card
from service.rules.state import Seat

#: Seat entries kept per process before the table is emptied: every state's
#: seats enter it, so it is bounded (about 1 KB an entry; docs/security.md).
SEAT_VIEWS_KEPT: Final = 4096

#: ``(id(seat), index, hand_size, has_melded, id(known))`` →
#: ``(seat, known, entry)``; each entry holds its seat and known cards, so an id
#: is never reused while it is kept.
SEAT_VIEWS: dict[
    tuple[int, int, int, bool, int], tuple[Seat, tuple[Card, ...], dict[str, Any]]
] = {}


def seat_entry(
    index: int, seat: Seat, hand_size: int, has_melded: bool, known: tuple[Card, ...]
) -> dict[str, Any]:
    """The public view's entry of seat ``index``, made and kept in `SEAT_VIEWS`."""
    entry = {
        "seat": index,
        "name": seat.name,
        "kind": seat.kind,
        "hand_size": hand_size,
        "score": seat.score,
        "has_melded": has_melded,
        "eliminated": seat.eliminated,
        "deciding": seat.deciding,
        "reengaged": seat.reengaged,
        "chips_in": seat.chips_in,
        "chips_out": seat.chips_out,
        "away": seat.away,
        "client_seed": seat.client_seed,
        "known_cards": list(known),
    }
    if len(SEAT_VIEWS) >= SEAT_VIEWS_KEPT:
        SEAT_VIEWS.clear()
    SEAT_VIEWS[(id(seat), index, hand_size, has_melded, id(known))] = (seat, known, entry)
    return entry
