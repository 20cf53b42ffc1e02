"""The engine side of the joker options: joker_swap, first_meld_min_points,
concealed_rounds, two decks (docs/rules.md §7)."""

from __future__ import annotations

import pytest

from service.rules.engine import apply, legal_moves
from service.rules.moves import Discard, IllegalMove, Meld, SwapJoker
from service.rules.state import GameState
from tests.rules.scripted import hand, mv, play, scripted, types


def refused(state: GameState, seat: int, move: str) -> str:
    assert mv(move) not in legal_moves(state, seat)
    with pytest.raises(IllegalMove) as err:
        apply(state, seat, mv(move))
    return err.value.code


def joker_run_on_table(**opts: object) -> GameState:
    """vrotham, hands of 7 (the first player 8, no draw): seat 0 melds H7 JK H9."""
    state, _ = scripted(
        "vrotham", ["H7 JK H9 C2 C4 C6 SK D5", "H8 D2 S6 S8 S10 SQ DK"], stock="H10 CK",
        dealer=1, options={"hand_size": 7, **opts},
    )  # fmt: skip
    state, _ = play(state, 0, "meld H7 JK H9", "discard SK")
    return state


def test_a_held_card_may_be_swapped_for_the_joker_standing_for_it() -> None:
    state = joker_run_on_table()
    assert refused(state, 1, "swap 1 H8") == "must_draw_first"
    state, _ = play(state, 1, "draw stock")
    assert SwapJoker(1, "H8") in legal_moves(state, 1)
    assert refused(state, 1, "swap 1 H10") == "invalid_joker_swap"
    assert refused(state, 1, "swap 2 H8") == "unknown_meld"
    assert refused(state, 1, "swap 1 D5") == "card_not_in_hand"
    state, ev = play(state, 1, "swap 1 H8")
    assert ev[0]["type"] == "joker_swapped" and ev[0]["result"]["cards"] == ["H7", "H8", "H9"]
    assert "jokers" not in ev[0]["result"]
    assert "JK" in hand(state, 1) and "H8" not in hand(state, 1)


def test_joker_swap_off() -> None:
    state = joker_run_on_table(joker_swap=False)
    state, _ = play(state, 1, "draw stock")
    assert not any(isinstance(m, SwapJoker) for m in legal_moves(state, 1))
    assert refused(state, 1, "swap 1 H8") == "joker_swap_not_allowed"


def minimum_game(p0: str, p1: str = "D2 D3 D4 S6 S8 SQ DK", stock: str = "S3 CK") -> GameState:
    state, _ = scripted(
        "standard", [p0, p1], up="C5", stock=stock, dealer=1,
        options={"hand_size": 7, "first_meld_min_points": 40},
    )  # fmt: skip
    return state


def test_first_melds_accumulate_in_the_turn_until_the_minimum() -> None:
    state, _ = play(minimum_game("HJ HQ HK C8 C9 C10 S2"), 0, "draw stock")
    assert legal_moves(state, 0)[:2] == [Meld(("C8", "C9", "C10")), Meld(("HJ", "HQ", "HK"))]
    state, _ = play(state, 0, "meld HJ HQ HK")  # 30 points: not yet 40
    assert state.round is not None and state.round.opening == 30
    # Until the minimum is reached: no discard, no lay-off; only the meld that reaches it.
    assert legal_moves(state, 0) == [Meld(("C8", "C9", "C10"))]
    assert refused(state, 0, "discard S2") == "first_meld_minimum"
    state, _ = play(state, 0, "meld C8 C9 C10")  # 57
    assert state.round is not None and state.round.opening is None
    assert Discard("S2") in legal_moves(state, 0)


def test_a_first_meld_that_cannot_reach_the_minimum_is_refused() -> None:
    state = minimum_game("HJ HQ HK C8 C9 C10 S2")
    state, _ = play(state, 0, "draw stock", "discard S3")
    state, _ = play(state, 1, "draw stock")  # CK
    assert not any(isinstance(m, Meld) for m in legal_moves(state, 1))
    assert refused(state, 1, "meld D2 D3 D4") == "first_meld_minimum"
    assert Discard("CK") in legal_moves(state, 1)  # discarding without melding is fine


def test_no_lay_off_before_the_minimum_is_reached() -> None:
    state = minimum_game("HJ HQ HK C8 C9 C10 S2", p1="D2 D3 D4 S6 S8 SQ H10", stock="S3 CK")
    state, _ = play(state, 0, "draw stock", "meld HJ HQ HK", "meld C8 C9 C10", "discard S3")
    state, _ = play(state, 1, "draw stock")
    assert refused(state, 1, "layoff 1 H10") == "first_meld_minimum"


def concealed(p0: str, stock: str) -> GameState:
    state, _ = scripted(
        "standard", [p0, "D2 D4 S6 S8 S10 SQ DK"], up="HK", stock=stock, dealer=1,
        options={"hand_size": 7, "concealed_rounds": [1]},
    )  # fmt: skip
    return state


def test_concealed_round_a_meld_must_lead_to_going_out_this_turn() -> None:
    state, _ = play(concealed("H5 H6 H7 C2 C3 C4 SK", "D9"), 0, "draw stock")
    assert refused(state, 0, "meld H5 H6 H7") == "concealed_round"
    assert not any(isinstance(m, Meld) for m in legal_moves(state, 0))
    state, _ = play(state, 0, "discard D9")  # not melding at all is fine
    assert state.round is not None and state.round.turn == 1


def test_concealed_round_melding_the_whole_hand_at_once() -> None:
    state, _ = play(concealed("H5 H6 H7 C2 C3 C4 SK", "C5"), 0, "draw stock", "meld H5 H6 H7")
    assert legal_moves(state, 0) == [Meld(("C2", "C3", "C4", "C5"))]
    assert refused(state, 0, "discard SK") == "concealed_round"
    state, ev = play(state, 0, "meld C2 C3 C4 C5", "discard SK")
    assert "went_out" in types(ev)


def test_two_decks_a_taken_card_may_be_discarded_when_another_copy_is_held() -> None:
    state, _ = scripted(
        "standard", ["H5 C9 D2 S4", "D3 D6 S7 S9"], up="H5", dealer=1,
        options={"hand_size": 4, "decks": 2},
    )  # fmt: skip
    state, _ = play(state, 0, "draw discard")
    assert hand(state, 0).count("H5") == 2
    state, _ = play(state, 0, "discard H5")
    assert hand(state, 0).count("H5") == 1
