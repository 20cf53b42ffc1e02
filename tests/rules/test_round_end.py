"""Ending a round (docs/rules.md §5): going out, going rummy, the empty stock, blocked rounds."""

from __future__ import annotations

import pytest

from service.rules.cards import build_deck
from service.rules.engine import legal_moves
from service.rules.moves import Draw
from service.rules.state import GameState
from tests.rules.scripted import play, scripted, types


def four(preset: str = "standard", stock: str = "H9 SK H8", **opts: object) -> GameState:
    """P0: H5 H6 H7 C2 (plays first); P1: D2 D4 S6 S8 (20 points); hand size 4."""
    state, _ = scripted(
        preset, ["H5 H6 H7 C2", "D2 D4 S6 S8"], up="SQ", stock=stock, dealer=1,
        options={"hand_size": 4, "target_score": 500, **opts},
    )  # fmt: skip
    return state


def last_round(state: GameState) -> dict[str, object]:
    rec = state.rounds[-1]
    return {
        "reason": rec.reason,
        "winner": rec.winner,
        "rummy": rec.rummy,
        "points": list(rec.points),
    }


@pytest.mark.parametrize(
    ("scoring", "bonus", "points"),
    [
        ("winner_takes_all", "double", [40, 0]),
        ("winner_takes_all", "plus10", [30, 0]),
        ("winner_takes_all", "none", [20, 0]),
        ("penalty", "double", [0, 40]),
        ("penalty", "plus10", [0, 30]),
        ("penalty", "none", [0, 20]),
    ],
)
def test_going_rummy_in_one_turn(scoring: str, bonus: str, points: list[int]) -> None:
    # A clean rummy: everything in one turn.
    state, _ = scripted(
        "standard", ["H5 H6 H7 H8", "D2 D4 S6 S8"], up="SQ", stock="H9", dealer=1,
        options={"hand_size": 4, "target_score": 500, "scoring": scoring, "rummy_bonus": bonus},
    )  # fmt: skip
    state, ev = play(state, 0, "draw stock", "meld H5 H6 H7 H8 H9")
    assert types(ev) == ["drew", "melded", "went_out", "round_ended", "round_started"]
    assert ev[2] == {"type": "went_out", "seat": 0, "rummy": True}
    assert last_round(state) == {"reason": "went_out", "winner": 0, "rummy": True, "points": points}
    assert [s.score for s in state.seats] == points


def test_going_out_after_melding_on_an_earlier_turn_is_not_rummy() -> None:
    state = four(stock="H8 SK H4 D10")
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7", "discard C2")  # keeps H8
    state, _ = play(state, 1, "draw stock", "discard SK")
    state, ev = play(state, 0, "draw stock", "layoff 1 H4", "layoff 1 H8")
    assert types(ev)[-4:] == ["laid_off", "went_out", "round_ended", "round_started"]
    assert last_round(state) == {
        "reason": "went_out",
        "winner": 0,
        "rummy": False,
        "points": [20, 0],
    }


def test_drawing_and_discarding_on_earlier_turns_do_not_spoil_rummy() -> None:
    state = four(stock="SK DK H8 H9")
    state, _ = play(state, 0, "draw stock", "discard SK")
    state, _ = play(state, 1, "draw stock", "discard DK")
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7 H8", "discard C2")
    assert last_round(state)["rummy"] is True
    assert last_round(state)["points"] == [40, 0]


def test_going_out_by_the_final_discard() -> None:
    state = four(stock="H8")
    state, ev = play(state, 0, "draw stock", "meld H5 H6 H7 H8", "discard C2")
    assert types(ev)[2:5] == ["discarded", "went_out", "round_ended"]
    assert state.rounds[-1].hands[0] == () and state.rounds[-1].hands[1] == ("D2", "D4", "S6", "S8")


# --- the empty stock --------------------------------------------------------

