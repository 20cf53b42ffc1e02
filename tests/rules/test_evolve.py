"""`evolve`: the engine's copy of a frozen state object with some fields changed."""

from __future__ import annotations

import dataclasses

import pytest

from service.rules.engine import SeatSpec, new_game
from service.rules.evolve import _draft_class, evolve
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


def test_the_engine_classes_are_copied_through_a_plain_draft() -> None:
    state = _state()
    changed = evolve(state, steps=state.steps + 1)
    assert type(changed) is GameState
    for cls in (GameState, type(state.round), type(state.seats[0])):
        assert _draft_class(cls, tuple(cls.__slots__)) is not None, cls
    with pytest.raises(dataclasses.FrozenInstanceError):
        changed.steps = 0  # type: ignore[misc]
    assert hash(changed) == hash(dataclasses.replace(state, steps=state.steps + 1))


class _Base:
    __slots__ = ()


@dataclasses.dataclass(frozen=True, slots=True)
class _Derived(_Base):
    a: int


def test_a_class_a_draft_cannot_stand_for_is_copied_through_setattr() -> None:
    assert _draft_class(_Derived, tuple(_Derived.__slots__)) is None
    changed = evolve(_Derived(1), a=3)
    assert changed == _Derived(3) and type(changed) is _Derived


def test_a_copier_is_written_per_class_and_changed_names(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.rules import evolve as module

    state = _state()
    monkeypatch.setattr(module, "_COPIERS", {})
    first = evolve(state, steps=1, event_count=2)
    again = evolve(first, steps=3, event_count=4)
    other = evolve(state, event_count=5, steps=6, not_a_field=7)
    assert set(module._COPIERS) == {
        (GameState, ("steps", "event_count")),
        (GameState, ("event_count", "steps", "not_a_field")),
    }
    assert (again.steps, again.event_count, other.steps, other.event_count) == (3, 4, 6, 5)
    assert again == dataclasses.replace(state, steps=3, event_count=4)
    assert not hasattr(other, "not_a_field")


def test_the_copiers_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.rules import evolve as module

    monkeypatch.setattr(module, "_COPIERS", {})
    monkeypatch.setattr(module, "COPIERS_KEPT", 2)
    state = _state()
    for name in ("steps", "event_count", "first_dealer"):
        evolve(state, **{name: 1})
    assert len(module._COPIERS) <= 2
    assert evolve(state, steps=9).steps == 9


def test_a_move_its_round_goes_on_from_copies_the_game_state_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from service.rules import engine
    from service.rules.moves import Discard, Draw

    copies: list[type] = []

    def counted(obj: object, **changes: object) -> object:
        copies.append(type(obj))
        return evolve(obj, **changes)

    state = _state()
    assert state.round is not None
    monkeypatch.setattr(engine, "evolve", counted)
    seat = state.round.turn
    drawn, events = engine.apply(state, seat, Draw("stock"))
    assert copies.count(GameState) == 1
    assert (drawn.steps, drawn.event_count) == (state.steps + 1, state.event_count + len(events))
    assert drawn.round is not None
    copies.clear()
    done, events = engine.apply(drawn, seat, Discard(drawn.round.hands[seat][0]))
    assert copies.count(GameState) == 1
    assert (done.steps, done.event_count) == (drawn.steps + 1, drawn.event_count + len(events))
    assert done.round is not None and done.round.turn != seat
