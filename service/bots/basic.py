"""The ``basic`` strategy: the first, simple greedy player, kept as a yardstick.

Meld the most cards, then lay off the most, then swap jokers; take the discard
when it forms a meld with the hand; otherwise discard the highest-valued card
that is in no candidate meld. It keeps no memory and never looks at the other
seats, so ``greedy`` is measured against it in docs/bots.md.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from service.bots.memory import Memory
from service.rules.cards import card_points
from service.rules.melds import candidate_melds
from service.rules.moves import Discard, Draw, LayOff, Meld, Move, Reengage, SwapJoker

View = Mapping[str, Any]


def _cards_in_melds(hand: Sequence[str], ace: str) -> set[str]:
    used: set[str] = set()
    for meld in candidate_melds(hand, ace):
        used.update(meld)
    return used


def basic_move(
    view: View, moves: Sequence[Move], rng: random.Random, memory: Memory | None = None
) -> Move:
    """Meld and lay off as much as possible, keep cards in melds, shed high ones."""
    options = view["options"]
    ace = options["ace"]
    hand: list[str] = list(view["hand"])
    draws = [m for m in moves if isinstance(m, Draw)]
    if draws:
        discard = view["round"]["discard_pile"] if view.get("round") else []
        if any(m.source == "discard" for m in draws) and discard:
            top = discard[-1]
            if any(top in m for m in candidate_melds([*hand, top], ace)):
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
        # forever can stall a table of these players.
        if refills and rng.random() < 0.5:
            return rng.choice(pool)
        points = {
            m.card: card_points(m.card, options["ace_points"], options["joker_points"])
            for m in pool
        }
        top = max(points.values())
        return rng.choice([m for m in pool if points[m.card] == top])
    reengage = [m for m in moves if isinstance(m, Reengage)]  # always back in
    return reengage[0] if reengage else moves[0]


__all__ = ["basic_move"]
