"""Errors in a service log: tracebacks, gunicorn ERROR/CRITICAL lines, 5xx request lines."""

from __future__ import annotations

import re

_ERROR = re.compile(
    r"Traceback \(most recent call last\)|\[(ERROR|CRITICAL)\]|\"status\":5\d\d|WORKER TIMEOUT"
)


def error_lines(log: str) -> list[str]:
    """The lines of `log` that report an error (at most 20)."""
    return [line for line in log.splitlines() if _ERROR.search(line)][:20]
