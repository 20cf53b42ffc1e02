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
from collections.abc import Callable
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


def joker_states(count: int, seed: int) -> list[GameState]:
    """``count`` play-phase ``romme`` states where the seat to move holds 14 cards, 2 of them
    jokers, and has not yet met the 40-point first-meld minimum (the costliest case:
    every listed meld needs a search for melds that complete the minimum).

    Two decks and six jokers; before the state, turns of random draws and discards
    (and the melds, lay-offs and swaps the dice pick) so the table fills a little.
    """
    rng = random.Random(seed)
    states: list[GameState] = []
    while len(states) < count:
        players = rng.choice([2, 3, 4])
        options = resolve_options("romme", {}, players)
        state, _ = new_game(
            options, "romme", [SeatSpec(f"p{i}") for i in range(players)], seed=rng.random()
        )
        for _ in range(rng.randrange(0, 40)):
            r = state.round
            if state.status != "active" or r is None:
                break
            hand = r.hands[r.turn]
            if (
                r.phase == "play"
                and len(hand) == 14
                and hand.count("JK") == 2
                and not r.melded[r.turn]
            ):
                states.append(state)
                break
            moves = legal_moves(state, r.turn)
            acts = [m for m in moves if not isinstance(m, Draw | Discard)]
            if acts and rng.random() < 0.5:
                move = rng.choice(acts)
            else:
                move = rng.choice([m for m in moves if isinstance(m, Draw | Discard)] or moves)
            state, _ = apply(state, r.turn, move)
    return states


def clear_caches() -> None:
    """Empty the rules' memo tables, so the next call starts cold."""
    from service.rules import blocked, melds, search

    melds.clear_meld_cache()
    for fn in (
        blocked.acceptors,
        blocked.joker_partners,
        blocked.swappable,
        blocked.table_outlook,
        search.meld_pool,
        search.meld_shape,
    ):
        fn.cache_clear()


def bench_jokers(count: int, seed: int, repeat: int) -> None:
    """Print legal_moves times for 14-card hands with 2 jokers, cold and warm.

    Times are CPU time of this process (``time.process_time``), so other load on
    the machine does not count.
    """
    states = joker_states(count, seed)
    cold: list[float] = []
    warm: list[float] = []
    moves: list[int] = []
    for state in states:
        assert state.round is not None
        seat = state.round.turn
        clear_caches()
        start = time.process_time()
        moves.append(len(legal_moves(state, seat)))
        cold.append((time.process_time() - start) * 1e6)
        warm.append(
            per_call_us(lambda s=state, t=seat: legal_moves(s, t), repeat, time.process_time)
        )
    print(f"romme states: {len(states)} (14-card hands with 2 jokers, before the first meld)")
    print(f"legal moves per state: median {statistics.median(moves):.0f}, max {max(moves)}")
    print(
        f"legal_moves cold: median {statistics.median(cold):.0f} us, "
        f"90th percentile {statistics.quantiles(cold, n=10)[-1]:.0f} us, max {max(cold):.0f} us"
    )
    print(
        f"legal_moves warm: median {statistics.median(warm):.0f} us, "
        f"90th percentile {statistics.quantiles(warm, n=10)[-1]:.0f} us, max {max(warm):.0f} us"
    )


def per_call_us(fn: object, repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Mean microseconds of ``fn()`` over ``repeat`` calls, by ``clock``."""
    assert callable(fn)
    start = clock()
    for _ in range(repeat):
        fn()
    return (clock() - start) / repeat * 1e6


def main() -> None:
    """Print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--jokers", action="store_true", help="romme: 14-card hands with 2 jokers, cold and warm"
    )
    args = parser.parse_args()
    if args.jokers:
        bench_jokers(args.states, args.seed, args.repeat)
        return
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
