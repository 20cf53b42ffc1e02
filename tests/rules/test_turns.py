"""A turn (docs/rules.md §4): draw, meld, lay off, discard, and every refusal.

Deals are written out: seat 0 plays first (dealer 1) unless a test says otherwise.
"""

from __future__ import annotations

import dataclasses

import pytest

from service.rules.engine import apply, apply_all, legal_moves
from service.rules.moves import Discard, Draw, IllegalMove, LayOff, Meld
from service.rules.state import GameState, encode_state
from tests.rules.scripted import hand, mv, play, scripted, types


def refused(state: GameState, seat: int, move: str) -> str:
    """The code apply() refuses ``move`` with; also checks legal_moves does not list it."""
    assert mv(move) not in legal_moves(state, seat)
    with pytest.raises(IllegalMove) as err:
        apply(state, seat, mv(move))
    return err.value.code


def four_card_game(
    preset: str = "standard", up: str = "SQ", stock: str = "C9 CJ", **opts: object
) -> GameState:
    """P0: H5 H6 H7 H8; P1: D2 D4 S6 S8 (no melds); hand size 4."""
    state, _ = scripted(
        preset, ["H5 H6 H7 H8", "D2 D4 S6 S8"], up=up, stock=stock, dealer=1,
        options={"hand_size": 4, **opts},
    )  # fmt: skip
    return state


def test_draw_phase_lists_both_sources_and_refuses_everything_else() -> None:
    state = four_card_game()
    assert legal_moves(state, 0) == [Draw("discard"), Draw("stock")]
    assert legal_moves(state, 1) == []
    assert refused(state, 1, "draw stock") == "not_your_turn"
    assert refused(state, 0, "meld H5 H6 H7") == "must_draw_first"
    assert refused(state, 0, "discard H5") == "must_draw_first"
    assert refused(state, 0, "layoff 1 H5") == "must_draw_first"


def test_draw_from_the_stock_then_every_meld_and_discard_is_listed() -> None:
    state = four_card_game()
    state, ev = play(state, 0, "draw stock")
    assert ev == [{"type": "drew", "seat": 0, "source": "stock", "card": "C9"}]
    assert hand(state, 0) == ["C9", "H5", "H6", "H7", "H8"]
    assert legal_moves(state, 0) == [
        Meld(("H5", "H6", "H7")),
        Meld(("H5", "H6", "H7", "H8")),
        Meld(("H6", "H7", "H8")),
        Discard("C9"),
        Discard("H5"),
        Discard("H6"),
        Discard("H7"),
        Discard("H8"),
    ]
    assert refused(state, 0, "draw stock") == "already_drew"
    assert refused(state, 0, "draw discard") == "already_drew"


def test_refusals_for_cards_and_melds() -> None:
    state, _ = play(four_card_game(), 0, "draw stock")
    assert refused(state, 0, "meld H5 H6 D2") == "card_not_in_hand"
    assert refused(state, 0, "meld H5 H6 C9") == "invalid_meld"
    assert refused(state, 0, "meld H5 H7") == "invalid_meld"
    assert refused(state, 0, "discard SK") == "card_not_in_hand"
    assert refused(state, 0, "layoff 1 H5") == "unknown_meld"
    state, ev = play(state, 0, "meld H5 H6 H7")
    assert ev == [
        {
            "type": "melded",
            "seat": 0,
            "meld": {"id": 1, "type": "run", "cards": ["H5", "H6", "H7"], "owner": 0},
        }
    ]
    assert refused(state, 0, "layoff 1 C9") == "invalid_layoff"
    assert refused(state, 0, "layoff 2 H8") == "unknown_meld"
    assert refused(state, 0, "layoff 1 D2") == "card_not_in_hand"
    state, ev = play(state, 0, "layoff 1 H8")
    assert ev[0]["result"]["cards"] == ["H5", "H6", "H7", "H8"]


