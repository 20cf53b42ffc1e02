"""Built-in players for bot seats: each picks one of the legal moves from its own view.

- ``random``: any legal move, uniformly.
- ``greedy``: meld the most cards, then lay off the most, then swap jokers; take
  the discard when it completes a meld with the hand; otherwise discard the
  highest-valued card that is in no candidate meld.

A strategy sees only the seat view (its own hand, the table, public counts) and
the legal moves, never another hand or the stock.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from service.rules.cards import card_points
from service.rules.melds import candidate_melds
from service.rules.moves import Discard, Draw, LayOff, Meld, Move, Reengage, SwapJoker

View = Mapping[str, Any]
Strategy = Callable[[View, Sequence[Move], random.Random], Move]


def random_move(view: View, moves: Sequence[Move], rng: random.Random) -> Move:
    """Any legal move, uniformly at random."""
    return moves[rng.randrange(len(moves))]


def _cards_in_melds(hand: Sequence[str], ace: str) -> set[str]:
    used: set[str] = set()
    for meld in candidate_melds(hand, ace):
        used.update(meld)
    return used


def greedy_move(view: View, moves: Sequence[Move], rng: random.Random) -> Move:
    """Meld and lay off as much as possible, keep useful cards, shed high ones."""
    options = view["options"]
    ace = options["ace"]
    hand: list[str] = list(view["hand"])
    draws = [m for m in moves if isinstance(m, Draw)]
    if draws:
        discard = view["round"]["discard_pile"] if view.get("round") else []
        if any(m.source == "discard" for m in draws) and discard:
            top = discard[-1]
            before = len(candidate_melds(hand, ace))
            after = [m for m in candidate_melds([*hand, top], ace) if top in m]
            if after and len(after) + before > before:
                return Draw("discard")
        stock = [m for m in draws if m.source == "stock"]
        return stock[0] if stock else draws[0]
    melds = [m for m in moves if isinstance(m, Meld)]
    if melds:
        best = max(len(m.cards) for m in melds)
        return rng.choice([m for m in melds if len(m.cards) == best])
    layoffs = [m for m in moves if isinstance(m, LayOff)]
    if layoffs:
        best = max(len(m.cards) for m in layoffs)
        return rng.choice([m for m in layoffs if len(m.cards) == best])
    swaps = [m for m in moves if isinstance(m, SwapJoker)]
    if swaps:
        return rng.choice(swaps)
    discards = [m for m in moves if isinstance(m, Discard)]
    if discards:
        useful = _cards_in_melds(hand, ace)
        pool = [m for m in discards if m.card not in useful and m.card != "JK"] or discards
        refills = view["round"]["refills"] if view.get("round") else 0
        # Once the stock has run out, shed at random: holding the same low cards
        # forever can stall a table of greedy players.
        if refills and rng.random() < 0.5:
            return rng.choice(pool)
        points = {
            m.card: card_points(m.card, options["ace_points"], options["joker_points"])
            for m in pool
        }
        top = max(points.values())
        return rng.choice([m for m in pool if points[m.card] == top])
    reengage = [m for m in moves if isinstance(m, Reengage)]
    return reengage[0] if reengage else moves[0]


STRATEGIES: Mapping[str, Strategy] = {"random": random_move, "greedy": greedy_move}


def choose_move(strategy: str, view: View, legal_moves: Sequence[Move], rng: random.Random) -> Move:
    """The move the named strategy makes; ``legal_moves`` must not be empty."""
    if not legal_moves:
        raise ValueError("no legal move to choose from")
    return STRATEGIES[strategy](view, legal_moves, rng)
