"""`blocked.round_blocked`: the table's outlook kept per tuple of melds."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from service.rules import blocked
from service.rules.engine import SeatSpec, new_game
from service.rules.melds import MeldShape
from service.rules.options import resolve_options
from service.rules.state import RoundState, TableMeld


def _round() -> tuple[RoundState, Any]:
    options = resolve_options("standard", {}, 4)
    state, _ = new_game(options, "standard", [SeatSpec(f"p{i}") for i in range(4)], seed=3)
    assert state.round is not None
    return state.round, options


def test_the_tables_outlook_is_taken_once_per_tuple_of_melds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    r, options = _round()
    melds = (TableMeld(1, MeldShape("set", ("C7", "D7", "H7"), ("C7", "D7", "H7")), 0),)
    calls: list[tuple[Any, ...]] = []
    real = blocked.table_outlook

    def counting(*args: Any) -> tuple[bool, bool]:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(blocked, "table_outlook", counting)
    first = replace(r, melds=melds)
    assert blocked.round_blocked(first, options) is False  # S7 can still be laid off
    assert blocked.round_blocked(replace(first, turn=1), options) is False  # same melds
    assert len(calls) == 1
    equal = (TableMeld(1, MeldShape("set", ("C7", "D7", "H7"), ("C7", "D7", "H7")), 0),)
    assert blocked.round_blocked(replace(r, melds=equal), options) is False
    assert len(calls) == 2  # another tuple: looked at again
