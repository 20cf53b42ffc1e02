"""Turn clocks with an injected clock: deadlines, timeouts, away and back (games/clock.py)."""

from __future__ import annotations

import dataclasses

import pytest

from service.app import create_app, shutdown
from service.bots.play import UNBOUNDED, play_bots
from service.config import TestConfig
from service.games import clock
from service.rules import engine
from service.rules.moves import Discard, Draw
from service.rules.options import OptionsError, resolve_options
from service.rules.state import GameState, decode_state, encode_state

T0 = 1_800_000_000_000  # epoch ms


def _game(**options: object) -> GameState:
    opts = resolve_options("standard", {"turn_seconds": 30, "timeouts_to_away": 2, **options}, 3)
    seats = [engine.SeatSpec(name, "human", None, f"hash-{name}") for name in ("A", "B", "C")]
    state, _ = engine.new_game(opts, "standard", seats, seed=7)
    return clock.stamp(None, state, T0)


def _expire(state: GameState) -> tuple[GameState, list[dict[str, object]]]:
    assert state.turn_deadline is not None
    played = clock.time_out(state, state.turn_deadline)
    assert played is not None
    after, events = played
    played = play_bots(after, UNBOUNDED)
    after, bot_events = played.state, played.events
    return clock.stamp(state, after, state.turn_deadline), events + bot_events


def test_a_clocked_turn_gets_a_deadline_kept_until_the_turn_ends() -> None:
    state = _game()
    seat = state.round.turn if state.round else -1
    assert state.turn_deadline == T0 + 30_000
    drawn, _ = engine.apply(state, seat, Draw("stock"))
    # Drawing goes on with the same turn: the same deadline, even later.
    assert clock.stamp(state, drawn, T0 + 10_000).turn_deadline == T0 + 30_000
    # No clock without turn_seconds (the presets' default).
    plain = _game(turn_seconds=None)
    assert plain.turn_deadline is None and clock.due(plain) is None
    # The deadline survives the stored form.
    assert decode_state(encode_state(state)).turn_deadline == T0 + 30_000


def test_nothing_times_out_before_the_deadline() -> None:
    state = _game()
    assert state.turn_deadline is not None
    assert clock.time_out(state, state.turn_deadline - 1) is None


def test_a_timed_out_turn_is_a_draw_and_a_basic_discard_without_melds() -> None:
    state = _game()
    seat = state.round.turn if state.round else -1
    after, events = _expire(state)
    mine = [e for e in events if e.get("seat") == seat]
    assert [e["type"] for e in mine] == ["drew", "discarded"]
    assert mine[0]["source"] == "stock"
    assert after.seats[seat].timeouts == 1 and not after.seats[seat].away
    # The next seat's turn has its own deadline, from the moment it started.
    assert after.round is not None and after.round.turn != seat
    assert after.turn_deadline == state.turn_deadline + 30_000  # type: ignore[operator]


def _play_turn(state: GameState, now_ms: int) -> GameState:
    """The seat to move plays its own turn in time: a draw, then its first legal discard."""
    assert state.round is not None
    seat, before = state.round.turn, state
    state, _ = engine.apply(state, seat, Draw("stock"))
    discard = next(m for m in engine.legal_moves(state, seat) if isinstance(m, Discard))
    state, _ = engine.apply(state, seat, discard)
    state = play_bots(clock.moved(state, seat), UNBOUNDED).state
    return clock.stamp(before, state, now_ms)


def test_timeouts_in_a_row_make_a_seat_away_and_the_greedy_bot_plays_it() -> None:
    state = _game()
    absent = state.round.turn if state.round else -1
    for expected in (1, 2):
        state, events = _expire(state)
        assert state.seats[absent].timeouts == expected
        while state.round is not None and state.round.turn != absent:
            state = _play_turn(state, T0)
    assert state.seats[absent].away
    assert {"type": "seat_away", "seat": absent, "timeouts": 2} in events
    assert [s.timeouts for i, s in enumerate(state.seats) if i != absent] == [0, 0]
    # From now on the absent seat is played at once, with no clock, on each turn.
    for _ in range(6):
        if state.round is None:
            break
        assert state.round.turn != absent, "an away seat was left to move"
        assert clock.clocked_seat(state) is not None
        state = _play_turn(state, T0)


def test_a_move_of_the_player_resets_the_count_and_a_request_brings_them_back() -> None:
    state = _game(timeouts_to_away=3)
    seat = state.round.turn if state.round else -1
    state, _ = _expire(state)
    assert state.seats[seat].timeouts == 1
    assert clock.moved(state, seat).seats[seat].timeouts == 0
    assert clock.come_back(state, seat) is None  # not away: nothing to do
    seats = list(state.seats)
    seats[seat] = dataclasses.replace(seats[seat], away=True, timeouts=3)
    back = clock.come_back(dataclasses.replace(state, seats=tuple(seats)), seat)
    assert back is not None
    returned, events = back
    assert not returned.seats[seat].away and returned.seats[seat].timeouts == 0
    assert events == [{"type": "seat_back", "seat": seat}]


def test_clock_options_are_bounded() -> None:
    for bad in ({"turn_seconds": 4}, {"turn_seconds": 3601}, {"timeouts_to_away": 0}):
        with pytest.raises(OptionsError):
            resolve_options("standard", bad, 3)


def test_a_request_stamps_the_clock_and_queues_only_a_clocked_or_stale_game() -> None:
    from service.api.access import client_owner
    from service.api.access import play_bots as request_bots

    app = create_app(TestConfig())
    try:
        with app.test_request_context(environ_base={"REMOTE_ADDR": "192.0.2.7"}):
            # A person to move without a clock: the state as it is, nothing queued.
            plain = _game(turn_seconds=None)
            assert request_bots(plain, plain) == (plain, [], None)
            # A deadline left from a clock (no longer running): cleared, nothing queued.
            stale = dataclasses.replace(plain, turn_deadline=T0)
            after, events, due = request_bots(stale, stale)
            assert after.turn_deadline is None and events == [] and due is None
            # A clocked turn going on: its deadline kept and queued for the runner,
            # in the name of the client whose request queued it.
            clocked = _game()
            after, _, due = request_bots(clocked, clocked)
            assert after.turn_deadline == T0 + 30_000
            assert due is not None and due.at == (T0 + 30_000) / 1000
            assert due.owner == client_owner() and due.owner
    finally:
        shutdown(app)
