"""The event vocabulary (`service/rules/events.py`) lists every event the engine emits."""

from __future__ import annotations

import random

import pytest

from service.rules.engine import SeatSpec, apply, legal_moves, new_game
from service.rules.events import EVENTS
from service.rules.options import resolve_options


@pytest.mark.parametrize("preset", ["standard", "elimination", "vrotham", "block"])
def test_random_games_emit_only_listed_events(preset: str) -> None:
    rng = random.Random(3)
    emitted: set[str] = set()
    for seed in range(3):
        options = resolve_options(preset, {"target_score": 30} if preset != "vrotham" else {}, 3)
        state, events = new_game(options, preset, [SeatSpec(f"p{i}") for i in range(3)], seed=seed)
        emitted |= {e["type"] for e in events}
        for _step in range(3000):
            if state.status != "active" or state.round is None:
                break
            seat = state.round.turn
            state, events = apply(state, seat, rng.choice(legal_moves(state, seat)))
            emitted |= {e["type"] for e in events}
    assert {"round_started", "drew", "discarded", "round_ended"} <= emitted
    assert emitted <= set(EVENTS), emitted - set(EVENTS)


def test_every_event_the_store_knows_is_in_the_vocabulary() -> None:
    from service.store.codec import EVENT_TYPES

    assert set(EVENT_TYPES) <= set(EVENTS), set(EVENT_TYPES) - set(EVENTS)
