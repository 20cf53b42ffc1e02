"""bots.play.play_bots: bots play until a human is to move, the game ends or the budget is spent."""

from __future__ import annotations

import pytest

from service.bots.play import UNBOUNDED, Budget, bot_to_move, play_bots
from service.rules.engine import Event, SeatSpec, new_game
from service.rules.options import PRESETS, resolve_options
from service.rules.state import GameState


def all_bots(preset: str, strategy: str, seed: int) -> tuple[GameState, list[Event]]:
    """An all-bot game of the preset (up to four seats), played by play_bots."""
    players = min(PRESETS[preset].options.players[1], 4)
    opts = resolve_options(preset, {}, players)
    state, _ = new_game(
        opts, preset, [SeatSpec(kind="bot", bot=strategy) for _ in range(players)], seed=seed
    )
    played = play_bots(state, UNBOUNDED)
    assert not played.pending
    return played.state, played.events


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_an_all_bot_game_is_played_to_its_end(preset: str) -> None:
    state, events = all_bots(preset, "greedy", seed=3)
    assert state.status == "finished" and state.winners
    assert events[-1]["type"] == "game_ended"
    for i, seat in enumerate(state.seats):
        assert seat.score == seat.carried + sum(r.points[i] for r in state.rounds)


def test_random_bots_also_finish_a_game() -> None:
    state, _ = all_bots("express", "random", seed=5)
    assert state.status == "finished"


def test_a_seeded_bot_game_plays_the_same_events_twice() -> None:
    first = all_bots("standard", "greedy", seed=21)
    second = all_bots("standard", "greedy", seed=21)
    assert first[1] == second[1] and first[0] == second[0]


def test_bots_stop_when_a_human_is_to_move() -> None:
    opts = resolve_options("standard", {}, 3)
    seats = [
        SeatSpec(kind="bot", bot="greedy"),
        SeatSpec("Ann"),
        SeatSpec(kind="bot", bot="random"),
    ]
    state, _ = new_game(opts, "standard", seats, seed=8, first_dealer=2)
    assert state.round is not None and state.round.turn == 0
    played = play_bots(state)
    state, events = played.state, played.events
    assert state.round is not None and state.round.turn == 1  # Ann's turn
    assert {e["seat"] for e in events if "seat" in e} == {0} and not played.pending
    again = play_bots(state)
    assert again.state == state and again.events == [] and not again.pending


def _two_bots(seed: int) -> GameState:
    opts = resolve_options("standard", {}, 2)
    seats = [SeatSpec(kind="bot", bot="greedy"), SeatSpec(kind="bot", bot="random")]
    return new_game(opts, "standard", seats, seed=seed)[0]


def test_the_move_budget_stops_bots_and_says_they_are_still_to_move() -> None:
    played = play_bots(_two_bots(4), Budget(moves=7, seconds=60))
    assert played.pending and bot_to_move(played.state)
    assert played.state.steps == 7
    assert sum(e["type"] in ("drew", "discarded", "melded", "laid_off") for e in played.events) >= 7


def test_the_time_budget_stops_bots_between_moves() -> None:
    ticks = iter(range(1000))
    played = play_bots(
        _two_bots(4),
        Budget(moves=500, seconds=3),
        clock=lambda: float(next(ticks)),
        pause=lambda s: None,
    )
    # The clock reads 0 at the start (deadline 3), then 1, 2, 3 before each move:
    # two moves are made before the deadline is reached.
    assert played.pending and played.state.steps == 2


def test_bots_yield_between_moves() -> None:
    pauses: list[float] = []
    play_bots(_two_bots(4), Budget(moves=5, seconds=60), pause=pauses.append)
    assert pauses == [0, 0, 0, 0]


def test_a_game_split_between_budgets_plays_as_one_call_would() -> None:
    whole = play_bots(_two_bots(21), UNBOUNDED)
    state, events = _two_bots(21), []
    while True:
        part = play_bots(state, Budget(moves=50, seconds=60))
        state = part.state
        events += part.events
        if not part.pending:
            break
    # Same deals and shuffles (seeded by the game); the bots' memory of a
    # call is shorter, so only the outcome's shape is compared.
    assert state.status == whole.state.status == "finished"
    assert events[0] == whole.events[0]


@pytest.mark.parametrize("stake", [None, 10])
def test_bots_decide_every_reengage_offer_at_once_in_an_all_bot_elimination_game(
    stake: int | None,
) -> None:
    opts = resolve_options("elimination", {} if stake is None else {"stake": stake}, 4)
    seats = [SeatSpec(kind="bot", bot="greedy") for _ in range(4)]
    state, _ = new_game(opts, "elimination", seats, seed=2)
    played = play_bots(state, UNBOUNDED)
    assert not played.pending and played.state.status == "finished"
    events = played.events
    offers = [i for i, e in enumerate(events) if e["type"] == "reengage_offered"]
    assert offers  # this seed's game has re-engage decisions
    for i in offers:
        offer = events[i]
        decided = events[i + 1 : i + 1 + len(offer["seats"])]
        assert sorted(e["seat"] for e in decided) == offer["seats"]
        for e in decided:
            assert e["type"] in ("reengaged", "reengage_declined")
            if e["type"] == "reengaged":
                assert e["score"] == offer["score"] < 100  # below the target: worth it
    end = played.state
    if stake is None:
        assert end.pot is None and "payouts" not in events[-1]
    else:
        paid_in = sum(s.chips_in for s in end.seats)
        assert paid_in == 4 * stake + 5 * sum(s.reengaged for s in end.seats)
        assert events[-1]["payouts"] == [paid_in if i in end.winners else 0 for i in range(4)]
        assert end.pot == 0
