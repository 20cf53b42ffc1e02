"""The costliest legal-move listing and move validation the options' bounds allow.

Each case is a two-player game dealt from a fixed ``deck`` so that seat 0
holds the hand written below (with ``first_turn_no_draw`` it holds one card
more than ``hand_size`` and plays at once): two decks and up to six jokers,
long runs, and the options that make the engine search (a first-meld
minimum, a concealed round). For each case the script times, in CPU time:

- ``legal_moves`` cold (the engine's meld caches emptied first) and warm;
- the validation of one meld (`apply`): the largest listed meld, and a meld
  the rules refuse, each cold.

``--search N`` also tries N random hands of jokers and runs per case and
reports the worst one found (how the cases below were chosen).

The garbage collector is set as in a serving worker (`tune_gc_for_serving`:
what is loaded frozen, higher thresholds), where these calls run; with
``--default-gc`` it keeps Python's defaults, under which a full collection
walking every loaded object now and then adds 10-20 ms to one call.

    .venv/bin/python bench/worst_case.py [--repeat 7] [--search 0] [--default-gc]

Results and the machine they ran on: docs/performance.md.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.rules import engine, melds
from service.rules import search as finish_search
from service.rules.cards import build_deck
from service.rules.engine import SeatSpec, legal_moves, new_game
from service.rules.moves import IllegalMove, Meld, Move
from service.rules.options import resolve_options
from service.rules.state import GameState
from service.serving.gc_tuning import tune_gc_for_serving

RUNS = "JK JK JK JK C7 C8 C9 C10 CJ CQ C3 C4 C5 C6"
#: (name, overrides of `romme` (two decks, six jokers, 13 cards, first meld 40), hand)
CASES: list[tuple[str, dict[str, object], str]] = [
    ("romme as is, 4 jokers and a long run", {}, RUNS),
    ("romme, 6 jokers", {}, "JK JK JK JK JK JK H2 H3 H4 H5 H6 H7 H8 S2"),
    ("no first-meld minimum", {"first_meld_min_points": 0}, RUNS),
    ("first meld 90", {"first_meld_min_points": 90}, RUNS),
    ("first meld 100", {"first_meld_min_points": 100}, RUNS),
    ("first meld 150 (the bound)", {"first_meld_min_points": 150}, RUNS),
    ("concealed round", {"concealed_rounds": [1]}, RUNS),
    (
        "concealed round, first meld 70",
        {"concealed_rounds": [1], "first_meld_min_points": 70},
        RUNS,
    ),
    (
        "concealed round, first meld 150",
        {"concealed_rounds": [1], "first_meld_min_points": 150},
        RUNS,
    ),
]


def deal(overrides: dict[str, object], hand: Sequence[str]) -> GameState:
    """A `romme` game whose first player holds ``hand`` and is to play."""
    options = resolve_options("romme", overrides, 2)
    rest = Counter(build_deck(options.decks, options.jokers))
    rest.subtract(hand)
    assert all(n >= 0 for n in rest.values()), hand
    others = list(rest.elements())
    size = options.hand_size_for(2)
    mine = list(hand)
    deck: list[str] = []
    for i in range(2 * size):  # dealt one at a time, seat 0 first (seat 1 deals)
        deck.append(mine.pop(0) if i % 2 == 0 else others.pop())
    deck += mine + others  # the extra card of first_turn_no_draw, then the stock
    state, _ = new_game(options, "romme", [SeatSpec("A"), SeatSpec("B")], deck=deck, first_dealer=1)
    assert state.round is not None and len(state.round.hands[0]) == len(hand)
    return state


def cold() -> None:
    """Empty the engine's caches of melds (with the sets per rank), shapes and meld pools."""
    melds.clear_meld_cache()
    for cached in (finish_search.meld_pool, finish_search.meld_shape):
        cached.cache_clear()


