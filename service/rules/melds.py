"""Melds: sets, runs, jokers, lay-offs, joker swaps and the meld search (docs/rules.md §2).

A meld on the table is a :class:`MeldShape`: its kind, its cards in table
display order and, parallel to them, the card each one stands for (a natural
card stands for itself, a joker for the card it represents).

Ace modes (option ``ace``): ``low`` (A-2-3 only), ``high_or_low`` (A-2-3 and
Q-K-A, never K-A-2: the ace is low or high in one run) and ``around`` (runs
may turn the corner, K-A-2; never more than 13 cards).

Decisions the rules page leaves open:

- **Run order.** Natural cards of a run may be given in any order; the table
  shows them ascending. With a joker, the given order fixes what the joker
  stands for: the cards must be consecutive as given, ascending
  (``["H7","JK","H9"]``: the joker is ``H8``; ``["JK","H8","H9"]``: ``H7``) or
  descending (``["H9","JK","H7"]``: ``H8``; ``["H9","H8","JK"]``: ``H7``).
  A shuffled order with a joker is refused.
- **Thirteen cards.** All thirteen natural cards of a suit, under
  ``high_or_low`` or ``around``, form the run A..K (ace low); with a joker the
  given order decides where the run starts.
- **Jokers in a set** stand for a missing suit: the recorded one is the first
  missing suit in C D H S order (``["JK","H7","S7"]`` shows ``JK H7 S7`` and
  the joker stands for ``C7``). Because any missing suit would do, the record
  follows the natural cards: :func:`swap_joker` accepts any missing suit of the
  set's rank, and laying off the natural card a set's joker was recorded as is
  allowed (``C7`` on ``JK(C7) H7 S7`` gives ``C7 JK(D7) H7 S7``): the joker
  then stands for the next missing suit. In a run a joker's card never changes
  while it stays on the table.
- **Joker limit** (option ``joker_limit``). Under ``natural_majority`` a meld
  holds no more jokers than natural cards, also after a lay-off: ``JK`` may be
  laid off on ``JK H7 H8`` (two and two) but not on ``JK JK H7 H8``. Under
  ``one_natural`` a meld holds any number of jokers beside at least one natural
  card (``H7 JK JK`` melds, ``JK JK JK H7 H8`` too).
- **One natural card.** A meld of one natural card and two or three jokers is a
  set of that card's rank (the jokers stand for the missing suits, C D H S
  first): with a single natural card every order of the cards would be a run,
  so the cards cannot say which run is meant, and the set is the one reading
  that does not depend on their order. A run with one natural card therefore
  has at least five cards (``H7 JK JK JK JK``: ``H7``..``H11``, as given).
- **Laid-off jokers** extend a run at the high end when possible, else at the
  low end: of all placements the one with the fewest cards below the run is
  taken (``JK`` on ``C5 C6 C7`` is ``C8``; on ``CJ CQ CK`` under ``low`` it is
  ``C10``; ``C4 JK`` on ``C5 C6 C7`` puts ``C4`` low and the joker as ``C8``).
  The order of the laid-off cards does not matter (a player cannot ask for
  a joker at the low end when the high end is open). The same rule places
  an ace laid off on ``H2``..``HK``: above the king where the mode allows.
- **Meld points** (``first_meld_min_points``): an ace counts 1 only as the
  first card of a run starting at the ace (``A-2-3``); in ``Q-K-A``,
  ``K-A-2`` and in sets it counts 11. Faces 10, others their pips; a joker
  counts as the card it stands for.
- **Two decks.** A set still needs different suits and a run different ranks,
  so the same code twice is never in one meld. The search functions list each
  distinct meld or lay-off once, whatever duplicates the hand holds.
- **Jokers for held cards.** A joker may stand for a card the player holds
  and keeps back: from ``H7 H8 H9 JK`` the search lists ``H7 JK H9`` as well
  as ``H7 H8 H9`` (each is a different meld).
- **Search output.** :func:`candidate_melds` lists card tuples in display
  order (``make_meld`` of such a tuple gives that same meld);
  :func:`candidate_layoffs` lists the laid-off cards of a run in the order
  they take in the resulting run, those of a set as naturals in suit order
  then jokers. Both are sorted (plain tuple order of codes).

Card arguments must be canonical codes (see :mod:`service.rules.cards`);
anything else raises :class:`~service.rules.cards.CardCodeError`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from service.rules.cards import (
    JOKER,
    NATURAL_CARDS,
    RANK_LABELS,
    SUITS,
    Card,
    CardCodeError,
    rank,
    suit,
)
from service.rules.packed import BIT_AND_MOST, PACKED_BITS, PACKED_MASK

AceMode = Literal["low", "high_or_low", "around"]
MeldKind = Literal["set", "run"]

ACE_MODES: tuple[str, ...] = ("low", "high_or_low", "around")
#: The values of the option ``joker_limit`` (see the module docstring).
NATURAL_MAJORITY = "natural_majority"
ONE_NATURAL = "one_natural"
MAX_RUN = 13
MAX_SET = 4

# Hot-path tables: rank and suit per canonical code, suit bit per letter.
_RANK: dict[Card, int] = {c: rank(c) for c in (*NATURAL_CARDS, JOKER)}
_SUIT: dict[Card, str] = {c: suit(c) for c in (*NATURAL_CARDS, JOKER)}
_SUIT_BIT: dict[str, int] = {s: 1 << i for i, s in enumerate(SUITS)}
# Run positions: 1..13 are A..K; 14..25 continue past the king (14 is the high
# ace, 15 a 2 after the corner ...). _POS_CODE[suit][pos] is the natural card.
_POS_CODE: dict[str, tuple[Card, ...]] = {
    s: ("", *(s + RANK_LABELS[(p - 1) % 13 + 1] for p in range(1, 27))) for s in SUITS
}
_SET_POINTS = {r: (11 if r == 1 else min(r, 10)) for r in range(1, 14)}
# Points of a run by first rank and length (see meld_points): a table, because the
# first-meld search sums the points of every candidate meld (bench/worst_case.py:
# thousands of joker runs per listing).
_RUN_POINTS: dict[tuple[int, int], int] = {
    (start, length): sum(_SET_POINTS[(p - 1) % 13 + 1] for p in range(start, start + length))
    - (10 if start == 1 else 0)
    for start in range(1, 14)
    for length in range(1, MAX_RUN + 1)
}


@dataclass(frozen=True, slots=True)
class MeldShape:
    """A meld as the table shows it.

    ``cards`` are in display order (set: suits C D H S, a joker at the suit it
    stands for; run: ascending, the ace where it is used) and ``stands_for``
    is parallel to ``cards``: the natural card each position represents.
    """

    kind: MeldKind
    cards: tuple[Card, ...]
    stands_for: tuple[Card, ...]


def _check_ace(ace: str) -> None:
    if ace not in ACE_MODES:
        raise ValueError(f"unknown ace mode {ace!r}")


def _rank_of(card: Card) -> int:
    try:
        return _RANK[card]
    except KeyError:
        raise CardCodeError(card) from None


def _rank_at(pos: int) -> int:
    return (pos - 1) % 13 + 1


def _run_fits(start: int, length: int, ace: str) -> bool:
    """True when positions start..start+length-1 form a legal run span."""
    if length > MAX_RUN:
        return False
    if ace == "around":
        return True
    end = start + length - 1
    return start >= 1 and end <= (14 if ace == "high_or_low" else 13)


# ---------------------------------------------------------------------------
# Sets


def _set_shape(set_rank: int, suit_mask: int, jokers: int) -> MeldShape:
    """The set of ``set_rank`` with natural suits ``suit_mask`` and ``jokers`` jokers."""
    cards: list[Card] = []
    stands: list[Card] = []
    free = jokers
    label = RANK_LABELS[set_rank]
    for s in SUITS:
        code = s + label
        if suit_mask & _SUIT_BIT[s]:
            cards.append(code)
            stands.append(code)
        elif free:
            # A joker takes the first missing suits, in C D H S order.
            free -= 1
            cards.append(JOKER)
            stands.append(code)
    return MeldShape("set", tuple(cards), tuple(stands))


def _make_set(naturals: Sequence[Card], jokers: int) -> MeldShape | None:
    total = len(naturals) + jokers
    if total > MAX_SET:
        return None
    set_rank = _RANK[naturals[0]]
    mask = 0
    for c in naturals:
        bit = _SUIT_BIT[_SUIT[c]]
        if _RANK[c] != set_rank or mask & bit:
            return None
        mask |= bit
    return _set_shape(set_rank, mask, jokers)


# ---------------------------------------------------------------------------
# Runs


def _run_shape(run_suit: str, start: int, cards: Sequence[Card]) -> MeldShape:
    codes = _POS_CODE[run_suit]
    start = _rank_at(start)  # normalise positions before the ace (around)
    stands = codes[start : start + len(cards)]
    return MeldShape("run", tuple(cards), stands)


def _natural_run(naturals: Sequence[Card], ace: str) -> MeldShape | None:
    """A run of natural cards given in any order."""
    run_suit = _SUIT[naturals[0]]
    ranks = []
    for c in naturals:
        if _SUIT[c] != run_suit:
            return None
        ranks.append(_RANK[c])
    ranks.sort()
    n = len(ranks)
    if n > MAX_RUN or len(set(ranks)) != n:
        return None
    start = 0
    if ranks[-1] - ranks[0] == n - 1:
        start = ranks[0]
    elif ace == "high_or_low" and ranks[0] == 1:
        high = ranks[1:]
        if 14 - high[0] == n - 1:
            start = high[0]
    elif ace == "around":
        # Cyclically consecutive: exactly one gap wider than one step.
        breaks = [i for i in range(n - 1) if ranks[i + 1] - ranks[i] != 1]
        if len(breaks) == 1 and ranks[0] == 1 and ranks[-1] == 13:
            start = ranks[breaks[0] + 1]
    if not start:
        return None
    codes = _POS_CODE[run_suit]
    shown = codes[start : start + n]
    return MeldShape("run", shown, shown)


def _ordered_run(cards: Sequence[Card], ace: str) -> MeldShape | None:
    """A run with jokers, consecutive ascending in the given order."""
    first = next(i for i, c in enumerate(cards) if c != JOKER)
    run_suit = _SUIT[cards[first]]
    first_rank = _RANK[cards[first]]
    n = len(cards)
    if ace == "around":
        starts = [_rank_at(first_rank - first)]
    elif ace == "high_or_low" and first_rank == 1:
        starts = [1 - first, 14 - first]
    else:
        starts = [first_rank - first]
    for start in starts:
        if not _run_fits(start, n, ace):
            continue
        for k, c in enumerate(cards):
            if c != JOKER and (_SUIT[c] != run_suit or _RANK[c] != _rank_at(start + k)):
                break
        else:
            return _run_shape(run_suit, start, cards)
    return None


# ---------------------------------------------------------------------------
# Public API


def _too_many_jokers(jokers: int, naturals: int, joker_limit: str) -> bool:
    """Whether a meld of ``naturals`` natural cards may not hold ``jokers`` jokers."""
    if joker_limit == NATURAL_MAJORITY:
        return jokers > naturals
    return naturals == 0


def make_meld(
    cards: Sequence[Card], ace: AceMode | str, joker_limit: str = NATURAL_MAJORITY
) -> MeldShape | None:
    """The meld these cards form, or ``None``.

    Natural runs may be given in any order; with jokers the given order
    (ascending or descending) fixes what each joker stands for. One natural card
    with two or three jokers is a set (module docstring).
    """
    _check_ace(ace)
    n = len(cards)
    naturals = [c for c in cards if c != JOKER]
    for c in naturals:
        _rank_of(c)
    jokers = n - len(naturals)
    if n < 3 or _too_many_jokers(jokers, len(naturals), joker_limit):
        return None
    if len(naturals) == 1 and n <= MAX_SET:
        return _make_set(naturals, jokers)
    if len(naturals) > 1 and _RANK[naturals[0]] == _RANK[naturals[1]]:
        return _make_set(naturals, jokers)
    if jokers == 0:
        return _natural_run(naturals, ace)
    shape = _ordered_run(cards, ace)
    if shape is None:
        shape = _ordered_run(cards[::-1], ace)
    return shape


def _run_span(shape: MeldShape) -> tuple[str, int, int]:
    """Suit, start position and length of a run shape."""
    first = shape.stands_for[0]
    return _SUIT[first], _RANK[first], len(shape.cards)


def _extend_run(
    shape: MeldShape, naturals: Sequence[Card], jokers: int, ace: str
) -> MeldShape | None:
    run_suit, start, length = _run_span(shape)
    ranks = set()
    for c in naturals:
        if _SUIT[c] != run_suit:
            return None
        ranks.add(_RANK[c])
    if len(ranks) != len(naturals):
        return None
    added = len(naturals) + jokers
    new_length = length + added
    if new_length > MAX_RUN:
        return None
    end = start + length  # first position above the run
    # Fewest cards below first: jokers go to the high end when they can.
    for below in range(added + 1):
        new_start = start - below
        if not _run_fits(new_start, new_length, ace):
            continue
        low = [_rank_at(p) for p in range(new_start, start)]
        high = [_rank_at(p) for p in range(end, end + added - below)]
        if not ranks.issubset(low + high):
            continue
        codes = _POS_CODE[run_suit]
        new_cards = [codes[r] if r in ranks else JOKER for r in low]
        new_cards.extend(shape.cards)
        new_cards.extend(codes[r] if r in ranks else JOKER for r in high)
        return _run_shape(run_suit, new_start, new_cards)
    return None


def extend_meld(
    shape: MeldShape,
    added: Sequence[Card],
    ace: AceMode | str,
    joker_limit: str = NATURAL_MAJORITY,
) -> MeldShape | None:
    """The meld after laying ``added`` (one or more cards) off on ``shape``, or ``None``.

    A run's jokers keep what they stand for; laid-off jokers go to the high
    end when possible. A set grows to at most four cards.
    """
    _check_ace(ace)
    if not added:
        return None
    naturals = [c for c in added if c != JOKER]
    for c in naturals:
        _rank_of(c)
    jokers = len(added) - len(naturals)
    old_jokers = shape.cards.count(JOKER)
    if _too_many_jokers(
        old_jokers + jokers, len(shape.cards) - old_jokers + len(naturals), joker_limit
    ):
        return None
    if shape.kind == "set":
        old_naturals = [c for c in shape.cards if c != JOKER]
        return _make_set(old_naturals + naturals, old_jokers + jokers)
    return _extend_run(shape, naturals, jokers, ace)


def swap_joker(shape: MeldShape, card: Card) -> tuple[MeldShape, Card] | None:
    """Put natural ``card`` in place of the joker standing for it.

    Returns the new shape and the freed joker, or ``None`` when no joker of the
    meld stands for ``card``. In a set any missing suit of the set's rank
    qualifies (the remaining jokers then stand for the next missing suits).
    """
    _rank_of(card)
    if card == JOKER or JOKER not in shape.cards:
        return None
    if shape.kind == "set":
        naturals = [c for c in shape.cards if c != JOKER]
        if _RANK[card] != _RANK[shape.stands_for[0]]:
            return None
        new = _make_set([*naturals, card], shape.cards.count(JOKER) - 1)
        return None if new is None else (new, JOKER)
    for i, (c, meant) in enumerate(zip(shape.cards, shape.stands_for, strict=True)):
        if c == JOKER and meant == card:
            cards = (*shape.cards[:i], card, *shape.cards[i + 1 :])
            return MeldShape("run", cards, shape.stands_for), JOKER
    return None


def meld_points(shape: MeldShape) -> int:
    """Points of a meld for ``first_meld_min_points``.

    An ace counts 1 as the first card of a run starting at the ace (A-2-3),
    11 anywhere else; faces 10; a joker counts as the card it stands for.
    """
    stands = shape.stands_for
    if shape.kind == "run":
        return _RUN_POINTS[_RANK[stands[0]], len(stands)]
    return _SET_POINTS[_RANK[stands[0]]] * len(stands)


# ---------------------------------------------------------------------------
# Search


def _suit_subsets(mask: int) -> list[int]:
    """Every sub-mask of ``mask`` with at least two suits."""
    return [sub for sub in range(1, 16) if sub & mask == sub and sub.bit_count() >= 2]


_SUBSETS: tuple[list[int], ...] = tuple(_suit_subsets(m) for m in range(16))
#: Every non-empty sub-mask (``one_natural``: a set of one natural card and jokers).
_ANY_SUBSETS: tuple[list[int], ...] = tuple(
    [sub for sub in range(1, 16) if sub & m == sub] for m in range(16)
)
_SET_CACHE: dict[tuple[int, int, int, str], list[tuple[Card, ...]]] = {}


def _sets_for(
    set_rank: int, mask: int, jokers: int, joker_limit: str = NATURAL_MAJORITY
) -> list[tuple[Card, ...]]:
    """Every set of one rank from natural suits ``mask`` and up to ``jokers`` jokers."""
    key = (set_rank, mask, jokers, joker_limit)
    found = _SET_CACHE.get(key)
    if found is None:
        found = []
        majority = joker_limit == NATURAL_MAJORITY
        for sub in (_SUBSETS if majority else _ANY_SUBSETS)[mask]:
            have = sub.bit_count()
            most = min(jokers, have, MAX_SET - have) if majority else min(jokers, MAX_SET - have)
            for j in range(max(0, 3 - have), most + 1):
                found.append(_set_shape(set_rank, sub, j).cards)
        _SET_CACHE[key] = found
    return found


_SPAN = {"low": (11, 13), "high_or_low": (12, 14), "around": (13, 25)}


# Per natural card: suit index (C D H S = 0 1 2 3) and rank bit (bit r-1 = rank r).
_HAND_INFO: dict[Card, tuple[int, int]] = {
    c: (SUITS.index(_SUIT[c]), 1 << (_RANK[c] - 1)) for c in NATURAL_CARDS
}
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}

_HandIndex = tuple[int, int, int, int, int]  # rank masks of C D H S, then jokers


def _index_hand(hand: Iterable[Card]) -> _HandIndex:
    """The rank mask of each suit and the joker count of a hand."""
    masks = [0, 0, 0, 0]
    jokers = 0
    info = _HAND_INFO
    card = ""
    try:
        for card in hand:
            if card == JOKER:
                jokers += 1
            else:
                i, rank_bit = info[card]
                masks[i] |= rank_bit
    except (KeyError, TypeError):
        raise CardCodeError(card) from None
    return masks[0], masks[1], masks[2], masks[3], jokers


def _suits_of_rank(index: _HandIndex, set_rank: int) -> int:
    """Suit mask (bit i = SUITS[i]) of the held cards of one rank."""
    shift = set_rank - 1
    return (
        (index[0] >> shift & 1)
        | (index[1] >> shift & 1) << 1
        | (index[2] >> shift & 1) << 2
        | (index[3] >> shift & 1) << 3
    )


# Meld lists per (ace, hand index): the search is a pure function of the suit
# masks and the joker count, and the engine asks again for the same hands
# (its first-meld and finish searches). Bounded by the melds it holds, not by
# hands: one 14-card hand of jokers and runs has 3,350 melds (about 1.1 MB), an
# ordinary 11-card hand a few dozen, so the table is emptied once it holds
# MELD_CACHE_MELDS melds (docs/security.md: about 33 MB at most, 45 MB with `_RUN_CACHE`).
_MELD_CACHE: dict[tuple[str, str, _HandIndex], tuple[CandidateMeld, ...]] = {}
MELD_CACHE_MELDS = 100_000
_meld_cache_held = 0

#: A meld of :func:`candidate_meld_points`: its cards (display order), its
#: :func:`meld_points`, its cards packed (`service.rules.packed`), the most points
#: those cards could bring (`packed.most_points`), and its place in the order of
#: legal moves (`move_sort_key`: an integer, its cards' deck order in base 64).
CandidateMeld = tuple[tuple[Card, ...], int, int, int, int]


def clear_meld_cache() -> None:
    """Empty the meld lists kept per hand (benchmarks start cold with it)."""
    global _meld_cache_held, _runs_held
    _MELD_CACHE.clear()
    _RUN_CACHE.clear()
    _SET_CACHE.clear()
    _meld_cache_held = _runs_held = 0


def meld_cache_held() -> int:
    """How many melds the kept meld lists hold now (at most `MELD_CACHE_MELDS`)."""
    return _meld_cache_held


def candidate_melds(
    hand: Iterable[Card], ace: AceMode | str, joker_limit: str = NATURAL_MAJORITY
) -> list[tuple[Card, ...]]:
    """Every distinct meld formable from ``hand``, as display-order card tuples, sorted.

    Includes 3- and 4-card sets, every run of three or more (sub-runs too) and,
    with jokers in hand, the joker-completed melds (as many jokers as
    ``joker_limit`` allows). The caller gets a fresh list.
    """
    return [meld[0] for meld in candidate_meld_points(hand, ace, joker_limit)]


def candidate_meld_points(
    hand: Iterable[Card], ace: AceMode | str, joker_limit: str = NATURAL_MAJORITY
) -> tuple[CandidateMeld, ...]:
    """The melds of :func:`candidate_melds`, in the same order, each with its
    :func:`meld_points`, its packed cards and its place among legal moves
    (`CandidateMeld`): the engine's listing and searches know them without
    building each meld again."""
    _check_ace(ace)
    index = _index_hand(hand)
    key = (ace, joker_limit, index)
    found = _MELD_CACHE.get(key)
    if found is None:
        global _meld_cache_held
        found = _search_melds(index, ace, joker_limit)
        if _meld_cache_held + len(found) > MELD_CACHE_MELDS:
            clear_meld_cache()
        _MELD_CACHE[key] = found
        _meld_cache_held += len(found)
    return found


# The meld search builds thousands of joker runs from one hand (bench/worst_case.py:
# 3,350 from a 14-card hand), so what each run carries besides its cards is taken
# from sums over windows of run positions, per suit, made once here, corrected per
# joker, not summed card by card, and runs are added as they are found, without a
# table of patterns in between (callgrind, bench/worst_case.py's clubs hand: its
# candidates and the search's pool of them took 97 million instructions, now 56).
# The place in deck order is an integer: the cards' positions in `CARD_ORDER` (plus
# one) in base 64, the first card highest, so that a shorter prefix comes first.
_DECK_ORDINAL: dict[Card, int] = {c: i + 1 for i, c in enumerate((*NATURAL_CARDS, JOKER))}
_POSITIONS = 26  # run positions are 1..25 (`_SPAN`)


def deck_order(cards: Sequence[Card]) -> int:
    """The place of a meld's ``cards`` among melds in `move_sort_key` order (deck
    order, card by card), as `CandidateMeld` gives it."""
    return sum(_DECK_ORDINAL[c] << 6 * (12 - i) for i, c in enumerate(cards))


# What a run carries beside its cards, in one integer: its packed cards and most
# points (`BIT_AND_MOST`, below _BOTH_BITS: a run's most points are under 256) and
# its deck order above them.
_BOTH_BITS = PACKED_BITS + 8


def _window_sums(run_suit: str) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Per window of run positions (index ``27 * start + stop``), what its cards
    carry; per position and index in the run, what a joker there adds instead of
    the natural card (never less: the joker's code and ordinal are the highest)."""
    codes = _POS_CODE[run_suit]
    windows = [0] * (27 * _POSITIONS)
    for start in range(1, 14):
        for stop in range(start + 1, min(start + MAX_RUN, _POSITIONS) + 1):
            window = codes[start:stop]
            windows[27 * start + stop] = sum(map(BIT_AND_MOST.__getitem__, window)) + (
                deck_order(window) << _BOTH_BITS
            )
    jokers = tuple(
        tuple(
            BIT_AND_MOST[JOKER]
            - BIT_AND_MOST[codes[at]]
            + ((_DECK_ORDINAL[JOKER] - _DECK_ORDINAL[codes[at]]) << 6 * (12 - i) + _BOTH_BITS)
            for i in range(MAX_RUN)
        )
        if at
        else ()
        for at in range(_POSITIONS)
    )
    return tuple(windows), jokers


