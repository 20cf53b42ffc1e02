"""Jokers and two decks in the engine (issue 7, docs/rules.md §1, §2, §7): decks of 55
and 110 cards, duplicates, jokers in melds and lay-offs, joker points, joker swaps,
the first-meld minimum with jokers and aces, concealed rounds, the first turn
without a draw, and blocked rounds with jokers.

tests/rules/test_jokers.py has the basic cases of each option; these tests pin
every joker rule and each refusal, mostly on the ``vrotham`` and ``romme`` presets.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from service.rules.blocked import any_meld, table_outlook
from service.rules.cards import NATURAL_CARDS
from service.rules.engine import (
    SeatSpec,
    apply,
    cards_in_play,
    legal_moves,
    new_game,
)
from service.rules.melds import MeldShape, candidate_layoffs, candidate_melds, make_meld
from service.rules.moves import Discard, Draw, IllegalMove, LayOff, Meld, SwapJoker
from service.rules.options import resolve_options
from service.rules.state import GameState
from service.rules.views import public_view, seat_view
from tests.rules.scripted import codes, hand, mv, play, scripted, types

OTHER = "C3 C5 D6 D8 S10 SQ CK"  # seat 1's hand when it does not matter


def refused(state: GameState, seat: int, move: str) -> str:
    """The refusal code of a move that ``legal_moves`` does not list."""
    assert mv(move) not in legal_moves(state, seat)
    with pytest.raises(IllegalMove) as err:
        apply(state, seat, mv(move))
    return err.value.code


def vrotham(p0: str, p1: str = OTHER, stock: str = "HQ D3", **options: object) -> GameState:
    """A 2-player ``vrotham`` game: seat 0 plays first with 8 cards and does not draw."""
    state, _ = scripted("vrotham", [p0, p1], stock=stock, dealer=1, options=options)
    return state


def romme(p0: str, p1: str = OTHER, stock: str = "HQ D3", **options: object) -> GameState:
    """A 2-player ``romme`` game with hands of 7 (seat 0 plays first with 8)."""
    state, _ = scripted(
        "romme", [p0, p1], stock=stock, dealer=1, options={"hand_size": 7, **options}
    )
    return state


def melded(events: list[dict[str, object]]) -> dict[str, object]:
    """The meld of the last ``melded`` or ``laid_off`` event, as the table shows it."""
    for e in reversed(events):
        if e["type"] == "melded":
            return e["meld"]  # type: ignore[return-value]
        if e["type"] in ("laid_off", "joker_swapped"):
            return e["result"]  # type: ignore[return-value]
    raise AssertionError("no meld")


# ---------------------------------------------------------------------------
# Decks and duplicates


@pytest.mark.parametrize(
    ("preset", "players", "size", "jokers", "copies", "hand_sizes"),
    [
        ("vrotham", 2, 55, 3, 1, [8, 7]),
        ("vrotham", 6, 55, 3, 1, [8, 7, 7, 7, 7, 7]),
        ("romme", 2, 110, 6, 2, [14, 13]),
        ("romme", 6, 110, 6, 2, [14, 13, 13, 13, 13, 13]),
    ],
)
def test_decks_of_55_and_110_cards(
    preset: str, players: int, size: int, jokers: int, copies: int, hand_sizes: list[int]
) -> None:
    opts = resolve_options(preset, {}, players)
    seats = [SeatSpec(f"p{i}") for i in range(players)]
    state, _ = new_game(opts, preset, seats, seed=3, first_dealer=players - 1)
    cards = cards_in_play(state)
    assert sum(cards.values()) == size and cards["JK"] == jokers
    assert all(cards[c] == copies for c in NATURAL_CARDS)
    r = state.round
    assert r is not None
    assert [len(h) for h in r.hands] == hand_sizes  # the first player (seat 0) has one more
    assert (r.phase, r.discard, r.turn) == ("play", (), 0)
    assert legal_moves(state, 0) and not any(isinstance(m, Draw) for m in legal_moves(state, 0))


def test_first_turn_no_draw_then_the_next_player_draws_from_the_first_discard() -> None:
    state = vrotham("H7 H8 C2 C4 C6 D9 SK DK")
    assert refused(state, 0, "draw stock") == "no_draw_first_turn"
    assert refused(state, 0, "draw discard") == "no_draw_first_turn"
    state, _ = play(state, 0, "discard SK")
    assert legal_moves(state, 1) == [Draw("discard"), Draw("stock")]
    state, ev = play(state, 1, "draw discard")
    assert ev[0] == {"type": "drew", "seat": 1, "source": "discard", "card": "SK"}
    # From the second turn on, the first player draws as usual.
    state, _ = play(state, 1, "discard CK")
    assert legal_moves(state, 0) == [Draw("discard"), Draw("stock")]


def test_two_decks_a_hand_holds_duplicates_and_a_move_takes_one_copy() -> None:
    state = romme("H7 H7 H8 H9 C7 C7 D7 SK", first_meld_min_points=0)
    assert hand(state, 0).count("H7") == 2
    # A meld never holds the same card twice: a set has different suits, a run different ranks.
    assert refused(state, 0, "meld H7 H7 H8") == "invalid_meld"
    assert refused(state, 0, "meld C7 C7 D7") == "invalid_meld"
    assert refused(state, 0, "meld H7 H8 H9 H7") == "invalid_meld"
    # A code named twice needs two copies in hand.
    assert refused(state, 0, "meld SK SK") == "card_not_in_hand"
    moves = legal_moves(state, 0)
    assert len(moves) == len(set(moves))  # each copy does not give a second move
    assert moves.count(Discard("C7")) == 1
    assert Meld(("C7", "H7")) not in moves and Meld(("H7", "H8", "H9")) in moves
    assert Meld(("C7", "D7", "H7")) in moves
    state, _ = play(state, 0, "meld H7 H8 H9", "meld C7 D7 H7")
    assert hand(state, 0) == ["C7", "SK"]
    state, _ = play(state, 0, "discard C7")
    assert hand(state, 0) == ["SK"]


# ---------------------------------------------------------------------------
# Jokers in melds


def test_a_meld_holds_no_more_jokers_than_natural_cards() -> None:
    # joker_limit natural_majority (romme's; vrotham's before its ruling).
    state = vrotham("H7 H8 JK JK S7 D2 C4 DK", joker_limit="natural_majority")
    assert refused(state, 0, "meld JK JK H7") == "invalid_meld"
    assert refused(state, 0, "meld JK JK S7") == "invalid_meld"
    moves = legal_moves(state, 0)
    assert Meld(("JK", "JK", "H7", "H8")) in moves  # two and two
    assert Meld(("H7", "JK", "JK")) not in moves


def test_vrotham_one_natural_a_meld_needs_one_natural_card() -> None:
    # vrotham's joker_limit one_natural: the same hand melds one natural card and two jokers
    # (a set of that rank), and no meld of jokers alone.
    state = vrotham("H7 H8 JK JK S7 D2 C4 DK")
    assert state.options.joker_limit == "one_natural"
    moves = legal_moves(state, 0)
    assert Meld(("JK", "JK", "H7", "H8")) in moves
    # Listed in display order: the jokers stand for the missing suits, C D H S first.
    assert Meld(("JK", "JK", "H7")) in moves and Meld(("JK", "JK", "S7")) in moves
    assert Meld(("JK", "D2", "JK")) in moves
    _, ev = play(state, 0, "meld JK JK S7")
    assert melded(ev)["type"] == "set" and melded(ev)["jokers"] == {"0": "C7", "1": "D7"}


def test_in_a_run_the_order_of_the_cards_fixes_what_each_joker_stands_for() -> None:
    state = vrotham("H7 H9 JK S2 D2 C4 D10 DK")
    moves = legal_moves(state, 0)
    # Every position a joker can take is a different meld, each listed.
    for cards in (("H7", "JK", "H9"), ("JK", "H7", "H9")):
        assert (Meld(cards) in moves) == (make_meld(cards, "low") is not None)
    assert Meld(("H7", "JK", "H9")) in moves
    _, ev = play(state, 0, "meld H7 JK H9")
    assert melded(ev) == {
        "id": 1, "type": "run", "cards": ["H7", "JK", "H9"], "owner": 0, "jokers": {"1": "H8"},
    }  # fmt: skip
    # Descending order is read the same way; a shuffled order with a joker is refused.
    _, ev = apply(state, 0, Meld(("H9", "JK", "H7")))
    assert melded(ev)["jokers"] == {"1": "H8"}
    assert refused(state, 0, "meld H9 H7 JK") == "invalid_meld"


def test_a_joker_may_stand_for_a_card_the_player_keeps_back() -> None:
    state = vrotham("H7 H8 H9 JK S2 D2 C4 DK")
    moves = legal_moves(state, 0)
    assert Meld(("H7", "H8", "H9")) in moves and Meld(("H7", "JK", "H9")) in moves
    state, ev = play(state, 0, "meld H7 JK H9")
    assert melded(ev)["jokers"] == {"1": "H8"} and "H8" in hand(state, 0)


def test_a_joker_at_the_end_of_a_run() -> None:
    state = vrotham("H8 H9 JK S2 D2 C4 D10 DK")
    moves = legal_moves(state, 0)
    assert Meld(("JK", "H8", "H9")) in moves and Meld(("H8", "H9", "JK")) in moves
    _, low = apply(state, 0, mv("meld JK H8 H9"))
    _, high = apply(state, 0, mv("meld H8 H9 JK"))
    assert melded(low)["jokers"] == {"0": "H7"} and melded(high)["jokers"] == {"2": "H10"}


def test_in_a_set_a_joker_stands_for_a_missing_suit() -> None:
    state = vrotham("H7 S7 JK D2 C4 D10 DK C8")
    assert Meld(("JK", "H7", "S7")) in legal_moves(state, 0)
    state, ev = play(state, 0, "meld JK H7 S7")
    shown = melded(ev)
    assert shown["cards"] == ["JK", "H7", "S7"] and shown["jokers"] == {"0": "C7"}
    # Every view shows the melds, with what each joker stands for.
    assert public_view(state)["round"]["melds"] == [shown]
    assert seat_view(state, 1)["round"]["melds"] == [shown]


# ---------------------------------------------------------------------------
# Lay-offs with jokers and joker points


def test_lay_offs_onto_a_meld_with_a_joker_and_a_joker_laid_off() -> None:
    # joker_limit natural_majority: no more jokers than natural cards after a lay-off.
    state = vrotham("H7 H9 JK JK JK H10 C4 DK", joker_limit="natural_majority")
    state, _ = play(state, 0, "meld H7 JK H9")
    moves = legal_moves(state, 0)
    assert LayOff(1, ("H10",)) in moves and LayOff(1, ("JK",)) in moves
    assert LayOff(1, ("H10", "JK")) in moves  # two cards at once
    assert LayOff(1, ("JK", "JK")) not in moves  # three jokers to two natural cards
    assert refused(state, 0, "layoff 1 JK JK") == "invalid_layoff"
    assert refused(state, 0, "layoff 1 C4") == "invalid_layoff"
    # A laid-off joker extends the run at the high end.
    state, ev = play(state, 0, "layoff 1 JK")
    assert melded(ev)["cards"] == ["H7", "JK", "H9", "JK"]
    assert melded(ev)["jokers"] == {"1": "H8", "3": "H10"}
    assert refused(state, 0, "layoff 1 JK") == "invalid_layoff"  # two jokers already
    assert refused(state, 0, "layoff 1 H10") == "invalid_layoff"  # a joker stands for it
    state, ev = play(state, 0, "discard DK")
    assert types(ev) == ["discarded"]


def test_vrotham_one_natural_lay_offs_of_jokers_beyond_the_natural_cards() -> None:
    # vrotham's one_natural: the jokers laid off may outnumber the natural cards.
    state = vrotham("H7 H9 JK JK JK H10 C4 DK")
    state, _ = play(state, 0, "meld H7 JK H9")
    moves = legal_moves(state, 0)
    assert LayOff(1, ("JK", "JK")) in moves  # three jokers to two natural cards
    assert refused(state, 0, "layoff 1 C4") == "invalid_layoff"
    state, ev = play(state, 0, "layoff 1 JK", "layoff 1 JK")
    assert melded(ev)["cards"] == ["H7", "JK", "H9", "JK", "JK"]
    assert melded(ev)["jokers"] == {"1": "H8", "3": "H10", "4": "HJ"}
    assert refused(state, 0, "layoff 1 H10") == "invalid_layoff"  # a joker stands for it


def test_laying_off_the_card_a_set_joker_was_recorded_as() -> None:
    state = vrotham("H7 S7 JK C7 D2 C4 DK C8")
    state, _ = play(state, 0, "meld JK H7 S7")
    assert LayOff(1, ("C7",)) in legal_moves(state, 0)
    state, ev = play(state, 0, "layoff 1 C7")
    assert melded(ev)["cards"] == ["C7", "JK", "H7", "S7"] and melded(ev)["jokers"] == {"1": "D7"}


def test_a_joker_left_in_hand_counts_joker_points() -> None:
    state = vrotham("H7 H8 H9 C2 C3 C4 C5 SK", p1="JK D2 D4 S6 S8 S10 DK")
    state, ev = play(state, 0, "meld H7 H8 H9", "meld C2 C3 C4 C5", "discard SK")
    end = next(e for e in ev if e["type"] == "round_ended")
    # JK 15 + 2 + 4 + 6 + 8 + 10 + 10 = 55, doubled for going rummy.
    assert end["points"] == [110, 0] and end["winner"] == 0 and end["rummy"] is True


# ---------------------------------------------------------------------------
# Joker swaps


def test_a_set_joker_may_be_swapped_for_any_missing_suit() -> None:
    state = vrotham("H7 S7 JK D2 C4 DK SQ S3", p1="D7 C7 D6 D8 S10 CQ CK")
    state, _ = play(state, 0, "meld JK H7 S7", "discard DK")
    state, _ = play(state, 1, "draw stock")
    moves = legal_moves(state, 1)
    assert SwapJoker(1, "C7") in moves and SwapJoker(1, "D7") in moves
    assert refused(state, 1, "swap 1 H7") == "card_not_in_hand"
    assert refused(state, 1, "swap 1 D6") == "invalid_joker_swap"
    state, ev = play(state, 1, "swap 1 D7")
    assert melded(ev)["cards"] == ["D7", "H7", "S7"] and "jokers" not in melded(ev)
    assert "JK" in hand(state, 1) and "D7" not in hand(state, 1)
    # The freed joker may be used at once: here laid off on the same set.
    assert LayOff(1, ("JK",)) in legal_moves(state, 1)
    assert not any(isinstance(m, SwapJoker) for m in legal_moves(state, 1))  # no joker left there


def test_a_run_joker_only_for_the_card_it_stands_for_and_the_swap_is_no_lay_off() -> None:
    state = vrotham("H7 JK H9 C2 C4 C6 SK D5", p1="H8 HJ H10 S6 S8 SQ DK", stock="S4 C9")
    state, _ = play(state, 0, "meld H7 JK H9", "discard SK")
    state, _ = play(state, 1, "draw stock")
    assert [m for m in legal_moves(state, 1) if isinstance(m, SwapJoker)] == [SwapJoker(1, "H8")]
    assert refused(state, 1, "swap 1 H10") == "invalid_joker_swap"
    state, _ = play(state, 1, "swap 1 H8", "meld JK H10 HJ")
    assert state.round is not None and not state.round.played[1]


def test_swapping_needs_the_option_and_a_drawn_card() -> None:
    state = vrotham("H7 JK H9 C2 C4 C6 SK D5", p1="H8 D2 S6 S8 S10 SQ DK")
    state, _ = play(state, 0, "meld H7 JK H9", "discard SK")
    assert refused(state, 1, "swap 1 H8") == "must_draw_first"
    assert refused(state, 0, "swap 1 H8") == "not_your_turn"
    state, _ = play(state, 1, "draw stock")
    assert refused(state, 1, "swap 2 H8") == "unknown_meld"
    off = vrotham("H7 JK H9 C2 C4 C6 SK D5", p1="H8 D2 S6 S8 S10 SQ DK", joker_swap=False)
    off, _ = play(off, 0, "meld H7 JK H9", "discard SK")
    off, _ = play(off, 1, "draw stock")
    assert refused(off, 1, "swap 1 H8") == "joker_swap_not_allowed"


# ---------------------------------------------------------------------------
# The first-meld minimum with jokers and aces (romme: 40)


def test_a_joker_counts_as_the_card_it_stands_for_and_an_ace_11_in_a_set() -> None:
    state = romme("CA DA JK S5 S6 S7 D9 HK")
    moves = legal_moves(state, 0)
    # 33 (A A A) + 18 reaches 40; melds that leave it out of reach are not listed.
    assert Meld(("CA", "DA", "JK")) in moves and Meld(("S5", "S6", "S7")) in moves
    assert Meld(("JK", "S6", "S7")) not in moves
    assert refused(state, 0, "meld JK S6 S7") == "first_meld_minimum"
    state, _ = play(state, 0, "meld CA DA JK")
    assert state.round is not None and state.round.opening == 33
    assert legal_moves(state, 0) == [Meld(("S5", "S6", "S7"))]
    assert refused(state, 0, "discard HK") == "first_meld_minimum"
    state, _ = play(state, 0, "meld S5 S6 S7")
    assert state.round is not None and state.round.opening is None
    assert Discard("HK") in legal_moves(state, 0)


def test_an_ace_counts_1_in_a_low_run() -> None:
    # A-2-3 is 6 and D10-DJ-DQ 30: 36 misses 40, so neither meld may be put down.
    short = romme("CA C2 C3 D10 DJ DQ S9 HK")
    assert not any(isinstance(m, Meld) for m in legal_moves(short, 0))
    assert refused(short, 0, "meld D10 DJ DQ") == "first_meld_minimum"
    assert Discard("S9") in legal_moves(short, 0)
    # With a joker for the king the run is 40 alone.
    enough = romme("CA C2 C3 D10 DJ DQ JK HK")
    assert Meld(("D10", "DJ", "DQ", "JK")) in legal_moves(enough, 0)


def test_no_lay_off_before_the_minimum_and_none_after_it_from_a_later_turn() -> None:
    state = romme("CA DA JK S5 S6 S7 D9 HK", p1="S8 C2 C3 C4 D4 D6 SQ", stock="H3 S4")
    state, _ = play(state, 0, "meld CA DA JK", "meld S5 S6 S7", "discard HK")
    state, _ = play(state, 1, "draw stock")  # H3
    assert refused(state, 1, "layoff 2 S8") == "first_meld_minimum"
    assert not any(isinstance(m, LayOff) for m in legal_moves(state, 1))
    state, _ = play(state, 1, "discard H3")
    state, _ = play(state, 0, "draw stock")  # S4
    # Seat 0 opened last turn: lay-offs now, and later melds need no minimum.
    assert LayOff(2, ("S4",)) in legal_moves(state, 0)
    state, _ = play(state, 0, "layoff 2 S4")


def test_a_swap_before_opening_and_the_freed_joker_counting_toward_the_minimum() -> None:
    state = romme("H7 JK H9 SJ SQ SK D2 C9", p1="H8 CQ CK C2 C4 D6 DQ", stock="H3 S4")
    state, _ = play(state, 0, "meld SJ SQ SK", "meld H7 JK H9", "discard D2")  # 30 + 24
    state, _ = play(state, 1, "draw stock")
    assert SwapJoker(2, "H8") in legal_moves(state, 1)
    state, _ = play(state, 1, "swap 2 H8")
    # The freed joker makes CJ-CQ-CK or CQ-DQ-JK, 30 each: short of 40, so no meld.
    assert not any(isinstance(m, Meld) for m in legal_moves(state, 1))


# ---------------------------------------------------------------------------
# Concealed rounds


def test_concealed_round_no_lay_off_even_on_the_way_out() -> None:
    state = vrotham("H5 H6 H7 H8 S2 S3 S4 H9", concealed_rounds=[1])
    # H5-H7 would need H8 and H9 laid off to go out: refused.
    assert refused(state, 0, "meld H5 H6 H7") == "concealed_round"
    state, _ = play(state, 0, "meld H5 H6 H7 H8")  # leads out: S2 S3 S4, then discard H9
    assert refused(state, 0, "layoff 1 H9") == "concealed_round"
    assert refused(state, 0, "discard H9") == "concealed_round"
    assert legal_moves(state, 0) == [Meld(("S2", "S3", "S4"))]
    state, ev = play(state, 0, "meld S2 S3 S4", "discard H9")
    assert types(ev)[:4] == ["melded", "discarded", "went_out", "round_ended"]


# ---------------------------------------------------------------------------
# Blocked rounds with jokers and multi-card lay-offs


def _shapes(*melds: str) -> tuple[MeldShape, ...]:
    out = []
    for text in melds:
        shape = make_meld(text.split(), "low")
        assert shape is not None, text
        out.append(shape)
    return tuple(out)


def test_blocked_check_sees_a_joker_bridging_a_gap_in_a_lay_off() -> None:
    # JK JK H7 H8 is H5-H8; H4 and H9 are in sets, so no single card fits it, but
    # JK H10 does (the joker as H9): not blocked while a joker is outside the table.
    shapes = _shapes("JK JK H7 H8", "C9 D9 H9 S9", "C4 D4 H4 S4")
    assert table_outlook(shapes, "low", 1, 3)[0] is False
    assert table_outlook(shapes, "low", 1, 2)[0] is True  # both jokers are on the table


def test_blocked_check_sees_a_possible_joker_swap() -> None:
    # H8 fits nowhere, but it can be swapped for the joker of H7 JK H9.
    shapes = _shapes("H7 JK H9", "C6 D6 H6 S6", "C10 D10 H10 S10")
    assert table_outlook(shapes, "low", 1, 1, False)[0] is True
    assert table_outlook(shapes, "low", 1, 1, True)[0] is False


def test_hands_of_two_are_blocked_when_going_out_needs_a_discard() -> None:
    # Option validation refuses dealing hands of two under go_out_requires_discard, but hands
    # shrink to two in play; the option is switched on after a two-card deal to reach that case.
    def first_turn(go_out_requires_discard: bool = False) -> list[str]:
        state, _ = scripted(
            "standard", ["H5 C9", "D3 S7"], up="SK", stock="C2", dealer=1,
            options={"hand_size": 2},
        )  # fmt: skip
        options = replace(state.options, go_out_requires_discard=go_out_requires_discard)
        state = replace(state, options=options)
        _, ev = play(state, 0, "draw stock", "discard C2")
        return [e["reason"] for e in ev if e["type"] == "round_ended"]

    assert first_turn(go_out_requires_discard=True) == ["blocked"]
    assert first_turn() == []


@pytest.mark.parametrize("ace", ["low", "high_or_low", "around"])
def test_the_blocked_check_meld_test_agrees_with_the_meld_search(ace: str) -> None:
    import random

    rng = random.Random(ace)
    deck = [*NATURAL_CARDS, *NATURAL_CARDS, "JK", "JK", "JK"]
    for _ in range(400):
        cards = rng.sample(deck, rng.randint(2, 9))
        assert any_meld(Counter(cards), ace) == bool(candidate_melds(cards, ace)), cards


# ---------------------------------------------------------------------------
# Found by random play: one lay-off, listed once


@pytest.mark.parametrize("jokers", ["", "JK"])
def test_a_lay_off_that_fits_both_ends_of_a_long_run_around_the_corner_is_listed_once(
    jokers: str,
) -> None:
    # Around the corner, the slot below C9..C7 and the slot above it are both C8.
    run = make_meld(codes("C9 C10 CJ CQ CK CA C2 C3 C4 C5 C6 C7"), "around")
    assert run is not None
    assert candidate_layoffs(["C8", "D2", *jokers.split()], {1: run}, "around") == [
        (1, ("C8",)),
        *([(1, ("JK",))] if jokers else []),
    ]
    short = make_meld(codes("C9 C10 CJ CQ CK CA C2 C3 C4 C5 C6"), "around")
    assert short is not None
    assert candidate_layoffs(["C7", "C8"], {1: short}, "around") == [
        (1, ("C7",)),
        (1, ("C7", "C8")),
        (1, ("C8",)),
    ]
