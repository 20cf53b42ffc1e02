"""Scoring and the end of the game (docs/rules.md §5-§6)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from service.rules.engine import apply, legal_moves
from service.rules.moves import DeclineReengage, Discard, Draw, IllegalMove, Reengage
from service.rules.options import PRESETS, resolve_options
from service.rules.scoring import (
    elimination_result,
    express_winner,
    game_winners,
    lowest_with_tie_break,
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
    fresh = [True] * 3  # every seat may still re-engage
    spent = [False] * 3
    # Seat 0 reaches 100: out, and to decide before the next deal whether to re-engage.
    result = elimination_result(opts, [120, 30, 40], [False] * 3, [True] * 3, 3, 1, 0, fresh)
    assert result == ((0,), None, (0,))
    # Two out with one left: they decide first (the game is not over yet) ...
    result = elimination_result(opts, [120, 130, 40], [False] * 3, [True] * 3, 3, 1, 0, fresh)
    assert result == ((0, 1), None, (0, 1))
    # ... only one of them may still re-engage: that one decides ...
    one = [False, True, False]
    result = elimination_result(opts, [120, 130, 40], [False] * 3, [True] * 3, 3, 1, 0, one)
    assert result == ((0, 1), None, (1,))
    # ... and with re-engagements used up (or the option off) the last player left wins.
    result = elimination_result(opts, [120, 130, 40], [False] * 3, [True] * 3, 3, 1, 0, spent)
    assert result == ((0, 1), (2,), ())
    off = dataclasses.replace(opts, reengage=False)
    result = elimination_result(off, [120, 130, 40], [False] * 3, [True] * 3, 3, 1, 0, fresh)
    assert result == ((0, 1), (2,), ())
    # A seat already out is not eliminated again.
    result = elimination_result(opts, [120, 130, 40], [True, False, False], [False, True, True],
                                3, 1, 0, fresh)  # fmt: skip
    assert result == ((1,), None, (1,))


def test_elimination_all_remaining_out_in_one_round_lowest_total_wins() -> None:
    opts = PRESETS["elimination"].options
    fresh = [True] * 3
    # Everyone still in reaches 100 in the same round: the lowest total wins outright,
    # and nobody is offered a re-engagement (nobody is left in to play against).
    result = elimination_result(opts, [120, 105, 110], [False] * 3, [True] * 3, 3, 0, 0, fresh)
    assert result == ((0, 1, 2), (1,), ())


@pytest.mark.parametrize(
    ("ender", "first", "winner"),
    [
        (2, 0, 2),  # the seat whose move ended the round is tied: it wins
        (1, 2, 2),  # the ender is 1, not tied: first in play order from 2 is 2
        (1, 0, 2),  # from 0: 0 is not tied, 1 is not tied, 2 is
        (0, 3, 3),  # from 3: 3 is tied
        (0, 1, 2),  # from 1: 1 is not tied, 2 is
    ],
)
def test_elimination_all_out_lowest_total_tie_broken_like_express(
    ender: int, first: int, winner: int
) -> None:
    opts = PRESETS["elimination"].options
    scores = [130, 120, 110, 110]  # seats 2 and 3 tie for the lowest total
    result = elimination_result(opts, scores, [False] * 4, [True] * 4, 4, ender, first, [True] * 4)
    assert result == ((0, 1, 2, 3), (winner,), ())
    assert lowest_with_tie_break(scores, range(4), ender, first) == (winner,)


def test_elimination_tie_break_counts_only_the_players_still_in() -> None:
    opts = PRESETS["elimination"].options
    # Seat 0 (out before, with the lowest total) is not among the candidates.
    scores = [20, 110, 110]
    result = elimination_result(
        opts, scores, [True, False, False], [False, True, True], 3, 0, 0, [True] * 3
    )
    assert result == ((1, 2), (1,), ())  # from 0: 1 comes first


def elimination_game(**options: object) -> GameState:
    """Three seats, target 20, hands of three: seat 0 goes out in one turn (rummy: double)."""
    state, _ = scripted(
        "elimination", ["H5 H6 H7", "D2 D3 SK", "C2 S3 D4"], up="CK", stock="S9", dealer=2,
        options={"hand_size": 3, "target_score": 20, **options}, seed=11,
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    return state


def test_elimination_round_end_offers_the_reengage_before_the_next_deal() -> None:
    state, ev = scripted(
        "elimination", ["H5 H6 H7", "D2 D3 SK", "C2 S3 D4"], up="CK", stock="S9", dealer=2,
        options={"hand_size": 3, "target_score": 20}, seed=11,
    )  # fmt: skip
    state, ev = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    assert [s.score for s in state.seats] == [0, 30, 18]
    assert [s.eliminated for s in state.seats] == [False, True, False]
    assert types(ev)[-3:] == ["round_ended", "seat_eliminated", "reengage_offered"]
    # The comeback total is the highest among the players still in: 18 (not the 30
    # of the eliminated seat, nor the 0 of the round's winner).
    assert ev[-1] == {"type": "reengage_offered", "seats": [1], "score": 18}
    assert state.status == "active" and state.round is None
    assert state.deciding == (1,) and state.seats[1].deciding
    assert state.comeback_total == 18


def test_elimination_deciding_seat_has_only_the_decision_everyone_else_waits() -> None:
    state = elimination_game()
    assert legal_moves(state, 1) == [Reengage(), DeclineReengage()]
    assert legal_moves(state, 0) == [] and legal_moves(state, 2) == []
    for seat in range(3):
        for move in (Draw("stock"), Draw("discard"), Discard("H5")):
            with pytest.raises(IllegalMove) as err:
                apply(state, seat, move)
            assert err.value.code == "reengage_pending"
    with pytest.raises(IllegalMove) as err:
        apply(state, 0, Reengage())
    assert err.value.code == "cannot_reengage"
    with pytest.raises(IllegalMove) as err:
        apply(state, 2, DeclineReengage())
    assert err.value.code == "no_reengage_decision"


def test_elimination_reengage_comes_back_with_the_top_total_dealt_into_the_next_round() -> None:
    state = elimination_game()
    state, ev = apply(state, 1, Reengage())
    assert ev[0] == {"type": "reengaged", "seat": 1, "score": 18}  # no chips without a stake
    assert types(ev) == ["reengaged", "round_started"]
    seat = state.seats[1]
    assert not seat.eliminated and not seat.deciding and seat.reengaged == 1
    assert seat.score == 18 and seat.score == seat.carried + sum(r.points[1] for r in state.rounds)
    assert state.round is not None and state.round.number == 2
    assert state.round.dealt == (True, True, True) and len(state.round.hands[1]) == 3
    assert ev[1]["hands"][1] is not None
    assert state.deciding == ()
    # Round 2 is played as usual; the seat that re-engaged plays its turns.
    rng = random.Random(3)
    while state.status == "active" and state.round is not None and state.round.number == 2:
        turn = state.round.turn
        state, ev = apply(state, turn, rng.choice(legal_moves(state, turn)))
    for i, s in enumerate(state.seats):
        assert s.score == s.carried + sum(r.points[i] for r in state.rounds)


def test_elimination_decline_leaves_the_seat_out_and_deals_the_others() -> None:
    state = elimination_game()
    state, ev = apply(state, 1, DeclineReengage())
    assert types(ev) == ["reengage_declined", "round_started"]
    assert ev[0] == {"type": "reengage_declined", "seat": 1}
    assert state.seats[1].eliminated and not state.seats[1].deciding
    assert state.seats[1].reengaged == 0 and state.seats[1].score == 30
    assert state.round is not None and state.round.dealt == (True, False, True)
    assert state.round.hands[1] == ()
    assert legal_moves(state, 1) == []
    with pytest.raises(IllegalMove) as err:
        apply(state, 1, Reengage())
    assert err.value.code == "cannot_reengage"


def test_elimination_decline_with_one_player_left_ends_the_game() -> None:
    # Two seats: seat 1 out at 30, seat 0 the only one left in.
    state, _ = scripted(
        "elimination", ["H5 H6 H7", "D2 D3 SK"], up="CK", stock="S9", dealer=1,
        options={"hand_size": 3, "target_score": 20},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    assert state.status == "active" and state.round is None and state.deciding == (1,)
    declined, ev = apply(state, 1, DeclineReengage())
    assert types(ev) == ["reengage_declined", "game_ended"]
    assert declined.status == "finished" and declined.winners == (0,)
    # Re-engaging instead deals round 2 to both.
    back, ev = apply(state, 1, Reengage())
    assert types(ev) == ["reengaged", "round_started"] and back.seats[1].score == 0
    assert back.round is not None and back.round.dealt == (True, True)


def _seat_1_reengaged_once(**options: object) -> GameState:
    """`elimination_game`'s deal, seat 1 having re-engaged once before this round."""
    state, _ = scripted(
        "elimination", ["H5 H6 H7", "D2 D3 SK", "C2 S3 D4"], up="CK", stock="S9", dealer=2,
        options={"hand_size": 3, "target_score": 20, **options}, seed=11,
    )  # fmt: skip
    seats = list(state.seats)
    seats[1] = dataclasses.replace(seats[1], reengaged=1)
    state = dataclasses.replace(state, seats=tuple(seats))
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    return state


