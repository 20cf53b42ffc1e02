"""Garbage-collector settings for a serving process.

A worker's loaded app (Flask, marshmallow, the OpenAPI spec, gevent, the rules'
tables) is tens of thousands of objects that live as long as the process, and
every full collection walked all of them, with the worker's requests waiting
(moves' p99 latency rose with it). `tune_gc_for_serving` moves them out of
the collector's sight once the app is loaded (`gc.freeze`), lets more young
objects pile up before a collection (a move allocates thousands of short-lived
objects, and each collection also promotes whatever the requests in flight hold
at that moment), and collects the middle generation often, in short pauses: it
holds what the per-process caches kept since its last collection, and walking
twenty young collections' worth of it at once stopped every request of the
worker long enough to set the moves' p99. All measured in docs/performance.md, "Worker set-up",
which has the figures.
"""

from __future__ import annotations

import gc
from typing import Final

#: `gc.set_threshold` for serving (a generation is collected once its count
#: exceeds its threshold): young collections every 2,000 net allocations
#: instead of 700; a middle one after every 3 young ones instead of every 11
#: (shorter pauses than after every 21, a lower p99 of the moves and as many
#: moves: `bench.tail`, docs/performance.md, "Worker set-up"); and a full one
#: considered after every 701 middle ones, about every 2,100 young ones (it
#: also waits, as always, until a quarter more objects than its last one kept
#: have aged into the oldest generation). A full collection walks every live
#: object not frozen, each open stream's among them, with every request of the
#: worker waiting: considered every 231 young ones, a worker holding 1,000
#: streams ran several times as many during the moves (`bench.streams`;
#: docs/performance.md, "Open event streams", has the counts).
THRESHOLDS: Final = (2000, 2, 700)


def tune_gc_for_serving() -> None:
    """Freeze what exists now (call once the app is loaded) and raise the thresholds."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
