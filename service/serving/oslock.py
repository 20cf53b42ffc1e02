"""Locks of the operating system's, even in a gevent-patched process.

In a gevent worker `threading.Lock` and `threading.RLock` are gevent's, whose
acquire and release run in Python: many times the instructions of the
operating system's (counted under valgrind; docs/performance.md, "What every
request costs"). A lock from here suits a section that never switches
greenlets while held (no I/O that gevent makes cooperative, no sleep): there
it excludes other threads, as it should, and another greenlet can never find
it taken. The request log's handler and the hot metrics' files use them.
"""

from __future__ import annotations

import _thread
from typing import Any


def _original(name: str) -> Any:
    try:
        from gevent.monkey import get_original
    except ImportError:  # pragma: no cover - gevent is a dependency
        return getattr(_thread, name)
    return get_original("_thread", name)


def os_lock() -> Any:
    """A new `_thread` lock (not gevent's)."""
    return _original("allocate_lock")()


def os_rlock() -> Any:
    """A new reentrant `_thread` lock (not gevent's)."""
    return _original("RLock")()
