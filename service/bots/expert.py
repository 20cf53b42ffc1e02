"""The ``expert`` strategy: determinized Monte Carlo over what the seat knows.

At the decisions where greedy's rules of thumb can be wrong (which card to
throw; whether to put a meld down now or hold it) the expert:

1. lists a few **candidates**: greedy's choice (service/bots/greedy.py) and the
   discards greedy ranks best;
2. **samples a world** consistent with everything public: the cards it cannot
   see (the game's cards less its hand, the discard pile and the table) are
   dealt at random to the other seats' hands (their public sizes) and the
   stock (its public size), except the cards a seat is known to hold because
   it took them from the discard pile (the view's ``known_cards`` when the
   view lists them, else the :class:`~service.bots.memory.Memory` of public
   events), which stay in that seat's hand;
3. plays each candidate out in that world with a fast greedy-like **rollout**
   (:class:`_Sim`: every seat takes the discard when it completes a meld,
   puts down its best split, lays off, throws its highest deadwood card while
   keeping pairs and suit neighbours) until the round ends (its real points
   under the game's scoring) or the horizon (every seat once, then itself
   again; then the deadwood each seat still holds, or with one meld a turn
   every card it holds);
4. repeats with fresh worlds, every candidate on the same world and the same
   rollout dice (common random numbers, so candidates are compared on equal
   luck), and plays the candidate whose world-by-world gain over greedy's
   choice is the largest of those clearly above zero; else greedy's choice.

Draws, lay-offs and joker swaps are greedy's.

Budgets (:class:`Budget`): ``nodes`` simulated turns per decision and a
``seconds`` cap. The node budget decides: a seeded game replays exactly when
the cap never cuts a search short. The cap is a safety net for a loaded
machine; when it cuts a search, the choice rests on fewer worlds (and may
differ from an unhurried replay); when no world fits at all, the expert plays
greedy's choice. The service sets both from its settings
(``BOT_EXPERT_NODES``, ``BOT_EXPERT_SECONDS``) via :func:`configure`.

The rollout is a model, not the rules: it may let a simulated seat do what the
rules would refuse in a corner case. Only the real legal moves are ever played.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson

from service.bots.greedy import discard_ranking, greedy_move
from service.bots.hand import Scoring, best_split
from service.bots.masks import Parts, split_parts
from service.bots.memory import Memory
from service.bots.reengage import reengage_choice
from service.rules.blocked import acceptors
from service.rules.cards import JOKER, NATURAL_CARDS, Card, rank, suit
from service.rules.melds import MeldShape, extend_meld, make_meld, meld_points, swap_joker
from service.rules.moves import Discard, Draw, LayOff, Meld, Move, SwapJoker
from service.rules.options import Options, options_from_json
from service.rules.scoring import round_points

View = Mapping[str, Any]


@dataclass(frozen=True)
class Budget:
    """How long the expert may think about one decision.

    ``nodes``: simulated turns (every candidate's rollout turns count);
    ``seconds``: wall-clock cap, ``None`` for none. ``horizon``: turns a
    rollout plays before the deadwood decides, ``None`` for one more than the
    seats (:meth:`turns`); ``discards``: how many of greedy's best discards
    are candidates.
    """

    nodes: int = 600
    seconds: float | None = 0.05
    horizon: int | None = None
    discards: int = 2

    def turns(self, seats: int) -> int:
        """A rollout's turns at a table of ``seats``: the horizon, else every seat's
        turn and the searching seat's next one (a partial meld it keeps is worth
        its next draw; at four seats three turns never reach it)."""
        return self.horizon if self.horizon is not None else seats + 1


DEFAULT_BUDGET = Budget()
_budget = DEFAULT_BUDGET

#: A candidate must beat greedy's choice by this many points on average.
_MARGIN = 0.5
#: ... and by this many standard errors of the world-by-world differences,
_Z = 2.0
#: ... over at least this many worlds.
_MIN_WORLDS = 4
#: From this many stock refills in a round on, the expert plays greedy's choices.
_GREEDY_AFTER_REFILLS = 2
#: Weight of a card that fits a table meld when a rollout seat picks its discard.
_FEEDS_TABLE = 4


def configure(new: Budget) -> Budget:
    """Make ``new`` the budget of every ``expert`` choice from now on; return the previous one."""
    global _budget
    if new.nodes < 1:
        raise ValueError("the expert's node budget must be at least 1")
    previous, _budget = _budget, new
    return previous


def current_budget() -> Budget:
    """The budget ``expert`` choices use now."""
    return _budget


@contextmanager
def budget(b: Budget) -> Iterator[Budget]:
    """Use ``b`` inside the ``with`` block, then restore the previous budget."""
    previous = configure(b)
    try:
        yield b
    finally:
        configure(previous)


@dataclass
class Search:
    """What the last search did (for tests and the benchmark)."""

    worlds: int = 0
    nodes: int = 0
    candidates: int = 0
    cut_by_time: bool = False


#: The latest search's statistics (per process; bots play one choice at a time).
last_search = Search()


def expert_move(
    view: View, moves: Sequence[Move], rng: random.Random, memory: Memory | None = None
) -> Move:
    """The candidate with the best average outcome over sampled worlds (module docstring),
    on the budget of every expert choice (`configure`)."""
    return expert_choice(view, moves, rng, memory, _budget)


def expert_choice(
    view: View,
    moves: Sequence[Move],
    rng: random.Random,
    memory: Memory | None,
    settings: Budget,
) -> Move:
    """`expert_move` on the budget ``settings`` (a hint's, `service.bots.hints`),
    whatever budget the bots play on."""
    global last_search
    last_search = Search()
    decision = reengage_choice(view, moves)
    if decision is not None:
        return decision
    if len(moves) == 1 or not view.get("round"):
        return moves[0]
    if view["round"].get("refills", 0) >= _GREEDY_AFTER_REFILLS:
        # A long round: greedy's occasional random discard lets a table where each
        # seat holds what another waits for move on; a search would not.
        return greedy_move(view, moves, rng, memory)
    started = time.perf_counter()
    choice = greedy_move(view, moves, random.Random(rng.getrandbits(32)), memory)
    candidates = _candidates(view, moves, choice, memory, settings)
    if len(candidates) < 2:
        return choice
    deadline = None if settings.seconds is None else started + settings.seconds
    rules = _rules(view)
    me = view["you"]
    horizon = settings.turns(len(view["seats"]))
    values: list[list[float]] = [[] for _ in candidates]
    deal = _Deal(view, memory, rules)
    search = Search(candidates=len(candidates))
    last_search = search
    while search.nodes < settings.nodes:
        if deadline is not None and time.perf_counter() >= deadline:
            search.cut_by_time = True
            break
        world = deal.sample(rng)
        dice = rng.getrandbits(32)
        for i, move in enumerate(candidates):
            sim = world.copy()
            value, turns = sim.rollout(me, move, rules, random.Random(dice), horizon)
            values[i].append(value)
            search.nodes += turns
        search.worlds += 1
    return candidates[_significant_best(values)]


def _significant_best(values: Sequence[Sequence[float]]) -> int:
    """The candidate whose gain over candidate 0 (greedy's choice), world by world, is
    the largest of those clearly above zero (:data:`_Z` standard errors); else 0."""
    n = len(values[0])
    if n < _MIN_WORLDS:
        return 0
    best, best_gain = 0, 0.0
    for i in range(1, len(values)):
        diffs = [a - b for a, b in zip(values[i], values[0], strict=True)]
        mean = sum(diffs) / n
        spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
        if mean > _MARGIN and mean > _Z * spread / math.sqrt(n) and mean > best_gain:
            best, best_gain = i, mean
    return best


def _candidates(
    view: View, moves: Sequence[Move], choice: Move, memory: Memory | None, settings: Budget
) -> list[Move]:
    """Greedy's ``choice`` first, then the alternatives worth a search."""
    out: list[Move] = [choice]
    if isinstance(choice, Draw):
        return out  # greedy's draw: searching it gained nothing measurable (docs/bots.md)
    discards = [m for m in moves if isinstance(m, Discard)]
    # Holding a meld back (a discard instead) is weighed against one discard only.
    keep = settings.discards if isinstance(choice, Discard) else 1
    for d in discard_ranking(view, discards, memory)[:keep]:
        if d not in out:
            out.append(d)
    return out


# ---------------------------------------------------------------------------
# The rules a rollout needs, read once per decision


@dataclass(frozen=True)
class _Rules:
    options: Options
    scoring: Scoring
    concealed: bool
    min_points: int
    layoff_own: bool
    one_meld: bool
    refill: str
    keeps_top: bool
    max_refills: int | None
    sign: int  # +1: points are good (winner takes all), -1: points are penalties
    decks: int
    jokers: int
    points: Mapping[Card, int]  # each card's points in hand

    def split(self, hand: Sequence[Card]) -> Parts:
        """The hand's best split as ``(points, melds, deadwood)`` (the fast one for a
        one-deck, joker-free game)."""
        if self.decks == 1 and not self.jokers:
            return split_parts(hand, self.scoring.ace, self.scoring.ace_points)
        found = best_split(hand, self.scoring)
        return found.points, found.melds, found.deadwood


@lru_cache(maxsize=64)
def _options(text: bytes) -> Options:
    return options_from_json(orjson.loads(text))


def _rules(view: View) -> _Rules:
    raw = view["options"]
    opts = _options(orjson.dumps(raw, option=orjson.OPT_SORT_KEYS))
    number = view["round"]["number"]
    return _Rules(
        options=opts,
        scoring=Scoring(opts.ace, opts.ace_points, opts.joker_points, opts.joker_limit),
        concealed=number in opts.concealed_rounds,
        min_points=opts.first_meld_min_points,
        layoff_own=opts.layoff_requires_own_meld,
        one_meld=opts.melds_per_turn is not None,
        refill=opts.stock_refill,
        keeps_top=opts.refill_keeps_top,
        max_refills=opts.max_refills,
        sign=-1 if opts.scoring == "penalty" else 1,
        decks=opts.decks,
        jokers=opts.jokers,
        points=_card_points(
            Scoring(opts.ace, opts.ace_points, opts.joker_points, opts.joker_limit)
        ),
    )


@lru_cache(maxsize=16)
def _card_points(scoring: Scoring) -> Mapping[Card, int]:
    return {c: scoring.points(c) for c in (*NATURAL_CARDS, JOKER)}


# ---------------------------------------------------------------------------
# Sampling a world


def known_holdings(view: View, memory: Memory | None) -> dict[int, list[Card]]:
    """Seat → cards it is publicly known to hold (taken from the discard pile, not played).

    The view's ``known_cards`` when it lists them, else the memory of this round's events.
    """
    me = view["you"]
    out: dict[int, list[Card]] = {}
    number = view["round"]["number"]
    remembered = memory is not None and memory.round == number
    for seat in view["seats"]:
        i = seat["seat"]
        if i == me:
            continue
        if "known_cards" in seat and seat["known_cards"] is not None:
            out[i] = list(seat["known_cards"])
        elif remembered and memory is not None:
            out[i] = list(memory.collected.get(i, ()))
    return out


def unseen(view: View, rules: _Rules) -> list[Card]:
    """The cards the seat cannot see: the game's cards less its hand, the pile and the table."""
    left: Counter[Card] = Counter({c: rules.decks for c in NATURAL_CARDS})
    if rules.jokers:
        left[JOKER] = rules.jokers
    rnd = view["round"]
    left.subtract(view["hand"])
    left.subtract(rnd["discard_pile"])
    for meld in rnd["melds"]:
        left.subtract(meld["cards"])
    return sorted((+left).elements())


def _sample_world(view: View, memory: Memory | None, rng: random.Random, rules: _Rules) -> _Sim:
    """One deal of the unseen cards consistent with the public facts."""
    return _Deal(view, memory, rules).sample(rng)


class _Deal:
    """What every sampled world of one decision shares, worked out once per decision:
    the unseen cards (sorted, so a seed deals the same world), the cards each seat is
    known to hold, the table's shapes and the public counts."""

    def __init__(self, view: View, memory: Memory | None, rules: _Rules) -> None:
        rnd = view["round"]
        me = view["you"]
        self.pool = unseen(view, rules)
        self.known = {i: cards for i, cards in known_holdings(view, memory).items() if cards}
        seats = view["seats"]
        self.me = me
        self.hand = list(view["hand"])
        self.sizes = [s["hand_size"] for s in seats]
        self.stock_size = rnd["stock_size"]
        self.pile = list(rnd["discard_pile"])
        table: list[MeldShape] = []
        for meld in rnd["melds"]:
            shape = _shape(tuple(meld["cards"]), rules.scoring.ace, rules.scoring.joker_limit)
            if shape is not None:
                table.append(shape)
        self.table = table
        self.meld_ids = [m["id"] for m in rnd["melds"]]
        self.active = [s["seat"] == me or s["hand_size"] > 0 for s in seats]
        self.opened = [bool(s["has_melded"]) for s in seats]
        self.refills = rnd.get("refills", 0)
        self.taken = rnd.get("taken_discard")

    def sample(self, rng: random.Random) -> _Sim:
        """A fresh world: the unseen cards shuffled and dealt, known cards kept with their seat."""
        pool = list(self.pool)
        rng.shuffle(pool)
        fixed: dict[int, list[Card]] = {}
        if self.known:
            counts = Counter(pool)
            for i, cards in self.known.items():
                kept = []
                for c in cards:
                    if counts[c] > 0:
                        counts[c] -= 1
                        kept.append(c)
                fixed[i] = kept
            rest: list[Card] = []
            for c in pool:
                if counts[c] > 0:
                    counts[c] -= 1
                    rest.append(c)
            pool = rest
        hands: list[list[Card]] = []
        at = 0
        for i, size in enumerate(self.sizes):
            if i == self.me:
                hands.append(list(self.hand))
                continue
            hand = fixed.get(i, [])[:size]
            take = size - len(hand)
            hand.extend(pool[at : at + take])
            at += take
            hands.append(hand)
        return _Sim(
            hands=hands,
            stock=pool[at : at + self.stock_size],
            pile=list(self.pile),
            table=list(self.table),
            meld_ids=list(self.meld_ids),
            opened=list(self.opened),
            played=list(self.opened),
            active=list(self.active),
            refills=self.refills,
            taken=self.taken,
        )


# ---------------------------------------------------------------------------
# Rollouts


@lru_cache(maxsize=8192)
def _shape(cards: tuple[Card, ...], ace: str, joker_limit: str) -> MeldShape | None:
    return make_meld(cards, ace, joker_limit)


@lru_cache(maxsize=65536)
def _extended(shape: MeldShape, card: Card, ace: str, joker_limit: str) -> MeldShape | None:
    return extend_meld(shape, (card,), ace, joker_limit)


@dataclass
class _Sim:
    """A round in a sampled world, cheap to copy and to play forward."""

    hands: list[list[Card]]
    stock: list[Card]  # top last
    pile: list[Card]  # top last
    table: list[MeldShape]
    meld_ids: list[int]
    opened: list[bool]
    played: list[bool]
    active: list[bool]
    refills: int
    taken: Card | None
    fits: frozenset[Card] = frozenset()
    fits_stale: bool = True  # the table changed since ``fits`` was worked out

    def copy(self) -> _Sim:
        return _Sim(
            hands=[list(h) for h in self.hands],
            stock=list(self.stock),
            pile=list(self.pile),
            table=list(self.table),
            meld_ids=list(self.meld_ids),
            opened=list(self.opened),
            played=list(self.played),
            active=list(self.active),
            refills=self.refills,
            taken=self.taken,
            fits=self.fits,
            fits_stale=self.fits_stale,
        )

    # -- one candidate, then the rollout ------------------------------------------

    def rollout(
        self, me: int, move: Move, rules: _Rules, rng: random.Random, horizon: int
    ) -> tuple[float, int]:
        """Play ``move`` for ``me``, then every seat by the rollout policy; (value, turns)."""
        winner = self._first(me, move, rules, rng)
        turns = 1
        seat = me
        while winner is None and turns < horizon:
            seat = self._next(seat)
            winner = self._turn(seat, rules, rng)
            turns += 1
        if winner is None:
            return self._estimate(me, rules), turns
        return self._score(me, winner, rules), turns

    def _first(self, me: int, move: Move, rules: _Rules, rng: random.Random) -> int | None:
        hand = self.hands[me]
        if isinstance(move, Draw):
            if move.source == "discard" and self.pile:
                self.taken = self.pile.pop()
                hand.append(self.taken)
            else:
                if not self._draw_stock(me, rules, rng):
                    return -1
                self.taken = None
            return self._play(me, rules, rng)
        if isinstance(move, Discard):
            return self._discard(me, move.card)
        if isinstance(move, Meld):
            shape = _shape(tuple(move.cards), rules.scoring.ace, rules.scoring.joker_limit)
            if shape is not None and _remove_all(hand, move.cards):
                self.table.append(shape)
                self.meld_ids.append(-1)
                self.opened[me] = True
                self.fits_stale = True
        elif isinstance(move, LayOff):
            if move.meld in self.meld_ids and _remove_all(hand, move.cards):
                i = self.meld_ids.index(move.meld)
                grown = extend_meld(
                    self.table[i], move.cards, rules.scoring.ace, rules.scoring.joker_limit
                )
                if grown is not None:
                    self.table[i] = grown
                    self.fits_stale = True
        elif isinstance(move, SwapJoker) and move.meld in self.meld_ids and move.card in hand:
            i = self.meld_ids.index(move.meld)
            swapped = swap_joker(self.table[i], move.card)
            if swapped is not None:
                hand.remove(move.card)
                hand.append(swapped[1])
                self.table[i] = swapped[0]
                self.fits_stale = True
        if not hand:
            return me
        return self._play(me, rules, rng)

    def _next(self, seat: int) -> int:
        n = len(self.hands)
        for step in range(1, n + 1):
            s = (seat + step) % n
            if self.active[s]:
                return s
        return seat

    def _turn(self, seat: int, rules: _Rules, rng: random.Random) -> int | None:
        """One whole turn of ``seat``: the winner's seat if it ends the round (-1: nobody)."""
        hand = self.hands[seat]
        self.taken = None
        if self.pile:
            top = self.pile[-1]
            before = rules.split(hand)
            after = rules.split((*hand, top))
            if after[0] < before[0] and after[2].count(top) <= before[2].count(top):
                self.taken = self.pile.pop()
                hand.append(top)
        if self.taken is None and not self._draw_stock(seat, rules, rng):
            return -1
        winner = self._play(seat, rules, rng)
        if (
            winner is None
            and rules.options.last_stock == "when_empty"
            and not self.stock
            and not rules.options.may_refill(self.refills)
        ):
            return -1  # the last card of the last stock was drawn: the round is a draw
        return winner

    def _draw_stock(self, seat: int, rules: _Rules, rng: random.Random) -> bool:
        """Draw from the stock (refilling it as the rules say); False: the round is over."""
        if not self.stock:
            if rules.refill == "none" or (
                rules.max_refills is not None and self.refills >= rules.max_refills
            ):
                return False
            if rules.keeps_top and self.pile:
                pile, self.pile = self.pile[:-1], self.pile[-1:]
            else:
                pile, self.pile = self.pile, []
            if not pile:
                return False
            self.refills += 1
            if rules.refill == "shuffle":
                rng.shuffle(pile)
                self.stock = pile
            else:
                self.stock = pile[::-1]
        self.hands[seat].append(self.stock.pop())
        return True

    def _play(self, seat: int, rules: _Rules, rng: random.Random) -> int | None:
        """Meld, lay off and discard by the rollout policy after the draw."""
        hand = self.hands[seat]
        _, split_melds, split_deadwood = rules.split(hand)
        melds = list(split_melds)
        if melds:
            if rules.concealed:
                going_out = len(split_deadwood) <= 1 and split_deadwood != (self.taken,)
                if not going_out:
                    melds = []
            elif rules.min_points and not self.opened[seat]:
                shapes = [_shape(m, rules.scoring.ace, rules.scoring.joker_limit) for m in melds]
                if sum(meld_points(s) for s in shapes if s is not None) < rules.min_points:
                    melds = []
            if rules.one_meld and melds:
                melds = [max(melds, key=len)]
        for cards in melds:
            shape = _shape(cards, rules.scoring.ace, rules.scoring.joker_limit)
            if shape is None or not _remove_all(hand, cards):
                continue
            self.table.append(shape)
            self.meld_ids.append(-1)
            self.opened[seat] = True
            self.fits_stale = True
        if not hand:
            return seat
        deadwood = list(split_deadwood) if melds else None
        may_lay_off = (
            not rules.concealed
            and self.table
            and (self.opened[seat] or not (rules.layoff_own or rules.min_points))
        )
        if may_lay_off:
            ace = rules.scoring.ace
            fits = self._fits(ace, rules.scoring.joker_limit)
            for card in list(deadwood if deadwood is not None else split_deadwood):
                if card not in fits:
                    continue
                for i, shape in enumerate(self.table):
                    grown = _extended(shape, card, ace, rules.scoring.joker_limit)
                    if grown is not None:
                        self.table[i] = grown
                        self.fits_stale = True
                        hand.remove(card)
                        if deadwood is not None:
                            deadwood.remove(card)
                        break
            if not hand:
                return seat
        throw = self._choose_discard(seat, split_deadwood, rules, rng)
        self.played[seat] = self.played[seat] or self.opened[seat]
        return self._discard(seat, throw)

    def _choose_discard(
        self, seat: int, deadwood: Sequence[Card], rules: _Rules, rng: random.Random
    ) -> Card:
        hand = self.hands[seat]
        pool = [c for c in deadwood if c in hand and c != JOKER and c != self.taken]
        if not pool:
            pool = [c for c in hand if c != JOKER and c != self.taken] or list(hand)
        fits = self._fits(rules.scoring.ace, rules.scoring.joker_limit)
        points = rules.points
        best = -1_000
        picks: list[Card] = []
        for card in pool:
            score = points[card]
            if card in fits:
                score -= _FEEDS_TABLE
            if card in _PARTNERS and not _PARTNERS[card].isdisjoint(hand):
                score -= _PARTIAL
            if score > best:
                best, picks = score, [card]
            elif score == best:
                picks.append(card)
        return picks[0] if len(picks) == 1 else picks[rng.randrange(len(picks))]

    def _fits(self, ace: str, joker_limit: str) -> frozenset[Card]:
        """Every card that can be laid off alone on some table meld."""
        if self.fits_stale:
            out: frozenset[Card] = frozenset()
            for shape in self.table:
                out = out | acceptors(shape, ace, joker_limit)
            self.fits, self.fits_stale = out, False
        return self.fits

    def _discard(self, seat: int, card: Card) -> int | None:
        hand = self.hands[seat]
        if card in hand:
            hand.remove(card)
            self.pile.append(card)
        self.taken = None
        return seat if not hand else None

    # -- values ------------------------------------------------------------------

    def _score(self, me: int, winner: int, rules: _Rules) -> float:
        hands = [tuple(h) if self.active[i] else () for i, h in enumerate(self.hands)]
        won = None if winner < 0 else winner
        rummy = won is not None and not self.played[won]
        points = round_points(rules.options, hands, self.active, won, rummy)
        return self._relative(me, points, rules.sign)

    def _estimate(self, me: int, rules: _Rules) -> float:
        if rules.one_meld:
            # One meld a turn: a meld kept in hand takes a turn of its own to put
            # down and counts like any card when the stock ends the round, so
            # every card held counts (valued as deadwood only, the search held
            # melds back and lost to greedy: docs/bots.md).
            points = rules.points
            held = [
                sum(points[c] for c in h) if self.active[i] else 0 for i, h in enumerate(self.hands)
            ]
            return -self._relative(me, held, 1)
        deadwood = [rules.split(h)[0] if self.active[i] else 0 for i, h in enumerate(self.hands)]
        return -self._relative(me, deadwood, 1)

    def _relative(self, me: int, values: Sequence[int], sign: int) -> float:
        others = [v for i, v in enumerate(values) if i != me and self.active[i]]
        if not others:
            return 0.0
        return sign * (values[me] - sum(others) / len(others))


#: Weight of a deadwood card with a partner (a pair, or a suit neighbour) in a rollout.
_PARTIAL = 6
#: Per natural card, the cards that make two thirds of a meld with it: the same rank,
#: or the same suit one or two ranks away.
_PARTNERS: dict[Card, frozenset[Card]] = {
    c: frozenset(
        o
        for o in NATURAL_CARDS
        if o != c and (rank(o) == rank(c) or (suit(o) == suit(c) and abs(rank(o) - rank(c)) <= 2))
    )
    for c in NATURAL_CARDS
}


def _remove_all(hand: list[Card], cards: Sequence[Card]) -> bool:
    """Remove ``cards`` from ``hand`` if it holds them all; whether it did."""
    rest = list(hand)
    for c in cards:
        if c not in rest:
            return False
        rest.remove(c)
    hand[:] = rest
    return True


__all__ = [
    "DEFAULT_BUDGET",
    "Budget",
    "Search",
    "budget",
    "configure",
    "current_budget",
    "expert_choice",
    "expert_move",
    "known_holdings",
    "unseen",
]
