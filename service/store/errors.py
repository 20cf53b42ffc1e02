"""Errors raised by every game store."""

from __future__ import annotations

__all__ = [
    "GameExists",
    "GameNotFound",
    "NotReplicated",
    "QuotaExceeded",
    "StoreError",
    "StoreUnavailable",
]


class StoreError(Exception):
    """Base class of the store's errors."""


class GameNotFound(StoreError, LookupError):
    """No game has this id (never created, or expired after being idle)."""

    def __init__(self, game_id: str, counts: tuple[int, ...] | None = None) -> None:
        super().__init__(f"no game with id {game_id!r}")
        self.game_id = game_id
        #: The new values of the counters the load carried (`GameStore.load`);
        #: ``None`` when they were not counted.
        self.counts = counts


class GameExists(StoreError):
    """A create under a chosen id (`GameStore.create`'s ``game_id``) found a game
    stored under it already: nothing was stored (a retry of a create that was made)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"a game with id {game_id!r} exists")
        self.game_id = game_id


class StoreUnavailable(StoreError):
    """The backing store cannot be reached or failed; the operation changed nothing
    that the caller can rely on. Retry later (the API answers 503)."""


class NotReplicated(StoreUnavailable):
    """A save the primary made but too few replicas acknowledged in time
    (``STORE_WAIT_REPLICAS``): a failover now could lose it, so it is not
    acknowledged either (503). A retry with the same ``Idempotency-Key`` applies
    nothing twice."""


class QuotaExceeded(StoreError):
    """A create or join refused: its owner already has ``limit`` games of the
    ``count`` named (``open``, ``waiting`` or ``bots``: `GameStore.create`'s
    ``quota``, `GameStore.reserve`). Nothing was stored."""

    def __init__(self, count: str, limit: int) -> None:
        super().__init__(f"the owner already has {limit} {count} games")
        self.count = count
        self.limit = limit
