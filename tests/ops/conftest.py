"""Helpers for the operations tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from service.ops import request_log


class LineCatcher(logging.Handler):
    """Keeps every request line logged while it is attached."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())

    def records(self) -> list[dict[str, Any]]:
        """The lines as JSON objects."""
        return [orjson.loads(line) for line in self.lines]


@pytest.fixture
def access_log() -> Iterator[LineCatcher]:
    """The request log lines written during the test."""
    catcher = LineCatcher()
    request_log.logger.addHandler(catcher)
    try:
        yield catcher
    finally:
        request_log.logger.removeHandler(catcher)
