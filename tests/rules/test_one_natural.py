"""``joker_limit: one_natural`` (vrotham's ruling, docs/rules.md "Rulings"): a meld
holds any number of jokers beside at least one natural card. One natural card with
two or three jokers is a set of that rank (the jokers stand for the missing suits,
C D H S first); a run with one natural card has at least five cards. A game holds
at most four jokers under this limit.

Each test pins the ruling in the meld functions and in play (scripted deals,
tests/rules/scripted.py), beside what ``natural_majority`` (romme's) answers.
"""

from __future__ import annotations

import pytest

from service.rules.engine import apply, legal_moves
from service.rules.melds import (
    candidate_layoffs,
    candidate_melds,
    extend_meld,
    make_meld,
    swap_joker,
)
from service.rules.moves import IllegalMove, LayOff, Meld, SwapJoker
from service.rules.options import (
    MAX_ONE_NATURAL_JOKERS,
    OptionsError,
    resolve_options,
)
from service.rules.state import GameState
from tests.rules.scripted import codes, hand, mv, play, scripted

ONE = "one_natural"
MAJORITY = "natural_majority"
OTHER = "C3 C5 D6 D8 S10 SQ CK"  # seat 1's hand when it does not matter


def shape_of(cards: str, limit: str = ONE, ace: str = "low") -> tuple[str, list[str]] | None:
    """The kind of meld ``cards`` make and what each card stands for, or ``None``."""
    shape = make_meld(codes(cards), ace, limit)
    return None if shape is None else (shape.kind, list(shape.stands_for))


def refused(state: GameState, seat: int, move: str) -> str:
    """The refusal code of a move that ``legal_moves`` does not list."""
    assert mv(move) not in legal_moves(state, seat)
    with pytest.raises(IllegalMove) as err:
        apply(state, seat, mv(move))
    return err.value.code


def vrotham(p0: str, p1: str = OTHER, stock: str = "HQ D3", **options: object) -> GameState:
    """A 2-player ``vrotham`` game (three jokers): seat 0 plays first with 8 cards, no draw."""
    state, _ = scripted("vrotham", [p0, p1], stock=stock, dealer=1, options=options)
    return state


def four_jokers(p0: str, p1: str = OTHER, stock: str = "HQ D3", **options: object) -> GameState:
    """A 2-player game with four jokers under one_natural (the most it may hold) and
    joker swaps, hands of seven; seat 0 draws first."""
    state, _ = scripted(
        "standard", [p0, p1], up="S2", stock=stock, dealer=1,
        options={"jokers": 4, "joker_limit": ONE, "joker_swap": True, "hand_size": 7, **options},
    )  # fmt: skip
    return state


def last_meld(events: list[dict[str, object]]) -> dict[str, object]:
    """The meld of the last ``melded``, ``laid_off`` or ``joker_swapped`` event."""
    for e in reversed(events):
        if e["type"] == "melded":
            return e["meld"]  # type: ignore[return-value]
        if e["type"] in ("laid_off", "joker_swapped"):
            return e["result"]  # type: ignore[return-value]
    raise AssertionError("no meld")


# ---------------------------------------------------------------------------
# The meld functions


@pytest.mark.parametrize("cards", ["H7 JK JK", "JK H7 JK", "JK JK H7"])
def test_vrotham_one_natural_meld_h7_jk_jk_is_a_set(cards: str) -> None:
    # In any order: the jokers stand for the missing suits, clubs and diamonds first.
    assert shape_of(cards) == ("set", ["C7", "D7", "H7"])
    assert shape_of(cards, MAJORITY) is None  # two jokers to one natural card


@pytest.mark.parametrize("cards", ["H7 JK JK JK", "JK JK JK H7", "JK H7 JK JK"])
def test_vrotham_one_natural_one_natural_and_three_jokers_is_a_four_card_set(cards: str) -> None:
    # Never a four-card run: a run of one natural card needs five cards.
    assert shape_of(cards) == ("set", ["C7", "D7", "H7", "S7"])
    assert shape_of(cards, MAJORITY) is None


def test_vrotham_one_natural_set_jokers_stand_for_the_missing_suits_c_d_h_s_first() -> None:
    assert shape_of("CK JK JK") == ("set", ["CK", "DK", "HK"])
    assert shape_of("JK SA JK") == ("set", ["CA", "DA", "SA"])
    assert shape_of("DQ JK JK JK") == ("set", ["CQ", "DQ", "HQ", "SQ"])


