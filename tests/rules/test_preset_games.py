"""One game per preset, played to the end of the game.

Each game's first round is dealt as written (the deal is in the test). Where
that round does not end the game, the remaining rounds are dealt from the seed
and played by the greedy strategy for every seat; the test then checks the end
of the game by the preset's own rule.
"""

from __future__ import annotations

import random

from service.bots.strategies import choose_move
from service.rules.engine import apply, legal_moves
from service.rules.moves import Meld
from service.rules.options import PRESETS
from service.rules.scoring import best_seats
from service.rules.state import GameState
from service.rules.views import seat_view
from tests.rules.scripted import play, scripted, types

# Four hands of seven; seat 0 (after dealer 3) draws C9 and goes out in one turn:
# H2 H3 H4 and C5 C6 C7 C8 C9. The others hold 70, 70 and 63 points (aces 1).
FOUR = [
    "H2 H3 H4 C5 C6 C7 C8",
    "DK DQ DJ D10 SK SQ SJ",
    "S10 HK HQ HJ H10 CK CQ",
    "CJ C10 D9 S9 H9 D8 S8",
]
RUMMY = ("draw stock", "meld H2 H3 H4", "meld C5 C6 C7 C8 C9")
# Where going out needs a final discard (express, elimination): the drawn C9 goes last.
RUMMY_DISCARD = ("draw stock", "meld H2 H3 H4", "meld C5 C6 C7 C8", "discard C9")


def play_to_the_end(state: GameState, seed: int = 1, limit: int = 50_000) -> GameState:
    """Every seat plays greedy until the game is over (between the rounds of an
    elimination game, the seats deciding whether to re-engage decide, greedy too)."""
    rng = random.Random(seed)
    for _ in range(limit):
        if state.status != "active":
            return state
        seat = state.round.turn if state.round is not None else state.deciding[0]
        move = choose_move("greedy", seat_view(state, seat), legal_moves(state, seat), rng)
        state, _ = apply(state, seat, move)
    raise AssertionError("the game did not end")


def check_final(state: GameState) -> None:
    assert state.status == "finished" and state.round is None and state.winners
    for i, seat in enumerate(state.seats):
        assert seat.score == seat.carried + sum(r.points[i] for r in state.rounds)


def test_standard() -> None:
    state, _ = scripted("standard", FOUR, up="SA", stock="C9", dealer=3)
    state, ev = play(state, 0, *RUMMY)
    assert types(ev)[-3:] == ["went_out", "round_ended", "game_ended"]
    assert [s.score for s in state.seats] == [406, 0, 0, 0]  # (70 + 70 + 63) x 2 >= 150
    assert state.winners == (0,)
    check_final(state)


def test_traditional() -> None:
    state, _ = scripted("traditional", FOUR, up="SA", stock="C9", dealer=3)
    assert state.options.target_for(4) == 200
    state, _ = play(state, 0, *RUMMY)
    assert state.status == "finished" and state.winners == (0,) and state.seats[0].score == 406


def test_straight() -> None:
    state, _ = scripted(
        "straight", ["HA H2 H3 H4 H5 H6 H7 H8 H9 H10", "CK CQ CJ C10 DK DQ DJ D10 SQ SJ"],
        up="S2", stock="SK", dealer=1,
    )  # fmt: skip
    state, ev = play(state, 0, "draw stock", "meld HA H2 H3 H4 H5 H6 H7 H8 H9 H10", "discard SK")
    assert state.rounds[0].rummy and state.seats[0].score == 100  # rummy: no bonus
    assert types(ev)[-1] == "game_ended" and state.winners == (0,)


