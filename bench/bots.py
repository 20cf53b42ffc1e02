"""Strength table of the built-in bots: seeded engine-level games, one row per match-up.

    .venv/bin/python bench/bots.py --games 1000 --jobs 2    # prints a Markdown table

``--rows greedy-basic`` adds greedy against basic in two-player ``standard``;
``--rows`` alone (no row) only times greedy's choices (``--timing`` games).

Each game is created with ``seed = i`` (i = 0 … games-1) and played to its end
by ``service.bots.play.play_bots`` (the path the service uses for bot seats, memory of
public events included). In two-player rows the strategies swap seats every
other game, so neither gets the first seat more often. Figures are win rates
with a 95 % interval (normal approximation); a shared win counts as a fraction.
The output is the Markdown table docs/bots.md shows.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.bots.play import UNBOUNDED, play_bots
from service.rules.engine import SeatSpec, new_game
from service.rules.options import resolve_options


@dataclass(frozen=True)
class Row:
    """One match-up: the preset and the strategy of each seat (before swapping)."""

    name: str
    preset: str
    seats: tuple[str, ...]
    swap: bool  # two players: swap seats every other game


ROWS: dict[str, Row] = {
    "greedy-random": Row("greedy vs random, 2 players", "standard", ("greedy", "random"), True),
    "greedy-basic": Row("greedy vs basic, 2 players", "standard", ("greedy", "basic"), True),
    "greedy-basic-express": Row(
        "greedy vs basic, 2 players, express", "express", ("greedy", "basic"), True
    ),
    "greedy4": Row("greedy x4, seat fairness", "standard", ("greedy",) * 4, False),
}


#: The rows of docs/bots.md; ``greedy-basic`` (about 40 rounds a game) is on request.
DEFAULT_ROWS = ["greedy-random", "greedy-basic-express", "greedy4"]


@dataclass(frozen=True)
class Game:
    """One finished game: who sat where, who won, who played first in round 1."""

    seats: tuple[str, ...]
    winners: tuple[int, ...]
    first: int
    rounds: int
    moves: int
    seconds: float


def play(row_key: str, seed: int) -> Game:
    """Play game ``seed`` of the row to its end."""
    row = ROWS[row_key]
    seats = row.seats[::-1] if row.swap and seed % 2 else row.seats
    opts = resolve_options(row.preset, {}, len(seats))
    specs = [SeatSpec(kind="bot", bot=s) for s in seats]
    started = time.perf_counter()
    state, events = new_game(opts, row.preset, specs, seed=seed)
    first = next(e["first"] for e in events if e["type"] == "round_started")
    state = play_bots(state, UNBOUNDED).state
    assert state.status == "finished" and state.winners is not None
    return Game(
        seats, state.winners, first, len(state.rounds), state.steps, time.perf_counter() - started
    )


def _play(args: tuple[str, int]) -> Game:
    return play(*args)


def interval(wins: float, n: int) -> str:
    """``p % ± half-width`` of a 95 % normal-approximation interval."""
    p = wins / n
    half = 1.96 * math.sqrt(p * (1 - p) / n)
    return f"{100 * p:.1f} % ± {100 * half:.1f}"


def summarise(row: Row, games: Sequence[Game]) -> str:
    """One Markdown table row."""
    n = len(games)
    per_game = sum(g.seconds for g in games) / n
    rounds = sum(g.rounds for g in games) / n
    moves = sum(g.moves for g in games) / n
    if row.swap:
        wins: Counter[str] = Counter()
        for g in games:
            for w in g.winners:
                wins[g.seats[w]] += 1 / len(g.winners)
        a, b = row.seats
        result = f"{a} wins {interval(wins[a], n)}; {b} {interval(wins[b], n)}"
    else:
        by_seat: Counter[int] = Counter()
        by_order: Counter[int] = Counter()
        players = len(row.seats)
        for g in games:
            for w in g.winners:
                by_seat[w] += 1 / len(g.winners)
                by_order[(w - g.first) % players] += 1 / len(g.winners)
        result = (
            "by seat: "
            + ", ".join(f"{s}: {interval(by_seat[s], n)}" for s in range(players))
            + "<br>by turn order in round 1 (1st … last): "
            + ", ".join(interval(by_order[k], n) for k in range(players))
        )
    return (
        f"| {row.name} | `{row.preset}` | {n} | {result} | {rounds:.1f} | {moves:.0f} "
        f"| {1000 * per_game:.0f} |"
    )


def time_choices(games: int, preset: str = "standard", players: int = 4) -> str:
    """How long greedy takes to choose, over ``games`` seeded greedy-only games."""
    import service.bots.strategies as strategies

    chosen = strategies.choose_move
    took: list[float] = []

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return chosen(*args, **kwargs)
        finally:
            took.append(time.perf_counter() - started)

    strategies.choose_move = timed  # play_bots looks it up on each call
    try:
        for seed in range(games):
            opts = resolve_options(preset, {}, players)
            specs = [SeatSpec(kind="bot", bot="greedy")] * players
            state, _ = new_game(opts, preset, specs, seed=seed)
            play_bots(state, UNBOUNDED)
    finally:
        strategies.choose_move = chosen
    took.sort()
    ms = [1000 * took[min(len(took) - 1, math.ceil(q * len(took)) - 1)] for q in (0.5, 0.99, 1)]
    return (
        f"greedy choice ({len(took)} choices, {games} games, {players} players `{preset}`): "
        f"p50 {ms[0]:.2f} ms, p99 {ms[1]:.2f} ms, max {ms[2]:.2f} ms"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Play every row and print the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per row")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--rows", nargs="*", default=DEFAULT_ROWS, choices=list(ROWS))
    parser.add_argument("--timing", type=int, default=20, help="games timed in one process")
    args = parser.parse_args(argv)
    if not args.rows:
        print(time_choices(args.timing))
        return 0
    print("| match-up | preset | games | wins | rounds/game | moves/game | ms/game |")
    print("|---|---|---|---|---|---|---|")
    with multiprocessing.Pool(args.jobs) as pool:
        for key in args.rows:
            games = pool.map(_play, [(key, i) for i in range(args.games)], chunksize=8)
            print(summarise(ROWS[key], games), flush=True)
    if args.timing:
        print()
        print(time_choices(args.timing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
