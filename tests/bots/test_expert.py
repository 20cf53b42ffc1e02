"""The ``expert`` strategy: legal whole games on every preset, only public knowledge,
consistent sampled worlds, budgets honoured, deterministic for a seed."""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask

import service.bots.expert as expert
from service.bots.expert import Budget, expert_move
from service.bots.greedy import greedy_move
from service.bots.memory import Memory
from service.bots.play import UNBOUNDED, play_bots
from service.bots.play import Budget as PlayBudget
from service.bots.strategies import STRATEGIES, choose_move
from service.rules.cards import build_deck
from service.rules.engine import SeatSpec, apply, legal_moves, new_game
from service.rules.moves import Discard, Draw, Meld, Move
from service.rules.options import PRESETS, resolve_options
from service.rules.state import GameState
from service.rules.views import redact_event, seat_view
from tests.bots.conftest import SMALL_EXPERT_BUDGET

#: The budget tests/bots/conftest.py sets for every test here.
SMALL = SMALL_EXPERT_BUDGET


def _game(preset: str, seats: list[SeatSpec], seed: int) -> GameState:
    opts = resolve_options(preset, {}, len(seats))
    state, _ = new_game(opts, preset, seats, seed=seed)
    return state


def _advance(state: GameState, steps: int, memory: Memory) -> GameState:
    """Play ``steps`` greedy moves (a position in the middle of a round)."""
    for step in range(steps):
        seat = state.round.turn if state.round is not None else 0
        moves = legal_moves(state, seat)
        move = greedy_move(seat_view(state, seat), moves, random.Random(step), memory)
        state, events = apply(state, seat, move)
        memory.observe_all(redact_event(e, None) for e in events)
    return state


def test_expert_is_selectable_by_name() -> None:
    assert STRATEGIES["expert"] is expert_move


@pytest.mark.slow
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_expert_plays_whole_games_of_every_preset_legally(preset: str) -> None:
    """Two experts and a greedy play a whole game; every expert choice is a listed move."""
    players = 2 if preset == "express" else 3
    seats = [SeatSpec(kind="bot", bot=b) for b in ("expert", "greedy", "expert")[:players]]
    chosen: list[tuple[Move, list[Move]]] = []
    original = STRATEGIES["expert"]

    def spy(view: Any, moves: Any, rng: random.Random, memory: Memory | None = None) -> Move:
        move = original(view, moves, rng, memory)
        chosen.append((move, list(moves)))
        return move

    state = _game(preset, seats, seed=7)
    STRATEGIES["expert"] = spy  # type: ignore[index]
    try:
        with expert.budget(Budget(nodes=30, seconds=None)):
            state = play_bots(state, UNBOUNDED).state
    finally:
        STRATEGIES["expert"] = original  # type: ignore[index]
    assert state.status == "finished" and state.winners
    assert chosen and all(move in moves for move, moves in chosen)
    kinds = {type(m).__name__ for m, _ in chosen}
    assert {"Draw", "Discard", "Meld"} <= kinds or preset in ("vrotham", "romme")
    assert {"Discard", "Meld"} <= kinds


def _play_experts_from(state: GameState, round_number: int, max_moves: int) -> list[Move]:
    """Greedy plays until round ``round_number`` starts, then experts; the experts' moves."""
    memory = Memory(round=1)
    chosen: list[Move] = []
    for step in range(max_moves):
        if state.status != "active" or state.round is None:
            break
        seat = state.round.turn
        moves = legal_moves(state, seat)
        strategy = "expert" if state.round.number >= round_number else "greedy"
        move = choose_move(strategy, seat_view(state, seat), moves, random.Random(step), memory)
        assert move in moves
        if strategy == "expert":
            chosen.append(move)
        state, events = apply(state, seat, move)
        memory.observe_all(redact_event(e, None) for e in events)
    assert state.status == "finished"
    return chosen