_WINDOWS = {s: _window_sums(s) for s in SUITS}
_MOST_MASK = (1 << _BOTH_BITS) - 1


def _runs(
    found: list[tuple[tuple[Card, ...], int, int]],
    run_suit: str,
    mask: int,
    jokers: int,
    ace: str,
    joker_limit: str = NATURAL_MAJORITY,
) -> None:
    """Add every run of ``run_suit`` from natural ranks ``mask`` (bit r-1 = rank r)
    and up to ``jokers`` jokers to ``found``, as `_search_melds` keeps them.

    A joker may fill a gap or stand in for a held card (keeping that card
    back): every such run is its own meld. Under ``one_natural`` a run of at
    most four cards keeps at least two natural ones (with one it is a set).
    """
    majority = joker_limit == NATURAL_MAJORITY
    codes = _POS_CODE[run_suit]
    windows, joker_at_index = _WINDOWS[run_suit]
    last_start, last_end = _SPAN[ace]
    for start in range(1, last_start + 1):
        held: list[int] = []  # indexes in the run of held naturals
        gaps: list[int] = []  # indexes a joker must fill
        for end in range(start, min(last_end, start + MAX_RUN - 1) + 1):
            if mask >> ((end - 1) % 13) & 1:
                held.append(end - start)
            else:
                gaps.append(end - start)
                if len(gaps) > jokers:
                    break
            length = end - start + 1
            if length < 3:
                continue
            points = _RUN_POINTS[start, length]  # a run starts at 1..13
            window = codes[start : end + 1]
            carried = windows[27 * start + end + 1]
            if not gaps and (length < MAX_RUN or start == 1):
                # Thirteen naturals are one meld, A..K (see make_meld).
                found.append((window, points, carried))
            # natural_majority: never more jokers than naturals; one_natural: one natural.
            most = min(jokers, length // 2 if majority else length - 1)
            if most < len(gaps):
                continue
            filled = list(window)
            for i in gaps:
                filled[i] = JOKER
                carried += joker_at_index[start + i][i]
            for extra in range(1 if not gaps else 0, most - len(gaps) + 1):
                if not majority and length <= MAX_SET and len(held) - extra < 2:
                    continue  # one natural card and jokers: a set (make_meld)
                for stand_ins in combinations(held, extra):
                    cards = filled.copy()
                    more = carried
                    for i in stand_ins:
                        cards[i] = JOKER
                        more += joker_at_index[start + i][i]
                    found.append((tuple(cards), points, more))


# The runs of one suit per (ace, suit, rank mask, jokers): ordinary hands share
# them (a suit's few cards recur from hand to hand; callgrind, `bench/engine.py
# --states 60 --repeat 5`: without this table the runs made anew for every new
# hand cost 8 % more instructions). Bounded like the meld lists: emptied once it
# holds MELD_CACHE_MELDS runs.
_RUN_CACHE: dict[tuple[str, str, int, int, str], tuple[tuple[tuple[Card, ...], int, int], ...]] = {}
_runs_held = 0


def _suit_runs(
    run_suit: str, mask: int, jokers: int, ace: str, joker_limit: str = NATURAL_MAJORITY
) -> tuple[tuple[tuple[Card, ...], int, int], ...]:
    """`_runs` of one suit, kept."""
    global _runs_held
    key = (ace, run_suit, mask, jokers, joker_limit)
    found = _RUN_CACHE.get(key)
    if found is None:
        runs: list[tuple[tuple[Card, ...], int, int]] = []
        _runs(runs, run_suit, mask, jokers, ace, joker_limit)
        found = tuple(runs)
        if _runs_held + len(found) > MELD_CACHE_MELDS:
            _RUN_CACHE.clear()
            _runs_held = 0
        _RUN_CACHE[key] = found
        _runs_held += len(found)
    return found


def _search_melds(
    index: _HandIndex, ace: str, joker_limit: str = NATURAL_MAJORITY
) -> tuple[CandidateMeld, ...]:
    jokers = index[4]
    majority = joker_limit == NATURAL_MAJORITY
    set_jokers = min(jokers, 2 if majority else 3)
    # (cards, points, what they carry: packed cards, most points, deck order)
    found: list[tuple[tuple[Card, ...], int, int]] = []
    for set_rank in range(1, 14):
        mask = _suits_of_rank(index, set_rank)
        if mask and mask.bit_count() + set_jokers >= 3:
            points = _SET_POINTS[set_rank]
            for c in _sets_for(set_rank, mask, set_jokers, joker_limit):
                both = sum(map(BIT_AND_MOST.__getitem__, c))
                found.append((c, points * len(c), both + (deck_order(c) << _BOTH_BITS)))
    for suit_index, run_suit in enumerate(SUITS):
        mask = index[suit_index]
        held = mask.bit_count()
        if majority and held + min(jokers, held) >= 3:
            found.extend(_suit_runs(run_suit, mask, min(jokers, held, 6), ace))
        elif not majority and held and held + jokers >= 3:
            found.extend(_suit_runs(run_suit, mask, min(jokers, 6), ace, joker_limit))
    found.sort()  # by the cards: no two melds have the same
    return tuple(
        (
            cards,
            points,
            carried & PACKED_MASK,
            (carried & _MOST_MASK) >> PACKED_BITS,
            carried >> _BOTH_BITS,
        )
        for cards, points, carried in found
    )


def _run_layoffs(
    shape: MeldShape, index: _HandIndex, ace: str, joker_limit: str = NATURAL_MAJORITY
) -> list[tuple[Card, ...]]:
    """Every distinct lay-off of hand cards on one run, in display order."""
    majority = joker_limit == NATURAL_MAJORITY
    first = shape.stands_for[0]
    run_suit = _SUIT[first]
    mask = index[_SUIT_INDEX[run_suit]]
    jokers = index[4]
    if not mask and not jokers:
        return []
    start = _RANK[first]
    length = len(shape.cards)
    used_jokers = shape.cards.count(JOKER)
    naturals = length - used_jokers
    room = MAX_RUN - length
    end = start + length
    codes = _POS_CODE[run_suit]
    if not jokers:
        return _natural_run_layoffs(codes, mask, start, length, ace)
    # Each new slot takes the held natural card or a joker. lows[d] fills the
    # d slots below the run, highs[u] the u slots above it.
    lows = _slot_fills([start - 1 - k for k in range(room)], codes, mask, jokers, prepend=True)
    highs = _slot_fills([end + k for k in range(room)], codes, mask, jokers, prepend=False)
    # A multiset of laid-off cards is placed as extend_meld places it, with the
    # fewest cards below: the first placement seen for it (smallest d) wins.
    seen: set[tuple[int, int]] = set()
    found: list[tuple[Card, ...]] = []
    for below, low_ways in enumerate(lows):
        new_start = start - below
        if not low_ways or not _run_fits(new_start, length + below, ace):
            break
        for above, high_ways in enumerate(highs[: room - below + 1]):
            total = length + below + above
            if not high_ways or not _run_fits(new_start, total, ace):
                break
            if below + above == 0:
                continue
            # A joker in the lowest slot could move to the top instead.
            movable = below > 0 and _run_fits(new_start + 1, total, ace)
            for low, low_jokers, low_bits in low_ways:
                if movable and low[0] == JOKER:
                    continue
                for high, high_jokers, high_bits in high_ways:
                    added_jokers = low_jokers + high_jokers
                    if added_jokers > jokers:
                        continue
                    if majority and (
                        used_jokers + added_jokers > naturals + below + above - added_jokers
                    ):
                        continue
                    key = (low_bits | high_bits, added_jokers)
                    if key in seen:
                        continue
                    seen.add(key)
                    found.append(low + high)
    return found


def _natural_run_layoffs(
    codes: tuple[Card, ...], mask: int, start: int, length: int, ace: str
) -> list[tuple[Card, ...]]:
    """Lay-offs on a run without jokers in hand: held cards next to either end."""
    room = MAX_RUN - length
    below = 0
    while (
        below < room
        and mask >> (_rank_at(start - below - 1) - 1) & 1
        and _run_fits(start - below - 1, length + below + 1, ace)
    ):
        below += 1
    end = start + length
    above = 0
    while (
        above < room
        and mask >> (_rank_at(end + above) - 1) & 1
        and _run_fits(start, length + above + 1, ace)
    ):
        above += 1
    low = [codes[_rank_at(p)] for p in range(start - below, start)]
    high = [codes[_rank_at(p)] for p in range(end, end + above)]
    found: list[tuple[Card, ...]] = []
    seen: set[frozenset[Card]] = set()
    for d in range(below + 1):
        for u in range(min(above, room - d) + 1):
            if d or u:
                cards = (*low[below - d :], *high[:u])
                # Around the corner the slots below and above a long run can be the
                # same ranks: one lay-off, placed as extend_meld places it (fewest
                # cards below, so the first seen).
                key = frozenset(cards)
                if key not in seen:
                    seen.add(key)
                    found.append(cards)
    return found


def _slot_fills(
    positions: Sequence[int], codes: tuple[Card, ...], mask: int, jokers: int, *, prepend: bool
) -> list[list[tuple[tuple[Card, ...], int, int]]]:
    """Ways to fill the first k of ``positions`` (k = 0, 1, ...) from held cards or jokers.

    Each way is (cards in display order, jokers used, bits of the ranks held
    back from the hand); with ``prepend`` the positions run downwards, so each
    new slot goes in front.
    """
    ways: list[tuple[tuple[Card, ...], int, int]] = [((), 0, 0)]
    result = [ways]
    for p in positions:
        r = _rank_at(p)
        bit = 1 << (r - 1)
        held = mask & bit
        card = codes[r]
        nxt: list[tuple[tuple[Card, ...], int, int]] = []
        for way, used, bits in ways:
            if held:
                nxt.append(((card, *way) if prepend else (*way, card), used, bits | bit))
            if used < jokers:
                nxt.append(((JOKER, *way) if prepend else (*way, JOKER), used + 1, bits))
        if not nxt:
            break
        result.append(nxt)
        ways = nxt
    return result


# Every sub-mask of a suit mask (0 included), and the cards of one rank per suit mask.
_SUBMASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(sub for sub in range(16) if sub & mask == sub) for mask in range(16)
)
_SUIT_CARDS: dict[tuple[int, int], tuple[Card, ...]] = {
    (r, mask): tuple(s + RANK_LABELS[r] for s in SUITS if mask & _SUIT_BIT[s])
    for r in range(1, 14)
    for mask in range(16)
}


