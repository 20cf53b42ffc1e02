"""Hands and melds as packed multisets: the representation of the meld searches.

Four bits per card code (two decks and six jokers fit in three), in the order of
`CARD_ORDER`, so taking a meld from a hand is one subtraction and a card's count
one shift and mask. Above the packed cards, `BIT_AND_MOST` carries the most
points a card can bring to a meld, so that one sum over a meld's cards gives
both.
"""

from __future__ import annotations

from collections.abc import Iterable

from service.rules.cards import CARD_ORDER, JOKER, Card, rank

#: A card code's shift in a packed hand, and the card at each code (shift // 4).
SHIFT: dict[Card, int] = {c: 4 * i for c, i in CARD_ORDER.items()}
CARD_AT: dict[int, Card] = {i: c for c, i in CARD_ORDER.items()}
BIT: dict[Card, int] = {c: 1 << s for c, s in SHIFT.items()}
#: The most points a card can bring to a meld (an ace 11, a joker standing for one
#: 11): the bound of the first-meld search.
MOST_POINTS: dict[Card, int] = {
    c: 11 if c == JOKER or rank(c) == 1 else min(rank(c), 10) for c in CARD_ORDER
}
#: `MOST_POINTS` by shift.
MOST_AT: dict[int, int] = {SHIFT[c]: points for c, points in MOST_POINTS.items()}
PACKED_BITS = 4 * len(CARD_ORDER)
PACKED_BYTES = (PACKED_BITS + 7) // 8
PACKED_MASK = (1 << PACKED_BITS) - 1
#: A card's bit and, above the packed hand, its most points.
BIT_AND_MOST: dict[Card, int] = {c: BIT[c] | MOST_POINTS[c] << PACKED_BITS for c in CARD_ORDER}


def pack(cards: Iterable[Card]) -> int:
    """The packed multiset of ``cards``."""
    return sum(map(BIT.__getitem__, cards))


def unpack(packed: int) -> tuple[Card, ...]:
    """The hand (sorted) of a packed multiset."""
    cards: list[Card] = []
    while packed:
        shift = ((packed & -packed).bit_length() - 1) & ~3
        cards.extend([CARD_AT[shift // 4]] * (packed >> shift & 7))
        packed &= ~(15 << shift)
    return tuple(cards)


def most_points(packed: int) -> int:
    """The most points the cards of a packed hand could bring to melds."""
    total = 0
    while packed:
        shift = ((packed & -packed).bit_length() - 1) & ~3
        total += (packed >> shift & 7) * MOST_AT[shift]
        packed &= ~(15 << shift)
    return total
