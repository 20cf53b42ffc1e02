"""Seconds of bot play each client's requests may spend: a token bucket per client.

A request that hands the turn to bots plays them within its budget
(`BOT_SECONDS_PER_REQUEST`); without more, one client's many games (expert bots
think up to `BOT_EXPERT_SECONDS` a decision) keep a worker busy, and every other
request the worker serves waits for the bots' turns. So the seconds of bot play
of one client (its `owner_tag`) are budgeted: a bucket that fills at
`BOT_SECONDS_PER_OWNER` a minute and holds at most one request's budget. A
request takes what it may play from its client's bucket before it plays (so the
client's concurrent requests share one budget) and gives back what it did not
use after (an expert decision that ran past the end is charged too). Past the
budget the request plays no bot turn: the game is saved with them still to
play and queued, and the runner process plays them, its turns taken between
owners (service/worker.py).

The buckets are kept per process (a worker's: it is that worker's time that
other requests wait for), at most `MOST_OWNERS` of them: past that the full
ones are forgotten, then all.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

#: Clients whose buckets one process keeps at most (then full ones are forgotten).
MOST_OWNERS = 4096


class BotAllowance:
    """Bot-seconds per owner: ``per_minute`` seconds a minute, at most ``burst`` at once."""

    def __init__(
        self, per_minute: float, burst: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = max(per_minute, 0.0) / 60.0
        self.burst = max(burst, 0.0)
        self.clock = clock
        self._lock = threading.Lock()
        #: owner -> (seconds left, when counted); a new owner's bucket is full.
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, owner: str, wanted: float) -> float:
        """Up to ``wanted`` seconds of ``owner``'s bucket, taken now (0 when it is
        empty); `give_back` what is left of them once played."""
        now = self.clock()
        with self._lock:
            left = self._left(owner, now)
            granted = min(max(left, 0.0), wanted)
            if owner not in self._buckets and len(self._buckets) >= MOST_OWNERS:
                self._forget(now)
            self._buckets[owner] = (left - granted, now)
        return granted

    def give_back(self, owner: str, granted: float, spent: float) -> None:
        """After playing: ``granted`` seconds were taken and ``spent`` used (more
        than taken puts the bucket in debt: the next requests play less)."""
        now = self.clock()
        with self._lock:
            self._buckets[owner] = (self._left(owner, now) + granted - spent, now)

    def left(self, owner: str) -> float:
        """Seconds ``owner`` may play now (negative: in debt)."""
        with self._lock:
            return self._left(owner, self.clock())

    def _left(self, owner: str, now: float) -> float:
        found = self._buckets.get(owner)
        if found is None:
            return self.burst
        left, since = found
        return min(self.burst, left + (now - since) * self.rate)

    def _forget(self, now: float) -> None:
        """Drop the buckets that are full again (under the lock); all if none is."""
        full = [owner for owner in self._buckets if self._left(owner, now) >= self.burst]
        for owner in full:
            del self._buckets[owner]
        if len(self._buckets) >= MOST_OWNERS:
            self._buckets.clear()


__all__ = ["MOST_OWNERS", "BotAllowance"]