@pytest.mark.parametrize(
    ("cards", "stands_for"),
    [
        ("H7 JK JK JK JK", "H7 H8 H9 H10 HJ"),  # as given: ascending from H7
        ("JK JK H7 JK JK", "H5 H6 H7 H8 H9"),
        ("JK JK JK JK H7", "H3 H4 H5 H6 H7"),
        ("HA JK JK JK JK", "HA H2 H3 H4 H5"),
        ("JK JK JK JK HK", "H9 H10 HJ HQ HK"),
        ("H7 JK JK JK JK JK", "H7 H8 H9 H10 HJ HQ"),
    ],
)
def test_vrotham_one_natural_run_of_one_natural_card_has_five_cards_or_more(
    cards: str, stands_for: str
) -> None:
    assert shape_of(cards) == ("run", codes(stands_for))
    assert shape_of(cards, MAJORITY) is None


def test_vrotham_one_natural_refuses_jokers_alone_and_reads_runs_upwards_first() -> None:
    assert shape_of("JK JK JK") is None and shape_of("JK JK JK JK JK") is None
    assert shape_of("H7 JK") is None  # two cards are no meld
    # Upwards from the king there is no room (ace low): the cards read downwards.
    assert shape_of("HK JK JK JK JK") == ("run", codes("H9 H10 HJ HQ HK"))
    assert shape_of("HK JK JK JK JK", ace="around") == ("run", codes("HK HA H2 H3 H4"))
    assert shape_of("H7 H9 JK JK") is None  # in a run the order fixes each joker: H8 missing


def test_vrotham_one_natural_more_jokers_than_natural_cards_in_a_run() -> None:
    assert shape_of("H7 H8 JK JK JK") == ("run", codes("H7 H8 H9 H10 HJ"))
    assert shape_of("H7 H8 JK JK JK", MAJORITY) is None
    assert shape_of("JK H7 JK H9 JK") == ("run", codes("H6 H7 H8 H9 H10"))
    # Whatever the natural_majority limit accepts, one_natural reads the same way.
    for cards in ("H7 JK H9", "JK H7 S7", "H7 H8 JK JK", "C7 D7 H7 S7", "JK JK H7 H8"):
        assert shape_of(cards) == shape_of(cards, MAJORITY) is not None


def test_vrotham_one_natural_candidate_melds_of_one_natural_card() -> None:
    found = candidate_melds(codes("H7 JK JK JK JK"), "low", ONE)
    one_natural = [m for m in found if sum(c != "JK" for c in m) == 1]
    # Sets of three and four, and runs of five in each of the five places of H7.
    assert sorted(one_natural) == sorted(
        [
            tuple(codes("JK JK H7")),
            tuple(codes("JK JK H7 JK")),
            *(tuple(codes(" ".join(["JK"] * k + ["H7"] + ["JK"] * (4 - k)))) for k in range(5)),
        ]
    )
    assert candidate_melds(codes("H7 JK JK JK JK"), "low", MAJORITY) == []
    assert candidate_melds(codes("JK JK JK JK"), "low", ONE) == []


def test_vrotham_one_natural_lay_offs_on_a_set_of_one_natural_card() -> None:
    shape = make_meld(codes("JK JK H7"), "low", ONE)
    assert shape is not None
    # A joker makes it the four-card set; a natural card takes the place of a joker
    # that stood for it, or a missing suit.
    grown = extend_meld(shape, ["JK"], "low", ONE)
    assert grown is not None and grown.stands_for == tuple(codes("C7 D7 H7 S7"))
    assert extend_meld(shape, ["JK"], "low", MAJORITY) is None
    c7 = extend_meld(shape, ["C7"], "low", ONE)
    assert c7 is not None and c7.cards == tuple(codes("C7 JK H7 JK"))
    s7 = extend_meld(shape, ["S7"], "low", ONE)
    assert s7 is not None and s7.cards == tuple(codes("JK JK H7 S7"))
    assert extend_meld(shape, ["H8"], "low", ONE) is None
    assert extend_meld(shape, ["S7", "JK"], "low", ONE) is None  # five cards: no set
    assert (1, ("JK",)) in candidate_layoffs(["JK", "S2"], {1: shape}, "low", ONE)
    assert candidate_layoffs(["JK", "S2"], {1: shape}, "low", MAJORITY) == []


