"""How long a hint takes: p50 and p99 per preset, in-process, under the production settings.

    .venv/bin/python bench/hints.py --games 4 --hints 40 [--presets standard romme] [--json]

For each preset, ``--games`` seeded two-player games (seeds 0 …) are played by
greedy at both seats; before each of the first ``--hints`` decisions of a game
the seat to move asks for a hint, and the bench times
`service.games.hints.Hints.answer` — what `GET /games/{id}/hint` spends past
its one load: the legal moves, the memory folded from the kept events (the
latest `MAX_EVENTS`, as the store keeps them), the seat view and the expert's
search on the budget of the production settings (`Config()`: `HINT_NODES`,
`HINT_SECONDS`), never a kept answer (each position is asked once). The
figures are wall clock on whatever else the machine runs: on a shared machine
they are a ceiling. Prints a Markdown table (docs/performance.md, "Hints").
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.bots import expert
from service.bots.strategies import choose_move
from service.config import Config
from service.games.hints import Hints
from service.games.values import LoadedGame
from service.rules.engine import SeatSpec, apply, legal_moves, new_game
from service.rules.options import PRESETS, resolve_options
from service.rules.views import seat_view

#: Moves a bench game may last before it is left (a table of greedy bots may stall).
MAX_MOVES = 3000


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def time_preset(preset: str, games: int, per_game: int, config: Config) -> dict[str, Any]:
    """The hint latencies of ``preset`` (ms), and how many searches the time cap cut short."""
    times: list[float] = []
    cut = 0
    for seed in range(games):
        options = resolve_options(preset, {}, 2)
        state, events = new_game(
            options, preset, [SeatSpec(name="a"), SeatSpec(name="b")], seed=seed
        )
        hints = Hints(config.HINT_NODES, config.HINT_SECONDS, 0, size=4)
        kept = list(events)
        rng = random.Random(seed)
        asked = 0
        for version in range(1, MAX_MOVES):
            if state.status != "active":
                break
            seat = next((s for s in range(state.players) if legal_moves(state, s)), None)
            if seat is None:
                break
            if asked < per_game:
                game = LoadedGame(f"bench-{preset}-{seed}", state, version, len(kept))
                latest = kept[-config.MAX_EVENTS :]
                started = time.perf_counter()
                answer = hints.answer(game, seat, lambda latest=latest: latest)
                times.append((time.perf_counter() - started) * 1000.0)
                assert answer is not None
                cut += expert.last_search.cut_by_time
                asked += 1
            moves = legal_moves(state, seat)
            move = choose_move("greedy", seat_view(state, seat), moves, rng)
            state, new = apply(state, seat, move)
            kept.extend(new)
            if asked >= per_game:
                break
    return {
        "preset": preset,
        "hints": len(times),
        "p50_ms": round(statistics.median(times), 2) if times else 0.0,
        "p99_ms": round(_percentile(times, 0.99), 2) if times else 0.0,
        "max_ms": round(max(times), 2) if times else 0.0,
        "cut_by_time": cut,
    }


def main(argv: list[str] | None = None) -> int:
    """Time hints per preset and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="seeded games per preset")
    parser.add_argument("--hints", type=int, default=40, help="hints timed per game")
    parser.add_argument("--presets", nargs="*", default=sorted(PRESETS))
    parser.add_argument("--json", action="store_true", help="one JSON line per preset")
    args = parser.parse_args(argv)
    config = Config()
    rows = [time_preset(p, args.games, args.hints, config) for p in args.presets]
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print(
        f"HINT_NODES {config.HINT_NODES}, HINT_SECONDS {config.HINT_SECONDS}; "
        f"{args.games} games x {args.hints} hints per preset"
    )
    print()
    print("| preset | hints | p50 ms | p99 ms | max ms | cut by the time cap |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| `{row['preset']}` | {row['hints']} | {row['p50_ms']:.2f} "
            f"| {row['p99_ms']:.2f} | {row['max_ms']:.2f} | {row['cut_by_time']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