P0_25 = (
    " ".join(f"C{r}" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"])
    + " "
    + " ".join(f"H{r}" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"])
)
P1_25 = (
    " ".join(f"D{r}" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"])
    + " "
    + " ".join(f"S{r}" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"])
)


def short_stock(**opts: object) -> GameState:
    """25-card hands: up card HK, a stock of one card (SK)."""
    state, _ = scripted(
        "standard", [P0_25, P1_25], up="HK", stock="SK", dealer=1,
        options={"hand_size": 25, "target_score": 500, **opts},
    )  # fmt: skip
    return state


def test_shuffle_refill_keeps_the_top_discard() -> None:
    state = short_stock(stock_refill="shuffle", refill_keeps_top=True)
    state, _ = play(state, 0, "draw stock", "discard C2")  # pile: HK C2; stock empty
    assert state.round is not None and state.round.stock == ()
    assert legal_moves(state, 1) == [Draw("discard"), Draw("stock")]
    state, ev = play(state, 1, "draw stock")
    assert ev[0] == {
        "type": "stock_refilled",
        "refills": 1,
        "stock_size": 1,
        "discard_pile": ["C2"],
    }
    assert ev[1]["card"] == "HK"
    assert state.round is not None and state.round.refills == 1


def test_shuffle_refill_of_the_whole_pile() -> None:
    state = short_stock(stock_refill="shuffle", refill_keeps_top=False)
    state, _ = play(state, 0, "draw stock", "discard C2")
    state, ev = play(state, 1, "draw stock")
    assert ev[0]["stock_size"] == 2 and ev[0]["discard_pile"] == []
    assert ev[1]["card"] in ("HK", "C2")


def test_turn_over_refill_draws_the_first_discarded_card_first() -> None:
    state = short_stock(stock_refill="turn_over", refill_keeps_top=False)
    state, _ = play(state, 0, "draw stock", "discard C2")  # pile bottom to top: HK C2
    state, ev = play(state, 1, "draw stock", "discard D2")
    assert ev[1]["card"] == "HK"
    state, ev = play(state, 0, "draw stock")
    assert ev[0]["card"] == "C2"


def test_no_refill_ends_the_round_with_nobody_out() -> None:
    state = short_stock(stock_refill="none", no_winner="void")
    state, _ = play(state, 0, "draw stock", "discard C2")
    state, ev = play(state, 1, "draw stock")
    assert types(ev) == ["round_ended", "round_started"]
    assert last_round(state) == {
        "reason": "stock_exhausted",
        "winner": None,
        "rummy": False,
        "points": [0, 0],
    }


def test_the_player_facing_an_empty_stock_may_take_the_discard_instead() -> None:
    state = short_stock(stock_refill="none")
    state, _ = play(state, 0, "draw stock", "discard C2")
    state, ev = play(state, 1, "draw discard")
    assert ev[0]["card"] == "C2" and state.round is not None and state.round.number == 1


def test_max_refills_then_the_next_exhaustion_ends_the_round() -> None:
    state = short_stock(stock_refill="turn_over", refill_keeps_top=False, max_refills=1)
    state, _ = play(state, 0, "draw stock", "discard C2")
    state, ev = play(state, 1, "draw stock", "discard D2")  # refill 1: stock HK C2, draws HK
    state, _ = play(state, 0, "draw stock", "discard C3")  # draws C2: stock empty again
    state, ev = play(state, 1, "draw stock")
    assert types(ev)[0] == "round_ended"
    assert last_round(state)["reason"] == "stock_exhausted"


def full_deal(**opts: object) -> GameState:
    """Three hands of 17 and the up card SK use the whole deck: the stock starts empty."""
    deck = build_deck()
    hands = [" ".join(deck[i * 17 : (i + 1) * 17]) for i in range(3)]
    state, _ = scripted(
        "standard", hands, up="SK", dealer=2, options={"hand_size": 17, "target_score": 500, **opts}
    )
    return state


def test_a_refill_that_would_make_an_empty_stock_ends_the_round() -> None:
    state = full_deal(refill_keeps_top=True)
    assert state.round is not None and state.round.stock == () and state.round.discard == ("SK",)
    state, ev = play(state, 0, "draw stock")
    assert types(ev) == ["round_ended", "round_started"]
    assert last_round(state)["reason"] == "stock_exhausted"


def test_a_whole_pile_refill_of_one_card_is_a_stock_of_one() -> None:
    state = full_deal(refill_keeps_top=False)
    state, ev = play(state, 0, "draw stock")
    assert ev[0] == {"type": "stock_refilled", "refills": 1, "stock_size": 1, "discard_pile": []}
    assert ev[1]["card"] == "SK"


# --- blocked rounds -----------------------------------------------------------


def sets_game(**opts: object) -> GameState:
    """Each seat melds a full set and keeps one card: nobody can ever go out."""
    state, _ = scripted(
        "standard", ["C7 D7 H7 S7 C2", "C8 D8 H8 S8 D3"], up="HK", stock="SK DK", dealer=1,
        options={"hand_size": 5, "target_score": 500, **opts},
    )  # fmt: skip
    return state


@pytest.mark.parametrize(
    ("no_winner", "points"),
    [("void", [0, 0]), ("count", [2, 3]), ("lowest_takes_difference", [1, 0])],
)
def test_a_blocked_round_ends_with_nobody_out(no_winner: str, points: list[int]) -> None:
    state = sets_game(no_winner=no_winner)
    state, _ = play(state, 0, "draw stock", "meld C7 D7 H7 S7", "discard SK")
    assert state.round is not None and state.round.number == 1  # seat 1 still holds 5 cards
    state, ev = play(state, 1, "draw stock", "meld C8 D8 H8 S8", "discard DK")
    assert types(ev)[-3:] == ["discarded", "round_ended", "round_started"]
    assert last_round(state) == {
        "reason": "blocked",
        "winner": None,
        "rummy": False,
        "points": points,
    }


def test_not_blocked_while_an_outside_card_fits_a_meld() -> None:
    state, _ = scripted(
        "standard", ["C7 D7 H7 C2 S2", "C8 D8 H8 S8 D3"], up="HK", stock="SK DK", dealer=1,
        options={"hand_size": 5, "target_score": 500},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld C7 D7 H7", "discard SK")
    state, _ = play(state, 1, "draw stock", "meld C8 D8 H8 S8", "discard DK")
    assert state.round is not None and state.round.number == 1  # S7 is still outside the table
