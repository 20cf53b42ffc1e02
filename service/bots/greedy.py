"""The ``greedy`` strategy: shed points fast, keep live partial melds, feed nobody.

It reads only the seat view (its hand, the table, public counts), the legal
moves and, when the caller keeps one, a :class:`~service.bots.memory.Memory`
of public events. One turn, move by move:

- **Draw**: take the discard only when it completes a meld with cards that are
  deadwood now, or can be laid off on the table at once; else the stock.
- **Meld**: put down a meld of the hand's best split (the melds leaving the
  fewest deadwood points), any other legal meld only if it costs nothing.
- **Lay off**: any lay-off that does not raise the deadwood (most points first).
- **Swap a joker** when the freed joker fits the hand, or replaces a deadwood card
  while nobody is close to going out.
- **Discard** the card whose loss lowers the deadwood most (its points), less
  the value of its live outs (unseen cards that would meld it with a partner
  in hand), less its danger: it fits a table meld, or the next seat has been
  seen to collect its rank or its suit next to it. When an opponent is close to
  going out, outs count for little and high cards go first. Once the stock has
  been refilled some choices are random, so tables of bots do not stall.
- **Re-engage** whenever the rules allow it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from service.bots.hand import (
    Scoring,
    Split,
    best_split,
    outs,
    run_windows,
    unseen_cards,
    without,
)
from service.bots.memory import Memory
from service.bots.reengage import reengage_choice
from service.rules.cards import JOKER, Card, rank, suit
from service.rules.melds import MeldShape, extend_meld, make_meld
from service.rules.moves import Discard, Draw, LayOff, Meld, Move, SwapJoker

View = Mapping[str, Any]

# Weights of the discard score, in card points.
_OUT_WEIGHT_CALM = 2.0  # each live out of a partial meld, nobody close to going out
_OUT_WEIGHT_WARY = 1.0  # an opponent holds 3-4 cards
_OUT_WEIGHT_DUMP = 0.25  # an opponent holds 1-2 cards: shed high cards
_DANGER_TABLE = 4.0  # the card can be laid off on a table meld
_DANGER_SAME_RANK = 6.0  # the next seat took a card of this rank from the pile
_DANGER_NEAR_SUIT = 5.0  # ... or a card of this suit one or two ranks away
_SAFE_THROWN = 2.0  # the next seat threw this rank away itself
_JOKER_KEEP = 100.0  # never throw a joker while another card will do
_RANDOM_AFTER_REFILL = 0.3  # chance of a random deadwood discard once the stock was refilled


@dataclass(frozen=True)
class _Seat:
    """What the strategy reads from one view, worked out once per choice."""

    hand: tuple[Card, ...]
    scoring: Scoring
    table: tuple[tuple[Card, ...], ...]  # the cards of each table meld
    may_lay_off: bool
    seen: tuple[Card, ...]  # every card known not to be coming: hand, pile, table, picked
    decks: int
    jokers: int
    threat: int  # fewest cards held by an opponent still playing
    refills: int
    next_collected: tuple[Card, ...]
    next_discarded: tuple[Card, ...]

    def fits_table(self, card: Card) -> bool:
        """Whether ``card`` alone could be laid off on some table meld."""
        return any(
            _accepts(meld, card, self.scoring.ace, self.scoring.joker_limit) for meld in self.table
        )

    def unseen(self) -> Counter[Card]:
        """Copies of each card that may still come to this seat."""
        return unseen_cards(self.decks, self.jokers, self.seen)


@lru_cache(maxsize=4096)
def _shape(cards: tuple[Card, ...], ace: str, joker_limit: str) -> MeldShape | None:
    return make_meld(cards, ace, joker_limit)


@lru_cache(maxsize=65536)
def _accepts(cards: tuple[Card, ...], card: Card, ace: str, joker_limit: str) -> bool:
    shape = _shape(cards, ace, joker_limit)
    return shape is not None and extend_meld(shape, (card,), ace, joker_limit) is not None


def _read(view: View, memory: Memory | None) -> _Seat:
    opts = view["options"]
    scoring = Scoring(opts["ace"], opts["ace_points"], opts["joker_points"], opts["joker_limit"])
    hand = tuple(view["hand"])
    rnd = view.get("round") or {}
    me = view["you"]
    seats = view["seats"]
    table = tuple(tuple(m["cards"]) for m in rnd.get("melds", ()))
    seen: list[Card] = [*hand, *rnd.get("discard_pile", ())]
    for meld in table:
        seen.extend(meld)
    mine = seats[me]
    concealed = rnd.get("number") in (opts.get("concealed_rounds") or ())
    may_lay_off = not concealed and (
        mine["has_melded"]
        or not (opts["layoff_requires_own_meld"] or opts["first_meld_min_points"])
    )
    playing = [s for s in seats if s["seat"] != me and not s["eliminated"] and s["hand_size"]]
    nxt = _next_seat(seats, me)
    collected: tuple[Card, ...] = ()
    discarded: tuple[Card, ...] = ()
    if memory is not None and memory.round == rnd.get("number"):
        for seat, picked in memory.collected.items():
            if seat != me:
                seen.extend(picked)  # held by someone else: not coming to us
        if nxt is not None:
            collected = tuple(memory.collected.get(nxt, ()))
            discarded = tuple(memory.discarded.get(nxt, ()))
    return _Seat(
        hand=hand,
        scoring=scoring,
        table=table,
        may_lay_off=may_lay_off,
        seen=tuple(seen),
        decks=opts["decks"],
        jokers=opts["jokers"],
        threat=min((s["hand_size"] for s in playing), default=99),
        refills=rnd.get("refills", 0),
        next_collected=collected,
        next_discarded=discarded,
    )


def _next_seat(seats: Sequence[Mapping[str, Any]], me: int) -> int | None:
    n = len(seats)
    for step in range(1, n):
        seat = (me + step) % n
        if not seats[seat]["eliminated"]:
            return seat
    return None


def greedy_move(
    view: View, moves: Sequence[Move], rng: random.Random, memory: Memory | None = None
) -> Move:
    """The greedy choice among ``moves`` (see the module docstring)."""
    decision = reengage_choice(view, moves)
    if decision is not None:
        return decision
    me = _read(view, memory)
    draws = [m for m in moves if isinstance(m, Draw)]
    if draws:
        return _draw(me, view, draws)
    split = best_split(me.hand, me.scoring)
    melds = [m for m in moves if isinstance(m, Meld)]
    if melds:
        meld = _meld(me, split, melds)
        if meld is not None:
            return meld
    layoffs = [m for m in moves if isinstance(m, LayOff)]
    if layoffs:
        layoff = _lay_off(me, split, layoffs)
        if layoff is not None:
            return layoff
    swaps = [m for m in moves if isinstance(m, SwapJoker)]
    if swaps:
        swap = _swap(me, split, swaps)
        if swap is not None:
            return swap
    discards = [m for m in moves if isinstance(m, Discard)]
    if discards:
        return _discard(me, split, discards, rng)
    # Only moves the strategy declined are left (a turn cannot end without one).
    return (melds or layoffs or swaps or list(moves))[0]


def _draw(me: _Seat, view: View, draws: Sequence[Draw]) -> Draw:
    pile = (view.get("round") or {}).get("discard_pile") or []
    stock = next((d for d in draws if d.source == "stock"), None)
    take = next((d for d in draws if d.source == "discard"), None)
    if take is None or not pile:
        return stock or draws[0]
    if stock is None:
        return take
    top = pile[-1]
    before = best_split(me.hand, me.scoring)
    after = best_split((*me.hand, top), me.scoring)
    completes = after.points < before.points and after.deadwood.count(top) < (
        before.deadwood.count(top) + 1
    )
    if completes or (me.may_lay_off and me.fits_table(top)):
        return take
    return stock


def _meld(me: _Seat, split: Split, melds: Sequence[Meld]) -> Meld | None:
    planned = [m for m in melds if m.cards in split.melds]
    if planned:
        return max(planned, key=lambda m: (len(m.cards), m.cards))
    best: tuple[int, int] | None = None
    choice: Meld | None = None
    for m in melds:
        after = best_split(without(me.hand, m.cards), me.scoring).points
        key = (after, -len(m.cards))
        if after <= split.points and (best is None or key < best):
            best, choice = key, m
    return choice


def _lay_off(me: _Seat, split: Split, layoffs: Sequence[LayOff]) -> LayOff | None:
    best: tuple[int, int] | None = None
    choice: LayOff | None = None
    for lo in layoffs:
        gain = split.points - best_split(without(me.hand, lo.cards), me.scoring).points
        key = (gain, len(lo.cards))
        if gain >= 0 and (best is None or key > best):
            best, choice = key, lo
    return choice


def _swap(me: _Seat, split: Split, swaps: Sequence[SwapJoker]) -> SwapJoker | None:
    for sw in swaps:
        after = best_split((*without(me.hand, (sw.card,)), JOKER), me.scoring).points
        if after <= split.points or (sw.card in split.deadwood and me.threat > 4):
            return sw
    return None


def _discard(me: _Seat, split: Split, discards: Sequence[Discard], rng: random.Random) -> Discard:
    if len(discards) == 1:
        return discards[0]
    deadwood = [d for d in discards if d.card in split.deadwood and d.card != JOKER]
    if deadwood and me.refills and rng.random() < _RANDOM_AFTER_REFILL:
        return rng.choice(deadwood)
    scored = _discard_scores(me, split, discards)
    top = max(s for s, _ in scored)
    return rng.choice([d for s, d in scored if s == top])


def _discard_scores(
    me: _Seat, split: Split, discards: Sequence[Discard]
) -> list[tuple[float, Discard]]:
    """Each discard with its score (higher: better to throw)."""
    if me.threat <= 2:
        out_weight = _OUT_WEIGHT_DUMP
    elif me.threat <= 4:
        out_weight = _OUT_WEIGHT_WARY
    else:
        out_weight = _OUT_WEIGHT_CALM
    unseen = me.unseen()
    scored: list[tuple[float, Discard]] = []
    for d in discards:
        card = d.card
        if card in split.deadwood:
            gain = float(me.scoring.points(card))
            live = outs(card, split.deadwood, unseen, me.scoring.ace)
        else:
            rest = best_split(without(me.hand, (card,)), me.scoring)
            gain = float(split.points - rest.points)
            live = 0
        score = gain - out_weight * live - _danger(me, card)
        if card == JOKER:
            score -= _JOKER_KEEP
        scored.append((score, d))
    return scored


def discard_ranking(
    view: View, discards: Sequence[Discard], memory: Memory | None = None
) -> list[Discard]:
    """``discards`` from the one greedy likes best to throw to the one it likes least."""
    if not discards:
        return []
    me = _read(view, memory)
    scored = _discard_scores(me, best_split(me.hand, me.scoring), discards)
    return [d for _, d in sorted(scored, key=lambda sd: -sd[0])]


@dataclass(frozen=True)
class DiscardFigures:
    """What greedy's arithmetic says of throwing one card (a hint's reason):
    the best split of the hand left, the card's live outs, and what it gives away."""

    rest: Split
    outs: int
    fits_table: bool
    feeds_next: bool