def test_expert_plays_concealed_rounds_with_jokers() -> None:
    """vrotham: jokers, swaps, and rounds 4-6 concealed (a meld only to go out)."""
    state = _game("vrotham", [SeatSpec(name="a"), SeatSpec(name="b")], seed=0)
    chosen = _play_experts_from(state, 4, 3000)
    assert {Draw, Discard, Meld} <= {type(m) for m in chosen}


def test_expert_plays_a_two_deck_game_with_a_first_meld_minimum() -> None:
    """romme in express form: two decks, six jokers, first melds of 40 points or more."""
    opts = dataclasses.replace(resolve_options("romme", {}, 2), end="express")
    state, _ = new_game(opts, "romme", [SeatSpec(name="a"), SeatSpec(name="b")], seed=1)
    chosen = _play_experts_from(state, 1, 3000)
    assert {Discard, Meld} <= {type(m) for m in chosen}


def test_sampled_worlds_agree_with_everything_public() -> None:
    memory = Memory(round=1)
    state = _advance(_game("standard", [SeatSpec(name=n) for n in "abc"], seed=5), 40, memory)
    r = state.round
    assert r is not None
    seat = r.turn
    view = seat_view(state, seat)
    rules = expert._rules(view)
    known = expert.known_holdings(view, memory)
    for k in range(20):
        world = expert._sample_world(view, memory, random.Random(k), rules)
        for other in range(3):
            assert len(world.hands[other]) == len(r.hands[other])
            if other != seat:
                assert not Counter(known.get(other, [])) - Counter(world.hands[other])
        assert world.hands[seat] == list(r.hands[seat])
        assert len(world.stock) == len(r.stock)
        assert world.pile == list(r.discard)
        everything = Counter(world.stock) + Counter(world.pile)
        for hand in world.hands:
            everything.update(hand)
        for shape in world.table:
            everything.update(shape.cards)
        assert everything == Counter(build_deck(1, 0))


def test_known_cards_in_the_view_stay_with_their_seat() -> None:
    """A view listing ``known_cards`` (cards a seat took from the pile) is used as is."""
    state = _game("standard", [SeatSpec(name=n) for n in "ab"], seed=2)
    view = seat_view(state, 0)
    r = state.round
    assert r is not None
    held = r.hands[1][:2]
    for s in view["seats"]:
        if s["seat"] == 1:
            s["known_cards"] = list(held)
    rules = expert._rules(view)
    for k in range(10):
        world = expert._sample_world(view, None, random.Random(k), rules)
        assert not Counter(held) - Counter(world.hands[1])


def test_the_expert_reads_nothing_hidden() -> None:
    """Two games that differ only in another seat's cards and the stock order give
    the same view, so the same choices (see also test_strategies)."""
    a = _game("standard", [SeatSpec(name=n) for n in "ab"], seed=9)
    r = a.round
    assert r is not None
    hidden = list(r.hands[1]) + list(r.stock)
    random.Random(1).shuffle(hidden)
    other, stock = tuple(sorted(hidden[: len(r.hands[1])])), tuple(hidden[len(r.hands[1]) :])
    b = dataclasses.replace(a, round=dataclasses.replace(r, hands=(r.hands[0], other), stock=stock))
    assert a.round != b.round and seat_view(a, 0) == seat_view(b, 0)
    moves = legal_moves(a, 0)
    assert legal_moves(b, 0) == moves
    with expert.budget(Budget(nodes=200, seconds=None)):
        for k in range(5):
            here = expert_move(seat_view(a, 0), moves, random.Random(k), Memory(round=1))
            there = expert_move(seat_view(b, 0), moves, random.Random(k), Memory(round=1))
            assert here == there


