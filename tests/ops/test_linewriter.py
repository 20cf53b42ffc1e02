"""`linewriter.write`: the request line written as `logging` would write it."""

from __future__ import annotations

import io
import logging
import re
import uuid
from collections.abc import Iterator

import pytest

from service.ops import linewriter, request_log
from tests.ops.conftest import LineCatcher


@pytest.fixture
def logger() -> Iterator[logging.Logger]:
    """A fresh logger set up as `request_log.configure_logging` sets up the service's."""
    log = logging.getLogger(f"test.linewriter.{uuid.uuid4().hex}")
    log.setLevel(logging.INFO)
    log.propagate = False
    yield log
    log.handlers.clear()


class FailingStream(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError("disk full")


def test_a_line_handler_alone_gets_the_line_and_a_flush(logger: logging.Logger) -> None:
    class Stream(io.StringIO):
        flushes = 0

        def flush(self) -> None:
            self.flushes += 1

    stream = Stream()
    logger.addHandler(linewriter.LineHandler(stream))
    linewriter.write(logger, '{"a":1}')
    linewriter.write(logger, '{"b":2}')
    assert stream.getvalue() == '{"a":1}\n{"b":2}\n'
    assert stream.flushes == 2


def test_the_same_bytes_as_logging_through_the_handler(logger: logging.Logger) -> None:
    fast, slow = io.StringIO(), io.StringIO()
    handler = linewriter.LineHandler(fast)
    logger.addHandler(handler)
    linewriter.write(logger, '{"x":"é"}')
    handler.setStream(slow)
    logger.info('{"x":"é"}')
    assert fast.getvalue() == slow.getvalue()


def test_any_other_set_up_goes_through_logging(logger: logging.Logger) -> None:
    stream = io.StringIO()
    handler = linewriter.LineHandler(stream)
    logger.addHandler(handler)
    catcher = LineCatcher()
    logger.addHandler(catcher)  # a second handler
    linewriter.write(logger, "one")
    logger.removeHandler(catcher)
    logger.addFilter(lambda record: record.getMessage() != "two")  # a filter
    linewriter.write(logger, "two")
    logger.filters.clear()
    handler.setLevel(logging.WARNING)  # a level the line does not reach
    linewriter.write(logger, "three")
    handler.setLevel(logging.NOTSET)
    handler.setFormatter(logging.Formatter("[%(message)s]"))  # another format
    linewriter.write(logger, "four")
    assert catcher.lines == ["one"]
    assert stream.getvalue() == "one\n[four]\n"


def test_a_failing_stream_is_reported_as_logging_reports_it(
    logger: logging.Logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler = linewriter.LineHandler(FailingStream())
    logger.addHandler(handler)
    reported: list[logging.LogRecord] = []
    monkeypatch.setattr(handler, "handleError", reported.append)
    linewriter.write(logger, "lost")
    (record,) = reported
    assert record.getMessage() == "lost" and record.levelno == logging.INFO


def test_the_service_logger_takes_the_short_way() -> None:
    request_log.configure_logging("INFO")
    (handler,) = [h for h in request_log.logger.handlers if getattr(h, "_rummy_access", False)]
    assert type(handler) is linewriter.LineHandler


def test_request_ids_are_uuid4_hex() -> None:
    ids = {request_log.new_request_id() for _ in range(200)}
    assert len(ids) == 200
    for rid in ids:
        assert re.fullmatch(r"[0-9a-f]{32}", rid)
        assert uuid.UUID(hex=rid).version == 4
        assert uuid.UUID(hex=rid).variant == uuid.RFC_4122


def test_timestamps_are_datetimes_isoformat(monkeypatch: pytest.MonkeyPatch) -> None:
    from datetime import UTC, datetime

    for nanos in (
        1_796_009_278_999_999_999,  # the last nanosecond of a second
        1_796_009_279_000_000_000,  # the next second
        1_796_009_279_000_999_999,
        1_796_009_279_123_456_789,
        1_796_009_279_123_456_789,  # the same second again (kept)
        946_684_799_999_000_000,  # another day
    ):
        monkeypatch.setattr(request_log.time, "time_ns", lambda n=nanos: n)
        expected = datetime.fromtimestamp(nanos // 1000 / 1e6, UTC)
        assert request_log.timestamp() == expected.isoformat(timespec="milliseconds")


def test_the_handler_lock_is_the_operating_systems() -> None:
    import _thread

    handler = linewriter.LineHandler(io.StringIO())
    assert type(handler.lock) is _thread.RLock
