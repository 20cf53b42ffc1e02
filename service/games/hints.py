"""Hints for a seat (`GET /games/{id}/hint`): bounded, kept, and rationed per seat.

A hint is `service.bots.hints.hint` over exactly what a bot of that seat would
be given (service/bots/play.py): the seat's view (`views.seat_view`), its legal
moves and a `Memory` folded from the game's kept events as the public sees them
(`redact_event(event, None)`: a stock draw's card is never in it). The game
state itself never reaches the search.

- **Bounded**: the search runs on its own expert budget (`HINT_NODES` simulated
  turns, `HINT_SECONDS` of wall clock), not the bots'.
- **Kept**: the answer is kept per (game, version, epoch, seat) in an LRU of
  `HINT_CACHE` entries, so asking again costs no search (`computed` counts the
  searches). Its generator is seeded from that key, so the same position gives
  the same hint in every process.
- **Rationed**: each seat's requests draw from a bucket of `HINT_PER_MINUTE`
  a minute (this process's: a hint's search is this worker's time); an empty
  bucket is a 429 with `Retry-After`, and the seat's moves go on meanwhile.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import orjson

from service.bots.allowance import BotAllowance
from service.bots.expert import Budget
from service.bots.hints import hint
from service.bots.memory import Memory
from service.games.lru import Lru
from service.games.values import LoadedGame
from service.rules import engine
from service.rules.views import redact_event, seat_view

Event = Mapping[str, Any]


class Hints:
    """One process's hints: the search's budget, the kept answers and each seat's bucket."""

    def __init__(
        self,
        nodes: int,
        seconds: float,
        per_minute: int,
        size: int = 1024,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.budget = Budget(nodes=max(1, nodes), seconds=seconds or None)
        self.per_minute = max(0, per_minute)
        self._answers: Lru[tuple[str, int, str, int], bytes] = Lru(size)
        # A seat's bucket: `per_minute` hints a minute, a minute's worth at once.
        self._buckets = BotAllowance(float(self.per_minute), float(self.per_minute), clock=clock)
        #: Hints searched (cache misses), for tests and the benchmark.
        self.computed = 0

    def wait(self, game_id: str, seat: int) -> float | None:
        """Take one hint from the seat's bucket: ``None`` when it may have one, else
        the seconds until it may (nothing is taken then)."""
        if self.per_minute == 0:
            return None
        key = f"{game_id}/{seat}"
        granted = self._buckets.take(key, 1.0)
        if granted >= 1.0:
            return None
        self._buckets.give_back(key, granted, 0.0)
        missing = 1.0 - max(self._buckets.left(key), 0.0)
        return max(1.0, math.ceil(missing * 60.0 / self.per_minute))

    def answer(
        self, game: LoadedGame, seat: int, public_events: Callable[[], Iterable[Event]]
    ) -> bytes | None:
        """The JSON hint for ``seat`` (``{"version", "move", "reason"}``), or ``None``
        when it has no move to make now; ``public_events`` reads the game's kept
        events (called only when the hint is not kept already)."""
        key = (game.game_id, game.version, game.epoch, seat)
        found = self._answers.get(key)
        if found is not None:
            return found
        moves = engine.legal_moves(game.state, seat)
        if not moves:
            return None
        round_ = game.state.round
        memory = Memory(round=round_.number if round_ is not None else None)
        memory.observe_all(redact_event(dict(e), None) for e in public_events())
        view = seat_view(game.state, seat)
        rng = random.Random(f"{game.game_id}/{game.version}/{game.epoch}/{seat}/hint")
        found_hint = hint(view, moves, rng, memory, self.budget)
        body = orjson.dumps({"version": game.version, **found_hint.to_json()})
        self.computed += 1
        self._answers.put(key, body)
        return body


__all__ = ["Hints"]
