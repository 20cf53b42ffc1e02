"""The best split of a one-deck, joker-free hand, on 52-bit masks (for rollouts).

:func:`~service.bots.hand.best_split` handles every deck (two decks, jokers)
and builds its candidate melds per hand; a Monte Carlo rollout calls it tens
of thousands of times per second on hands it has never seen. With one deck
and no jokers a hand is a 52-bit integer (bit ``i`` = ``NATURAL_CARDS[i]``),
every meld of the ace mode is one of a few hundred masks listed once
(:func:`meld_masks`), and the split is an exact memoised search over the
lowest remaining card: it is either deadwood or the lowest card of a meld.
Sub-hands recur across rollouts, so the memo is shared (and bounded).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from service.bots.hand import Split
from service.rules.cards import NATURAL_CARDS, SUITS, Card, card_points, make_card
from service.rules.melds import make_meld

BIT: dict[Card, int] = {c: 1 << i for i, c in enumerate(NATURAL_CARDS)}
_CARDS = NATURAL_CARDS

# Answers are (deadwood points, deadwood mask, meld masks).
_Answer = tuple[int, int, tuple[int, ...]]
_MEMO_LIMIT = 400_000


def to_mask(cards: Iterable[Card]) -> int:
    """The mask of ``cards`` (one deck, no jokers: each card at most once)."""
    m = 0
    for c in cards:
        m |= BIT[c]
    return m


def to_cards(mask: int) -> tuple[Card, ...]:
    """The cards of ``mask`` in deck order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(_CARDS[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


@lru_cache(maxsize=4)
def meld_masks(ace: str) -> tuple[tuple[int, ...], ...]:
    """Per card index, the masks of every meld (of ``ace``'s runs and all sets) whose
    lowest card it is."""
    found: set[int] = set()
    for r in range(1, 14):
        suits = [make_card(s, r) for s in SUITS]
        for skip in range(-1, 4):
            cards = [c for i, c in enumerate(suits) if i != skip]
            if make_meld(cards, ace) is not None:
                found.add(to_mask(cards))
    for s in SUITS:
        for start in range(1, 14):
            for length in range(3, 14):
                ranks = [(start - 1 + k) % 13 + 1 for k in range(length)]
                cards = [make_card(s, r) for r in ranks]
                if make_meld(cards, ace) is not None:
                    found.add(to_mask(cards))
    by_low: list[list[int]] = [[] for _ in range(52)]
    for m in found:
        by_low[(m & -m).bit_length() - 1].append(m)
    return tuple(tuple(sorted(x, key=lambda m: -m.bit_count())) for x in by_low)


@lru_cache(maxsize=8)
def _points(ace_points: int) -> tuple[int, ...]:
    return tuple(card_points(c, ace_points, 0) for c in _CARDS)


_memos: dict[tuple[str, int], dict[int, _Answer]] = {}


_RANK_MASKS = tuple(sum(1 << (13 * k + r) for k in range(4)) for r in range(13))
# A three-card run may start at ranks 1-11 of a suit without crossing into the next.
_RUN_STARTS = sum(((1 << 11) - 1) << (13 * k) for k in range(4))


@lru_cache(maxsize=4)
def _wrap_windows(ace: str) -> tuple[int, ...]:
    """Three-card runs through the ace at the top (``high_or_low``, ``around``)."""
    out = []
    for s in SUITS:
        for ranks in ((12, 13, 1), (13, 1, 2)):
            cards = [make_card(s, r) for r in ranks]
            if make_meld(cards, ace) is not None:
                out.append(to_mask(cards))
    return tuple(out)


def meldable(hand: int, ace: str) -> int:
    """The cards of ``hand`` that belong to some meld within ``hand``."""
    out = 0
    for rm in _RANK_MASKS:
        x = hand & rm
        if x.bit_count() >= 3:
            out |= x
    y = hand & (hand >> 1) & (hand >> 2) & _RUN_STARTS
    out |= y | (y << 1) | (y << 2)
    for w in _wrap_windows(ace):
        if hand & w == w:
            out |= w
    return out


def split_mask(hand: int, ace: str, ace_points: int) -> _Answer:
    """``(points, deadwood mask, meld masks)`` of the split leaving the fewest deadwood
    points (then the fewest deadwood cards)."""
    points = _points(ace_points)
    core = meldable(hand, ace)
    loose = hand ^ core
    loose_points = 0
    m = loose
    while m:
        low = m & -m
        loose_points += points[low.bit_length() - 1]
        m ^= low
    if not core:
        return loose_points, loose, ()
    key = (ace, ace_points)
    memo = _memos.get(key)
    if memo is None or len(memo) > _MEMO_LIMIT:
        memo = _memos[key] = {}
    by_low = meld_masks(ace)

    def search(rest: int) -> _Answer:
        if not rest:
            return 0, 0, ()
        known = memo.get(rest)
        if known is not None:
            return known
        low = rest & -rest
        i = low.bit_length() - 1
        pts, dead, melds = search(rest ^ low)
        best: _Answer = (pts + points[i], dead | low, melds)
        best_count = (dead | low).bit_count()
        for m in by_low[i]:
            if m & rest == m:
                pts, dead, melds = search(rest ^ m)
                if pts < best[0] or (pts == best[0] and dead.bit_count() < best_count):
                    best = (pts, dead, (m, *melds))
                    best_count = dead.bit_count()
        memo[rest] = best
        return best

    pts, dead, melds = search(core)
    return pts + loose_points, dead | loose, melds


#: A split as plain tuples ``(points, melds, deadwood)``: memoised by the hundred
#: thousand, and a tuple of strings and ints is one the garbage collector stops
#: tracking, so a full collection does not walk the memo (a ``Split`` it would).
Parts = tuple[int, tuple[tuple[Card, ...], ...], tuple[Card, ...]]
_splits: dict[tuple[str, int], dict[int, Parts]] = {}


def split_parts(cards: Iterable[Card], ace: str, ace_points: int) -> Parts:
    """:func:`fast_split` as the tuple ``(points, melds, deadwood)``."""
    key = (ace, ace_points)
    memo = _splits.get(key)
    if memo is None or len(memo) > _MEMO_LIMIT:
        memo = _splits[key] = {}
    hand = sum(map(BIT.__getitem__, cards))  # one deck: no card twice, so + is |
    found = memo.get(hand)
    if found is None:
        points, dead, melds = split_mask(hand, ace, ace_points)
        found = memo[hand] = (points, tuple(to_cards(m) for m in melds), to_cards(dead))
    return found


def fast_split(cards: Iterable[Card], ace: str, ace_points: int) -> Split:
    """:func:`~service.bots.hand.best_split` for a one-deck, joker-free hand."""
    return Split(*split_parts(cards, ace, ace_points))


__all__ = [
    "BIT",
    "Parts",
    "fast_split",
    "meld_masks",
    "split_mask",
    "split_parts",
    "to_cards",
    "to_mask",
]
