"""Strength of the built-in bots: a round-robin of random, greedy and expert.

    .venv/bin/python bench/strength.py --games 1000 --jobs 2 --nodes 100 \\
        --out /tmp/strength.jsonl > /tmp/strength.md

Every pairing of ``random``, ``greedy`` and ``expert`` plays ``--games`` seeded
engine-level games (``service.bots.play.play_bots``, the path the service uses for bot
seats) in each setting: two-player ``standard``, four-player ``standard`` (the
two strategies alternate around the table), two-player ``romme`` and two-player
games of each preset the rulings changed (``elimination``, ``express``,
``vrotham``, ``straight``, ``block``, ``traditional``, ``meld_first``). Seats
rotate from one game to the next, so neither strategy sits first more often.
The expert plays on a node budget only (``--nodes``, no time cap), so every
game replays exactly from its seed whatever the machine's load.

``--pairings expert2-expert1 expert3-expert2 expert4-expert3 expert5-expert4``
plays each level of the expert (service/bots/levels.py) against the one below;
their Elo-style ratings are fitted to those games alone, level 1 at 0.

Each finished game is appended to ``--out`` as one JSON line as soon as it
ends; ``--summarise FILE`` prints the tables from such a file alone, so a run
cut short still gives its numbers. The tables: win rates with a 95 % interval
(Wilson), a shared win counting as a fraction; Elo-style ratings fitted to all
the games of a setting (random at 0); and the expert's decision time.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import service.bots.expert as expert
import service.bots.strategies as strategies
from service.bots.play import Budget, play_bots
from service.rules.engine import SeatSpec, new_game
from service.rules.options import resolve_options

#: (name, preset, players)
SETTINGS: dict[str, tuple[str, int]] = {
    "standard-2": ("standard", 2),
    "standard-4": ("standard", 4),
    "romme-2": ("romme", 2),
    # The presets the rulings changed (docs/rules.md, "Rulings").
    "elimination-2": ("elimination", 2),
    "express-2": ("express", 2),
    "vrotham-2": ("vrotham", 2),
    "straight-2": ("straight", 2),
    "block-2": ("block", 2),
    "traditional-2": ("traditional", 2),
    "meld_first-2": ("meld_first", 2),
}
PAIRINGS: tuple[tuple[str, str], ...] = (
    ("greedy", "random"),
    ("expert", "random"),
    ("expert", "greedy"),
)
#: Each level of the expert against the one below (service/bots/levels.py; on request).
LEVEL_PAIRINGS: tuple[tuple[str, str], ...] = tuple(
    (f"expert{n + 1}", f"expert{n}") for n in range(1, 5)
)
#: A game that has not ended after this many moves counts as unfinished (reported).
MAX_MOVES = 20_000


@dataclass(frozen=True)
class Result:
    """One game: the setting, the pairing, who sat where and who won."""

    setting: str
    a: str
    b: str
    seed: int
    seats: tuple[str, ...]
    wins_a: float  # share of the win that went to strategy a (0..1); -1 unfinished
    rounds: int
    moves: int
    seconds: float
    expert_ms: tuple[float, ...]  # the expert's decision times (timed games only)


def seating(a: str, b: str, players: int, seed: int) -> tuple[str, ...]:
    """a and b alternate around the table, rotated by one seat every other game."""
    seats = [a if i % 2 == 0 else b for i in range(players)]
    return tuple(seats[1:] + seats[:1]) if seed % 2 else tuple(seats)


def play(
    setting: str, a: str, b: str, seed: int, nodes: int, timed: bool, seconds: float | None = None
) -> Result:
    """Play one seeded game of the setting to its end."""
    expert.configure(expert.Budget(nodes=nodes, seconds=seconds))
    preset, players = SETTINGS[setting]
    seats = seating(a, b, players, seed)
    opts = resolve_options(preset, {}, players)
    took: list[float] = []
    chosen = strategies.choose_move

    def timing(name: str, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return chosen(name, *args, **kwargs)
        finally:
            if name == "expert":
                took.append(1000 * (time.perf_counter() - started))

    if timed:
        strategies.choose_move = timing  # type: ignore[assignment]
    started = time.perf_counter()
    try:
        state, _ = new_game(opts, preset, [SeatSpec(kind="bot", bot=s) for s in seats], seed=seed)
        played = play_bots(state, Budget(moves=MAX_MOVES, seconds=math.inf))
        if played.pending:  # a table that cannot end its round (reported, not scored)
            share = -1.0
        else:
            state = played.state
            winners = state.winners or ()
            share = sum(1 for w in winners if seats[w] == a) / len(winners)
    finally:
        strategies.choose_move = chosen
    return Result(
        setting,
        a,
        b,
        seed,
        seats,
        share,
        len(state.rounds),
        state.steps,
        time.perf_counter() - started,
        tuple(round(t, 3) for t in took),
    )


def _play(job: tuple[str, str, str, int, int, bool, float | None]) -> Result:
    return play(*job)


# ---------------------------------------------------------------------------
# Summaries


def wilson(wins: float, n: int) -> tuple[float, float]:
    """95 % Wilson interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    z = 1.96
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def ratings(games: Iterable[Result], anchor: str = "random") -> dict[str, float]:
    """Elo-style ratings (Bradley-Terry, 400-point logistic scale) from the games'
    win shares, ``anchor`` at 0 (else the weakest). Each game counts as one a-versus-b comparison; a
    pairing won every time gets half a game's doubt, so ratings stay finite."""
    score: dict[tuple[str, str], float] = defaultdict(float)
    count: dict[tuple[str, str], int] = defaultdict(int)
    names: set[str] = set()
    for g in games:
        if g.wins_a < 0:
            continue
        score[(g.a, g.b)] += g.wins_a
        count[(g.a, g.b)] += 1
        names.update((g.a, g.b))
    strength = dict.fromkeys(names, 1.0)
    for _ in range(2000):
        new = {}
        for x in names:
            won = 0.0
            expected = 0.0
            for (a, b), n in count.items():
                if x not in (a, b):
                    continue
                y = b if x == a else a
                w = score[(a, b)] if x == a else n - score[(a, b)]
                won += min(max(w, 0.5), n - 0.5)
                expected += n / (strength[x] + strength[y])
            new[x] = won / expected if expected else strength[x]
        strength = new
    base = strength.get(anchor, min(strength.values(), default=1.0))
    return {x: 400 * math.log10(s / base) for x, s in strength.items()}


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))]


