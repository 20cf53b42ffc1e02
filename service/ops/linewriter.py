"""Speed: the request log's line written straight to its stream.

Why (the measurement): ``logger.info(line)`` builds a `logging.LogRecord`
(the time again, the thread's and process's names and ids, the caller's file
and line found by walking the stack), then the handler formats it through
``%(message)s`` to the very string it was given: for `/healthz`, whose
answer is a constant, a large share of the request's instructions inside the
app (``bench/wsgi_calls.py --phase hello`` under valgrind; the figures are in
docs/performance.md, "What every request costs").

The one seam, :func:`write`: when the logger would hand the line to nothing
but a :class:`LineHandler` (its only handler, no filters on the logger or
the handler, the handler's level and formatter untouched, no propagation),
the line and the handler's terminator go to the handler's stream under the
handler's lock and the stream is flushed: what `logging.StreamHandler.emit`
does with that record. Any other set-up (a test's extra handler, a filter,
another formatter) takes ``logger.info`` unchanged.
"""

from __future__ import annotations

import logging
from typing import Final, TextIO

from service.serving.oslock import os_rlock

#: The one format of the request lines: the message alone.
BARE: Final = logging.Formatter("%(message)s")


class LineHandler(logging.StreamHandler[TextIO]):
    """A `logging.StreamHandler` whose records are their bare message (one
    JSON document each); :func:`write` may bypass the record.

    Its lock is the operating system's (`service.serving.oslock`), not gevent's:
    writing a line to the stream never switches greenlets.
    """

    def __init__(self, stream: TextIO) -> None:
        super().__init__(stream)
        self.setFormatter(BARE)

    def createLock(self) -> None:
        """The handler's lock: a reentrant lock of the operating system's
        (logging's own set-up first: it renews the lock in a forked child)."""
        super().createLock()
        self.lock = os_rlock()


def write(logger: logging.Logger, line: str) -> None:
    """Log ``line`` at ``INFO`` on ``logger``, which the caller has found
    enabled for ``INFO`` (``logger.isEnabledFor``) before building the line."""
    handlers = logger.handlers
    if len(handlers) == 1 and not logger.filters and not logger.propagate:
        handler = handlers[0]
        if (
            type(handler) is LineHandler
            and handler.formatter is BARE
            and not handler.filters
            and handler.level <= logging.INFO
        ):
            stream = handler.stream
            try:
                with handler.lock:  # type: ignore[union-attr]
                    stream.write(line + handler.terminator)
                    stream.flush()
            except RecursionError:
                raise
            except Exception:
                record = logger.makeRecord(logger.name, logging.INFO, "", 0, line, (), None)
                handler.handleError(record)
            return
    logger.info(line)
