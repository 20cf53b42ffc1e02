"""Hand arithmetic for bots: the best split of a hand into melds, and a card's live outs.

Everything here works on card codes only (a hand, the cards a seat has seen),
never on a game state, so a strategy built on it can only know what its seat
knows.

- :func:`best_split` finds the melds that leave the fewest deadwood points (the
  points of the cards in no meld), exactly, by a memoised search over the
  hand's candidate melds.
- :func:`outs` counts the unseen cards that would turn a deadwood card and
  one partner from the hand into a three-card meld (a pair of a rank, or two
  cards of a suit one or two ranks apart).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from service.rules.cards import (
    CARD_ORDER,
    JOKER,
    NATURAL_CARDS,
    SUITS,
    Card,
    card_points,
    rank,
    suit,
)
from service.rules.melds import candidate_melds


@dataclass(frozen=True, slots=True)
class Split:
    """A hand split into ``melds`` and ``deadwood`` (cards in no meld) worth ``points``."""

    points: int
    melds: tuple[tuple[Card, ...], ...]
    deadwood: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Scoring:
    """What a card in hand costs: the game's ace mode and point values."""

    ace: str = "low"
    ace_points: int = 1
    joker_points: int = 0
    joker_limit: str = "natural_majority"

    def points(self, card: Card) -> int:
        """Points of ``card`` left in hand."""
        return card_points(card, self.ace_points, self.joker_points)


def sort_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards in deck order, jokers last."""
    return tuple(sorted(cards, key=CARD_ORDER.__getitem__))


def without(hand: Sequence[Card], cards: Iterable[Card]) -> tuple[Card, ...]:
    """``hand`` less one copy of each of ``cards`` (missing ones are ignored)."""
    rest = list(hand)
    for c in cards:
        if c in rest:
            rest.remove(c)
    return tuple(rest)


def best_split(hand: Iterable[Card], scoring: Scoring) -> Split:
    """The melds that leave the fewest deadwood points (then the fewest deadwood cards)."""
    return _best_split(sort_cards(hand), scoring)


# Deadwood points, deadwood card count, melds: the search's answer for some cards.
_Found = tuple[int, int, tuple[tuple[Card, ...], ...]]


@lru_cache(maxsize=65536)
def _best_split(hand: tuple[Card, ...], scoring: Scoring) -> Split:
    by_first: dict[Card, list[tuple[Card, ...]]] = {}
    for meld in candidate_melds(hand, scoring.ace, scoring.joker_limit):
        first = min(meld, key=CARD_ORDER.__getitem__)
        by_first.setdefault(first, []).append(meld)

    memo: dict[tuple[Card, ...], _Found] = {}

    def search(rest: tuple[Card, ...]) -> _Found:
        # rest is sorted; its first card is either deadwood or in a meld with later cards.
        if not rest:
            return 0, 0, ()
        known = memo.get(rest)
        if known is not None:
            return known
        first = rest[0]
        if first == JOKER:  # only jokers left: no meld is all jokers
            memo[rest] = (sum(scoring.points(c) for c in rest), len(rest), ())
            return memo[rest]
        pts, count, melds = search(rest[1:])
        best: _Found = (pts + scoring.points(first), count + 1, melds)
        for meld in by_first.get(first, ()):
            left = _take(rest, meld)
            if left is None:
                continue
            pts, count, melds = search(left)
            if (pts, count) < best[:2]:
                best = (pts, count, (meld, *melds))
        memo[rest] = best
        return best

    points, _, melds = search(hand)
    deadwood = hand
    for meld in melds:
        deadwood = without(deadwood, meld)
    return Split(points, melds, deadwood)


def _take(cards: tuple[Card, ...], meld: tuple[Card, ...]) -> tuple[Card, ...] | None:
    """``cards`` (sorted) without the meld's cards, or ``None`` if one is missing."""
    rest = list(cards)
    for c in meld:
        try:
            rest.remove(c)
        except ValueError:
            return None
    return tuple(rest)


@lru_cache(maxsize=4)
def run_windows(ace: str) -> tuple[tuple[int, int, int], ...]:
    """Every three consecutive ranks a run may hold under the ace mode."""
    windows = [(r, r + 1, r + 2) for r in range(1, 12)]
    if ace in ("high_or_low", "around"):
        windows.append((12, 13, 1))
    if ace == "around":
        windows.append((13, 1, 2))
    return tuple(windows)


def unseen_cards(decks: int, jokers: int, seen: Iterable[Card]) -> Counter[Card]:
    """Copies of each card that may still come: the game's cards less those ``seen``."""
    left: Counter[Card] = Counter({c: decks for c in NATURAL_CARDS})
    if jokers:
        left[JOKER] = jokers
    left.subtract(seen)
    return +left


def outs(card: Card, partners: Sequence[Card], unseen: Mapping[Card, int], ace: str) -> int:
    """Unseen copies of the cards that would meld ``card`` with one card of ``partners``.

    A pair of a rank wants the rank's missing suits; two cards of a suit wants
    the rank that makes three in a row. Each wanted card counts once.
    """
    if card == JOKER:
        return 0
    r, s = rank(card), suit(card)
    wanted: set[Card] = set()
    partner_ranks = {rank(p) for p in partners if p != card and p != JOKER and suit(p) == s}
    for p in partners:
        if p != JOKER and p != card and rank(p) == r and suit(p) != s:
            wanted.update(_code(other, r) for other in SUITS if other not in (s, suit(p)))
    for window in run_windows(ace):
        if r not in window:
            continue
        others = [x for x in window if x != r]
        for i, x in enumerate(others):
            if x in partner_ranks:
                wanted.add(_code(s, others[1 - i]))
    return sum(unseen.get(c, 0) for c in wanted)


_CODES: dict[tuple[str, int], Card] = {(suit(c), rank(c)): c for c in NATURAL_CARDS}


def _code(s: str, r: int) -> Card:
    return _CODES[(s, r)]


__all__ = [
    "Scoring",
    "Split",
    "best_split",
    "outs",
    "run_windows",
    "sort_cards",
    "unseen_cards",
    "without",
]