def discard_figures(view: View, card: Card, memory: Memory | None = None) -> DiscardFigures:
    """The figures of throwing ``card`` from the seat's hand in ``view``."""
    me = _read(view, memory)
    split = best_split(me.hand, me.scoring)
    live = outs(card, split.deadwood, me.unseen(), me.scoring.ace) if card in split.deadwood else 0
    danger = _danger(me, card) - (_DANGER_TABLE if me.fits_table(card) else 0.0)
    return DiscardFigures(
        rest=best_split(without(me.hand, (card,)), me.scoring),
        outs=live,
        fits_table=card != JOKER and me.fits_table(card),
        feeds_next=danger > 0,
    )


def fits_table(view: View, card: Card) -> bool:
    """Whether ``card`` alone could be laid off on a table meld of ``view``."""
    return _read(view, None).fits_table(card)


def _danger(me: _Seat, card: Card) -> float:
    """How much discarding ``card`` would help the next seat."""
    if card == JOKER:
        return 0.0
    danger = _DANGER_TABLE if me.fits_table(card) else 0.0
    r, s = rank(card), suit(card)
    for taken in me.next_collected:
        if taken == JOKER:
            continue
        if rank(taken) == r:
            danger += _DANGER_SAME_RANK
        elif suit(taken) == s and _near(rank(taken), r, me.scoring.ace):
            danger += _DANGER_NEAR_SUIT
    if any(t != JOKER and rank(t) == r for t in me.next_discarded):
        danger -= _SAFE_THROWN
    return danger


def _near(a: int, b: int, ace: str) -> bool:
    """Whether ranks ``a`` and ``b`` can sit in one three-card run."""
    return any(a in w and b in w for w in run_windows(ace))


__all__ = ["DiscardFigures", "discard_figures", "discard_ranking", "fits_table", "greedy_move"]