def test_a_taken_discard_cannot_be_discarded_that_turn_but_can_later() -> None:
    state = four_card_game()
    state, ev = play(state, 0, "draw discard")
    assert ev == [{"type": "drew", "seat": 0, "source": "discard", "card": "SQ"}]
    assert state.round is not None and state.round.taken == "SQ"
    assert refused(state, 0, "discard SQ") == "cannot_discard_taken_card"
    state, _ = play(state, 0, "discard H8")
    state, _ = play(state, 1, "draw stock", "discard C9")
    state, _ = play(state, 0, "draw stock", "discard SQ")
    assert state.round is not None and state.round.discard[-1] == "SQ"


def test_a_meld_or_lay_off_may_not_leave_only_the_taken_card() -> None:
    state, _ = play(four_card_game(), 0, "draw discard")  # takes SQ
    assert refused(state, 0, "meld H5 H6 H7 H8") == "would_leave_no_legal_discard"
    state, _ = play(state, 0, "meld H5 H6 H7")
    assert refused(state, 0, "layoff 1 H8") == "would_leave_no_legal_discard"
    assert legal_moves(state, 0) == [Discard("H8")]


def test_unless_the_taken_card_can_itself_be_laid_off_going_out() -> None:
    state, _ = play(four_card_game(up="H9"), 0, "draw discard")
    state, _ = play(state, 0, "meld H5 H6 H7 H8")
    assert legal_moves(state, 0) == [LayOff(1, ("H9",))]
    state, ev = play(state, 0, "layoff 1 H9")
    assert types(ev)[:3] == ["laid_off", "went_out", "round_ended"]


def test_go_out_requires_discard_refuses_a_meld_that_empties_the_hand() -> None:
    state, _ = play(four_card_game(stock="H9", go_out_requires_discard=True), 0, "draw stock")
    assert refused(state, 0, "meld H5 H6 H7 H8 H9") == "would_leave_no_legal_discard"
    state, _ = play(state, 0, "meld H5 H6 H7 H8")
    assert legal_moves(state, 0) == [Discard("H9")]  # H9 may not be laid off: no card left
    state, ev = play(state, 0, "discard H9")
    assert types(ev)[:3] == ["discarded", "went_out", "round_ended"]


def test_without_go_out_requires_discard_a_meld_may_empty_the_hand() -> None:
    state, _ = play(four_card_game(stock="H9"), 0, "draw stock")
    state, ev = play(state, 0, "meld H5 H6 H7 H8 H9")
    assert types(ev)[:3] == ["melded", "went_out", "round_ended"]


