"""A `GameStore` wrapper that measures each store operation.

`instrument(store)` returns a store with the same contract that records the
duration of every call (``rummy_store_operation_duration_seconds``), the calls
that failed, compare-and-set conflicts (a ``save`` answered ``stale``),
created games and finished ones (a stored ``game_ended`` event). The app
wraps its store once at start-up, so the API's code needs no calls of its
own. Cost: two clock reads and one histogram observation per call
(`service.serving.hotmetrics`: no prometheus_client lock).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

from service.ops.metrics import (
    CAS_CONFLICTS,
    GAMES_CREATED,
    GAMES_FINISHED,
    STORE_DURATIONS,
    STORE_ERRORS,
)
from service.store.base import (
    DEFAULT_LOBBY_LIMIT,
    GAME_ENDED,
    KEEP,
    Created,
    Due,
    DueUpdate,
    GameStore,
    IdempotencyRecord,
    LoadCounters,
    Loaded,
    LobbyUpdate,
    SaveResult,
)
from service.store.errors import GameExists, QuotaExceeded
from service.store.watch import Deliver, Watch

_OPERATIONS = ("create", "load", "save", "events", "get_idempotency", "lobby", "ping")
_DURATION = {op: STORE_DURATIONS.labels(op) for op in _OPERATIONS}
_ERRORS = {op: STORE_ERRORS.labels(op) for op in _OPERATIONS}


def _count_finished(events: Sequence[Mapping[str, Any]]) -> None:
    for event in events:
        if event.get("type") == GAME_ENDED:
            GAMES_FINISHED.inc()


class InstrumentedStore:
    """Delegates to ``inner`` and measures each call (see the module docstring)."""

    def __init__(self, inner: GameStore) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        # Anything beyond the protocol (e.g. a test helper) passes straight through.
        return getattr(self.inner, name)

    def create(
        self,
        state: bytes,
        events: Sequence[Mapping[str, Any]] = (),
        lobby: LobbyUpdate = None,
        owner: str | None = None,
        due: Due | None = None,
        quota: Mapping[str, int] | None = None,
        bots: bool = False,
        game_id: str | None = None,
    ) -> Created:
        """`GameStore.create`, measured; counts the game."""
        start = time.perf_counter()
        try:
            created = self.inner.create(state, events, lobby, owner, due, quota, bots, game_id)
        except (QuotaExceeded, GameExists):
            raise  # a refusal, not a store error
        except Exception:
            _ERRORS["create"].inc()
            raise
        finally:
            _DURATION["create"].observe(time.perf_counter() - start)
        GAMES_CREATED.inc()
        _count_finished(events)  # bots may have played a short game to its end
        return created

    def reserve(self, owner: str, game_id: str, limit: int) -> None:
        """`GameStore.reserve` (once per join: not measured)."""
        self.inner.reserve(owner, game_id, limit)

    def open_games(self, owner: str) -> dict[str, int]:
        """`GameStore.open_games`."""
        return self.inner.open_games(owner)

    def load(self, game_id: str, counters: LoadCounters = ()) -> Loaded:
        """`GameStore.load`, measured."""
        start = time.perf_counter()
        try:
            return self.inner.load(game_id, counters)
        except Exception:
            _ERRORS["load"].inc()
            raise
        finally:
            _DURATION["load"].observe(time.perf_counter() - start)

    def save(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        events: Sequence[Mapping[str, Any]] = (),
        idempotency: IdempotencyRecord | None = None,
        lobby: LobbyUpdate = KEEP,
        due: DueUpdate = KEEP,
        owner: str | None = None,
    ) -> SaveResult:
        """`GameStore.save`, measured; counts a stale answer as a CAS conflict."""
        start = time.perf_counter()
        try:
            result = self.inner.save(
                game_id, expected_version, state, events, idempotency, lobby, due, owner
            )
        except Exception:
            _ERRORS["save"].inc()
            raise
        finally:
            _DURATION["save"].observe(time.perf_counter() - start)
        if result.status == "saved":
            _count_finished(events)
        elif result.status == "stale":
            CAS_CONFLICTS.inc()
        return result

    def delete(self, game_id: str, expected_version: int) -> SaveResult:
        """`GameStore.delete` (rare: not measured)."""
        return self.inner.delete(game_id, expected_version)

    def events(
        self, game_id: str, after: int = 0, wait: float = 0.0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """`GameStore.events`; measured only without ``wait`` (a long-poll is
        not a store latency)."""
        if wait > 0:
            return self.inner.events(game_id, after, wait, limit)
        start = time.perf_counter()
        try:
            return self.inner.events(game_id, after, wait, limit)
        except Exception:
            _ERRORS["events"].inc()
            raise
        finally:
            _DURATION["events"].observe(time.perf_counter() - start)

    def watch(self, game_id: str, deliver: Deliver | None = None) -> AbstractContextManager[Watch]:
        """`GameStore.watch` (not measured: a watch lasts as long as a stream)."""
        return self.inner.watch(game_id, deliver)

    def get_idempotency(self, game_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        """`GameStore.get_idempotency`, measured."""
        start = time.perf_counter()
        try:
            return self.inner.get_idempotency(game_id, seat, key)
        except Exception:
            _ERRORS["get_idempotency"].inc()
            raise
        finally:
            _DURATION["get_idempotency"].observe(time.perf_counter() - start)

    def lobby(
        self,
        limit: int = DEFAULT_LOBBY_LIMIT,
        cursor: str | None = None,
        where: Callable[[Mapping[str, Any]], bool] | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """`GameStore.lobby`, measured."""
        start = time.perf_counter()
        try:
            return self.inner.lobby(limit, cursor, where)
        except Exception:
            _ERRORS["lobby"].inc()
            raise
        finally:
            _DURATION["lobby"].observe(time.perf_counter() - start)

    def ping(self) -> None:
        """`GameStore.ping`, measured."""
        start = time.perf_counter()
        try:
            self.inner.ping()
        except Exception:
            _ERRORS["ping"].inc()
            raise
        finally:
            _DURATION["ping"].observe(time.perf_counter() - start)

    def close(self) -> None:
        """`GameStore.close`."""
        self.inner.close()


def instrument(store: GameStore) -> GameStore:
    """``store`` wrapped so that every operation is measured (idempotent)."""
    if isinstance(store, InstrumentedStore):
        return store
    return InstrumentedStore(store)