def test_vrotham_one_natural_lay_offs_on_a_run_of_one_natural_card() -> None:
    run = make_meld(codes("H7 JK JK JK JK"), "low", ONE)
    assert run is not None
    below = extend_meld(run, ["H6"], "low", ONE)
    above = extend_meld(run, ["HQ"], "low", ONE)
    assert below is not None and below.stands_for == tuple(codes("H6 H7 H8 H9 H10 HJ"))
    assert above is not None and above.stands_for == tuple(codes("H7 H8 H9 H10 HJ HQ"))
    assert extend_meld(run, ["H9"], "low", ONE) is None  # a joker stands for it: swap, not lay off


def test_vrotham_one_natural_joker_swap_on_one_natural_melds() -> None:
    shape = make_meld(codes("JK JK H7"), "low", ONE)
    assert shape is not None
    # A set's joker may be swapped for any missing suit.
    assert swap_joker(shape, "C7") == (make_meld(codes("C7 JK H7"), "low"), "JK")
    swapped = swap_joker(shape, "S7")
    assert swapped is not None and sorted(swapped[0].stands_for) == codes("C7 H7 S7")
    assert swap_joker(shape, "H8") is None
    run = make_meld(codes("H7 JK JK JK JK"), "low", ONE)
    assert run is not None
    swapped = swap_joker(run, "H9")
    assert swapped is not None and swapped[0].cards == tuple(codes("H7 JK H9 JK JK"))
    assert swap_joker(run, "H6") is None


# ---------------------------------------------------------------------------
# In play


def test_vrotham_one_natural_melds_h7_jk_jk_as_a_set_in_play() -> None:
    state = vrotham("H7 JK JK C2 C4 D9 SK DK")
    assert state.options.joker_limit == ONE
    moves = legal_moves(state, 0)
    assert Meld(("JK", "JK", "H7")) in moves and Meld(("JK", "D9", "JK")) in moves
    state, ev = play(state, 0, "meld JK JK H7")
    assert last_meld(ev) == {
        "id": 1, "type": "set", "cards": ["JK", "JK", "H7"], "owner": 0,
        "jokers": {"0": "C7", "1": "D7"},
    }  # fmt: skip
    # Given in another order, the same set.
    again = vrotham("H7 JK JK C2 C4 D9 SK DK")
    _, ev = apply(again, 0, mv("meld H7 JK JK"))
    assert last_meld(ev)["jokers"] == {"0": "C7", "1": "D7"}


def test_vrotham_natural_majority_override_refuses_h7_jk_jk() -> None:
    state = vrotham("H7 JK JK C2 C4 D9 SK DK", joker_limit=MAJORITY)
    assert refused(state, 0, "meld JK JK H7") == "invalid_meld"
    assert refused(state, 0, "meld H7 JK JK") == "invalid_meld"


def test_vrotham_one_natural_melds_a_four_card_set_of_one_natural_card() -> None:
    state = vrotham("H7 JK JK JK C2 C4 D9 SK")
    state, ev = play(state, 0, "meld JK JK H7 JK")
    assert last_meld(ev)["type"] == "set"
    assert last_meld(ev)["jokers"] == {"0": "C7", "1": "D7", "3": "S7"}
    assert hand(state, 0) == codes("C2 C4 D9 SK")


def test_standard_four_jokers_one_natural_runs_of_one_natural_card_have_five_cards() -> None:
    state = four_jokers("H7 JK JK JK JK C2 D9")
    state, _ = play(state, 0, "draw stock")  # HQ
    moves = [m for m in legal_moves(state, 0) if isinstance(m, Meld)]
    assert Meld(tuple(codes("JK JK H7 JK JK"))) in moves
    # Every listed meld of one natural card: a set of three or four, or a run of five or more.
    for m in moves:
        naturals = [c for c in m.cards if c != "JK"]
        assert naturals, m
        if len(naturals) == 1:
            shape = make_meld(m.cards, "low", ONE)
            assert shape is not None
            assert shape.kind == ("set" if len(m.cards) <= 4 else "run"), m
    state, ev = play(state, 0, "meld JK JK H7 JK JK")
    assert last_meld(ev)["type"] == "run"
    assert last_meld(ev)["jokers"] == {"0": "H5", "1": "H6", "3": "H8", "4": "H9"}


