"""Dealing (docs/rules.md §3): the deterministic deal, seeds, the dealer and hand sizes."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from service.rules.cards import build_deck
from service.rules.engine import SeatSpec, apply, legal_moves, new_game, take_seat
from service.rules.moves import Discard, Draw, IllegalMove
from service.rules.options import OptionsError, resolve_options
from tests.rules.scripted import hand, play, scripted, types


def test_an_explicit_deck_is_dealt_one_card_at_a_time_from_the_seat_after_the_dealer() -> None:
    deck = build_deck()  # CA C2 ... CK DA ... in order
    opts = resolve_options("standard", {}, 3)
    state, events = new_game(
        opts, "standard", [SeatSpec(f"P{i}") for i in range(3)], deck=deck, first_dealer=1
    )
    r = state.round
    assert r is not None
    # dealer 1: seat 2 gets the 1st, 4th, ... card, seat 0 the 2nd, seat 1 the 3rd.
    assert r.hands[2] == tuple(deck[0:21:3])
    assert r.hands[0] == tuple(sorted(deck[1:21:3], key=deck.index))
    assert r.hands[1] == tuple(deck[2:21:3])
    assert r.discard == (deck[21],)  # the next card is turned up
    assert r.stock[-1] == deck[22]  # and the next is the top of the stock
    assert len(r.stock) == 52 - 22
    assert (r.dealer, r.first, r.turn, r.phase) == (1, 2, 2, "draw")
    assert types(events) == ["game_created", "round_started"]


def test_drawing_from_the_stock_takes_the_next_card_in_deck_order() -> None:
    state, _ = scripted(
        "standard", ["C2 C3 C4 C5 C6 C7 C8", "D2 D3 D4 D5 D6 D7 D8"],
        up="SK", stock="H9 H10 HJ", options={"hand_size": 7},
    )  # fmt: skip
    state, ev = play(state, 1, "draw stock")
    assert "H9" in hand(state, 1) and ev[0]["card"] == "H9"
    state, _ = play(
        state,
        1,
        "discard H9",
    )
    state, ev = play(state, 0, "draw stock")
    assert ev[0]["card"] == "H10"


@pytest.mark.parametrize(("players", "size"), [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_hand_size_follows_the_number_of_players(players: int, size: int) -> None:
    opts = resolve_options("standard", {}, players)
    state, _ = new_game(opts, "standard", [SeatSpec(f"P{i}") for i in range(players)], seed=1)
    assert state.round is not None
    assert [len(h) for h in state.round.hands] == [size] * players
    assert len(state.round.stock) == 52 - players * size - 1


def test_the_same_seed_gives_the_same_game_and_events_twice() -> None:
    def run() -> list[dict[str, object]]:
        opts = resolve_options("standard", {}, 3)
        state, events = new_game(opts, "standard", [SeatSpec(f"P{i}") for i in range(3)], seed=99)
        for _ in range(60):
            assert state.round is not None
            seat = state.round.turn
            move = legal_moves(state, seat)[-1]
            state, more = apply(state, seat, move)
            events.extend(more)
        return events

    first, second = run(), run()
    assert first == second
    assert len(first) > 60


def test_different_seeds_and_no_seed_shuffle_differently() -> None:
    opts = resolve_options("standard", {}, 2)
    seats = [SeatSpec("A"), SeatSpec("B")]
    hands = {new_game(opts, "standard", seats, seed=s)[0].round.hands for s in (1, 2)}  # type: ignore[union-attr]
    assert len(hands) == 2
    a, b = new_game(opts, "standard", seats)[0], new_game(opts, "standard", seats)[0]
    assert a.seed != b.seed and len(a.seed) >= 32  # from secrets


def test_first_dealer_is_random_but_seeded_when_not_given() -> None:
    opts = resolve_options("standard", {}, 4)
    seats = [SeatSpec(f"P{i}") for i in range(4)]
    dealers = {new_game(opts, "standard", seats, seed=s)[0].round.dealer for s in range(30)}  # type: ignore[union-attr]
    assert dealers == {0, 1, 2, 3}
    again = [new_game(opts, "standard", seats, seed=5)[0].round.dealer for _ in range(3)]  # type: ignore[union-attr]
    assert len(set(again)) == 1


def test_the_deal_passes_to_the_next_seat_each_round() -> None:
    # Seat 0 goes out at once (rummy) each time; the dealer moves on by one.
    state, _ = scripted(
        "standard", ["H2 H3 H4 C5 C6 C7 C8", "D2 D3 D4 D5 D6 D7 D8", "S2 S3 S4 S5 S6 S7 S8"],
        up="SK", stock="C9", dealer=2, options={"hand_size": 7, "target_score": 1000},
    )  # fmt: skip
    assert state.round is not None and state.round.dealer == 2
    state, ev = play(state, 0, "draw stock", "meld H2 H3 H4", "meld C5 C6 C7 C8 C9")
    assert types(ev)[-2:] == ["round_ended", "round_started"]
    assert state.round is not None and state.round.number == 2
    assert (state.round.dealer, state.round.turn) == (0, 1)


def test_first_turn_no_draw_deals_the_first_player_one_more_card_and_no_up_card() -> None:
    opts = resolve_options("standard", {"first_turn_no_draw": True}, 3)
    state, _ = new_game(
        opts, "standard", [SeatSpec(f"P{i}") for i in range(3)], seed=3, first_dealer=0
    )
    r = state.round
    assert r is not None
    assert [len(h) for h in r.hands] == [7, 8, 7]
    assert r.discard == () and r.phase == "play" and r.turn == 1
    assert Draw("stock") not in legal_moves(state, 1)
    with pytest.raises(IllegalMove) as err:
        apply(state, 1, Draw("stock"))
    assert err.value.code == "no_draw_first_turn"
    card = r.hands[1][0]
    state, _ = apply(state, 1, Discard(card))
    assert state.round is not None and state.round.discard == (card,)  # the pile starts here
    assert legal_moves(state, 2) == [Draw("discard"), Draw("stock")]


def test_a_deck_must_list_every_card_exactly_once() -> None:
    opts = resolve_options("standard", {}, 2)
    seats = [SeatSpec("A"), SeatSpec("B")]
    with pytest.raises(OptionsError) as err:
        new_game(opts, "standard", seats, deck=build_deck()[:-1])
    assert "missing ['SK']" in err.value.errors["deck"][0]
    with pytest.raises(OptionsError) as err:
        new_game(opts, "standard", seats, deck=[*build_deck()[:-1], "CA"])
    assert "extra ['CA']" in err.value.errors["deck"][0]
    with pytest.raises(OptionsError) as err:
        new_game(opts, "standard", seats, deck=["XX", *build_deck()[1:]])
    assert "'XX'" in err.value.errors["deck"][0]
    # any accepted input form is fine
    state, _ = new_game(opts, "standard", seats, deck=["1c", *build_deck()[1:]])
    assert Counter(state.round.hands[0] + state.round.hands[1]).total() == 20  # type: ignore[union-attr]


def test_bad_seats_first_dealer_and_player_count_are_refused() -> None:
    opts = resolve_options("standard", {}, 2)
    with pytest.raises(OptionsError) as err:
        new_game(opts, "standard", [SeatSpec("A"), SeatSpec("B")], first_dealer=2)
    assert "first_dealer" in err.value.errors
    with pytest.raises(OptionsError) as err:
        new_game(opts, "standard", [SeatSpec(f"P{i}") for i in range(7)])
    assert "players" in err.value.errors


def test_open_seats_wait_for_players_then_the_first_round_is_dealt() -> None:
    opts = resolve_options("standard", {}, 3)
    state, events = new_game(opts, "standard", [SeatSpec("A"), SeatSpec(None), SeatSpec(None)])
    assert state.status == "waiting" and state.round is None and types(events) == ["game_created"]
    assert legal_moves(state, 0) == []
    with pytest.raises(IllegalMove) as err:
        apply(state, 0, Draw("stock"))
    assert err.value.code == "game_not_active"
    with pytest.raises(IllegalMove) as err:
        take_seat(state, 0, "X", None)
    assert err.value.code == "seat_taken"
    with pytest.raises(IllegalMove) as err:
        take_seat(state, 5, "X", None)
    assert err.value.code == "invalid_seat"
    state, events = take_seat(state, None, "B", "h1")
    assert types(events) == ["seat_taken"] and state.seats[1].name == "B"
    state, events = take_seat(state, 2, "C", "h2")
    assert types(events) == ["seat_taken", "round_started"] and state.status == "active"
    with pytest.raises(IllegalMove) as err:
        take_seat(state, None, "D", None)
    assert err.value.code == "game_not_active"


def test_no_open_seat() -> None:
    opts = resolve_options("standard", {}, 2)
    state, _ = new_game(opts, "standard", [SeatSpec("A"), SeatSpec(None)])
    state, _ = take_seat(state, None, "B", None)
    assert state.status == "active"
    # every seat is taken; were the game still waiting, no seat would be open
    waiting = dataclasses.replace(state, status="waiting")
    with pytest.raises(IllegalMove) as err:
        take_seat(waiting, None, "C", None)
    assert err.value.code == "no_open_seat"
