"""Levels of the expert bot, 1 to 5: from a beginner's mistakes to the largest search.

A seat created as ``{"bot": "expert", "level": n}`` is played by the strategy
``expert<n>`` (`level_strategy`), each a strategy like any other (its view, its
legal moves, a generator and the memory of public events; never the state):

1. **beginner** (`beginner_move`): greedy's play with a human beginner's
   mistakes: it misses a lay-off (`MISSED_LAYOFF` of the time), holds its high
   cards (`HELD_HIGH` of its discards throw its lowest deadwood card instead of
   the card greedy would), and overlooks a useful discard (`MISSED_PICKUP` of
   the draws where greedy takes it);
2. **casual**: greedy (service/bots/greedy.py);
3. **club**: the expert's search on a quarter of its node budget (at least
   `CLUB_NODES`);
4. **strong**: the expert as ``{"bot": "expert"}`` plays (the configured budget);
5. **master**: the expert on four times the node budget, under the same time
   cap, so inside a request it never thinks longer than any expert decision
   (`BOT_EXPERT_SECONDS`); where the cap does not bind (the runner, a loaded
   machine aside) the larger budget is what it gets.

The order is measured (bench/strength.py, docs/bots.md, "Levels").
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from service.bots.expert import current_budget, expert_choice
from service.bots.greedy import greedy_move
from service.bots.hand import Scoring, best_split
from service.bots.memory import Memory
from service.rules.cards import JOKER
from service.rules.moves import Discard, Draw, LayOff, Move

View = Mapping[str, Any]

#: The levels by number, with their names (the API's and /play's).
LEVELS: Mapping[int, str] = {1: "beginner", 2: "casual", 3: "club", 4: "strong", 5: "master"}
#: How often the beginner misses a lay-off greedy would make.
MISSED_LAYOFF = 0.7
#: How often the beginner throws its lowest deadwood card rather than greedy's.
HELD_HIGH = 0.6
#: How often the beginner draws from the stock when greedy would take the discard.
MISSED_PICKUP = 0.5
#: Fewest nodes of the club level: below about 40 a two-seat search samples fewer
#: worlds than the expert needs to leave greedy's choice (its `_MIN_WORLDS`), and
#: the level would play greedy's game.
CLUB_NODES = 40


def level_strategy(level: int) -> str:
    """The strategy name a seat of ``level`` is played with (``expert3``)."""
    if level not in LEVELS:
        raise ValueError(f"a level is one of {sorted(LEVELS)}, not {level!r}")
    return f"expert{level}"


def beginner_move(
    view: View, moves: Sequence[Move], rng: random.Random, memory: Memory | None = None
) -> Move:
    """Level 1: greedy's choice, with a beginner's mistakes (module docstring)."""
    choice = greedy_move(view, moves, rng, memory)
    if isinstance(choice, Draw) and choice.source == "discard":
        stock = next((m for m in moves if isinstance(m, Draw) and m.source == "stock"), None)
        if stock is not None and rng.random() < MISSED_PICKUP:
            return stock
        return choice
    if isinstance(choice, LayOff) and rng.random() < MISSED_LAYOFF:
        rest = [m for m in moves if not isinstance(m, LayOff)]
        if rest:
            choice = greedy_move(view, rest, rng, memory)
    if isinstance(choice, Discard) and rng.random() < HELD_HIGH:
        opts = view["options"]
        scoring = Scoring(
            opts["ace"], opts["ace_points"], opts["joker_points"], opts["joker_limit"]
        )
        deadwood = set(best_split(view["hand"], scoring).deadwood)
        low = [
            m for m in moves if isinstance(m, Discard) and m.card in deadwood and m.card != JOKER
        ]
        if low:
            return min(low, key=lambda m: (scoring.points(m.card), m.card))
    return choice


def casual_move(
    view: View, moves: Sequence[Move], rng: random.Random, memory: Memory | None = None
) -> Move:
    """Level 2: greedy."""
    return greedy_move(view, moves, rng, memory)


def club_move(
    view: View, moves: Sequence[Move], rng: random.Random, memory: Memory | None = None
) -> Move:
    """Level 3: the expert on a quarter of its node budget, at least `CLUB_NODES`."""
    settings = current_budget()
    nodes = min(settings.nodes, max(CLUB_NODES, settings.nodes // 4))
    return expert_choice(view, moves, rng, memory, replace(settings, nodes=nodes))


def strong_move(
    view: View, moves: Sequence[Move], rng: random.Random, memory: Memory | None = None
) -> Move:
    """Level 4: the expert on its budget (what ``{"bot": "expert"}`` plays)."""
    return expert_choice(view, moves, rng, memory, current_budget())


def master_move(
    view: View, moves: Sequence[Move], rng: random.Random, memory: Memory | None = None
) -> Move:
    """Level 5: the expert on four times its node budget, under the same time cap."""
    settings = current_budget()
    return expert_choice(view, moves, rng, memory, replace(settings, nodes=settings.nodes * 4))


#: Each level's strategy, by strategy name.
LEVEL_STRATEGIES = {
    level_strategy(1): beginner_move,
    level_strategy(2): casual_move,
    level_strategy(3): club_move,
    level_strategy(4): strong_move,
    level_strategy(5): master_move,
}


__all__ = [
    "CLUB_NODES",
    "HELD_HIGH",
    "LEVELS",
    "LEVEL_STRATEGIES",
    "MISSED_LAYOFF",
    "MISSED_PICKUP",
    "beginner_move",
    "casual_move",
    "club_move",
    "level_strategy",
    "master_move",
    "strong_move",
]