def summarise(results: Sequence[Result]) -> str:
    """The Markdown tables of docs/bots.md."""
    lines = [
        "| setting | pairing | games | first wins (95 % interval) | unfinished "
        "| rounds/game | s/game |",
        "|---|---|---|---|---|---|---|",
    ]
    by_setting: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        by_setting[r.setting].append(r)
    for setting in SETTINGS:
        games = by_setting.get(setting, [])
        for a, b in PAIRINGS + LEVEL_PAIRINGS:
            mine = [g for g in games if (g.a, g.b) == (a, b)]
            done = [g for g in mine if g.wins_a >= 0]
            if not mine:
                continue
            n = len(done)
            wins = sum(g.wins_a for g in done)
            lo, hi = wilson(wins, n)
            rate = 100 * wins / n if n else 0.0
            lines.append(
                f"| {setting} | {a} vs {b} | {n} | {a} {rate:.1f} % "
                f"({100 * lo:.1f} to {100 * hi:.1f}) | {len(mine) - n} "
                f"| {sum(g.rounds for g in done) / max(n, 1):.1f} "
                f"| {sum(g.seconds for g in mine) / len(mine):.2f} |"
            )
    lines += ["", "| setting | random | greedy | expert |", "|---|---|---|---|"]
    for setting in SETTINGS:
        games = by_setting.get(setting, [])
        if not games:
            continue
        elo = ratings(games)
        lines.append(
            f"| {setting} | "
            + " | ".join(
                f"{elo[x]:.0f}" if x in elo else "-" for x in ("random", "greedy", "expert")
            )
            + " |"
        )
    levelled = {
        setting: [g for g in games if (g.a, g.b) in LEVEL_PAIRINGS]
        for setting, games in by_setting.items()
    }
    if any(levelled.values()):
        names = [f"expert{n}" for n in range(1, 6)]
        lines += ["", "| setting | " + " | ".join(names) + " |", "|---" * 6 + "|"]
        for setting in SETTINGS:
            if not levelled.get(setting):
                continue
            elo = ratings(levelled[setting], anchor="expert1")
            lines.append(
                f"| {setting} | "
                + " | ".join(f"{elo[x]:.0f}" if x in elo else "-" for x in names)
                + " |"
            )
    lines += [
        "",
        "| setting | expert decisions | p50 ms | p99 ms | max ms |",
        "|---|---|---|---|---|",
    ]
    for setting in SETTINGS:
        took = [t for g in by_setting.get(setting, []) for t in g.expert_ms]
        if took:
            lines.append(
                f"| {setting} | {len(took)} | {percentile(took, 0.5):.2f} "
                f"| {percentile(took, 0.99):.2f} | {max(took):.2f} |"
            )
    return "\n".join(lines)


