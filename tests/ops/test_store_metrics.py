"""The instrumented store counts games, conflicts and durations, and keeps the contract."""

from __future__ import annotations

from service.ops import metrics
from service.ops.store_metrics import InstrumentedStore, instrument
from service.store.base import GameStore
from service.store.memory import MemoryStore


def sample(name: str, **labels: str) -> float:
    """The current value of one sample in this process's registry."""
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


def test_counts_created_finished_and_conflicts() -> None:
    store = instrument(MemoryStore())
    assert isinstance(store, GameStore)
    assert instrument(store) is store
    created, finished = sample("rummy_games_created_total"), sample("rummy_games_finished_total")
    conflicts = sample("rummy_store_cas_conflicts_total")
    saves = sample("rummy_store_operation_duration_seconds_count", operation="save")
    loads = sample("rummy_store_operation_duration_seconds_count", operation="load")

    game = store.create(b"state-1", [{"type": "game_created"}])
    assert store.load(game.game_id).version == 1
    assert store.save(game.game_id, 1, b"state-2", [{"type": "drew", "seat": 0}]).saved
    stale = store.save(game.game_id, 1, b"state-x", [{"type": "game_ended"}])
    assert stale.status == "stale"
    ended = store.save(game.game_id, 2, b"state-3", [{"type": "went_out"}, {"type": "game_ended"}])
    assert ended.saved

    assert sample("rummy_games_created_total") == created + 1
    # The stale save ended nothing; the saved one did.
    assert sample("rummy_games_finished_total") == finished + 1
    assert sample("rummy_store_cas_conflicts_total") == conflicts + 1
    assert sample("rummy_store_operation_duration_seconds_count", operation="save") == saves + 3
    assert sample("rummy_store_operation_duration_seconds_count", operation="load") == loads + 1


def test_passes_everything_else_through() -> None:
    inner = MemoryStore()
    store = InstrumentedStore(inner)
    game = store.create(b"s", [{"type": "game_created"}])
    assert [e["type"] for e in store.events(game.game_id, 0)] == ["game_created"]
    assert store.get_idempotency(game.game_id, 0, "k") is None
    store.ping()
    assert store.lobby(10)[0] == []
    assert store.inner is inner
