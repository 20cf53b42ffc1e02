"""Speed: a result kept per argument *object*, for the encoders of immutable parts of a state.

Why (the measurement): a move encodes the whole new state for its save and
builds the public part of its answer's view, yet most of the state's parts are
the very objects of the state before it (the engine rebuilds only what the
move changed: one hand, the discard pile, perhaps a meld; decoding shares equal
parts through its own caches). Keyed by value (`functools.lru_cache`), each
lookup hashed the frozen dataclass field by field, which cost about as much as
the encoding it saved; keyed by identity it is one dict lookup. With this and
`service.games.lru` alone a move took noticeably fewer instructions in-process
(`bench/wsgi_calls.py --phase moves` under valgrind; docs/performance.md, "What
a move costs", has the figures).

The one seam: the `by_identity` decorator on the functions that encode a
state's parts (`service.rules.state`) and build the view of a table meld
(`service.rules.views`). Their arguments are immutable (frozen dataclasses,
tuples), so an object's result never changes; each entry holds its object,
so an id is never reused while it is kept. The results are shared: callers
only read them (orjson serialises them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def by_identity(size: int) -> Callable[[F], F]:
    """Keep `function(obj, *rest)` per object `obj` and values `rest` (hashable), at
    most `size` of them (when full, all are dropped: rare, and simpler than an LRU)."""

    def decorate(function: F) -> F:
        kept: dict[Any, tuple[Any, Any]] = {}

        def remembered(obj: Any, *rest: Any) -> Any:
            key = (id(obj), *rest) if rest else id(obj)
            found = kept.get(key)
            if found is not None and found[0] is obj:
                return found[1]
            result = function(obj, *rest)
            if len(kept) >= size:
                kept.clear()
            kept[key] = (obj, result)
            return result

        remembered.__doc__ = function.__doc__
        remembered.__name__ = function.__name__
        remembered.__wrapped__ = function  # type: ignore[attr-defined]
        remembered.kept = kept  # type: ignore[attr-defined]
        return remembered  # type: ignore[return-value]

    return decorate
