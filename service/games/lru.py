"""The per-process LRU maps of the request path (decoded states, listings, public views).

Speed: each entry is read and kept without a lock. In a gevent worker the
lock was gevent's, a Python-level object whose acquire and release cost
more than the lookup they guarded (several uses a move). Every step here
is one call into `OrderedDict`, which the GIL keeps whole under threads
(gthread), and the only race between steps, an entry
evicted between its lookup and its move to the end, is caught: at worst a
cache under threads keeps one entry fewer for a moment. Measured with
`bench/wsgi_calls.py` (docs/performance.md, "What a move costs").
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """At most `size` entries, the least recently used forgotten first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def values(self) -> list[V]:
        """The values kept, the least recently used first."""
        return list(self._entries.values())

    def get(self, key: K) -> V | None:
        """The value kept for `key` (now the most recent), or `None`."""
        value = self._entries.get(key)
        if value is not None:
            try:  # noqa: SIM105 - `contextlib.suppress` costs more than the lookup
                self._entries.move_to_end(key)
            except KeyError:  # evicted by another thread meanwhile
                pass
        return value

    def put(self, key: K, value: V) -> None:
        """Keep `value` for `key` as the most recent entry, forgetting the oldest past `size`."""
        entries = self._entries
        entries[key] = value
        try:  # noqa: SIM105 - as in `get`
            entries.move_to_end(key)
        except KeyError:  # evicted by another thread meanwhile
            pass
        while len(entries) > self.size:
            try:
                entries.popitem(last=False)
            except KeyError:  # emptied by another thread
                break
