"""The expert's levels (`service/bots/levels.py`): each a strategy, the beginner's mistakes."""

from __future__ import annotations

import random

import pytest

from service.bots import expert, levels
from service.bots.greedy import greedy_move
from service.bots.hand import Scoring, best_split
from service.bots.levels import LEVELS, beginner_move, level_strategy
from service.bots.strategies import SEAT_STRATEGIES, STRATEGIES, choose_move
from service.rules.cards import card_points
from service.rules.engine import apply, legal_moves
from service.rules.moves import Discard, LayOff
from service.rules.state import GameState
from service.rules.views import seat_view
from tests.bots.test_strategies import _game


def test_every_level_is_a_strategy_asked_for_by_its_number() -> None:
    assert sorted(LEVELS) == [1, 2, 3, 4, 5]
    for level in LEVELS:
        assert level_strategy(level) in STRATEGIES
        assert level_strategy(level) not in SEAT_STRATEGIES  # `{"bot": "expert", "level": n}`
    for bad in (0, 6, -1):
        with pytest.raises(ValueError):
            level_strategy(bad)


def test_the_searching_levels_search_a_quarter_the_budget_and_four_times_it() -> None:
    state = _game("standard", 2, seed=4)
    budgets = []
    real = expert.expert_choice

    def spy(view, moves, rng, memory, settings):  # type: ignore[no-untyped-def]
        budgets.append(settings.nodes)
        return real(view, moves, rng, memory, settings)

    with expert.budget(expert.Budget(nodes=200, seconds=None)):
        for name in ("expert3", "expert4", "expert5"):
            levels.expert_choice = spy  # type: ignore[assignment]
            try:
                seat = state.round.turn  # type: ignore[union-attr]
                choose_move(
                    name, seat_view(state, seat), legal_moves(state, seat), random.Random(1)
                )
            finally:
                levels.expert_choice = real  # type: ignore[assignment]
    assert budgets == [50, 200, 800]
    budgets.clear()
    with expert.budget(expert.Budget(nodes=100, seconds=None)):
        levels.expert_choice = spy  # type: ignore[assignment]
        try:
            seat = state.round.turn  # type: ignore[union-attr]
            choose_move(
                "expert3", seat_view(state, seat), legal_moves(state, seat), random.Random(1)
            )
        finally:
            levels.expert_choice = real  # type: ignore[assignment]
    assert budgets == [levels.CLUB_NODES]  # enough worlds to leave greedy's choice


def _positions(kind: type, seeds: range) -> list[tuple[GameState, int]]:
    """Positions of seeded games where greedy's choice is of ``kind``."""
    found = []
    for seed in seeds:
        state = _game("standard", 2, seed=seed)
        for step in range(200):
            if state.status != "active" or state.round is None:
                break
            seat = state.round.turn
            moves = legal_moves(state, seat)
            move = greedy_move(seat_view(state, seat), moves, random.Random(step))
            if isinstance(move, kind):
                found.append((state, seat))
            state, _ = apply(state, seat, move)
    return found


def test_the_beginner_misses_lay_offs_greedy_makes() -> None:
    positions = _positions(LayOff, range(6))[:10]
    assert positions
    made = missed = 0
    for state, seat in positions:
        view, moves = seat_view(state, seat), legal_moves(state, seat)
        for i in range(40):
            choice = beginner_move(view, moves, random.Random(i))
            assert choice in moves
            if isinstance(choice, LayOff):
                made += 1
            else:
                missed += 1
    # About `MISSED_LAYOFF` of them missed.
    assert 0.55 < missed / (made + missed) < 0.85


def test_the_beginner_holds_its_high_cards() -> None:
    positions = []
    for state, seat in _positions(Discard, range(3)):
        view = seat_view(state, seat)
        opts = view["options"]
        scoring = Scoring(
            opts["ace"], opts["ace_points"], opts["joker_points"], opts["joker_limit"]
        )
        deadwood = best_split(view["hand"], scoring).deadwood
        greedy = greedy_move(view, legal_moves(state, seat), random.Random(0))
        low = (
            min(card_points(c, opts["ace_points"], opts["joker_points"]) for c in deadwood)
            if deadwood
            else 99
        )
        if (
            isinstance(greedy, Discard)
            and card_points(greedy.card, opts["ace_points"], 0) >= 10 > low
        ):
            positions.append((view, legal_moves(state, seat), greedy, low))
    assert len(positions) >= 5
    held = 0
    tries = 0
    for view, moves, _greedy, low in positions[:20]:
        for i in range(20):
            choice = beginner_move(view, moves, random.Random(i))
            assert isinstance(choice, Discard)
            tries += 1
            # The beginner's greedy choice draws first from the same generator.
            if choice != greedy_move(view, moves, random.Random(i)):
                held += 1
                assert card_points(choice.card, view["options"]["ace_points"], 0) == low
    assert 0.4 < held / tries < 0.8
