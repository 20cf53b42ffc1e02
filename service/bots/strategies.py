"""Built-in players for bot seats, by name: each picks one of the legal moves.

- ``random``: any legal move, uniformly (a baseline, and for fuzzing);
- ``greedy``: fast and sound (service/bots/greedy.py);
- ``expert``: the strongest, a determinized Monte Carlo search over the seat's
  view with greedy-like rollouts (service/bots/expert.py);
- ``basic``: the first simple greedy player, kept as a yardstick (service/bots/basic.py);
- ``expert1`` … ``expert5``: the expert's levels, beginner to master
  (service/bots/levels.py).

A strategy is a function ``(view, legal_moves, rng, memory) -> move``. It sees
only the seat view (docs/api.md shape: its own hand, the table, public counts), the
legal moves, a random generator for its choices and, when the caller keeps
one, a :class:`~service.bots.memory.Memory` of public events; never another
hand or the stock, so it cannot cheat. It must return one of ``legal_moves``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from service.bots.basic import basic_move
from service.bots.expert import expert_move
from service.bots.greedy import greedy_move
from service.bots.levels import LEVEL_STRATEGIES
from service.bots.memory import Memory
from service.rules.moves import Move

View = Mapping[str, Any]


class Strategy(Protocol):
    """A player: choose one of ``moves`` from the seat's ``view``."""

    def __call__(
        self, view: View, moves: Sequence[Move], rng: random.Random, memory: Memory | None = None
    ) -> Move:
        """The chosen move, one of ``moves``."""
        ...


def random_move(
    view: View, moves: Sequence[Move], rng: random.Random, memory: Memory | None = None
) -> Move:
    """Any legal move, uniformly at random."""
    return moves[rng.randrange(len(moves))]


STRATEGIES: Mapping[str, Strategy] = {
    "random": random_move,
    "greedy": greedy_move,
    "expert": expert_move,
    "basic": basic_move,
    # The expert's levels (`{"bot": "expert", "level": n}`: service/bots/levels.py).
    **LEVEL_STRATEGIES,
}
#: Strategies kept as yardsticks (bench/strength.py) and for timed-out turns,
#: not offered for bot seats.
YARDSTICKS = frozenset({"basic"})
#: The strategies a bot seat may be given by name (`POST /games`: the API's enum); a
#: level of the expert is asked for as `{"bot": "expert", "level": n}`.
SEAT_STRATEGIES: tuple[str, ...] = tuple(
    name for name in STRATEGIES if name not in YARDSTICKS and name not in LEVEL_STRATEGIES
)


def choose_move(
    strategy: str,
    view: View,
    legal_moves: Sequence[Move],
    rng: random.Random,
    memory: Memory | None = None,
) -> Move:
    """The move the named strategy makes; ``legal_moves`` must not be empty.

    ``memory``, when given, is the caller's record of the public events of the
    round so far (see :class:`~service.bots.memory.Memory`); strategies play
    without it too.
    """
    if not legal_moves:
        raise ValueError("no legal move to choose from")
    return STRATEGIES[strategy](view, legal_moves, rng, memory)


__all__ = [
    "SEAT_STRATEGIES",
    "STRATEGIES",
    "YARDSTICKS",
    "Strategy",
    "choose_move",
    "random_move",
]
