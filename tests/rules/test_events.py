"""The event vocabulary (`service/rules/events.py`): every event the engine emits is
built by the function of its type, with the fields that function lists."""

from __future__ import annotations

import random

import pytest

from service.rules import events as vocab
from service.rules.engine import SeatSpec, apply, legal_moves, new_game
from service.rules.events import EVENT_FIELDS, EVENTS, Event
from service.rules.options import resolve_options


@pytest.mark.parametrize("preset", ["standard", "elimination", "vrotham", "block"])
def test_random_games_emit_only_listed_events(preset: str) -> None:
    rng = random.Random(3)
    seen: list[Event] = []
    for seed in range(3):
        options = resolve_options(preset, {"target_score": 30} if preset != "vrotham" else {}, 3)
        state, events = new_game(options, preset, [SeatSpec(f"p{i}") for i in range(3)], seed=seed)
        seen.extend(events)
        for _step in range(3000):
            if state.status != "active" or state.round is None:
                break
            seat = state.round.turn
            state, events = apply(state, seat, rng.choice(legal_moves(state, seat)))
            seen.extend(events)
    emitted = {e["type"] for e in seen}
    assert {"round_started", "drew", "discarded", "round_ended"} <= emitted
    assert emitted <= set(EVENTS), emitted - set(EVENTS)
    for event in seen:
        fields = EVENT_FIELDS[event["type"]]
        always = {name for name, present in fields if present}
        assert always <= set(event) - {"type"} <= {name for name, _ in fields}, event


def test_each_builder_emits_its_own_type_with_its_fields() -> None:
    for kind, fields in EVENT_FIELDS.items():
        builder = getattr(vocab, kind)
        bare = builder(**{name: [] for name, always in fields if always})
        assert bare["type"] == kind
        assert set(bare) - {"type"} == {name for name, always in fields if always}, kind
        full = builder(**{name: [] for name, _ in fields})
        assert set(full) - {"type"} == {name for name, _ in fields}, kind
    assert list(EVENT_FIELDS) == list(EVENTS)


def test_every_event_the_store_knows_is_in_the_vocabulary() -> None:
    from service.store.codec import EVENT_TYPES

    assert set(EVENT_TYPES) <= set(EVENTS), set(EVENT_TYPES) - set(EVENTS)