def _decision() -> tuple[dict[str, Any], list[Move], Memory]:
    """A discard decision with several candidates, mid-round."""
    memory = Memory(round=1)
    state = _advance(_game("standard", [SeatSpec(name=n) for n in "ab"], seed=4), 12, memory)
    while True:
        seat = state.round.turn  # type: ignore[union-attr]
        moves = legal_moves(state, seat)
        if sum(isinstance(m, Discard) for m in moves) >= 5:
            return seat_view(state, seat), moves, memory
        state = _advance(state, 1, memory)


def test_node_budget_bounds_the_search() -> None:
    view, moves, memory = _decision()
    searched = []
    for nodes in (1, 50, 400):
        with expert.budget(Budget(nodes=nodes, seconds=None)):
            expert_move(view, moves, random.Random(1), memory)
        s = expert.last_search
        # A world plays every candidate to the horizon: the last one may overshoot.
        assert nodes <= s.nodes < nodes + s.candidates * SMALL.turns(2)
        searched.append(s.worlds)
    assert searched[0] == 1 and searched[0] < searched[1] < searched[2]


def test_time_budget_caps_the_search() -> None:
    view, moves, memory = _decision()
    with expert.budget(Budget(nodes=10**9, seconds=0.0)):
        move = expert_move(view, moves, random.Random(1), memory)
    assert expert.last_search.cut_by_time and expert.last_search.worlds == 0
    # With no time at all the expert plays greedy's choice.
    assert move == greedy_move(view, moves, random.Random(random.Random(1).getrandbits(32)), memory)
    # A cap the search does not reach leaves the node budget in charge.
    with expert.budget(Budget(nodes=50, seconds=600.0)):
        expert_move(view, moves, random.Random(1), memory)
    assert not expert.last_search.cut_by_time and expert.last_search.nodes >= 50


def test_same_seed_same_choice() -> None:
    view, moves, memory = _decision()
    with expert.budget(Budget(nodes=300, seconds=None)):
        first = [expert_move(view, moves, random.Random(s), memory) for s in range(4)]
        again = [expert_move(view, moves, random.Random(s), memory) for s in range(4)]
    assert first == again


def test_a_seeded_game_of_experts_replays_exactly() -> None:
    seats = [SeatSpec(kind="bot", bot="expert"), SeatSpec(kind="bot", bot="greedy")]
    a = play_bots(_game("express", seats, seed=12), UNBOUNDED).state
    b = play_bots(_game("express", seats, seed=12), UNBOUNDED).state
    assert a == b and a.status == "finished"


def test_draws_are_greedys_without_a_search() -> None:
    memory = Memory(round=1)
    state = _advance(_game("standard", [SeatSpec(name=n) for n in "ab"], seed=6), 5, memory)
    while state.round is not None and state.round.phase != "draw":
        state = _advance(state, 1, memory)
    seat = state.round.turn  # type: ignore[union-attr]
    moves = legal_moves(state, seat)
    view = seat_view(state, seat)
    assert set(moves) == {Draw("stock"), Draw("discard")}
    move = expert_move(view, moves, random.Random(0), memory)
    assert expert.last_search.worlds == 0
    assert move == greedy_move(view, moves, random.Random(0), memory)


def test_the_service_settings_bound_the_budget_and_reach_the_expert(
    make_app: Callable[..., Flask],
) -> None:
    from service.config import Config, TestConfig

    edge = Config.from_env({"BOT_EXPERT_NODES": "0", "BOT_EXPERT_SECONDS": "-1"})
    assert (edge.BOT_EXPERT_NODES, edge.BOT_EXPERT_SECONDS) == (1, 0.0)
    top = Config.from_env({"BOT_EXPERT_NODES": "10000000", "BOT_EXPERT_SECONDS": "60"})
    assert (top.BOT_EXPERT_NODES, top.BOT_EXPERT_SECONDS) == (100_000, 5.0)
    assert (Config().BOT_EXPERT_NODES, Config().BOT_EXPERT_SECONDS) == (600, 0.05)
    with expert.budget(SMALL):
        make_app(dataclasses.replace(TestConfig(), BOT_EXPERT_NODES=77, BOT_EXPERT_SECONDS=0))
        assert expert.current_budget().nodes == 77
        assert expert.current_budget().seconds is None  # 0: no cap
        make_app(dataclasses.replace(TestConfig(), BOT_EXPERT_SECONDS=0.25))
        assert expert.current_budget().seconds == 0.25
    assert expert.current_budget() == SMALL


