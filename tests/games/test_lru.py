"""`service.games.lru.Lru`: the request path's per-process LRU maps."""

from __future__ import annotations

from service.games.lru import Lru


def test_the_least_recently_used_entry_is_forgotten_first() -> None:
    kept: Lru[str, int] = Lru(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # now the most recent
    kept.put("c", 3)
    assert kept.get("b") is None
    assert (kept.get("a"), kept.get("c"), len(kept)) == (1, 3, 2)
    assert kept.values() == [1, 3]


def test_putting_a_kept_key_again_makes_it_the_most_recent() -> None:
    kept: Lru[str, int] = Lru(2)
    kept.put("a", 1)
    kept.put("b", 2)
    kept.put("a", 10)
    kept.put("c", 3)
    assert (kept.get("a"), kept.get("b"), kept.get("c")) == (10, None, 3)