def test_one_meld_per_turn() -> None:
    state, _ = scripted(
        "straight", ["H5 H6 H7 C2 C3 C4 SK", "D2 D4 S6 S8 S10 SQ DK"], up="CK", dealer=1,
        options={"hand_size": 7},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7")
    assert refused(state, 0, "meld C2 C3 C4") == "one_meld_per_turn"
    assert not any(isinstance(m, Meld) for m in legal_moves(state, 0))


def test_layoff_requires_own_meld_even_earlier_in_the_same_turn_counts() -> None:
    state, _ = scripted(
        "meld_first", ["H2 H3 H4 D4 SK", "D5 D6 D7 S9 CQ"], up="HK", stock="C8 C7 C6",
        dealer=1, options={"hand_size": 5},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "discard SK")
    state, _ = play(state, 1, "draw stock", "meld D5 D6 D7", "discard CQ")
    state, _ = play(state, 0, "draw stock")
    assert refused(state, 0, "layoff 1 D4") == "layoff_requires_own_meld"
    state, _ = play(state, 0, "meld H2 H3 H4")
    assert LayOff(1, ("D4",)) in legal_moves(state, 0)
    state, _ = play(state, 0, "layoff 1 D4")
    assert state.round is not None and state.round.melds[0].shape.cards == ("D4", "D5", "D6", "D7")


def test_without_the_option_anyone_may_lay_off_on_any_meld() -> None:
    state, _ = scripted(
        "standard", ["H2 H5 H9 D4 SK", "D5 D6 D7 S9 CQ"], up="HK", stock="C8 C7 C6",
        dealer=1, options={"hand_size": 5},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "discard SK")
    state, _ = play(state, 1, "draw stock", "meld D5 D6 D7", "discard CQ")
    state, _ = play(state, 0, "draw stock", "layoff 1 D4")
    assert state.round is not None and state.round.melds[0].owner == 1


def test_multi_card_lay_offs_are_listed() -> None:
    state, _ = scripted(
        "standard", ["C3 C4 C5 C6 C7 SK", "D2 D4 S6 S8 S10 HQ"], up="HK", stock="C2 D9",
        dealer=1, options={"hand_size": 6},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld C3 C4 C5")
    lay = [m for m in legal_moves(state, 0) if isinstance(m, LayOff)]
    assert lay == [
        LayOff(1, ("C2",)),
        LayOff(1, ("C2", "C6")),
        LayOff(1, ("C2", "C6", "C7")),
        LayOff(1, ("C6",)),
        LayOff(1, ("C6", "C7")),
    ]
    state, ev = play(state, 0, "layoff 1 C6 C7")
    assert ev[0]["result"]["cards"] == ["C3", "C4", "C5", "C6", "C7"]


def test_the_discard_pile_can_be_empty() -> None:
    state = four_card_game()
    assert state.round is not None
    state = dataclasses.replace(state, round=dataclasses.replace(state.round, discard=()))
    assert legal_moves(state, 0) == [Draw("stock")]
    assert refused(state, 0, "draw discard") == "discard_pile_empty"


def test_a_discard_ends_the_turn_and_play_passes_in_seat_order() -> None:
    state, _ = scripted(
        "standard", ["C2 C4 C6", "D2 D4 D6", "H2 H4 H6"], up="SK", dealer=2,
        options={"hand_size": 3},
    )  # fmt: skip
    assert state.round is not None and state.round.turn == 0
    state, ev = play(state, 0, "draw stock", "discard C2")
    assert ev[-1] == {"type": "discarded", "seat": 0, "card": "C2"}
    assert state.round is not None and (state.round.turn, state.round.phase) == (1, "draw")
    state, _ = play(state, 1, "draw discard", "discard D2")
    state, _ = play(state, 2, "draw stock", "discard H2")
    assert state.round is not None and state.round.turn == 0


@pytest.mark.parametrize(
    ("ace", "listed"),
    [
        ("low", [("HA", "H2", "H3")]),
        ("high_or_low", [("HA", "H2", "H3"), ("HQ", "HK", "HA")]),
        ("around", [("HA", "H2", "H3"), ("HK", "HA", "H2"), ("HK", "HA", "H2", "H3"),
                    ("HQ", "HK", "HA"), ("HQ", "HK", "HA", "H2"), ("HQ", "HK", "HA", "H2", "H3")]),
    ],
)  # fmt: skip
def test_the_ace_option_decides_which_runs_are_listed(
    ace: str, listed: list[tuple[str, ...]]
) -> None:
    state, _ = scripted(
        "standard", ["HQ HK HA H2 H3", "D2 D4 S6 S8 S10"], up="CK", stock="C9", dealer=1,
        options={"hand_size": 5, "ace": ace},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock")
    melds = [m.cards for m in legal_moves(state, 0) if isinstance(m, Meld)]
    assert sorted(melds) == sorted(listed)


def test_apply_never_changes_its_input_and_apply_all_is_all_or_nothing() -> None:
    state = four_card_game()
    before = encode_state(state)
    after, _ = apply(state, 0, Draw("stock"))
    assert encode_state(state) == before and after != state
    with pytest.raises(IllegalMove) as err:
        apply_all(state, 0, [Draw("stock"), Meld(("H5", "H6", "H7")), Discard("SK")])
    assert err.value.code == "card_not_in_hand"
    assert encode_state(state) == before
    done, events = apply_all(state, 0, [Draw("stock"), Meld(("H5", "H6", "H7")), Discard("H8")])
    assert types(events) == ["drew", "melded", "discarded"]
    assert done.round is not None and done.round.turn == 1
