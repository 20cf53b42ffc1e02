"""`evolve`: the engine's copy of a frozen state object with some fields changed."""

from __future__ import annotations

import dataclasses

from service.rules.engine import SeatSpec, new_game
from service.rules.evolve import evolve
from service.rules.options import resolve_options
from service.rules.state import GameState


def _state() -> GameState:
    seats = [SeatSpec(f"P{i}", token_hash=f"hash-{i}") for i in range(4)]
    state, _ = new_game(resolve_options("standard", {}, 4), "standard", seats, seed=7)
    return state


def test_evolve_is_dataclasses_replace() -> None:
    state = _state()
    changed = evolve(state, steps=state.steps + 5, event_count=99)
    assert changed == dataclasses.replace(state, steps=state.steps + 5, event_count=99)
    assert type(changed) is GameState
    assert changed is not state


def test_evolve_keeps_the_other_fields_and_the_original() -> None:
    state = _state()
    before = dataclasses.astuple(state)
    changed = evolve(state, event_count=state.event_count + 1)
    assert dataclasses.astuple(state) == before
    for field in dataclasses.fields(GameState):
        if field.name != "event_count":
            assert getattr(changed, field.name) is getattr(state, field.name)


def test_evolve_copies_rounds() -> None:
    base = _state().round
    assert base is not None
    changed = evolve(base, turn=(base.turn + 1) % 4, refills=base.refills + 1)
    assert changed == dataclasses.replace(base, turn=(base.turn + 1) % 4, refills=base.refills + 1)
    assert changed != base
