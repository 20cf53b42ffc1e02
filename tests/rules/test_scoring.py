"""Scoring and the end of the game (docs/rules.md §5-§6)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from service.rules.engine import apply, legal_moves
from service.rules.moves import IllegalMove, Reengage
from service.rules.options import PRESETS, resolve_options
from service.rules.scoring import (
    elimination_result,
    express_winner,
    game_winners,
    round_points,
)
from service.rules.state import GameState
from tests.rules.scripted import play, scripted, types

STD = PRESETS["standard"].options
PEN = PRESETS["penalty"].options
HANDS_6_15_7_21 = [["C6"], ["DK", "D5"], ["H7"], ["SK", "SJ", "SA"]]  # 6, 15, 7, 21


def test_winner_takes_all_scores_the_other_hands() -> None:
    hands = [[], ["DK", "D5"], ["HA", "H2"]]
    assert round_points(STD, hands, [True] * 3, 0, False) == (18, 0, 0)
    assert round_points(STD, hands, [True] * 3, 0, True) == (36, 0, 0)


def test_aces_count_15_where_ace_points_is_15() -> None:
    opts = resolve_options("ace_high", {}, 2)
    assert round_points(opts, [[], ["HA", "SA"]], [True, True], 0, False) == (30, 0)


def test_penalty_scores_each_other_hand_as_its_own_penalty() -> None:
    hands = [[], ["DK", "D5"], ["HA", "H2"]]
    assert round_points(PEN, hands, [True] * 3, 0, False) == (0, 15, 3)
    assert round_points(PEN, hands, [True] * 3, 0, True) == (0, 30, 6)  # double doubles penalties


def test_no_winner_lowest_takes_difference_matches_the_rules_example() -> None:
    opts = resolve_options("block", {}, 4)
    assert round_points(opts, HANDS_6_15_7_21, [True] * 4, None, False) == (25, 0, 0, 0)


def test_no_winner_lowest_takes_difference_ties_share_rounded_down() -> None:
    opts = resolve_options("block", {}, 3)
    # 6, 6, 11: the two lowest share 5 -> 2 each
    assert round_points(opts, [["C6"], ["D6"], ["HJ", "HA"]], [True] * 3, None, False) == (2, 2, 0)


def test_no_winner_void_and_count() -> None:
    assert round_points(STD, HANDS_6_15_7_21, [True] * 4, None, False) == (0, 0, 0, 0)
    assert round_points(PEN, HANDS_6_15_7_21, [True] * 4, None, False) == (6, 15, 7, 21)


def test_seats_not_dealt_in_score_nothing() -> None:
    assert round_points(PEN, HANDS_6_15_7_21, [True, False, True, True], 0, False) == (0, 0, 7, 21)


def test_target_game_ends_when_a_total_reaches_it_highest_wins_ties_shared() -> None:
    assert game_winners(STD, [149, 20], 3, 2) is None
    assert game_winners(STD, [150, 20], 3, 2) == (0,)
    assert game_winners(STD, [160, 160, 3], 3, 3) == (0, 1)


def test_target_under_penalty_scoring_lowest_total_wins() -> None:
    assert game_winners(PEN, [100, 20, 40], 3, 3) == (1,)
    assert game_winners(PEN, [100, 20, 20], 3, 3) == (1, 2)


def test_target_by_player_count() -> None:
    opts = resolve_options("traditional", {}, 3)
    assert game_winners(opts, [149, 0, 0], 1, 3) is None
    assert game_winners(opts, [150, 0, 0], 1, 3) == (0,)
    opts2 = resolve_options("traditional", {}, 2)
    assert game_winners(opts2, [100, 0], 1, 2) == (0,)


def test_rounds_game_ends_after_the_last_round_best_total_wins() -> None:
    opts = resolve_options("standard", {"end": "rounds", "rounds": 3}, 2)
    assert game_winners(opts, [500, 0], 2, 2) is None
    assert game_winners(opts, [10, 30], 3, 2) == (1,)
    pen = resolve_options("penalty", {"end": "rounds", "rounds": 3}, 2)
    assert game_winners(pen, [10, 30], 3, 2) == (0,)


def test_express_the_player_who_went_out_wins() -> None:
    opts = PRESETS["express"].options
    assert express_winner(opts, [[], ["SK"]], [True, True], 0, 0, 1) == (0,)


def test_express_nobody_out_lowest_hand_then_ender_then_first_player() -> None:
    opts = PRESETS["express"].options
    hands = [["C5"], ["D5"], ["HK"], ["S5"]]
    dealt = [True] * 4
    assert express_winner(opts, [["C2"], ["D5"], ["HK"]], dealt[:3], None, 2, 1) == (0,)
    assert express_winner(opts, hands, dealt, None, 1, 2) == (1,)  # the ender is tied
    assert express_winner(opts, hands, dealt, None, 2, 3) == (3,)  # first in play order from 3
    assert express_winner(opts, hands, dealt, None, 2, 1) == (1,)
    assert express_winner(opts, hands, dealt, None, 2, 2) == (3,)  # 2 not tied; 3 comes next


def test_elimination_eliminates_at_the_target_last_player_left_wins() -> None:
    opts = PRESETS["elimination"].options
    newly, winners = elimination_result(opts, [120, 30, 40], [False] * 3, [True] * 3, 3)
    assert (newly, winners) == ((0,), None)
    newly, winners = elimination_result(opts, [120, 130, 40], [False] * 3, [True] * 3, 3)
    assert (newly, winners) == ((0, 1), (2,))


def test_elimination_all_remaining_out_in_one_round_lowest_total_wins() -> None:
    opts = PRESETS["elimination"].options
    newly, winners = elimination_result(opts, [120, 110, 110], [False] * 3, [True] * 3, 3)
    assert (newly, winners) == ((0, 1, 2), (1, 2))


def elimination_game() -> GameState:
    """Three seats, target 20, hands of three: seat 0 goes out in one turn (rummy: double)."""
    state, _ = scripted(
        "elimination", ["H5 H6 H7", "D2 D3 SK", "C2 S3 D4"], up="CK", stock="S9", dealer=2,
        options={"hand_size": 3, "target_score": 20}, seed=11,
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    return state


def test_elimination_and_reengaging_in_a_game() -> None:
    state = elimination_game()
    assert [s.score for s in state.seats] == [0, 30, 18]
    assert [s.eliminated for s in state.seats] == [False, True, False]
    assert state.round is not None and state.round.dealt == (True, False, True)
    assert state.round.hands[1] == ()
    # An eliminated seat may re-engage at any time, and do nothing else.
    assert legal_moves(state, 1) == [Reengage()]
    with pytest.raises(IllegalMove) as err:
        apply(state, 1, legal_moves(state, state.round.turn)[0])
    assert err.value.code == "not_in_round"
    with pytest.raises(IllegalMove) as err:
        apply(state, 0, Reengage())
    assert err.value.code == "cannot_reengage"
    state, ev = apply(state, 1, Reengage())
    assert ev == [{"type": "reengaged", "seat": 1}]
    assert not state.seats[1].eliminated and state.seats[1].rejoining
    assert legal_moves(state, 1) == []  # not dealt in this round
    # Play round 2 out; seat 1 is dealt in again with the highest remaining total.
    rng = random.Random(3)
    while state.status == "active" and state.round is not None and state.round.number == 2:
        seat = state.round.turn
        state, ev = apply(state, seat, rng.choice(legal_moves(state, seat)))
    if state.status == "active":
        assert state.round is not None and state.round.dealt[1]
        others = [s.score for i, s in enumerate(state.seats) if i != 1 and not s.eliminated]
        assert state.seats[1].score == max(others)
        assert "seat_rejoined" in types(ev)


def test_reengage_is_limited() -> None:
    state = elimination_game()
    state, _ = apply(state, 1, Reengage())
    # Suppose seat 1 is eliminated again: it has used its one re-engagement.
    seats = list(state.seats)
    seats[1] = dataclasses.replace(seats[1], eliminated=True, rejoining=False)
    again = dataclasses.replace(state, seats=tuple(seats))
    assert again.seats[1].reengaged == 1
    assert legal_moves(again, 1) == []
    with pytest.raises(IllegalMove) as err:
        apply(again, 1, Reengage())
    assert err.value.code == "cannot_reengage"


def test_reengage_off_in_the_options() -> None:
    state, _ = scripted(
        "elimination", ["H5 H6 H7", "D2 D3 SK", "C2 S3 D4"], up="CK", stock="S9", dealer=2,
        options={"hand_size": 3, "target_score": 20, "reengage": False},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    assert state.seats[1].eliminated and legal_moves(state, 1) == []


def test_a_target_game_ends_after_the_round_that_reaches_it() -> None:
    state, _ = scripted(
        "standard", ["H5 H6 H7", "DK DQ SK"], up="CK", stock="S9", dealer=1,
        options={"hand_size": 3, "target_score": 60},
    )  # fmt: skip
    state, ev = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    assert types(ev)[-2:] == ["round_ended", "game_ended"]
    assert ev[-1] == {"type": "game_ended", "winners": [0], "scores": [60, 0]}
    assert state.status == "finished" and state.winners == (0,) and state.round is None
    assert legal_moves(state, 1) == []
    with pytest.raises(IllegalMove) as err:
        apply(state, 1, Reengage())
    assert err.value.code == "cannot_reengage"
