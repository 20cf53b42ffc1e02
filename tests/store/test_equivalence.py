"""Model-based check: random operation sequences get the same answers from the
memory store and the Redis store (ids mapped, event times left out)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test

from service.store.base import KEEP, GameStore, IdempotencyRecord
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from tests.support.examples import examples
from tests.support.redis_server import RedisServer

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
events = st.lists(st.dictionaries(st.text(max_size=6), json_values, max_size=3), max_size=3)
summaries = st.dictionaries(st.sampled_from(["open", "preset", "names"]), json_values, max_size=3)
lobby_updates = st.one_of(st.just(KEEP), st.none(), summaries)
KEYS = ["a", "b", "key with spaces", "ü" * 3]
keys = st.sampled_from(KEYS)


def without_times(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events without ``at`` (the two stores save at different instants)."""
    return [{k: v for k, v in event.items() if k != "at"} for event in found]


class SameAnswers(RuleBasedStateMachine):
    """Applies each operation to both stores and compares the answers."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.memory: GameStore = MemoryStore()
        self.redis: GameStore = RedisStore(url, prefix=f"eq{uuid.uuid4().hex[:12]}")
        self.games: list[tuple[str, str]] = []  # (memory id, redis id)

    def teardown(self) -> None:
        self.redis.close()

    @rule(state=st.binary(max_size=20), evs=events, lobby=st.none() | summaries)
    def create(self, state: bytes, evs: list[dict[str, Any]], lobby: dict[str, Any] | None) -> None:
        m = self.memory.create(state, evs, lobby)
        r = self.redis.create(state, evs, lobby)
        assert (m.version, m.last_event) == (r.version, r.last_event)
        self.games.append((m.game_id, r.game_id))

    @precondition(lambda self: self.games)
    @rule(
        data=st.data(),
        offset=st.sampled_from([0, 0, 0, -1, 1]),
        state=st.binary(max_size=20),
        evs=events,
        record=st.none() | st.tuples(st.integers(0, 2), keys),
        lobby=lobby_updates,
    )
    def save(
        self,
        data: st.DataObject,
        offset: int,
        state: bytes,
        evs: list[dict[str, Any]],
        record: tuple[int, str] | None,
        lobby: Any,
    ) -> None:
        mem_id, redis_id = data.draw(st.sampled_from(self.games))
        expected = self.memory.load(mem_id).version + offset
        idem = None
        if record is not None:
            idem = IdempotencyRecord(record[0], record[1], "fp", 200, state)
        m = self.memory.save(mem_id, expected, state, evs, idem, lobby)
        r = self.redis.save(redis_id, expected, state, evs, idem, lobby)
        # Epochs are random per save (and per store); "" only when not found.
        assert bool(m.epoch) == bool(r.epoch) == (m.status != "not_found")
        assert replace(m, epoch="") == replace(r, epoch="")

    @precondition(lambda self: self.games)
    @rule(data=st.data(), after=st.integers(0, 12), limit=st.none() | st.integers(1, 4))
    def read(self, data: st.DataObject, after: int, limit: int | None) -> None:
        mem_id, redis_id = data.draw(st.sampled_from(self.games))
        m, r = self.memory.load(mem_id), self.redis.load(redis_id)
        assert m.epoch and r.epoch
        assert replace(m, epoch="") == replace(r, epoch="")
        assert without_times(self.memory.events(mem_id, after, limit=limit)) == without_times(
            self.redis.events(redis_id, after, limit=limit)
        )

    @precondition(lambda self: self.games)
    @rule(data=st.data())
    def idempotency(self, data: st.DataObject) -> None:
        mem_id, redis_id = data.draw(st.sampled_from(self.games))
        for seat in range(3):
            for key in KEYS:
                m = self.memory.get_idempotency(mem_id, seat, key)
                r = self.redis.get_idempotency(redis_id, seat, key)
                assert m == r

    @rule(limit=st.integers(1, 3))
    def lobby(self, limit: int) -> None:
        to_memory = {r: m for m, r in self.games}
        listed: dict[str, list[tuple[str, Any]]] = {}
        for name, store, rename in (
            ("memory", self.memory, lambda i: i),
            ("redis", self.redis, to_memory.__getitem__),
        ):
            items: list[dict[str, Any]] = []
            cursor = None
            while True:
                page, cursor = store.lobby(limit, cursor)
                items += page
                if cursor is None:
                    break
            listed[name] = sorted((rename(i.pop("id")), sorted(i.items())) for i in items)
        assert listed["memory"] == listed["redis"]


def test_memory_and_redis_answer_alike(store_redis: RedisServer) -> None:
    run_state_machine_as_test(
        lambda: SameAnswers(store_redis.url),
        settings=settings(
            max_examples=examples(20),
            stateful_step_count=20,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
