"""Re-engaging between rounds (elimination) and stakes (docs/rules.md "Rulings").

A round whose end eliminates seats that may still re-engage, with a player left
in, deals no next round: the game stays active with no round, those seats decide
(`Reengage` or `DeclineReengage`), then the next round is dealt (or, with one
player left in, the game ends). Bots decide at once (`play_bots`); under a turn
clock an undecided human seat declines when its time runs out.

With a stake every seat puts it in the pot at the first deal, a re-engagement
puts in half of it (rounded up), and the winners share the pot at the end (equal
shares, the rest to the first winner in seat order).

tests/rules/test_scoring.py has the decision itself on a three-seat game.
"""

from __future__ import annotations

import dataclasses

import pytest

from service.bots.play import UNBOUNDED, play_bots, server_seat
from service.games import clock
from service.rules.engine import apply, leave_seat, legal_moves
from service.rules.moves import DeclineReengage, IllegalMove, Reengage
from service.rules.scoring import pot_shares
from service.rules.state import GameState, decode_state, encode_state
from service.rules.views import public_view, seat_view
from tests.rules.scripted import play, scripted, types

DECISION = [Reengage(), DeclineReengage()]
# Three seats, target 20, hands of three: seat 0 goes out at once (rummy: doubled);
# seat 1 ends with 30 (out), seat 2 with 18.
THREE = ["H5 H6 H7", "D2 D3 SK", "C2 S3 D4"]


