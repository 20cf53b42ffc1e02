"""Speed: the metrics every request records, without prometheus_client's lock.

Why (the measurement): in multi-process mode each increment of a
prometheus_client value takes the library's one process-wide lock (in a
gevent worker gevent's lock, acquired and released in Python), asks the
kernel for the process id (to notice a fork) and writes the metric file. A
histogram observation is two such increments, and a move observes three
histograms (the request's duration, the store's load and save) and counts
itself. docs/performance.md, "What every request costs", has the counts
(valgrind) and the command.

The one seam: `HotHistogram(metric, labelnames, buckets).labels(*values)` and
`HotCounter(metric, labelnames).labels(*values)` give a child with
``observe(seconds)`` or ``inc()``, kept per label values.

- Without multi-process mode (no ``PROMETHEUS_MULTIPROC_DIR`` when
  prometheus_client was imported) the child is prometheus_client's own.
- In multi-process mode the child's values live in this process's own file
  ``<type>_<pid>_hot.db`` of that directory, in prometheus_client's format
  (its `MmapedDict`, the keys its own values would have). ``/metrics`` sums
  every file of the directory (`MultiProcessCollector`), so a scrape answered
  by any worker counts every observation as soon as it is made, as before.
  A child's series appear, at zero, when it is made, as prometheus_client's do.
- Each write holds a lock of the operating system's, not gevent's: nothing
  between its acquire and release can switch greenlets, and threads (the
  gthread worker) still write one at a time.
- A forked child process starts its values over in its own file
  (`os.register_at_fork`), as prometheus_client's values do after a fork.
- The observations are durations: finite numbers (no NaN), which fall in the
  first bucket whose bound is at least the value, as prometheus_client places them.
"""

from __future__ import annotations

import os
import struct
import threading
from bisect import bisect_left
from collections.abc import Sequence
from typing import Final, Generic, Protocol, TypeVar, cast

from prometheus_client import Counter, Histogram, values
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.mmap_dict import MmapedDict, mmap_key
from prometheus_client.utils import floatToGoString

from service.serving.multiproc import ENV_VAR
from service.serving.oslock import os_lock

#: Suffix of this module's files in the metrics directory.
FILE_SUFFIX: Final = "hot"


_lock: Final = os_lock()
#: Held while a child is made, so that two threads cannot make the same one.
_making: Final = threading.Lock()
#: This process's open files by metric type; emptied in a forked child.
_files: dict[str, MmapedDict] = {}
#: Bumped in a forked child, so that each child's values start over.
_generation = [0]


def _after_fork() -> None:
    _files.clear()  # the parent's files: this process opens its own
    _generation[0] += 1


os.register_at_fork(after_in_child=_after_fork)


def multiprocess() -> bool:
    """Whether prometheus_client keeps its values in files (decided when it
    was imported, from ``PROMETHEUS_MULTIPROC_DIR``)."""
    return values.ValueClass is not values.MutexValue


def file_name(kind: str, pid: int) -> str:
    """The name of process ``pid``'s file for metrics of ``kind`` (``counter``…)."""
    return f"{kind}_{pid}_{FILE_SUFFIX}.db"


def _file(kind: str) -> MmapedDict:
    """This process's file for ``kind`` (the lock held)."""
    found = _files.get(kind)
    if found is None:
        path = os.path.join(os.environ[ENV_VAR], file_name(kind, os.getpid()))
        found = _files[kind] = MmapedDict(path)  # type: ignore[no-untyped-call]
    return found


#: How prometheus_client's `MmapedDict` writes a value and its timestamp.
_TWO_DOUBLES: Final = struct.Struct("dd")


class _Floats:
    """Some floats of one metric kind in this process's file, with their totals.

    Speed: a float is written at its offset in the file's memory map, as
    `MmapedDict.write_value` writes it, without that method's two Python calls
    (an observation, two writes, costs noticeably less so; counted under
    valgrind: docs/performance.md, "What a move costs", has the figures).
    The offsets are `MmapedDict`'s own (an entry never moves once made), read
    when the file is opened, and the map is read from it at each write (it is
    replaced when the file grows); a `MmapedDict` without them (another
    prometheus_client) is written through `write_value`.
    """

    __slots__ = ("file", "generation", "keys", "kind", "positions", "totals")

    def __init__(self, kind: str, keys: list[str]) -> None:
        self.kind = kind
        self.keys = keys
        with _lock:
            self.load()

    def load(self) -> None:
        """Open this process's file and read the totals (the lock held)."""
        self.generation = _generation[0]
        self.file = _file(self.kind)
        read = self.file.read_value
        # Reading a value makes its entry if it is missing: every key has an offset after.
        self.totals = [read(key)[0] for key in self.keys]  # type: ignore[no-untyped-call]
        offsets = getattr(self.file, "_positions", None)
        if isinstance(offsets, dict) and hasattr(self.file, "_m"):
            self.positions: list[int] | None = [offsets[key] for key in self.keys]
        else:
            self.positions = None

    def write(self, index: int, total: float) -> None:
        """Write ``total`` as float ``index`` (the lock held)."""
        positions = self.positions
        if positions is None:
            self.file.write_value(self.keys[index], total, 0.0)  # type: ignore[no-untyped-call]
        else:
            at = positions[index]
            self.file._m[at : at + 16] = _TWO_DOUBLES.pack(total, 0.0)

    def add(self, index: int, amount: float) -> None:
        """Add ``amount`` to float ``index`` and write it (the lock held)."""
        if self.generation != _generation[0]:
            self.load()
        total = self.totals[index] = self.totals[index] + amount
        self.write(index, total)


