"""Hints (`service/bots/hints.py`): the expert's move from the seat's view only, with a reason."""

from __future__ import annotations

import inspect
import random

from service.bots import expert
from service.bots.expert import Budget
from service.bots.hints import REASON_CODES, hint
from service.bots.memory import Memory
from service.rules.engine import apply, legal_moves
from service.rules.moves import Discard, Draw
from service.rules.views import redact_event, seat_view
from tests.bots.test_strategies import _game, _swap_hidden

BUDGET = Budget(nodes=60, seconds=None)


def test_a_hint_takes_only_the_view_the_moves_a_generator_memory_and_its_budget() -> None:
    assert list(inspect.signature(hint).parameters) == ["view", "moves", "rng", "memory", "budget"]


def test_states_differing_only_in_hidden_cards_get_the_same_hint() -> None:
    state = _game("standard", 2, seed=5)
    memory = Memory(round=1)
    checked = 0
    for step in range(60):
        if state.status != "active" or state.round is None or not state.round.stock:
            break
        seat = state.round.turn
        moves = legal_moves(state, seat)
        twin = _swap_hidden(state, seat)
        assert twin.round != state.round
        here = hint(seat_view(state, seat), moves, random.Random(step), memory, BUDGET)
        there = hint(
            seat_view(twin, seat), legal_moves(twin, seat), random.Random(step), memory, BUDGET
        )
        assert here == there
        assert here.move in moves
        assert here.reason["code"] in REASON_CODES and here.reason["detail"]
        checked += 1
        state, events = apply(state, seat, here.move)
        memory.observe_all(redact_event(e, None) for e in events)
    assert checked >= 30


def test_a_hint_searches_within_its_own_budget_not_the_bots() -> None:
    state = _game("standard", 2, seed=3)
    searched = []
    for step in range(40):
        if state.status != "active" or state.round is None:
            break
        seat = state.round.turn
        moves = legal_moves(state, seat)
        with expert.budget(Budget(nodes=1, seconds=None)):  # the bots' budget: ignored
            found = hint(seat_view(state, seat), moves, random.Random(step), None, BUDGET)
        search = expert.last_search
        if search.worlds:
            searched.append(search.nodes)
            # The last world may overshoot by one world (its candidates' rollouts).
            assert search.nodes <= BUDGET.nodes + search.candidates * 3
        state, _ = apply(state, seat, found.move)
    assert searched and max(searched) >= BUDGET.nodes


def test_a_discard_hint_says_what_the_hand_keeps_and_what_it_gives_away() -> None:
    state = _game("standard", 2, seed=8)
    for step in range(80):
        if state.status != "active" or state.round is None:
            break
        seat = state.round.turn
        moves = legal_moves(state, seat)
        found = hint(seat_view(state, seat), moves, random.Random(step), None, BUDGET)
        reason = found.reason
        if isinstance(found.move, Discard) and reason["code"] == "discard":
            assert reason["card"] == found.move.card
            assert found.move.card not in {c for m in reason["builds"] for c in m}
            assert isinstance(reason["deadwood"], int) and isinstance(reason["outs"], int)
            assert {"feeds_table", "feeds_next"} <= set(reason)
            assert found.move.card in reason["detail"]
            return
        if isinstance(found.move, Draw):
            assert reason["code"] in {"take_discard", "draw_stock"}
        state, _ = apply(state, seat, found.move)
    raise AssertionError("no discard hinted")
