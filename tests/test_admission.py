"""Admission: a few requests run at a time, the others in arrival order."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any
from unittest import mock

import pytest

from service import admission
from service.admission import ENVIRON_KEY, Admission, Turn, Turns, waiting


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.001)


def queue_takers(turns: Turns, names: list[str], order: list[str]) -> list[threading.Thread]:
    """One thread per name, each queued for a turn only after the previous one is."""
    threads = []
    for name in names:
        queued = turns.waiting

        def take(name: str = name) -> None:
            assert turns.take(timeout=10)
            order.append(name)

        thread = threading.Thread(target=take)
        thread.start()
        wait_until(lambda queued=queued: turns.waiting == queued + 1)  # type: ignore[misc]
        threads.append(thread)
    return threads


def test_turns_go_to_waiters_in_the_order_they_asked() -> None:
    turns = Turns(1)
    assert turns.take()
    order: list[str] = []
    threads = queue_takers(turns, ["first", "second", "third"], order)
    for expected in ("first", "second", "third"):
        turns.give_back()
        wait_until(lambda expected=expected: expected in order)  # type: ignore[misc]
    assert order == ["first", "second", "third"]
    for thread in threads:
        thread.join()


def test_a_request_handed_a_turn_lets_the_loop_poll_first() -> None:
    turns = Turns(1)
    pauses: list[float] = []
    with mock.patch.object(admission.time, "sleep", side_effect=pauses.append):
        assert turns.take()  # a free turn: no pause
        assert pauses == []
        threads = queue_takers(turns, ["waiter"], [])
        turns.give_back()
        threads[0].join(10)
    assert pauses == [admission.HANDOVER_PAUSE]


def test_a_request_killed_in_its_pause_passes_its_turn_on() -> None:
    turns = Turns(1)
    assert turns.take()
    with mock.patch.object(admission.time, "sleep", side_effect=Interrupted):
        thread, errors = start_doomed_waiter(turns)
        turns.give_back()
        thread.join(10)
    assert errors
    assert turns.take(timeout=0), "the turn of the killed request was lost"


def test_a_returned_turn_cannot_be_taken_past_a_waiter() -> None:
    turns = Turns(1)
    assert turns.take()
    order: list[str] = []
    threads = queue_takers(turns, ["waiter"], order)
    turns.give_back()
    # The turn went to the waiter, even if it has not run yet.
    assert turns.take(timeout=0) is False
    threads[0].join()
    assert order == ["waiter"]


def test_several_turns_are_free_at_once_and_a_late_waiter_gives_up() -> None:
    turns = Turns(2)
    assert turns.take(timeout=0) and turns.take(timeout=0)
    assert turns.take(timeout=0.01) is False
    assert turns.waiting == 0  # a waiter that gave up left the queue
    turns.give_back()
    assert turns.take(timeout=0)


class Interrupted(Exception):
    """What gevent raises in a greenlet it kills (GreenletExit) or times out."""


class KilledOnWake(Turns):
    """Turns whose waiter is killed just as a turn is handed to it."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.handed = threading.Event()

    def _new_event(self) -> threading.Event:
        handed = self.handed

        class DiesOnWake(threading.Event):
            def wait(self, timeout: float | None = None) -> bool:
                handed.wait(10)  # a turn is handed over, then the waiter dies
                raise Interrupted

        return DiesOnWake()


def start_doomed_waiter(turns: Turns) -> tuple[threading.Thread, list[BaseException]]:
    """A thread queued for a turn, and the `Interrupted` errors it meets."""
    errors: list[BaseException] = []

    def take() -> None:
        try:
            turns.take()
        except Interrupted as exc:
            errors.append(exc)

    thread = threading.Thread(target=take)
    thread.start()
    wait_until(lambda: turns.waiting == 1)
    return thread, errors


def test_a_waiter_killed_as_it_is_handed_a_turn_passes_it_on() -> None:
    turns = KilledOnWake(1)
    assert turns.take()
    thread, errors = start_doomed_waiter(turns)
    turns.give_back()  # to the waiter...
    turns.handed.set()  # ...which dies on waking
    thread.join(10)
    assert errors and turns.waiting == 0
    assert turns.take(timeout=0), "the turn handed to the dead waiter was lost"


def test_a_waiter_killed_before_its_turn_leaves_the_queue() -> None:
    turns = KilledOnWake(1)
    assert turns.take()
    thread, errors = start_doomed_waiter(turns)
    turns.handed.set()  # dies with no turn handed
    thread.join(10)
    assert errors and turns.waiting == 0
    turns.give_back()
    assert turns.take(timeout=0)


def test_a_worker_needs_a_turn() -> None:
    with pytest.raises(ValueError):
        Turns(0)


def recording_app(seen: list[Turn]) -> Callable[..., Iterable[bytes]]:
    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        turn = environ[ENVIRON_KEY]
        assert turn.held
        seen.append(turn)
        if environ.get("PATH_INFO") == "/fail":
            raise RuntimeError("the app failed")
        start_response("200 OK", [])
        return [b"ok"]

    return app


def test_the_middleware_runs_the_app_in_a_turn_and_gives_it_back() -> None:
    seen: list[Turn] = []
    admission = Admission(recording_app(seen), 1)
    assert list(admission({"PATH_INFO": "/"}, lambda *args: None)) == [b"ok"]
    with pytest.raises(RuntimeError):
        admission({"PATH_INFO": "/fail"}, lambda *args: None)
    assert [turn.held for turn in seen] == [False, False]
    assert admission.turns.take(timeout=0)  # the one turn is free again


def test_a_long_poll_gives_its_turn_to_others_while_it_waits() -> None:
    turns = Turns(1)
    turn = Turn(turns)
    turn.take()
    environ = {ENVIRON_KEY: turn}
    with waiting(environ):
        assert not turn.held
        assert turns.take(timeout=0)  # another request runs meanwhile
        turns.give_back()
    assert turn.held
    turn.give_back()
    with waiting({}):  # outside admission (tests, other workers): nothing to give
        pass
