"""What a bot remembers of the current round, from public events only.

Every seat sees who took which card from the discard pile, what each seat
discarded, melded and laid off; a stock draw's card is hidden from the others.
:class:`Memory` folds those events (as any seat or a spectator receives them)
into the two facts a strategy uses: the cards each seat has been seen to take
from the discard pile and still holds, and the cards each seat threw away.
It never reads a hidden card: a ``drew`` event from the stock is ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service.rules.cards import Card


@dataclass
class Memory:
    """Public knowledge of the round ``round``: feed it events with :meth:`observe`."""

    round: int | None = None
    #: Seat → cards it took from the discard pile this round and has not played.
    collected: dict[int, list[Card]] = field(default_factory=dict)
    #: Seat → cards it discarded this round.
    discarded: dict[int, list[Card]] = field(default_factory=dict)

    def observe(self, event: Mapping[str, Any]) -> None:
        """Update from one event (engine or API shape; extra fields are ignored)."""
        kind = event.get("type")
        seat = event.get("seat")
        if kind == "round_started":
            self.round = event.get("number")
            self.collected.clear()
            self.discarded.clear()
        elif not isinstance(seat, int):
            return
        elif kind == "drew" and event.get("source") == "discard" and "card" in event:
            self.collected.setdefault(seat, []).append(event["card"])
        elif kind == "discarded":
            self._played(seat, [event["card"]])
            self.discarded.setdefault(seat, []).append(event["card"])
        elif kind == "melded":
            self._played(seat, event["meld"]["cards"])
        elif kind in ("laid_off", "joker_swapped"):
            cards = event.get("cards") or [event.get("card")]
            self._played(seat, [c for c in cards if isinstance(c, str)])

    def observe_all(self, events: Iterable[Mapping[str, Any]]) -> None:
        """Update from several events in order."""
        for event in events:
            self.observe(event)

    def _played(self, seat: int, cards: Iterable[Card]) -> None:
        held = self.collected.get(seat)
        if not held:
            return
        for card in cards:
            if card in held:
                held.remove(card)


__all__ = ["Memory"]