class HistogramChild(Protocol):
    """What a histogram's child offers here."""

    def observe(self, amount: float) -> None:
        """Record one observation."""


class CounterChild(Protocol):
    """What a counter's child offers here."""

    def inc(self) -> None:
        """Count one."""


_Child = TypeVar("_Child")


class _HotHistogramChild:
    """One labelled histogram's values in this process's file."""

    __slots__ = ("bounds", "floats")

    def __init__(self, bounds: list[float], floats: _Floats) -> None:
        self.bounds = bounds
        self.floats = floats  # the sum, then one count per bucket

    def observe(self, amount: float) -> None:
        """Record one observation: the sum, and its bucket's count."""
        bucket = bisect_left(self.bounds, amount) + 1
        floats = self.floats
        with _lock:
            if floats.generation != _generation[0]:
                floats.load()
            totals, positions = floats.totals, floats.positions
            total = totals[0] = totals[0] + amount
            count = totals[bucket] = totals[bucket] + 1.0
            if positions is None:
                floats.write(0, total)
                floats.write(bucket, count)
            else:  # `_Floats.write`, written out: three observations a move
                memory, at = floats.file._m, positions[0]
                memory[at : at + 16] = _TWO_DOUBLES.pack(total, 0.0)
                at = positions[bucket]
                memory[at : at + 16] = _TWO_DOUBLES.pack(count, 0.0)


class _HotCounterChild:
    """One labelled counter's value in this process's file."""

    __slots__ = ("floats",)

    def __init__(self, floats: _Floats) -> None:
        self.floats = floats

    def inc(self) -> None:
        """Count one."""
        with _lock:
            self.floats.add(0, 1.0)


class _HotFamily(Generic[_Child]):
    """The children of one labelled metric, each made once per label values."""

    def __init__(self, metric: MetricWrapperBase, labelnames: Sequence[str]) -> None:
        self.metric = metric
        self.labelnames = list(labelnames)
        (family,) = metric.describe()
        self.name: str = family.name
        self.documentation: str = family.documentation
        self._children: dict[tuple[str, ...], _Child] = {}

    def labels(self, *labelvalues: str) -> _Child:
        """The child of these label values (made once)."""
        child = self._children.get(labelvalues)
        if child is None:
            with _making:
                child = self._children.get(labelvalues)
                if child is None:
                    child = self._children[labelvalues] = self._make(list(labelvalues))
        return child

    def _make(self, labelvalues: list[str]) -> _Child:
        raise NotImplementedError


class HotHistogram(_HotFamily[HistogramChild]):
    """The children of a labelled `Histogram` (see the module docstring)."""

    def __init__(self, metric: Histogram, labelnames: Sequence[str], buckets: Sequence[float]):
        super().__init__(metric, labelnames)
        bounds = [float(bound) for bound in buckets]
        if bounds[-1] != float("inf"):
            bounds.append(float("inf"))
        self.bounds = bounds

    def _make(self, labelvalues: list[str]) -> HistogramChild:
        if not multiprocess():
            made: HistogramChild = cast(Histogram, self.metric).labels(*labelvalues)
            return made
        name, names, doc = self.name, self.labelnames, self.documentation
        keys = [mmap_key(name, name + "_sum", names, labelvalues, doc)]
        for bound in self.bounds:
            keys.append(
                mmap_key(
                    name,
                    name + "_bucket",
                    [*names, "le"],
                    [*labelvalues, floatToGoString(bound)],  # type: ignore[no-untyped-call]
                    doc,
                )
            )
        return _HotHistogramChild(self.bounds, _Floats("histogram", keys))


class HotCounter(_HotFamily[CounterChild]):
    """The children of a labelled `Counter` (see the module docstring)."""

    def __init__(self, metric: Counter, labelnames: Sequence[str]) -> None:
        super().__init__(metric, labelnames)

    def _make(self, labelvalues: list[str]) -> CounterChild:
        if not multiprocess():
            made: CounterChild = cast(Counter, self.metric).labels(*labelvalues)
            return made
        key = mmap_key(
            self.name, self.name + "_total", self.labelnames, labelvalues, self.documentation
        )
        return _HotCounterChild(_Floats("counter", [key]))
