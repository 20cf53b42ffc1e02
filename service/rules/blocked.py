"""Blocked rounds (docs/rules.md §5): whether anyone can still go out.

A discard that leaves a round where no card outside the table can be laid off
and no meld can be formed from the cards outside it ends the round with no
winner. `round_blocked` decides it; `table_outlook` answers per table of melds
(cached: most tables recur), from what each meld accepts.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from service.rules.cards import CARD_ORDER, JOKER, NATURAL_CARDS, Card, build_deck
from service.rules.identity import by_identity
from service.rules.melds import NATURAL_MAJORITY, MeldShape, extend_meld, swap_joker
from service.rules.options import Options
from service.rules.state import RoundState, TableMeld


@lru_cache(maxsize=8192)
def acceptors(shape: MeldShape, ace: str, joker_limit: str = NATURAL_MAJORITY) -> frozenset[Card]:
    """The cards that can be laid off alone on ``shape``."""
    return frozenset(
        c for c in (*NATURAL_CARDS, JOKER) if extend_meld(shape, (c,), ace, joker_limit) is not None
    )


@lru_cache(maxsize=8192)
def joker_partners(
    shape: MeldShape, ace: str, joker_limit: str = NATURAL_MAJORITY
) -> frozenset[Card]:
    """The natural cards that can be laid off on ``shape`` together with a joker.

    A multi-card lay-off can fit where no single card does (``JK H10`` on
    ``JK JK H7 H8`` when ``H4`` and ``H9`` are elsewhere): the joker bridges a gap
    the limit on jokers forbids it to fill alone. Checking single cards and these
    pairs is enough: in any valid lay-off, the cards nearest an end of the meld are
    a single card that fits alone or a joker followed by a natural card.
    """
    return frozenset(
        c for c in NATURAL_CARDS if extend_meld(shape, (JOKER, c), ace, joker_limit) is not None
    )


@lru_cache(maxsize=8192)
def swappable(shape: MeldShape) -> frozenset[Card]:
    """The natural cards a joker of ``shape`` can be swapped for."""
    if JOKER not in shape.cards:
        return frozenset()
    return frozenset(c for c in NATURAL_CARDS if swap_joker(shape, c) is not None)


def any_meld(cards: Counter[Card], ace: str, joker_limit: str = NATURAL_MAJORITY) -> bool:
    """Whether some valid meld can be formed from this multiset of cards."""
    jokers = cards.get(JOKER, 0)
    majority = joker_limit == NATURAL_MAJORITY
    by_rank: dict[int, int] = {}
    by_suit: dict[str, int] = {}
    for c in cards:
        if c == JOKER:
            continue
        r = CARD_ORDER[c] % 13 + 1
        s = c[0]
        by_rank[r] = by_rank.get(r, 0) | (1 << "CDHS".index(s))
        by_suit[s] = by_suit.get(s, 0) | (1 << r)
    for mask in by_rank.values():
        k = mask.bit_count()
        if k >= 3 or (k == 2 and jokers >= 1) or (not majority and jokers >= 2):
            return True
    for mask in by_suit.values():
        if ace != "low" and mask & 2:
            mask |= 1 << 14  # the ace also above the king
        if ace == "around":
            positions = [bool(mask >> p & 1) for p in range(1, 14)] * 2
            starts = range(13)
            top = 26
        else:
            positions = [bool(mask >> p & 1) for p in range(1, 15)]
            starts = range(14)
            top = 14
        for start in starts:
            for length in range(3, 14 if jokers else 4):
                end = start + length
                if end > top:
                    break
                natural = sum(positions[start:end])
                if natural and length - natural <= (min(jokers, natural) if majority else jokers):
                    return True
    return False


@lru_cache(maxsize=4096)
def table_outlook(
    shapes: tuple[MeldShape, ...],
    ace: str,
    decks: int,
    jokers: int,
    joker_swap: bool = False,
    joker_limit: str = NATURAL_MAJORITY,
) -> tuple[bool, bool]:
    """``(no card outside the table can be laid off, no meld can be formed outside it)``.

    A lay-off may be of several cards; with ``joker_swap`` a card that can be
    swapped for a melded joker counts as one that can be laid off (the swap frees
    the joker and changes the meld, so the table can still move).
    """
    outside = Counter(build_deck(decks, jokers))
    for shape in shapes:
        outside.subtract(shape.cards)
    present = {c for c, k in outside.items() if k > 0}
    joker_out = JOKER in present
    no_layoff = all(
        not (acceptors(s, ace, joker_limit) & present)
        and not (joker_out and joker_partners(s, ace, joker_limit) & present)
        and not (joker_swap and swappable(s) & present)
        for s in shapes
    )
    return no_layoff, not any_meld(+outside, ace, joker_limit)


@by_identity(1024)
def _table_outlook_of(
    melds: tuple[TableMeld, ...],
    ace: str,
    decks: int,
    jokers: int,
    joker_swap: bool,
    joker_limit: str = NATURAL_MAJORITY,
) -> tuple[bool, bool]:
    """`table_outlook` of the melds' shapes, kept per tuple of melds: the same
    object from one discard to the next until a meld is made or laid off on.

    Speed: `table_outlook`'s own cache hashes every shape field by field, for a
    discard's check each (valgrind; docs/performance.md, "What a move costs",
    has the figures)."""
    return table_outlook(tuple(m.shape for m in melds), ace, decks, jokers, joker_swap, joker_limit)


def round_blocked(r: RoundState, opts: Options) -> bool:
    """docs/rules.md §5: nobody can ever go out.

    Under ``go_out_requires_discard`` a hand of two cards counts as a hand of one
    does without it: after the draw its three cards cannot be melded and leave a
    card to discard, so with no lay-off possible it can never be emptied.
    """
    melds = r.melds
    if melds:
        no_layoff, no_meld = _table_outlook_of(
            melds, opts.ace, opts.decks, opts.jokers, opts.joker_swap, opts.joker_limit
        )
        if not no_layoff:
            return False
    else:
        no_meld = False
    most = 2 if opts.go_out_requires_discard else 1
    if all(len(h) <= most for i, h in enumerate(r.hands) if r.dealt[i]):
        return True
    if not melds:
        no_meld = table_outlook((), opts.ace, opts.decks, opts.jokers, False, opts.joker_limit)[1]
    return no_meld
