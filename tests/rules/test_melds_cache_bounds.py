"""The rules' memo tables are bounded by what they hold: a client dealing itself
many distinct hands of jokers and long runs cannot grow a worker without end."""

from __future__ import annotations

import pytest

from service.rules import melds, search
from service.rules.cards import NATURAL_CARDS

JOKER_HANDS = [
    ("JK", "JK", *NATURAL_CARDS[start : start + 9]) for start in range(0, 40, 1)
]  # 40 distinct 11-card hands of two jokers and a run


def test_the_meld_lists_kept_are_emptied_before_they_pass_their_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    melds.clear_meld_cache()
    one = len(melds.candidate_meld_points(JOKER_HANDS[0], "low"))
    monkeypatch.setattr(melds, "MELD_CACHE_MELDS", 3 * one)
    melds.clear_meld_cache()
    highest = 0
    for hand in JOKER_HANDS:
        melds.candidate_meld_points(hand, "low")
        highest = max(highest, melds.meld_cache_held())
        assert melds.meld_cache_held() == sum(len(v) for v in melds._MELD_CACHE.values())
    assert one > 0 and 2 * one <= highest <= 3 * one  # filled up to the bound, never past it
    melds.clear_meld_cache()


def test_only_the_last_meld_pools_are_kept() -> None:
    search.meld_pool.cache_clear()
    for hand in JOKER_HANDS:
        search.meld_pool(hand, "low")
    assert search.meld_pool.cache_info().currsize == search.MELD_POOLS_KEPT < len(JOKER_HANDS)
    search.meld_pool.cache_clear()