def test_vrotham_one_natural_lay_off_a_joker_on_a_set_of_one_natural_card() -> None:
    state = vrotham("H7 JK JK JK C2 C4 D9 SK")
    state, _ = play(state, 0, "meld JK JK H7")
    assert LayOff(1, ("JK",)) in legal_moves(state, 0)
    state, ev = play(state, 0, "layoff 1 JK")
    assert last_meld(ev)["cards"] == ["JK", "JK", "H7", "JK"]
    assert last_meld(ev)["jokers"] == {"0": "C7", "1": "D7", "3": "S7"}
    assert refused(state, 0, "layoff 1 C2") == "invalid_layoff"


def test_vrotham_one_natural_lay_off_a_natural_card_on_a_set_of_one_natural_card() -> None:
    state = vrotham("H7 JK JK C7 C2 C4 S7 SK")
    state, _ = play(state, 0, "meld JK JK H7")
    state, ev = play(state, 0, "layoff 1 C7")
    # C7 takes the place of the joker that stood for it: that joker stands for S7 now.
    assert last_meld(ev)["cards"] == ["C7", "JK", "H7", "JK"]
    assert last_meld(ev)["jokers"] == {"1": "D7", "3": "S7"}
    assert refused(state, 0, "layoff 1 S7") == "invalid_layoff"  # four cards: full


def test_standard_four_jokers_one_natural_lay_off_on_a_run_of_one_natural_card() -> None:
    state = four_jokers("H7 JK JK JK JK C2 D9", stock="H6 D3")
    state, _ = play(state, 0, "draw stock", "meld H7 JK JK JK JK")
    state, ev = play(state, 0, "layoff 1 H6")
    assert last_meld(ev)["cards"] == ["H6", "H7", "JK", "JK", "JK", "JK"]
    assert last_meld(ev)["jokers"] == {"2": "H8", "3": "H9", "4": "H10", "5": "HJ"}


def test_vrotham_one_natural_joker_swap_on_a_set_of_one_natural_card() -> None:
    state = vrotham("H7 JK JK C2 C4 D9 SK DK", p1="C7 S7 D6 D8 S10 CQ CK")
    state, _ = play(state, 0, "meld JK JK H7", "discard DK")
    state, _ = play(state, 1, "draw stock")
    swaps = [m for m in legal_moves(state, 1) if isinstance(m, SwapJoker)]
    assert swaps == [SwapJoker(1, "C7"), SwapJoker(1, "S7")]
    state, ev = play(state, 1, "swap 1 S7")
    assert sorted(last_meld(ev)["cards"]) == ["H7", "JK", "S7"]  # type: ignore[arg-type]
    assert "JK" in hand(state, 1) and "S7" not in hand(state, 1)


def test_standard_four_jokers_one_natural_joker_swap_on_a_run_of_one_natural_card() -> None:
    state = four_jokers("H7 JK JK JK JK C2 D9", p1="H9 C3 D6 D8 S10 SQ CK", stock="HQ D3 S5")
    state, _ = play(state, 0, "draw stock", "meld H7 JK JK JK JK", "discard HQ")
    state, _ = play(state, 1, "draw stock")
    assert [m for m in legal_moves(state, 1) if isinstance(m, SwapJoker)] == [SwapJoker(1, "H9")]
    state, ev = play(state, 1, "swap 1 H9")
    assert last_meld(ev)["cards"] == ["H7", "JK", "H9", "JK", "JK"]
    assert last_meld(ev)["jokers"] == {"1": "H8", "3": "H10", "4": "HJ"}


# ---------------------------------------------------------------------------
# The four-joker bound


def test_vrotham_one_natural_allows_at_most_four_jokers() -> None:
    assert MAX_ONE_NATURAL_JOKERS == 4
    assert resolve_options("vrotham", {"jokers": 4}, 2).jokers == 4
    with pytest.raises(OptionsError) as err:
        resolve_options("vrotham", {"jokers": 5}, 2)
    assert set(err.value.errors) == {"jokers"}
    assert "at most 4" in err.value.errors["jokers"][0]
    # Under natural_majority more jokers are fine.
    assert resolve_options("vrotham", {"jokers": 6, "joker_limit": MAJORITY}, 2).jokers == 6


def test_romme_natural_majority_six_jokers_but_not_under_one_natural() -> None:
    assert resolve_options("romme", {}, 2).jokers == 6
    with pytest.raises(OptionsError) as err:
        resolve_options("romme", {"joker_limit": ONE}, 2)
    assert set(err.value.errors) == {"jokers"}
    assert resolve_options("romme", {"joker_limit": ONE, "jokers": 4}, 2).joker_limit == ONE
    with pytest.raises(OptionsError):
        resolve_options("standard", {"jokers": 5, "joker_limit": ONE}, 4)