@pytest.mark.parametrize(("ace", "ace_points"), [("low", 1), ("high_or_low", 15), ("around", 1)])
def test_the_mask_split_matches_the_general_one(ace: str, ace_points: int) -> None:
    from service.bots.hand import Scoring, best_split
    from service.bots.masks import fast_split

    rng = random.Random(ace)
    deck = build_deck(1, 0)
    scoring = Scoring(ace, ace_points, 0)
    for _ in range(400):
        hand = rng.sample(deck, rng.randint(1, 14))
        fast, general = fast_split(hand, ace, ace_points), best_split(hand, scoring)
        assert (fast.points, len(fast.deadwood)) == (general.points, len(general.deadwood))
        assert Counter(c for m in fast.melds for c in m) + Counter(fast.deadwood) == Counter(hand)


@pytest.mark.slow
def test_a_table_of_experts_and_greedies_that_refilled_twice_still_ends() -> None:
    """Seed 21 of the four-player round-robin: each expert held what the other waited
    for and the round ran on; from the second refill on the experts play greedy's
    choices (with its occasional random discard) and the round ends."""
    seats = [SeatSpec(kind="bot", bot=b) for b in ("greedy", "expert", "greedy", "expert")]
    state = _game("standard", seats, seed=21)
    with expert.budget(Budget(nodes=100, seconds=None)):
        played = play_bots(state, PlayBudget(moves=6000, seconds=math.inf))
    assert not played.pending and played.state.status == "finished"


def test_a_four_seat_rollout_reaches_the_searching_seats_next_turn() -> None:
    """At four seats a rollout plays five turns (every seat, then the searcher again)
    unless its round ends first; at two seats three."""
    assert Budget().turns(4) == 5 and Budget().turns(2) == 3
    assert Budget(horizon=2).turns(4) == 2
    memory = Memory(round=1)
    state = _advance(_game("standard", [SeatSpec(name=n) for n in "abcd"], seed=4), 9, memory)
    while True:
        seat = state.round.turn  # type: ignore[union-attr]
        moves = legal_moves(state, seat)
        if sum(isinstance(m, Discard) for m in moves) >= 5:
            break
        state = _advance(state, 1, memory)
    with expert.budget(Budget(nodes=1, seconds=None)):
        expert_move(seat_view(state, seat), moves, random.Random(3), memory)
    s = expert.last_search
    assert s.worlds == 1 and s.candidates >= 2
    assert s.nodes == 5 * s.candidates


@pytest.mark.parametrize("preset", ["block", "straight"])
def test_one_meld_a_turn_counts_a_held_meld_at_the_horizon(preset: str) -> None:
    """With one meld a turn (block, straight) a meld kept in hand is not free at a
    rollout's horizon: the estimate counts every card held, so holding a meld back
    scores worse than putting it down; without the limit only the deadwood counts."""

    def estimate(name: str, hand: list[str]) -> float:
        state = _game(name, [SeatSpec(name=n) for n in "ab"], seed=1)
        view = seat_view(state, 0)
        rules = expert._rules(view)
        world = expert._sample_world(view, None, random.Random(0), rules)
        world.hands[0] = list(hand)
        world.hands[1] = ["C2", "D9"]
        return world._estimate(0, rules)

    melded, holding = ["S2", "HK"], ["S2", "HK", "D5", "D6", "D7"]
    assert estimate(preset, holding) == estimate(preset, melded) - 18
    assert estimate("standard", holding) == estimate("standard", melded)
