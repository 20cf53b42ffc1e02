"""Turn clocks applied by the runner (service/worker.py, service/games/clock.py): with an
injected clock, and two runners on one Redis never applying a timeout twice."""

from __future__ import annotations

import threading
import time

import pytest

from service.games import clock
from service.rules.engine import SeatSpec, new_game
from service.rules.options import resolve_options
from service.rules.state import GameState, decode_state, encode_state
from service.store.base import GameStore
from service.worker import CLOCK, Runner, RunnerSettings, next_due

T0 = 1_800_000_000.0  # epoch s


def clocked_game(seed: int, away_after: int = 2) -> GameState:
    """Three human seats, 30 s turns, the first turn's clock started at `T0`."""
    options = resolve_options("standard", {"turn_seconds": 30, "timeouts_to_away": away_after}, 3)
    seats = [SeatSpec(f"p{i}", "human", None, f"hash-{i}") for i in range(3)]
    state = new_game(options, "standard", seats, seed=seed)[0]
    return clock.stamp(None, state, int(T0 * 1000))


def store_game(store: GameStore, state: GameState) -> str:
    due = next_due(state)
    assert due is not None and due.reason == CLOCK and due.at == T0 + 30
    return store.create(encode_state(state), [{"type": "game_created"}], due=due).game_id


def test_nothing_happens_before_a_deadline_and_the_turn_is_played_after_it(
    store: GameStore,
) -> None:
    state = clocked_game(1)
    game = store_game(store, state)
    now = [T0 + 29.0]
    runner = Runner(store, RunnerSettings(), clock=lambda: now[0])
    assert runner.run_once() == 0  # not due yet
    assert store.load(game).version == 1
    now[0] = T0 + 31.0
    assert runner.run_once() == 1
    after = decode_state(store.load(game).state)
    first = state.round.turn if state.round else -1
    assert after.seats[first].timeouts == 1
    assert after.round is not None and after.round.turn != first
    # The next seat's clock started when the runner played the timeout.
    assert after.turn_deadline == int((T0 + 31.0) * 1000) + 30_000
    events = store.events(game, 1)
    assert [(e["type"], e["seat"]) for e in events] == [("drew", first), ("discarded", first)]
    assert runner.run_once() == 0  # the next deadline is not due


@pytest.mark.slow
def test_two_runners_on_one_store_never_apply_a_timeout_twice(store: GameStore) -> None:
    games = [store_game(store, clocked_game(seed)) for seed in range(1000)]
    # Every first turn is past its deadline; the next ones are not (30 s later).
    runners = [Runner(store, RunnerSettings(batch=16), clock=lambda: T0 + 31.0) for _ in range(2)]
    stop = threading.Event()
    threads = [threading.Thread(target=r.run, args=(stop,)) for r in runners]
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + 300
        while (due := store.next_due()) is not None and due <= T0 + 31.0:
            assert time.monotonic() < deadline, "the runners did not play every timeout"
            time.sleep(0.05)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    for game in games:
        loaded = store.load(game)
        state = decode_state(loaded.state)
        assert loaded.version == 2, "a timeout was applied twice (or never)"
        assert sorted(seat.timeouts for seat in state.seats) == [0, 0, 1]
        kinds = [e["type"] for e in store.events(game, 1)]
        assert kinds == ["drew", "discarded"]
    assert sum(r.advanced for r in runners) == len(games)
    assert all(r.advanced for r in runners), "both runners took part"


def deciding_game(now_ms: int) -> GameState:
    """An elimination game of three players with 30 s turns, its first round played
    out (each draws and discards what it drew until the stock runs out): Ann (seat 0,
    30 points against a target of 20) is to decide whether to re-engage; her clock
    started at ``now_ms``."""
    from service.rules.engine import apply, legal_moves
    from service.rules.moves import Discard, Draw
    from tests.api.test_rulings_over_http import deck_of

    options = resolve_options(
        "elimination",
        {"turn_seconds": 30, "hand_size": 3, "target_score": 20, "stock_refill": "none"},
        3,
    )
    seats = [SeatSpec(f"p{i}", "human", None, f"hash-{i}") for i in range(3)]
    deck = deck_of([["DK", "SK", "HQ"], ["C2", "D3", "H7"], ["S2", "C3", "D4"]], ["HA"])
    state = new_game(options, "elimination", seats, deck=deck, first_dealer=2)[0]
    while state.round is not None:
        seat = state.round.turn
        state, events = apply(state, seat, Draw("stock"))
        if state.round is not None and Discard(events[-1]["card"]) in legal_moves(state, seat):
            state, _ = apply(state, seat, Discard(events[-1]["card"]))
    assert state.deciding == (0,)
    return clock.stamp(None, state, now_ms)


def test_an_undecided_player_declines_when_the_clock_runs_out(store: GameStore) -> None:
    """Under a turn clock the re-engage decision has the turn's time; when it runs
    out, the runner declines for the player, and the next round is dealt to the two
    left in."""
    state = deciding_game(int(T0 * 1000))
    due = next_due(state)
    assert due is not None and due.reason == CLOCK and due.at == T0 + 30
    game = store.create(encode_state(state), [{"type": "game_created"}], due=due).game_id
    now = [T0 + 29.0]
    runner = Runner(store, RunnerSettings(), clock=lambda: now[0])
    assert runner.run_once() == 0
    now[0] = T0 + 31.0
    assert runner.run_once() == 1
    after = decode_state(store.load(game).state)
    assert after.deciding == () and after.seats[0].eliminated
    assert after.round is not None and after.round.dealt == (False, True, True)
    kinds = [e["type"] for e in store.events(game, 1)]
    assert kinds[:2] == ["reengage_declined", "round_started"]