def _set_layoffs(
    shape: MeldShape, index: _HandIndex, joker_limit: str = NATURAL_MAJORITY
) -> list[tuple[Card, ...]]:
    """Every distinct lay-off of hand cards on one set: naturals in suit order, then jokers."""
    room = MAX_SET - len(shape.cards)
    if room <= 0:
        return []
    set_rank = _RANK[shape.stands_for[0]]
    held = _suits_of_rank(index, set_rank)
    jokers = index[4]
    if not held and not jokers:
        return []
    old_mask = 0
    old_jokers = 0
    for c in shape.cards:
        if c == JOKER:
            old_jokers += 1
        else:
            old_mask |= _SUIT_BIT[_SUIT[c]]
    old_naturals = len(shape.cards) - old_jokers
    found: list[tuple[Card, ...]] = []
    for sub in _SUBMASKS[held & ~old_mask & 15]:
        have = sub.bit_count()
        naturals = _SUIT_CARDS[(set_rank, sub)]
        for j in range(min(jokers, room - have) + 1):
            if (have or j) and (
                joker_limit != NATURAL_MAJORITY or old_jokers + j <= old_naturals + have
            ):
                found.append((*naturals, *[JOKER] * j))
    return found


def candidate_layoffs(
    hand: Iterable[Card],
    shapes: Mapping[int, MeldShape],
    ace: AceMode | str,
    joker_limit: str = NATURAL_MAJORITY,
) -> list[tuple[int, tuple[Card, ...]]]:
    """Every distinct (meld id, cards) lay-off from ``hand``, multi-card ones included, sorted."""
    _check_ace(ace)
    index = _index_hand(hand)
    found: list[tuple[int, tuple[Card, ...]]] = []
    for meld_id, shape in shapes.items():
        if shape.kind == "set":
            options = _set_layoffs(shape, index, joker_limit)
        else:
            options = _run_layoffs(shape, index, ace, joker_limit)
        found.extend((meld_id, cards) for cards in options)
    found.sort()
    return found
