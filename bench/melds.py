"""Median time of the meld search on random hands (seeded).

Run: ``python bench/melds.py`` (from the project root, in the project's venv).

Cases, matching the engine's legal_moves budgets:
- 11 cards, one deck, no jokers, 4 melds on the table (budget 200 µs for all of legal_moves);
- 14 cards, two decks and 2 jokers in hand, 4 melds on the table (budget 1 ms).
Each sample times one call on a fresh hand; the median over all samples is printed.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.rules.cards import JOKER, Card, build_deck
from service.rules.melds import (
    ACE_MODES,
    MeldShape,
    candidate_layoffs,
    candidate_melds,
    make_meld,
)

SAMPLES = 2000


def _table(rng: random.Random, deck: list[Card], ace: str, count: int) -> dict[int, MeldShape]:
    """``count`` melds drawn from ``deck`` (removing their cards from it)."""
    shapes: dict[int, MeldShape] = {}
    while len(shapes) < count:
        options = candidate_melds(rng.sample(deck, 20), ace)
        natural = [m for m in options if JOKER not in m]
        if not natural:
            continue
        cards = rng.choice(natural)
        shape = make_meld(cards, ace)
        assert shape is not None
        for c in cards:
            deck.remove(c)
        shapes[len(shapes) + 1] = shape
    return shapes


def _case(
    rng: random.Random, ace: str, hand_size: int, decks: int, jokers: int
) -> tuple[list[Card], dict[int, MeldShape]]:
    deck = build_deck(decks, 0)
    rng.shuffle(deck)
    shapes = _table(rng, deck, ace, 4)
    hand = deck[: hand_size - jokers] + [JOKER] * jokers
    rng.shuffle(hand)
    return hand, shapes


def _median_us(samples: list[int]) -> float:
    return statistics.median(samples) / 1000


def main() -> None:
    """Print the median µs of candidate_melds and candidate_layoffs per case and ace mode."""
    rng = random.Random(20261130)
    cases = [("11 cards, 0 jokers", 11, 1, 0), ("14 cards, 2 jokers", 14, 2, 2)]
    print(f"{'case':<20} {'ace':<12} {'melds µs':>9} {'layoffs µs':>11} {'both µs':>8}")
    for name, hand_size, decks, jokers in cases:
        for ace in ACE_MODES:
            inputs = [_case(rng, ace, hand_size, decks, jokers) for _ in range(SAMPLES)]
            melds_ns: list[int] = []
            layoffs_ns: list[int] = []
            for hand, shapes in inputs:
                t0 = time.perf_counter_ns()
                candidate_melds(hand, ace)
                t1 = time.perf_counter_ns()
                candidate_layoffs(hand, shapes, ace)
                t2 = time.perf_counter_ns()
                melds_ns.append(t1 - t0)
                layoffs_ns.append(t2 - t1)
            both = [a + b for a, b in zip(melds_ns, layoffs_ns, strict=True)]
            print(
                f"{name:<20} {ace:<12} {_median_us(melds_ns):9.1f} "
                f"{_median_us(layoffs_ns):11.1f} {_median_us(both):8.1f}"
            )


if __name__ == "__main__":
    main()