def load(path: Path) -> list[Result]:
    """The results written to ``path`` so far."""
    out = []
    for line in path.read_text().splitlines():
        if line.strip():
            d = json.loads(line)
            d["seats"] = tuple(d["seats"])
            d["expert_ms"] = tuple(d["expert_ms"])
            out.append(Result(**d))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Play the round-robin (or summarise a results file) and print the tables."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per pairing and setting")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--nodes", type=int, default=100, help="the expert's node budget")
    parser.add_argument("--settings", nargs="*", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument(
        "--pairings",
        nargs="*",
        default=[f"{a}-{b}" for a, b in PAIRINGS],
        choices=[f"{a}-{b}" for a, b in PAIRINGS + LEVEL_PAIRINGS],
    )
    parser.add_argument("--timed", type=int, default=20, help="games per setting timing the expert")
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="the expert's time cap (default none: games replay exactly; with a cap they may not)",
    )
    parser.add_argument(
        "--cap",
        action="append",
        default=[],
        metavar="SETTING:PAIRING=N",
        help="fewer games for one pairing, e.g. romme-2:expert-greedy=200 (repeatable)",
    )
    parser.add_argument("--out", type=Path, default=Path("strength.jsonl"), help="results file")
    parser.add_argument("--summarise", type=Path, help="only print the tables of this file")
    args = parser.parse_args(argv)
    if args.summarise:
        print(summarise(load(args.summarise)))
        return 0
    caps = {}
    for cap in args.cap:
        key, _, n = cap.partition("=")
        caps[key] = int(n)
    # Games already in the results file (same seeds, same budget) are not played again.
    results = load(args.out) if args.out.exists() else []
    done = {(r.setting, r.a, r.b, r.seed) for r in results}
    jobs = []
    # Seed by seed across every pairing, so a run cut short covers them all.
    for seed in range(args.games):
        for setting in args.settings:
            for pairing in args.pairings:
                a, b = pairing.split("-")
                if seed >= caps.get(f"{setting}:{pairing}", args.games):
                    continue
                if (setting, a, b, seed) in done:
                    continue
                timed = "expert" in (a, b) and seed < args.timed
                jobs.append((setting, a, b, seed, args.nodes, timed, args.seconds))
    with args.out.open("a") as out, multiprocessing.Pool(args.jobs) as pool:
        for result in pool.imap(_play, jobs, chunksize=1):
            results.append(result)
            out.write(json.dumps(asdict(result)) + "\n")
            out.flush()
    print(summarise(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
