"""The search for a way to finish the turn: first-meld minimums and concealed rounds.

After a meld, lay-off or joker swap the turn must still be finishable: by a
discard, by going out, or, when a first-meld minimum is still owed or a
concealed round requires going out, by further melds from the cards left.
`finish_code` answers with the refusal code or ``None``. The search takes one
pool of the hand's melds per listing (`meld_pool`), hands packed as integers,
and a budget of melds tried (`Nodes`, `SEARCH_NODES`) shared by every check of
one legal-move listing; a check that runs out answers "cannot finish", so a
move is legal exactly when it is listed (docs/performance.md, "The worst case
the options allow").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from service.rules.cards import (
    Card,
)
from service.rules.melds import (
    NATURAL_MAJORITY,
    CandidateMeld,
    MeldShape,
    candidate_meld_points,
    extend_meld,
    make_meld,
)
from service.rules.options import Options
from service.rules.packed import (
    CARD_AT,
    MOST_AT,
    PACKED_BITS,
    PACKED_BYTES,
    most_points,
    pack,
    unpack,
)
from service.rules.state import RoundState


def is_concealed(opts: Options, r: RoundState) -> bool:
    return r.number in opts.concealed_rounds


def has_opened(opts: Options, r: RoundState, seat: int) -> bool:
    """The seat has put down its first melds this round and met any minimum."""
    return r.melded[seat] and not (seat == r.turn and r.opening is not None)


def plain_finish(
    opts: Options,
    rest: int,
    n: int,
    taken: Card | None,
    shapes: Iterable[MeldShape],
    melded: bool,
    concealed: bool,
) -> bool:
    """Whether the turn can still end with the packed hand ``rest`` of ``n`` cards
    left: by a discard, by going out, or (only the taken discard left) by laying
    that card off at once on one of the table's melds ``shapes``."""
    if n >= 2:
        return True
    if n == 0:
        return not opts.go_out_requires_discard
    card = CARD_AT[(rest.bit_length() - 1) // 4]
    if card != taken:
        return True
    if opts.go_out_requires_discard or concealed:
        return False
    if opts.layoff_requires_own_meld and not melded:
        return False
    return any(
        extend_meld(shape, (card,), opts.ace, opts.joker_limit) is not None for shape in shapes
    )


#: A meld of a pool: its packed cards, points, size, and the most points its cards
#: could bring (what the bound of the search loses when they leave the hand).
_PoolMeld = tuple[int, int, int, int]

#: Melds one listing of the legal moves may try, all its checks together, when
#: it searches how the turn can still end after a meld or a joker swap (a
#: first-meld minimum, a concealed round's way out). Sized so that the worst
#: allowed hand stays within the 50 ms of docs/performance.md (a budget of 1,000
#: did not on a loaded machine); the checks of a preset's hands use a small part
#: of it.
SEARCH_NODES = 500


#: What `finish_code` answers without ``search`` when only the search can decide.
SEARCH_NEEDED = "search_needed"


class Nodes:
    """What is left of a listing's `SEARCH_NODES`, and the searches its checks made.

    ``searches`` keeps one `_Search` per pool and rule for the end of the turn, with
    what its sub-searches found: the checks of one listing reach the same rests of
    a hand from many melds. ``fits`` keeps, per pool, the melds each rest of the
    hand asked holds (`Pool.fitting`): a listing's candidates of the same cards
    leave the same rest. Both live as long as the listing (the pools are kept
    longer: this would grow them).
    """

    __slots__ = ("fits", "left", "searches")

    def __init__(self, left: int = SEARCH_NODES) -> None:
        self.left = left
        self.searches: dict[tuple[object, bool, bool], _Search] = {}
        self.fits: dict[Pool, dict[int, int]] = {}


@dataclass(frozen=True, slots=True, eq=False)  # hashed by identity: a key of Nodes.searches
class Pool:
    """The melds a hand can form: each as `candidate_melds` lists it, and those the
    search tries, most points first, with an index for containment.

    ``listed`` holds the candidates as `candidate_meld_points` gives them. ``melds``
    keeps, of the candidates with the same cards, one with the most points: the
    search needs no other (the same cards leave the same hand, and fewer points
    never help): in bench/worst_case.py's hand, about half the candidates.
    ``free[2 * shift + k]`` is a bitset of ``melds`` (bit i = ``melds[i]``) holding
    fewer than ``k`` copies of the card at ``shift``: those that still fit once the
    hand has only ``k - 1`` copies left (a list: faster to index than a dict).
    """

    listed: tuple[CandidateMeld, ...]
    melds: tuple[_PoolMeld, ...]
    free: list[int]
    hand: int  # the packed hand the melds were formed from
    most: int  # the most points its cards could bring

    def fitting(self, hand: int) -> int:
        """The bitset of melds the packed ``hand`` (part of the pool's hand) holds
        every card of."""
        out = (1 << len(self.melds)) - 1
        free = self.free
        gone = self.hand - hand
        while gone:  # each card code of which the hand has fewer copies
            shift = ((gone & -gone).bit_length() - 1) & ~3
            out &= free[2 * shift + (hand >> shift & 7) + 1]
            gone &= ~(15 << shift)
        return out


# The tables of Pool.free: for each card code of the hand and each count k, one
# bitset over the pool. They are built column-wise from the melds' packed bytes
# (a byte slice per code, translated to a string of 0s and 1s), not meld by meld:
# several times faster than a Python loop per meld and card on bench/worst_case.py's
# pool.
_FEWER: dict[tuple[bool, int], bytes] = {
    (high, k): bytes(
        (ord("1") if ((v >> 4 if high else v) & 7) < k else ord("0")) for v in range(256)
    )
    for high in (False, True)
    for k in range(1, 8)
}


def _free_tables(packs: Sequence[int], hand: int) -> list[int]:
    blob = b"".join([p.to_bytes(PACKED_BYTES, "little") for p in reversed(packs)])
    free = [0] * (2 * PACKED_BITS)
    rest = hand
    while rest:
        shift = ((rest & -rest).bit_length() - 1) & ~3
        column = blob[shift // 8 :: PACKED_BYTES]  # the byte of this code, last meld first
        for k in range(1, (hand >> shift & 7) + 1):
            free[2 * shift + k] = int(column.translate(_FEWER[shift % 8 == 4, k]) or b"0", 2)
        rest &= ~(15 << shift)
    return free


@lru_cache(maxsize=65536)
def meld_shape(
    cards: tuple[Card, ...], ace: str, joker_limit: str = NATURAL_MAJORITY
) -> MeldShape | None:
    return make_meld(cards, ace, joker_limit)


#: Meld pools kept (per hand): a listing and the validation of its move share one;
#: a worst-case pool holds about 0.2 MB besides its meld list (docs/security.md).
MELD_POOLS_KEPT = 32


@lru_cache(maxsize=MELD_POOLS_KEPT)
def meld_pool(hand: tuple[Card, ...], ace: str, joker_limit: str = NATURAL_MAJORITY) -> Pool:
    """Every meld that can be formed from ``hand`` (see `Pool`)."""
    listed = candidate_meld_points(hand, ace, joker_limit)
    best: dict[int, _PoolMeld] = {}  # per packed cards, the meld with the most points
    for cards, points, packed, spent, _ in listed:
        kept = best.get(packed)
        if kept is None or kept[1] < points:
            best[packed] = (packed, points, len(cards), spent)
    # Most points first; a stable sort keeps melds of equal points in listed order.
    melds = sorted(best.values(), key=lambda m: -m[1])
    packed_hand = pack(hand)
    return Pool(
        listed,
        tuple(melds),
        _free_tables([m[0] for m in melds], packed_hand),
        packed_hand,
        most_points(packed_hand),
    )


def finish_code(
    opts: Options,
    r: RoundState,
    rest: int,
    n: int,
    shapes: tuple[MeldShape, ...],
    melded: bool,
    opening: int | None,
    turn_melds: int,
    pool: Pool | tuple[Card, ...] | None = None,
    nodes: Nodes | None = None,
    most: int | None = None,
    search: bool = True,
) -> str | None:
    """``None`` if the turn can still be finished legally after a move leaving the
    packed hand ``rest`` of ``n`` cards and the table's melds ``shapes``, else the
    refusal code. ``most``: `most_points` of ``rest``, when the caller knows it.
    Without ``search``, an answer that needs the search is `SEARCH_NEEDED` (the
    caller then asks the listing, whose budget decides: `apply`).

    The search tries at most ``nodes.left`` melds (then answers that the turn
    cannot be finished: a listing omits the move, and `apply` refuses a move
    its listing would not show).

    ``pool`` may give the melds of a larger hand (every meld that ``rest`` can
    form must be in it), or that hand (its pool is then built when the search
    runs), so that :func:`legal_moves` searches with one list for all the melds
    it checks.
    """
    concealed = is_concealed(opts, r)
    must_out = concealed and turn_melds > 0
    need = opts.first_meld_min_points - opening if opening is not None else 0
    taken = r.taken
    if not must_out and need <= 0:
        if plain_finish(opts, rest, n, taken, shapes, melded, concealed):
            return None
        return "would_leave_no_legal_discard"
    if most is None:
        most = most_points(rest)
    if need <= most and not search:
        return SEARCH_NEEDED
    if need <= most and _can_finish(
        opts, r, rest, n, shapes, must_out, turn_melds, need, most, pool, nodes
    ):
        return None
    if not must_out and not plain_finish(opts, rest, n, taken, shapes, melded, concealed):
        return "would_leave_no_legal_discard"
    return "concealed_round" if must_out else "first_meld_minimum"


def _can_finish(
    opts: Options,
    r: RoundState,
    rest: int,
    n: int,
    shapes: tuple[MeldShape, ...],
    must_out: bool,
    turn_melds: int,
    need: int,
    most: int,
    pool: Pool | tuple[Card, ...] | None,
    nodes: Nodes | None,
) -> bool:
    """The search of `finish_code`, with the listing's `_Search` for this pool and
    rule of the end of the turn (made on first use)."""
    concealed = is_concealed(opts, r)
    taken = r.taken
    more = opts.melds_per_turn is None or turn_melds == 0
    budget = nodes if nodes is not None else Nodes()
    if not isinstance(pool, Pool):
        pool = meld_pool(pool if pool is not None else unpack(rest), opts.ace, opts.joker_limit)
    # What the end of the turn allows depends on the table only when the one card
    # left is the taken discard; then the search is this check's own.
    shared = taken is None or must_out or opts.go_out_requires_discard or concealed
    if shared:
        return shared_search(opts, r, must_out, turn_melds, pool, budget)(rest, n, need, most)
    search = _Search(opts, taken, concealed, must_out, more, shapes, pool, budget)
    return search.run(rest, n, need, most)


def shared_search(
    opts: Options, r: RoundState, must_out: bool, turn_melds: int, pool: Pool, nodes: Nodes
) -> Callable[[int, int, int, int], bool]:
    """The search of `finish_code` (``run(rest, n, need, most)``) for a check whose
    end of the turn does not depend on the table (no discard taken, or the hand
    must go out): one per listing, pool and rule, kept in ``nodes``."""
    more = opts.melds_per_turn is None or turn_melds == 0
    key = (pool, must_out, more)
    search = nodes.searches.get(key)
    if search is None:
        concealed = is_concealed(opts, r)
        search = _Search(opts, r.taken, concealed, must_out, more, (), pool, nodes)
        nodes.searches[key] = search
    return search.run


class _Search:
    """The search of `finish_code`: whether melds from a packed hand (``more``:
    further melds are allowed) can bring the points still needed and, with
    ``must_out``, empty the hand but for one discard, leaving a turn that can end.

    ``run(h, n, need, most)`` searches the packed hand ``h`` of ``n`` cards, whose
    cards could bring ``most`` points at most. What each sub-search (a rest of the
    hand and the melds still to try) is known to reach is kept: the most points
    needed that it reached and the fewest it did not (needing more is never
    easier). Two decks and jokers reach the same rest of a hand by several routes,
    and the checks of one listing reach the same rests from many melds (in
    bench/worst_case.py's first meld of 100 without the budget, this and the pool's
    melds of the same cards tried once took the melds tried down by nearly half).

    With ``must_out`` every card but one goes into a meld, so the search follows the
    lowest card of the hand: it is in one of the melds holding it, or it is the card
    kept to discard (fewer melds tried than in pool order: bench/worst_case.py's
    concealed round without the budget).
    """

    __slots__ = ("run",)

    def __init__(
        self,
        opts: Options,
        taken: Card | None,
        concealed: bool,
        must_out: bool,
        more: bool,
        shapes: tuple[MeldShape, ...],
        pool: Pool,
        budget: Nodes,
    ) -> None:
        melds_in_pool, free = pool.melds, pool.free
        fits_of = budget.fits.setdefault(pool, {})

        def fitting(h: int) -> int:
            fits = fits_of.get(h)
            if fits is None:
                fits = fits_of[h] = pool.fitting(h)
            return fits

        known: dict[tuple[int, int], tuple[int, int]] = {}
        never = 1 << 30  # the "fewest points not reached" of a sub-search that never failed

        def finished(h: int, n: int) -> bool:
            """The turn can end with the packed hand ``h`` of ``n`` cards left."""
            if not must_out:
                return plain_finish(opts, h, n, taken, shapes, True, concealed)
            if n == 0:
                return not opts.go_out_requires_discard
            return n == 1 and CARD_AT[(h.bit_length() - 1) // 4] != taken

        def search(h: int, n: int, need: int, fits: int, most: int) -> bool:
            # Melds are tried in pool order and a chosen one stays available (two
            # decks may repeat it), so each combination is tried once; each comes
            # out of ``budget``. The bounds: ``most``; and the pool is sorted by
            # points, so once ``n // 3`` melds of the current points cannot reach
            # ``need``, no later meld can.
            if need <= 0:
                if finished(h, n):
                    return True
            elif most < need:
                return False
            if not more or budget.left <= 0:  # spent: no more fitting() either
                return False
            if fits < 0:
                fits = fitting(h)
            key = (h, fits)
            reached, missed = known.get(key, (-never, never))
            if need <= reached:
                return True
            if need >= missed:
                return False
            melds_left = n // 3
            while fits:
                low = fits & -fits
                packed, points, size, spent = melds_in_pool[low.bit_length() - 1]
                if need > 0 and points * melds_left < need:
                    break
                if budget.left <= 0:
                    return False
                budget.left -= 1
                left = h - packed
                keep = fits
                cards = packed
                while cards:  # each card code of the meld
                    shift = ((cards & -cards).bit_length() - 1) & ~3
                    keep &= free[2 * shift + (left >> shift & 7) + 1]
                    cards &= ~(15 << shift)
                if search(left, n - size, need - points, keep, most - spent):
                    known[key] = (need, missed)
                    return True
                fits ^= low
            known[key] = (reached, need)
            return False

        def cover(h: int, n: int, need: int, most: int, spare: Card | None) -> bool:
            # ``spare``: the card kept back to discard, once chosen.
            if n == 0:
                if need > 0:
                    return False
                return spare != taken if spare is not None else finished(0, 0)
            if spare is None and need <= 0 and finished(h, n):
                return True
            if need > most or not more:
                return False
            key = (h, spare)
            reached, missed = known_cover.get(key, (-never, never))
            if need <= reached:
                return True
            if need >= missed or budget.left <= 0:
                return False
            shift = ((h & -h).bit_length() - 1) & ~3  # the lowest card
            holding = fitting(h) & ~free[2 * shift + 1]
            while holding:
                low = holding & -holding
                packed, points, size, spent = melds_in_pool[low.bit_length() - 1]
                if budget.left <= 0:
                    return False
                budget.left -= 1
                if cover(h - packed, n - size, need - points, most - spent, spare):
                    known_cover[key] = (need, missed)
                    return True
                holding ^= low
            if spare is None:
                lowest = 1 << shift
                card = CARD_AT[shift // 4]
                if cover(h - lowest, n - 1, need, most - MOST_AT[shift], card):
                    known_cover[key] = (need, missed)
                    return True
            known_cover[key] = (reached, need)
            return False

        known_cover: dict[tuple[int, Card | None], tuple[int, int]] = {}

        def run(h: int, n: int, need: int, most: int) -> bool:
            return cover(h, n, need, most, None) if must_out else search(h, n, need, -1, most)

        self.run = run


def searches(opts: Options, r: RoundState, seat: int) -> bool:
    """Whether a check of a meld or a swap by ``seat`` searches further melds."""
    opening_pending = opts.first_meld_min_points > 0 and not has_opened(opts, r, seat)
    return opening_pending or is_concealed(opts, r)


def search_code(opts: Options, r: RoundState, seat: int) -> str:
    """The refusal of a move whose search the listing's budget did not reach."""
    return "concealed_round" if is_concealed(opts, r) else "first_meld_minimum"
