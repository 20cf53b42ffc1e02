"""Melds: sets, runs per ace mode, jokers, two decks, lay-offs, swaps, points, meld search."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.rules.cards import CardCodeError, build_deck
from service.rules.melds import (
    ACE_MODES,
    MeldShape,
    candidate_layoffs,
    candidate_melds,
    extend_meld,
    make_meld,
    meld_points,
    swap_joker,
)
from tests.support.examples import examples


def c(text: str) -> tuple[str, ...]:
    """Cards from a space-separated string: c("H7 JK H9")."""
    return tuple(text.split())


def meld(text: str, ace: str = "low") -> MeldShape:
    shape = make_meld(c(text), ace)
    assert shape is not None, text
    return shape


def shown(shape: MeldShape | None) -> str | None:
    return None if shape is None else " ".join(shape.cards)


def meant(shape: MeldShape | None) -> str | None:
    return None if shape is None else " ".join(shape.stands_for)


# --- sets -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "display"),
    [
        ("H7 C7 S7", "C7 H7 S7"),
        ("S7 D7 C7 H7", "C7 D7 H7 S7"),
        ("SA HA DA", "DA HA SA"),
        ("SK CK DK", "CK DK SK"),
    ],
)
def test_set_of_three_or_four_suits_shows_in_suit_order(given: str, display: str) -> None:
    shape = make_meld(c(given), "low")
    assert shape is not None and shape.kind == "set"
    assert shown(shape) == display
    assert shape.stands_for == shape.cards


@pytest.mark.parametrize(
    "given",
    [
        "H7 S7",  # too few
        "H7 H7 S7",  # two decks: same suit twice
        "H7 S7 S7 C7",
        "H7 S7 C8",  # ranks differ
        "C7 D7 H7 S7 C7",  # five cards
        "",
    ],
)
def test_invalid_sets(given: str) -> None:
    assert make_meld(c(given), "low") is None


# --- runs by ace mode ----------------------------------------------------------

RUNS = [
    # cards, display under low, high_or_low, around (None: not a run)
    ("H3 H4 H5", "H3 H4 H5", "H3 H4 H5", "H3 H4 H5"),
    ("HA H2 H3", "HA H2 H3", "HA H2 H3", "HA H2 H3"),
    ("HQ HK HA", None, "HQ HK HA", "HQ HK HA"),
    ("HK HA H2", None, None, "HK HA H2"),
    ("HJ HQ HK HA H2 H3", None, None, "HJ HQ HK HA H2 H3"),
    ("H10 HJ HQ HK HA", None, "H10 HJ HQ HK HA", "H10 HJ HQ HK HA"),
    ("H3 H4 H6", None, None, None),  # gap
    ("H3 H4 S5", None, None, None),  # suits differ
    ("H3 H4 H4", None, None, None),  # repeated rank
    ("H3 H4", None, None, None),  # too short
    ("H9 H10 HJ HQ HK HA H2 H3 H4 H5 H6 H7", None, None, "H9 H10 HJ HQ HK HA H2 H3 H4 H5 H6 H7"),
    ("HJ HQ HA H2", None, None, None),  # the king is missing
]


@pytest.mark.parametrize("ace", ACE_MODES)
@pytest.mark.parametrize(("given", "low", "high_or_low", "around"), RUNS)
def test_runs_by_ace_mode(
    given: str, low: str | None, high_or_low: str | None, around: str | None, ace: str
) -> None:
    expected = {"low": low, "high_or_low": high_or_low, "around": around}[ace]
    shape = make_meld(c(given), ace)
    assert shown(shape) == expected
    if shape is not None:
        assert shape.kind == "run"


@pytest.mark.parametrize("ace", ACE_MODES)
def test_natural_run_in_any_order_shows_ascending(ace: str) -> None:
    for order in itertools.permutations(c("D9 D10 DJ DQ")):
        assert shown(make_meld(order, ace)) == "D9 D10 DJ DQ"
    assert shown(make_meld(c("HA H3 H2"), ace)) == "HA H2 H3"


def test_ace_is_low_or_high_in_one_run_only() -> None:
    assert shown(make_meld(c("HA HK HQ"), "high_or_low")) == "HQ HK HA"
    assert make_meld(c("HK HA H2"), "high_or_low") is None
    assert shown(make_meld(c("H2 HA HK"), "around")) == "HK HA H2"


def test_thirteen_card_runs() -> None:
    all_hearts = list(c("HA H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK"))
    for ace in ACE_MODES:
        shape = make_meld(list(reversed(all_hearts)), ace)
        assert shape is not None and list(shape.cards) == all_hearts  # A..K, ace low
    # around: a joker's place in the given order decides where 13 cards start
    corner = c("H5 H6 H7 H8 H9 H10 HJ HQ HK HA H2 H3 JK")
    assert meant(make_meld(corner, "around")).split()[-1] == "H4"  # type: ignore[union-attr]
    assert make_meld(corner, "low") is None
    fourteen = c("H5 H6 H7 H8 H9 H10 HJ HQ HK HA H2 H3 H4 JK")
    assert make_meld(fourteen, "around") is None


# --- jokers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "display", "stands_for"),
    [
        ("H7 JK H9", "H7 JK H9", "H7 H8 H9"),
        ("JK H8 H9", "JK H8 H9", "H7 H8 H9"),
        ("H8 H9 JK", "H8 H9 JK", "H8 H9 H10"),
        ("H9 JK H7", "H7 JK H9", "H7 H8 H9"),  # descending
        ("H9 H8 JK", "JK H8 H9", "H7 H8 H9"),  # descending: the joker is below
        ("H5 JK JK H8", "H5 JK JK H8", "H5 H6 H7 H8"),
        ("JK JK H3 H4", "JK JK H3 H4", "HA H2 H3 H4"),
    ],
)
def test_run_jokers_take_their_place_from_the_given_order(
    given: str, display: str, stands_for: str
) -> None:
    shape = make_meld(c(given), "low")
    assert shape is not None and shape.kind == "run"
    assert shown(shape) == display
    assert meant(shape) == stands_for


@pytest.mark.parametrize(
    ("given", "ace", "stands_for"),
    [
        ("HQ JK HA", "high_or_low", "HQ HK HA"),
        ("JK HK HA", "high_or_low", "HQ HK HA"),
        ("HA H2 JK", "high_or_low", "HA H2 H3"),
        ("JK HA H2", "around", "HK HA H2"),
        ("HK JK H2", "around", "HK HA H2"),
    ],
)
def test_run_jokers_with_aces(given: str, ace: str, stands_for: str) -> None:
    assert meant(make_meld(c(given), ace)) == stands_for


@pytest.mark.parametrize(
    "given",
    [
        "JK HA H2",  # low: nothing below the ace
        "HQ HK JK",  # low: nothing above the king, and the order fixes the joker's place
        "H7 H9 JK",  # gap not where the joker is
        "H9 H7 JK",
        "H7 JK H8",  # the joker between is not consecutive
        "JK JK H8",  # more jokers than naturals
        "JK JK JK H7 H8",
        "H7 JK S9",  # suits differ
        "H7 JK H7",  # repeated card
    ],
)
def test_invalid_joker_runs(given: str) -> None:
    assert make_meld(c(given), "low") is None


def test_shuffled_natural_order_with_a_joker_is_refused() -> None:
    assert make_meld(c("H8 H7 JK H9"), "low") is None
    assert make_meld(c("H7 H8 JK H9"), "low") is None


@pytest.mark.parametrize(
    ("given", "display", "stands_for"),
    [
        ("JK H7 S7", "JK H7 S7", "C7 H7 S7"),  # first missing suit
        ("H7 JK S7", "JK H7 S7", "C7 H7 S7"),
        ("C7 S7 JK", "C7 JK S7", "C7 D7 S7"),
        ("JK C7 S7 JK", "C7 JK JK S7", "C7 D7 H7 S7"),
        ("D7 H7 S7 JK", "JK D7 H7 S7", "C7 D7 H7 S7"),
    ],
)
def test_set_jokers_stand_for_missing_suits(given: str, display: str, stands_for: str) -> None:
    shape = make_meld(c(given), "low")
    assert shape is not None and shape.kind == "set"
    assert shown(shape) == display
    assert meant(shape) == stands_for


@pytest.mark.parametrize("given", ["JK JK H7", "JK H7 S7 C7 D7", "JK H7 H7", "JK JK JK"])
def test_invalid_joker_sets(given: str) -> None:
    assert make_meld(c(given), "low") is None


# --- lay-offs ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "added", "ace", "result"),
    [
        ("C3 C4 C5", "C6", "low", "C3 C4 C5 C6"),
        ("C3 C4 C5", "C2", "low", "C2 C3 C4 C5"),
        ("C3 C4 C5", "C7 C6", "low", "C3 C4 C5 C6 C7"),
        ("C3 C4 C5", "C6 C2", "low", "C2 C3 C4 C5 C6"),
        ("C3 C4 C5", "JK", "low", "C3 C4 C5 JK"),  # joker goes high
        ("CJ CQ CK", "JK", "low", "JK CJ CQ CK"),  # no room above: low end
        ("CJ CQ CK", "JK", "high_or_low", "CJ CQ CK JK"),  # stands for the ace
        ("C3 C4 C5", "C7 JK", "low", "C3 C4 C5 JK C7"),  # joker bridges the gap
        ("C3 C4 C5", "JK C2", "low", "C2 C3 C4 C5 JK"),
        ("HQ HK HA", "HJ", "high_or_low", "HJ HQ HK HA"),
        ("HK HA H2", "H3 HQ", "around", "HQ HK HA H2 H3"),
        ("H7 JK H9", "H10", "low", "H7 JK H9 H10"),
        ("D7 H7 S7", "C7", "low", "C7 D7 H7 S7"),
        ("D7 H7 JK", "S7", "low", "JK D7 H7 S7"),
    ],
)
def test_lay_offs(base: str, added: str, ace: str, result: str) -> None:
    assert shown(extend_meld(meld(base, ace), c(added), ace)) == result


@pytest.mark.parametrize(
    ("base", "added", "ace"),
    [
        ("C3 C4 C5", "C7", "low"),  # not adjacent
        ("C3 C4 C5", "C4", "low"),  # already there (two decks)
        ("C3 C4 C5", "D6", "low"),  # wrong suit
        ("C3 C4 C5", "C6 C6", "low"),
        ("CJ CQ CK", "CA", "low"),
        ("HQ HK HA", "H2", "high_or_low"),
        ("C3 C4 C5", "", "low"),  # nothing laid off
        ("C7 D7 H7 S7", "C7", "low"),  # a set grows to at most 4
        ("D7 H7 S7", "H7", "low"),  # duplicate suit
        ("D7 H7 S7", "C8", "low"),
        ("D7 H7 S7", "C7 JK", "low"),
        ("JK H7 H8", "JK JK", "low"),  # more jokers than naturals
        ("JK H7 H8 JK", "JK", "low"),
    ],
)
def test_refused_lay_offs(base: str, added: str, ace: str) -> None:
    assert extend_meld(meld(base, ace), c(added), ace) is None


def test_a_run_never_exceeds_thirteen_cards() -> None:
    run = meld("H2 H3 H4 H5 H6 H7 H8 H9 H10 HJ HQ HK", "around")
    full = extend_meld(run, c("HA"), "around")
    assert full is not None and len(full.cards) == 13
    assert extend_meld(full, c("JK"), "around") is None
    assert extend_meld(run, c("HA JK"), "around") is None


def test_joker_limit_counts_after_the_lay_off() -> None:
    assert shown(extend_meld(meld("JK H7 H8"), c("JK"), "low")) == "JK H7 H8 JK"
    assert shown(extend_meld(meld("H6 H7 H8"), c("JK JK"), "low")) == "H6 H7 H8 JK JK"


def test_lay_off_never_changes_a_run_joker() -> None:
    run = meld("H7 JK H9")
    for added in ("H8", "H6 H8", "H10 H8"):
        assert extend_meld(run, c(added), "low") is None
    grown = extend_meld(run, c("H6 H10"), "low")
    assert grown is not None
    assert meant(grown) == "H6 H7 H8 H9 H10"
    assert shown(grown) == "H6 H7 JK H9 H10"


def test_laying_off_the_card_a_set_joker_was_recorded_as_moves_the_joker() -> None:
    base = meld("JK H7 S7")
    assert meant(base) == "C7 H7 S7"
    grown = extend_meld(base, c("C7"), "low")
    assert grown is not None
    assert shown(grown) == "C7 JK H7 S7"
    assert meant(grown) == "C7 D7 H7 S7"


# --- joker swaps ----------------------------------------------------------------------


def test_swap_joker_in_a_run() -> None:
    result = swap_joker(meld("H7 JK H9"), "H8")
    assert result is not None
    shape, freed = result
    assert freed == "JK"
    assert shown(shape) == "H7 H8 H9" and meant(shape) == "H7 H8 H9"
    assert swap_joker(meld("H7 JK H9"), "H10") is None
    assert swap_joker(meld("H7 JK H9"), "S8") is None
    assert swap_joker(meld("H7 H8 H9"), "H8") is None
    assert swap_joker(meld("H7 JK H9"), "JK") is None


def test_swap_joker_in_a_set_accepts_any_missing_suit() -> None:
    base = meld("JK H7 S7")
    for card in ("C7", "D7"):
        result = swap_joker(base, card)
        assert result is not None
        shape, freed = result
        assert freed == "JK" and "JK" not in shape.cards
        assert sorted(shape.cards) == sorted([card, "H7", "S7"])
    assert swap_joker(base, "H7") is None
    assert swap_joker(base, "C8") is None


def test_swap_one_of_two_set_jokers() -> None:
    result = swap_joker(meld("JK JK H7 S7"), "D7")
    assert result is not None
    shape, _ = result
    assert shown(shape) == "JK D7 H7 S7" and meant(shape) == "C7 D7 H7 S7"


def test_swap_keeps_the_run_in_place() -> None:
    result = swap_joker(meld("JK HA H2", "around"), "HK")
    assert result is not None
    assert shown(result[0]) == "HK HA H2"


# --- meld points -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "ace", "points"),
    [
        ("HA H2 H3", "low", 1 + 2 + 3),
        ("HQ HK HA", "high_or_low", 10 + 10 + 11),
        ("HK HA H2", "around", 10 + 11 + 2),
        ("CA DA SA", "low", 33),
        ("C10 HJ", "low", None),
        ("H7 JK H9", "low", 24),
        ("JK H2 H3", "low", 1 + 2 + 3),  # the joker is the low ace
        ("JK H7 S7", "low", 21),
        ("CK DK HK SK", "low", 40),
        ("H9 H10 HJ HQ", "low", 39),
    ],
)
def test_meld_points(given: str, ace: str, points: int | None) -> None:
    shape = make_meld(c(given), ace)
    if points is None:
        assert shape is None
    else:
        assert shape is not None and meld_points(shape) == points


# --- argument checks ---------------------------------------------------------------


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        make_meld(c("H3 H4 H5"), "sideways")
    with pytest.raises(CardCodeError):
        make_meld(c("3H H4 H5"), "low")
    with pytest.raises(CardCodeError):
        candidate_melds(c("H3 H4 XX"), "low")
    with pytest.raises(CardCodeError):
        extend_meld(meld("H3 H4 H5"), c("h6"), "low")


# --- meld search ---------------------------------------------------------------------


def test_candidate_melds_examples() -> None:
    assert candidate_melds(c("H7 H8 H9 S7 D7 C2"), "low") == [c("D7 H7 S7"), c("H7 H8 H9")]
    runs = candidate_melds(c("S3 S4 S5 S6"), "low")
    assert runs == sorted([c("S3 S4 S5"), c("S4 S5 S6"), c("S3 S4 S5 S6")])
    sets = candidate_melds(c("C5 D5 H5 S5"), "low")
    assert len(sets) == 5  # four of three suits, one of four
    assert candidate_melds(c("HQ HK HA"), "low") == []
    assert candidate_melds(c("HQ HK HA"), "high_or_low") == [c("HQ HK HA")]
    assert candidate_melds(c("H7 H8 JK"), "low") == sorted(
        [c("H7 H8 JK"), c("JK H7 H8")]  # the joker on either side
    )


def test_candidate_melds_two_decks_lists_each_meld_once() -> None:
    hand = c("H7 H7 H8 H8 H9 H9 S7 S7 D7")
    found = candidate_melds(hand, "low")
    assert len(found) == len(set(found))
    assert found == [c("D7 H7 S7"), c("H7 H8 H9")]


def _reference_melds(hand: tuple[str, ...], ace: str) -> set[tuple[str, ...]]:
    """Brute force: every sub-multiset of the hand in every order, through make_meld."""
    found = set()
    for size in range(3, len(hand) + 1):
        for combo in set(itertools.combinations(sorted(hand), size)):
            for order in set(itertools.permutations(combo)):
                shape = make_meld(order, ace)
                if shape is not None:
                    found.add(shape.cards)
    return found


POOL = [*build_deck(2, 0)[:26], "JK", "JK"]  # clubs and diamonds twice, two jokers
HEARTS = [card for card in build_deck(1, 0) if card.startswith("H")]


def _check_melds(hand: tuple[str, ...], ace: str) -> None:
    found = candidate_melds(hand, ace)
    assert found == sorted(found)
    assert len(found) == len(set(found))
    assert set(found) == _reference_melds(hand, ace)
    for cards in found:
        shape = make_meld(cards, ace)
        assert shape is not None and shape.cards == cards


@pytest.mark.parametrize("ace", ACE_MODES)
def test_candidate_melds_match_brute_force_on_fixed_hands(ace: str) -> None:
    for hand in (
        c("HK HA H2 H3 JK"),
        c("HQ HK HA JK JK"),
        c("C7 D7 H7 JK S7"),
        c("C4 C5 C7 C8 JK"),
        c("SA S2 S3 S4 S5 S6"),
        c("H7 H7 H8 JK D7 S7"),
    ):
        _check_melds(hand, ace)


@settings(max_examples=examples(40), deadline=None)
@given(
    hand=st.lists(st.sampled_from(POOL), min_size=3, max_size=6),
    ace=st.sampled_from(ACE_MODES),
)
def test_candidate_melds_match_brute_force(hand: list[str], ace: str) -> None:
    _check_melds(tuple(hand), ace)


@settings(max_examples=examples(25), deadline=None)
@given(
    hand=st.lists(st.sampled_from([*HEARTS, "JK"]), min_size=3, max_size=6),
    ace=st.sampled_from(ACE_MODES),
)
def test_candidate_runs_around_the_corner_match_brute_force(hand: list[str], ace: str) -> None:
    _check_melds(tuple(hand), ace)


def test_candidate_layoffs_examples() -> None:
    table = {1: meld("C3 C4 C5"), 2: meld("D7 H7 S7"), 3: meld("HJ HQ HK")}
    found = candidate_layoffs(c("C2 C6 C7 C7 JK"), table, "low")
    assert found == sorted(found)
    assert (1, c("C6 C7")) in found and (1, c("C2 C6 C7")) in found
    assert (1, c("C7")) not in found
    assert (1, c("JK")) in found and (1, c("C2 JK")) in found
    assert (2, c("JK")) in found and (2, c("C7")) in found and (2, c("C7 JK")) not in found
    assert (3, c("JK")) in found  # as the 10 below the jack
    assert len(found) == len(set(found))
    assert candidate_layoffs(c("S2"), table, "low") == []


def _reference_layoffs(
    hand: tuple[str, ...], table: dict[int, MeldShape], ace: str
) -> set[tuple[int, tuple[str, ...]]]:
    found = set()
    for meld_id, shape in table.items():
        for size in range(1, len(hand) + 1):
            for combo in set(itertools.combinations(sorted(hand), size)):
                if extend_meld(shape, combo, ace) is not None:
                    found.add((meld_id, combo))
    return found


TABLES = {
    "low": ["C5 C6 C7", "JK D9 D10", "CJ CQ CK", "C8 D8 H8", "JK D3 S3"],
    "high_or_low": ["DQ DK DA", "CA C2 C3", "C9 JK CJ", "CK DK HK"],
    "around": ["CK CA C2", "D4 D5 D6 D7 D8 D9 D10 DJ DQ", "CQ JK CA", "JK CJ CQ"],
}


@pytest.mark.parametrize("ace", ACE_MODES)
@settings(max_examples=examples(30), deadline=None)
@given(hand=st.lists(st.sampled_from(POOL), min_size=1, max_size=6))
def test_candidate_layoffs_match_brute_force(ace: str, hand: list[str]) -> None:
    table = {}
    for i, text in enumerate(TABLES[ace]):
        shape = make_meld(c(text), ace)
        if shape is not None:
            table[i] = shape
    assert len(table) >= 3
    found = candidate_layoffs(tuple(hand), table, ace)
    assert found == sorted(found)
    as_multisets = {(i, tuple(sorted(cards))) for i, cards in found}
    assert len(as_multisets) == len(found)  # each lay-off once
    assert as_multisets == _reference_layoffs(tuple(hand), table, ace)
    for i, cards in found:
        grown = extend_meld(table[i], cards, ace)
        assert grown is not None
        if grown.kind == "run":
            # Laid-off cards are listed in the order they take in the new run.
            old = table[i]
            below = grown.stands_for.index(old.stands_for[0])
            assert grown.cards[below : below + len(old.cards)] == old.cards
            assert grown.cards[:below] + grown.cards[below + len(old.cards) :] == cards


@pytest.mark.parametrize(("ace", "count"), [("low", 66), ("high_or_low", 76), ("around", 131)])
def test_candidate_runs_from_a_whole_suit(ace: str, count: int) -> None:
    hand = c("SA S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ SQ SK")
    found = candidate_melds(hand, ace)
    assert len(found) == count  # the thirteen-card run is listed once, A..K
    assert [m for m in found if len(m) == 13] == [hand]
    for cards in found:
        shape = make_meld(cards, ace)
        assert shape is not None and shape.cards == cards


def test_candidate_melds_returns_a_fresh_list_each_call() -> None:
    hand = c("H7 H8 H9 S7 D7")
    first = candidate_melds(hand, "low")
    first.clear()
    assert candidate_melds(list(reversed(hand)), "low") == [c("D7 H7 S7"), c("H7 H8 H9")]
