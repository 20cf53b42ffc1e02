"""engine.play_bots: bot seats play until a human is to move or the game ends."""

from __future__ import annotations

import pytest

from service.rules.engine import Event, SeatSpec, new_game, play_bots
from service.rules.options import PRESETS, resolve_options
from service.rules.state import GameState


def all_bots(preset: str, strategy: str, seed: int) -> tuple[GameState, list[Event]]:
    """An all-bot game of the preset (up to four seats), played by play_bots."""
    players = min(PRESETS[preset].options.players[1], 4)
    opts = resolve_options(preset, {}, players)
    state, _ = new_game(
        opts, preset, [SeatSpec(kind="bot", bot=strategy) for _ in range(players)], seed=seed
    )
    return play_bots(state)


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
    state, events = play_bots(state)
    assert state.round is not None and state.round.turn == 1  # Ann's turn
    assert {e["seat"] for e in events if "seat" in e} == {0}
    again, more = play_bots(state)
    assert again == state and more == []