def test_reengage_is_limited() -> None:
    # The one re-engagement of the preset is used: no decision, the next round at once.
    state = _seat_1_reengaged_once()
    assert state.seats[1].eliminated and not state.seats[1].deciding
    assert state.round is not None and state.round.number == 2
    assert state.round.dealt == (True, False, True)
    assert legal_moves(state, 1) == []
    with pytest.raises(IllegalMove) as err:
        apply(state, 1, Reengage())
    assert err.value.code == "cannot_reengage"
    # With a limit of two, the same seat decides again.
    again = _seat_1_reengaged_once(reengage_limit=2)
    assert again.round is None and again.deciding == (1,)
    again, _ = apply(again, 1, Reengage())
    assert again.seats[1].reengaged == 2


def test_reengage_off_in_the_options() -> None:
    state = elimination_game(reengage=False)
    assert state.seats[1].eliminated and legal_moves(state, 1) == []
    assert state.round is not None and state.round.number == 2  # dealt at once
    assert state.round.dealt == (True, False, True)


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


def _both_out_game() -> GameState:
    """Two seats of elimination (target 20, no refills) holding 188 points each (aces
    15): clubs and diamonds A-Q, hearts and spades A-Q; the stock is one card, SK."""
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    hands = [
        " ".join([f"C{r}" for r in ranks] + [f"D{r}" for r in ranks[:12]]),
        " ".join([f"H{r}" for r in ranks] + [f"S{r}" for r in ranks[:12]]),
    ]
    state, _ = scripted(
        "elimination", hands, up="DK", stock="SK", dealer=1,
        options={"hand_size": 25, "stock_refill": "none", "target_score": 20},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "discard SK")  # the stock is empty now
    return state


def test_elimination_both_out_in_one_round_tie_goes_to_the_seat_that_ended_it() -> None:
    state = _both_out_game()
    # Seat 1 finds the stock empty: the round ends by its move, both reach 188.
    state, ev = play(state, 1, "draw stock")
    assert [s.score for s in state.seats] == [188, 188]
    assert types(ev) == ["round_ended", "seat_eliminated", "seat_eliminated", "game_ended"]
    assert state.status == "finished" and state.winners == (1,)  # the ender, not seat 0 (first)
    assert "reengage_offered" not in types(ev)  # nobody left in to come back against


def test_elimination_both_out_in_one_round_tie_goes_to_the_ender_seat_0() -> None:
    state = _both_out_game()
    state, _ = play(state, 1, "draw discard", "discard SQ")  # SK for SQ: still 188
    state, _ = play(state, 0, "draw stock")  # seat 0 ends the round now
    assert [s.score for s in state.seats] == [188, 188]
    assert state.status == "finished" and state.winners == (0,)