def three(**options: object) -> tuple[GameState, GameState, list[dict[str, object]]]:
    """The game before and after seat 0's going out, and the events of the deal."""
    dealt, events = scripted(
        "elimination", THREE, up="CK", stock="S9", dealer=2,
        options={"hand_size": 3, "target_score": 20, **options}, seed=11,
    )  # fmt: skip
    state, _ = play(dealt, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    return dealt, state, events


def as_bot(state: GameState, seat: int, strategy: str = "greedy") -> GameState:
    """The same game with ``seat`` played by a bot."""
    seats = list(state.seats)
    seats[seat] = dataclasses.replace(seats[seat], kind="bot", bot=strategy, token_hash=None)
    return dataclasses.replace(state, seats=tuple(seats))


# ---------------------------------------------------------------------------
# The decision


def test_elimination_two_seats_out_together_decide_each_and_the_deal_waits() -> None:
    # Four seats: seat 0 goes out; seats 1 (30) and 2 (58) reach 20, seat 3 (18) does not.
    state, _ = scripted(
        "elimination", ["H5 H6 H7", "D2 D3 SK", "C9 S10 DQ", "C2 S3 D4"], up="CK",
        stock="S9", dealer=3, options={"hand_size": 3, "target_score": 20},
    )  # fmt: skip
    state, ev = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    assert [s.score for s in state.seats] == [0, 30, 58, 18]
    assert ev[-1] == {"type": "reengage_offered", "seats": [1, 2], "score": 18}
    assert state.deciding == (1, 2) and state.round is None
    assert legal_moves(state, 1) == DECISION and legal_moves(state, 2) == DECISION
    # Seat 2 decides first: the deal still waits for seat 1.
    state, ev = apply(state, 2, Reengage())
    assert types(ev) == ["reengaged"] and state.round is None and state.deciding == (1,)
    assert state.seats[2].score == 18  # the top total among the players still in
    with pytest.raises(IllegalMove) as err:
        apply(state, 3, Reengage())
    assert err.value.code == "cannot_reengage"
    # The comeback total is the same for each: decisions come between rounds.
    assert state.comeback_total == 18
    state, ev = apply(state, 1, Reengage())
    assert types(ev) == ["reengaged", "round_started"]
    assert [s.score for s in state.seats] == [0, 18, 18, 18]
    assert state.round is not None and state.round.dealt == (True, True, True, True)


def test_elimination_comeback_total_is_the_highest_total_of_the_players_still_in() -> None:
    # After round 1 the totals are 0, 30 (out) and 18; give seat 0 more than seat 2
    # before the round ends to see the comeback follow the highest one left in.
    dealt, _, _ = three()
    seats = list(dealt.seats)
    seats[0] = dataclasses.replace(seats[0], score=19, carried=19)
    state, ev = play(dataclasses.replace(dealt, seats=tuple(seats)), 0,
                     "draw stock", "meld H5 H6 H7", "discard S9")  # fmt: skip
    assert [s.score for s in state.seats] == [19, 30, 18]
    assert ev[-1] == {"type": "reengage_offered", "seats": [1], "score": 19}
    state, ev = apply(state, 1, Reengage())
    assert ev[0] == {"type": "reengaged", "seat": 1, "score": 19}


def test_elimination_leaver_while_deciding_is_decided_for_by_its_bot() -> None:
    _, state, _ = three()
    left, ev = leave_seat(state, 1)
    assert types(ev) == ["seat_left"] and left.deciding == (1,)
    assert server_seat(left) == 1
    played = play_bots(left, UNBOUNDED)
    # The leaver's bot (greedy) re-engages: 18 is below the target of 20.
    assert played.events[0] == {"type": "reengaged", "seat": 1, "score": 18}
    assert played.state.deciding == ()


# ---------------------------------------------------------------------------
# Bots and clocks


def test_elimination_bot_decides_at_once_in_play_bots_reengaging_under_the_target() -> None:
    _, state, _ = three()
    state = as_bot(state, 1)
    assert server_seat(state) == 1
    played = play_bots(state)
    # 18 is below the target of 20: the bot re-engages; round 2 is dealt and played
    # on until a human is to move.
    assert types(played.events)[:2] == ["reengaged", "round_started"]
    after = played.state
    assert not after.seats[1].eliminated and after.seats[1].score == 18
    assert after.round is not None and after.round.number == 2
    assert after.seats[after.round.turn].kind == "human"


def test_elimination_bot_with_a_stake_declines_without_ten_points_of_room() -> None:
    _, state, _ = three(stake=10)
    played = play_bots(as_bot(state, 1))
    # 18 of 20: two points of room, not worth half the stake.
    assert types(played.events)[:2] == ["reengage_declined", "round_started"]
    assert played.state.seats[1].eliminated and played.state.seats[1].chips_in == 10


def test_elimination_bot_with_a_stake_reengages_with_room() -> None:
    _, state, _ = three(stake=10, target_score=28)
    assert state.deciding == (1,)  # 30 >= 28; comeback 18: ten points of room
    played = play_bots(as_bot(state, 1))
    assert played.events[0] == {"type": "reengaged", "seat": 1, "score": 18, "chips": 5}
    assert played.state.seats[1].chips_in == 15


def test_elimination_human_deciding_stops_play_bots() -> None:
    _, state, _ = three()
    state = as_bot(state, 2)  # seat 2 (a bot) is not the one to decide
    assert server_seat(state) is None
    played = play_bots(state)
    assert played.events == [] and played.state == state


def test_elimination_clock_time_out_declines_an_undecided_human_seat() -> None:
    dealt, state, _ = three(turn_seconds=30)
    now = 1_000_000
    state = clock.stamp(dealt, state, now)
    assert state.turn_deadline == now + 30_000 and clock.due(state) == now + 30_000
    assert clock.clocked_decision(state) == (1,)
    assert public_view(state)["reengage"] == {
        "seats": [1], "score": 18, "chips": None, "deadline": "1970-01-01T00:17:10.000Z",
    }  # fmt: skip
    assert clock.time_out(state, now + 29_999) is None  # time is not up yet
    timed_out = clock.time_out(state, now + 30_000)
    assert timed_out is not None
    after, events = timed_out
    assert types(events) == ["reengage_declined", "round_started"]
    assert after.seats[1].eliminated and after.deciding == ()
    assert after.round is not None and after.round.dealt == (True, False, True)
    assert after.turn_deadline is None  # the caller stamps the next turn


def test_elimination_clock_deadline_kept_while_the_decision_waits() -> None:
    four, _ = scripted(
        "elimination", ["H5 H6 H7", "D2 D3 SK", "C9 S10 DQ", "C2 S3 D4"], up="CK",
        stock="S9", dealer=3, options={"hand_size": 3, "target_score": 20, "turn_seconds": 30},
    )  # fmt: skip
    before, _ = play(four, 0, "draw stock", "meld H5 H6 H7")
    waiting, _ = play(before, 0, "discard S9")
    waiting = clock.stamp(before, waiting, 1_000)
    one_decided, _ = apply(waiting, 2, Reengage())
    one_decided = clock.stamp(waiting, one_decided, 20_000)
    assert one_decided.turn_deadline == waiting.turn_deadline == 31_000  # the same decision
    timed_out = clock.time_out(one_decided, 31_000)
    assert timed_out is not None and types(timed_out[1]) == ["reengage_declined", "round_started"]


# ---------------------------------------------------------------------------
# Stakes


def test_elimination_stake_opens_the_pot_at_the_first_deal() -> None:
    dealt, state, events = three(stake=9)
    assert events[1] == {"type": "pot_opened", "stake": 9, "pot": 27}
    assert types(events)[1:] == ["pot_opened", "round_started"]
    assert [s.chips_in for s in dealt.seats] == [9, 9, 9] and dealt.pot == 27
    assert public_view(dealt)["pot"] == 27
    assert seat_view(dealt, 0)["seats"][1]["chips_in"] == 9
    assert public_view(state)["reengage"] == {"seats": [1], "score": 18, "chips": 5,
                                              "deadline": None}  # fmt: skip


def test_elimination_reengage_puts_half_the_stake_in_rounded_up() -> None:
    _, state, _ = three(stake=9)
    state, ev = apply(state, 1, Reengage())
    assert ev[0] == {"type": "reengaged", "seat": 1, "score": 18, "chips": 5}
    assert state.seats[1].chips_in == 14 and state.pot == 32
    view = public_view(state)
    assert view["pot"] == 32 and view["reengage"] is None
    entry = view["seats"][1]
    assert (entry["deciding"], entry["reengaged"], entry["chips_in"], entry["chips_out"]) == (
        False, 1, 14, 0,
    )  # fmt: skip
    assert decode_state(encode_state(state)) == state


def test_elimination_decision_state_survives_encoding() -> None:
    _, state, _ = three(stake=9)
    assert state.seats[1].deciding
    assert decode_state(encode_state(state)) == state


def test_elimination_stake_the_last_player_left_takes_the_pot() -> None:
    state, _ = scripted(
        "elimination", ["H5 H6 H7", "D2 D3 SK"], up="CK", stock="S9", dealer=1,
        options={"hand_size": 3, "target_score": 20, "stake": 5},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    assert state.pot == 10 and state.deciding == (1,)
    ended, ev = apply(state, 1, DeclineReengage())
    assert ev[-1] == {"type": "game_ended", "winners": [0], "scores": [0, 30], "payouts": [10, 0]}
    assert [(s.chips_in, s.chips_out) for s in ended.seats] == [(5, 10), (5, 0)]
    assert ended.pot == 0
    assert public_view(ended)["seats"][0]["chips_out"] == 10
    assert decode_state(encode_state(ended)) == ended


def test_penalty_rounds_stake_tied_winners_share_the_pot_rest_to_the_first_seat() -> None:
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]

    def cards(suit: str, chosen: list[str]) -> str:
        return " ".join(suit + r for r in chosen)

    # Hands of 17 use the whole deck (with the up-card SK): the stock is empty, so seat 0's
    # draw ends the round; hands count (95, 140, 95): seats 0 and 2 tie for the win.
    hands = [
        f"{cards('C', ranks)} {cards('D', ranks[:4])}",
        f"{cards('D', ranks[4:])} {cards('S', ranks[4:12])}",
        f"{cards('H', ranks)} {cards('S', ranks[:4])}",
    ]
    state, _ = scripted(
        "penalty", hands, up="SK", dealer=2,
        options={"hand_size": 17, "end": "rounds", "rounds": 1, "stock_refill": "none",
                 "stake": 5},
    )  # fmt: skip
    assert state.pot == 15
    state, ev = play(state, 0, "draw stock")
    assert state.winners == (0, 2)
    assert ev[-1]["payouts"] == [8, 0, 7]  # 15 / 2: 7 each, the rest to seat 0
    assert [s.chips_out for s in state.seats] == [8, 0, 7] and state.pot == 0


def test_no_stake_no_pot_and_no_payouts() -> None:
    _, state, events = three()
    assert "pot_opened" not in types(events) and state.pot is None
    assert public_view(state)["pot"] is None
    state, _ = scripted(
        "elimination", ["H5 H6 H7", "D2 D3 SK"], up="CK", stock="S9", dealer=1,
        options={"hand_size": 3, "target_score": 20},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    _, ev = apply(state, 1, DeclineReengage())
    assert "payouts" not in ev[-1]


@pytest.mark.parametrize(
    ("pot", "winners", "players", "shares"),
    [
        (30, (1,), 3, (0, 30, 0)),
        (31, (1, 2), 3, (0, 16, 15)),
        (31, (2, 1), 3, (0, 16, 15)),  # the first winner in seat order, not in the list
        (11, (0, 2), 3, (6, 0, 5)),
        (10, (0, 1, 2), 3, (4, 3, 3)),
        (0, (0,), 2, (0, 0)),
        (9, (), 2, (0, 0)),
    ],
)
def test_pot_shares_equal_the_rest_to_the_first_winner_in_seat_order(
    pot: int, winners: tuple[int, ...], players: int, shares: tuple[int, ...]
) -> None:
    assert pot_shares(pot, winners, players) == shares