def cpu_ms(work: Callable[[], object], repeat: int, clear: bool) -> list[float]:
    """CPU milliseconds of ``work``, ``repeat`` times (caches emptied first with ``clear``)."""
    times = []
    for _ in range(repeat):
        if clear:
            cold()
        started = time.process_time()
        work()
        times.append(1000 * (time.process_time() - started))
    return times


def validate(state: GameState, move: Move) -> None:
    """`apply` of one move (refused or not): the validation a move request pays for."""
    with contextlib.suppress(IllegalMove):
        engine.apply(state, 0, move)


def measure(name: str, overrides: dict[str, object], hand: Sequence[str], repeat: int) -> str:
    state = deal(overrides, hand)
    listed = legal_moves(state, 0)
    cold_ms = cpu_ms(lambda: legal_moves(state, 0), repeat, clear=True)
    warm_ms = cpu_ms(lambda: legal_moves(state, 0), repeat, clear=False)
    melds_listed = [m for m in listed if isinstance(m, Meld)]
    largest = max(melds_listed, key=lambda m: len(m.cards), default=Meld(("JK", "JK", "JK")))
    refused = Meld(tuple(hand[-3:]))  # three cards of the hand, usually no meld, or a refused one
    accept_ms = cpu_ms(lambda: validate(state, largest), repeat, clear=True)
    refuse_ms = cpu_ms(lambda: validate(state, refused), repeat, clear=True)

    def fmt(times: list[float]) -> str:
        return f"{statistics.median(times):.1f} / {max(times):.1f}"

    return (
        f"| {name} | {len(hand)} | {len(listed)} | {fmt(cold_ms)} | {fmt(warm_ms)} "
        f"| {fmt(accept_ms)} | {fmt(refuse_ms)} |"
    )


def random_hands(rng: random.Random, size: int, count: int) -> list[list[str]]:
    """Hands of 3-6 jokers and runs of 1-3 suits (two decks: at most two copies)."""
    labels = {1: "A", 11: "J", 12: "Q", 13: "K"}
    out = []
    while len(out) < count:
        jokers = rng.randint(3, 6)
        suits = rng.sample("CDHS", rng.randint(1, 3))
        cards: list[str] = []
        while len(cards) < size - jokers:
            suit, start = rng.choice(suits), rng.randint(1, 11)
            for rank in range(start, min(start + rng.randint(2, 7), 14)):
                cards.append(suit + labels.get(rank, str(rank)))
        cards = cards[: size - jokers]
        if max(Counter(cards).values()) <= 2:
            out.append(["JK"] * jokers + cards)
    return out


def search(overrides: dict[str, object], size: int, count: int) -> tuple[float, list[str]]:
    """The worst of ``count`` random hands for these options: (cold ms, hand)."""
    worst: tuple[float, list[str]] = (0.0, [])
    for hand in random_hands(random.Random(1), size, count):
        state = deal(overrides, hand)
        took = cpu_ms(lambda state=state: legal_moves(state, 0), 1, clear=True)[0]  # type: ignore[misc]
        worst = max(worst, (took, hand))
    return worst


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per measurement")
    parser.add_argument("--search", type=int, default=0, help="random hands to try per case")
    parser.add_argument(
        "--default-gc", action="store_true", help="keep the collector's defaults (not a worker's)"
    )
    args = parser.parse_args(argv)
    deal({}, RUNS.split())  # warm the imports
    if not args.default_gc:
        tune_gc_for_serving()
    print(
        "| case | cards | legal moves | listing cold ms (median / max) | listing warm ms "
        "| validate a listed meld, cold | validate a refused meld, cold |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, overrides, hand in CASES:
        print(measure(name, overrides, hand.split(), args.repeat), flush=True)
    if args.search:
        for name, overrides, hand in CASES:
            took, found = search(overrides, len(hand.split()), args.search)
            print(f"search {name}: worst {took:.1f} ms cold with {' '.join(found)}", flush=True)


if __name__ == "__main__":
    main()