def test_block() -> None:
    state, _ = scripted(
        "block", ["HA H2 H3 H4 H5 H6 H7 H8 H9 H10", "CK CQ CJ C10 DK DQ DJ D10 SQ S2"],
        up="SJ", stock="SK", dealer=1,
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld HA H2 H3 H4 H5 H6 H7 H8 H9 H10", "discard SK")
    assert state.seats[0].score == 92 and state.status == "active"  # target 100 not reached
    state = play_to_the_end(state)
    check_final(state)
    assert state.winners == best_seats([s.score for s in state.seats], [0, 1], penalty=False)


def test_meld_first() -> None:
    state, _ = scripted("meld_first", FOUR, up="SA", stock="C9", dealer=3)
    state, _ = play(state, 0, *RUMMY)
    assert [s.score for s in state.seats] == [203, 0, 0, 0]  # no rummy bonus; 203 >= 200
    assert state.winners == (0,)
    check_final(state)


def test_express() -> None:
    state, _ = scripted("express", FOUR, up="SA", stock="C9", dealer=3)
    # Going out needs a final discard: melding the last cards is not a move.
    state, ev = play(state, 0, *RUMMY_DISCARD[:2])
    assert Meld(("C5", "C6", "C7", "C8", "C9")) not in legal_moves(state, 0)
    state, more = play(state, 0, *RUMMY_DISCARD[2:])
    ev += more
    assert state.rounds[0].rummy and state.rounds[0].winner == 0
    assert [s.score for s in state.seats] == [0, 140, 140, 126]  # penalties doubled by rummy
    assert types(ev)[-1] == "game_ended" and state.winners == (0,) and len(state.rounds) == 1


def test_elimination() -> None:
    state, _ = scripted(
        "elimination", ["H2 H3 H4 C5 C6 C7 C8", "DK DQ DJ D10 SK SQ SJ", "S2 S3 D2 D3 H5 C2 C3"],
        up="SA", stock="C9", dealer=2,
    )  # fmt: skip
    state, ev = play(state, 0, *RUMMY_DISCARD)
    assert [s.score for s in state.seats] == [0, 140, 40]
    assert [s.eliminated for s in state.seats] == [False, True, False]
    # Seat 1 decides between the rounds whether to re-engage (with 40, the top total).
    assert types(ev)[-2:] == ["seat_eliminated", "reengage_offered"]
    assert state.status == "active" and state.round is None and state.deciding == (1,)
    state = play_to_the_end(state)
    check_final(state)
    remaining = [i for i, s in enumerate(state.seats) if not s.eliminated]
    assert len(remaining) <= 1
    if remaining:
        assert state.winners == tuple(remaining)


def test_penalty() -> None:
    state, _ = scripted("penalty", FOUR, up="SA", stock="C9", dealer=3)
    state, _ = play(state, 0, *RUMMY)
    assert [s.score for s in state.seats] == [0, 140, 140, 126]  # someone reached 100
    assert state.winners == (0,)  # lowest total wins
    check_final(state)


def test_ace_high() -> None:
    state, _ = scripted(
        "ace_high",
        [
            "HQ HK HA C5 C6 C7 C8",
            "DK DQ DJ DA SK SQ SJ",
            "S10 H2 H3 HJ H10 CK CQ",
            "CA SA D9 S9 H9 D8 S8",
        ],
        up="S2", stock="C9", dealer=3,
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld HQ HK HA", "meld C5 C6 C7 C8 C9")
    assert state.rounds[0].points[0] == 2 * (75 + 55 + 73)  # aces 15
    assert state.winners == (0,)
    check_final(state)


def test_vrotham() -> None:
    state, _ = scripted(
        "vrotham",
        [
            "H7 JK H9 C2 C3 C4 C5 SK",  # the first player: eight cards, no draw
            "DK DQ DJ D10 SQ SJ S10",
            "JK HK HQ HJ H10 CK CQ",
            "CJ C10 D9 S9 JK D8 S8",
        ],
        dealer=3,
    )  # fmt: skip
    state, ev = play(state, 0, "meld H7 JK H9", "meld C2 C3 C4 C5", "discard SK")
    assert ev[0]["meld"]["jokers"] == {"1": "H8"}
    assert state.rounds[0].points[0] == 2 * (70 + 75 + 69)  # jokers 15
    state = play_to_the_end(state)
    check_final(state)
    assert len(state.rounds) == 6
    assert state.winners == best_seats([s.score for s in state.seats], range(4), penalty=False)


def test_romme() -> None:
    state, _ = scripted(
        "romme",
        [
            "HJ HQ HK CJ CQ CK D9 D10 DJ S5 S6 S7 S8 H2",
            "JK JK DK DQ SK SQ C10 C9 H10 H9 SJ S10 S9",
        ],
        dealer=1,
    )  # fmt: skip
    assert state.options.first_meld_min_points == 40
    state, ev = play(
        state,
        0,
        "meld HJ HQ HK",
        "meld CJ CQ CK",
        "meld D9 D10 DJ",
        "meld S5 S6 S7 S8",
        "discard H2",
    )
    assert "went_out" in types(ev)
    assert state.rounds[0].points[0] == 2 * (40 + 10 * 7 + 9 * 3 + 10)
    state = play_to_the_end(state)
    check_final(state)
    assert state.winners == best_seats([s.score for s in state.seats], [0, 1], penalty=False)


def test_every_preset_has_a_game_here() -> None:
    names = {n.removeprefix("test_") for n in globals() if n.startswith("test_")}
    assert set(PRESETS) <= names
