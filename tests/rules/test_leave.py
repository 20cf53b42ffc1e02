"""Leaving a seat in the engine, and the seat flags in the stored state."""

from __future__ import annotations

import dataclasses

import orjson
import pytest

from service.rules import engine
from service.rules.moves import IllegalMove
from service.rules.options import resolve_options
from service.rules.state import decode_state, encode_state


def _game(*specs: engine.SeatSpec) -> engine.GameState:
    options = resolve_options("standard", {}, len(specs))
    # A table with an open seat is always dealt at random (no seed).
    full = all(spec.name is not None or spec.kind == "bot" for spec in specs)
    state, _ = engine.new_game(options, "standard", specs, seed=4 if full else None)
    return state


ANN = engine.SeatSpec("Ann", "human", None, "hash-ann")
OPEN = engine.SeatSpec(None, "human", None, None)


def test_the_creators_seats_are_hosts_and_joined_ones_are_not() -> None:
    state = _game(ANN, OPEN)
    assert [s.host for s in state.seats] == [True, False]
    state, _ = engine.take_seat(state, None, "Bob", "hash-bob")
    assert [s.host for s in state.seats] == [True, False]


def test_leaving_a_waiting_game_opens_the_seat() -> None:
    state = _game(ANN, OPEN, OPEN)
    state, _ = engine.take_seat(state, 1, "Bob", "hash-bob")
    state, events = engine.leave_seat(state, 1)
    assert state.status == "waiting" and state.seats[1].is_open
    assert state.seats[1].token_hash is None
    assert events == [{"type": "seat_left", "seat": 1, "kind": "human"}]


def test_leaving_an_active_game_hands_the_seat_to_the_greedy_bot() -> None:
    state = _game(ANN, engine.SeatSpec("Bob", "human", None, "hash-bob"))
    assert state.status == "active"
    state, events = engine.leave_seat(state, 1)
    seat = state.seats[1]
    assert (seat.kind, seat.bot, seat.token_hash, seat.name) == ("bot", "greedy", None, "Bob")
    assert events == [{"type": "seat_left", "seat": 1, "kind": "bot", "bot": "greedy"}]
    with pytest.raises(IllegalMove) as refused:
        engine.leave_seat(state, 1)  # a bot's seat has no player to leave
    assert refused.value.code == "invalid_seat"


def test_seat_flags_round_trip_and_older_seats_still_decode() -> None:
    state = _game(ANN, engine.SeatSpec("Bob", "human", None, "hash-bob"))
    flagged = dataclasses.replace(state.seats[1], away=True, timeouts=3)
    state = dataclasses.replace(state, seats=(state.seats[0], flagged))
    back = decode_state(encode_state(state))
    assert back == state
    assert (back.seats[0].host, back.seats[1].away, back.seats[1].timeouts) == (True, True, 3)
    # A seat stored before the flags existed (ten fields) reads as unflagged.
    doc = orjson.loads(encode_state(state))
    doc[4] = [seat[:10] for seat in doc[4]]
    plain = decode_state(orjson.dumps(doc))
    assert [(s.host, s.away, s.timeouts) for s in plain.seats] == [(False, False, 0)] * 2
