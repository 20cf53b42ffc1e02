"""bench/strength.py: seating, one real game, intervals and the Elo-style fit."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("strength", ROOT / "bench" / "strength.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["strength"] = module
    spec.loader.exec_module(module)
    return module


strength = _bench()


def test_strategies_alternate_and_rotate_around_the_table() -> None:
    assert strength.seating("a", "b", 2, 0) == ("a", "b")
    assert strength.seating("a", "b", 2, 1) == ("b", "a")
    assert strength.seating("a", "b", 4, 0) == ("a", "b", "a", "b")
    assert strength.seating("a", "b", 4, 1) == ("b", "a", "b", "a")


def test_a_game_is_played_to_its_end_and_reported() -> None:
    result = strength.play("standard-2", "greedy", "random", 3, 20, True)
    assert result.wins_a in (0.0, 0.5, 1.0) and result.rounds >= 1
    assert result.seats == ("random", "greedy")  # seed 3: rotated
    assert result.expert_ms == ()  # no expert seat: nothing timed
    table = strength.summarise([result])
    assert "| standard-2 | greedy vs random | 1 |" in table


def _game(a: str, b: str, share: float) -> object:
    return strength.Result("standard-2", a, b, 0, (a, b), share, 1, 1, 0.0, ())


def test_ratings_follow_the_logistic_scale_with_random_at_zero() -> None:
    games = [_game("greedy", "random", 1.0 if i % 4 else 0.0) for i in range(400)]
    elo = strength.ratings(games)
    assert elo["random"] == 0
    assert math.isclose(elo["greedy"], 400 * math.log10(3), abs_tol=1.0)  # 75 %: +191


def test_wilson_interval_brackets_the_rate() -> None:
    lo, hi = strength.wilson(600, 1000)
    assert 0.569 < lo < 0.570 and 0.629 < hi < 0.630
