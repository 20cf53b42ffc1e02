"""Benchmark of the rules engine: median microseconds per ``apply`` and per ``legal_moves``.

Run: ``python bench/engine.py`` (from the project root, in its virtualenv).

States are random mid-game positions of seeded ``standard`` games with ten-card
deals, taken in the play phase of a turn so the seat to move holds 11 cards; a
few turns of random draws and discards (and any melds or lay-offs the dice pick)
come first so the table, stock and discard pile look like a game in progress.
Each state is measured many times; the figure is the median over states of the
per-state mean.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.rules.engine import SeatSpec, apply, legal_moves, new_game
from service.rules.moves import Discard, Draw, LayOff, Meld
from service.rules.options import resolve_options
from service.rules.state import GameState


def mid_game_states(count: int, seed: int) -> list[GameState]:
    """``count`` play-phase states where the seat to move holds 11 cards."""
    rng = random.Random(seed)
    states: list[GameState] = []
    options = resolve_options("standard", {"hand_size": 10}, 2)
    while len(states) < count:
        players = rng.choice([2, 3, 4])
        options = resolve_options("standard", {"hand_size": 10}, players)
        state, _ = new_game(
            options, "standard", [SeatSpec(f"p{i}") for i in range(players)], seed=rng.random()
        )
        for _ in range(rng.randrange(4, 30)):
            if state.status != "active" or state.round is None:
                break
            seat = state.round.turn
            moves = legal_moves(state, seat)
            draws = [m for m in moves if isinstance(m, Draw)]
            if draws:
                move = rng.choice(draws)
            else:
                melds = [m for m in moves if isinstance(m, Meld | LayOff)]
                if melds and rng.random() < 0.3:
                    move = rng.choice(melds)
                else:
                    move = rng.choice([m for m in moves if isinstance(m, Discard)])
            state, _ = apply(state, seat, move)
        r = state.round
        if (
            state.status == "active"
            and r is not None
            and r.phase == "play"
            and len(r.hands[r.turn]) == 11
        ):
            states.append(state)
    return states


def per_call_us(fn: object, repeat: int) -> float:
    """Mean microseconds of ``fn()`` over ``repeat`` calls."""
    assert callable(fn)
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat * 1e6


def main() -> None:
    """Print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    states = mid_game_states(args.states, args.seed)
    rng = random.Random(args.seed)
    legal_times: list[float] = []
    apply_times: list[float] = []
    move_counts: list[int] = []
    for state in states:
        assert state.round is not None
        seat = state.round.turn
        moves = legal_moves(state, seat)
        move_counts.append(len(moves))
        move = rng.choice(moves)
        legal_times.append(per_call_us(lambda s=state, t=seat: legal_moves(s, t), args.repeat))
        apply_times.append(per_call_us(lambda s=state, t=seat, m=move: apply(s, t, m), args.repeat))
    print(f"states: {len(states)} (11-card hands, play phase), repeat {args.repeat}")
    print(f"legal moves per state: median {statistics.median(move_counts):.0f}")
    print(f"legal_moves: median {statistics.median(legal_times):.1f} us")
    print(f"apply:       median {statistics.median(apply_times):.1f} us")


if __name__ == "__main__":
    main()
