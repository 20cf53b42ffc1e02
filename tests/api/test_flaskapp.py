"""`ServiceFlask.ensure_sync` keeps Flask's answers while checking each function once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from service.serving import flaskapp
from service.serving.flaskapp import ServiceFlask


def test_plain_functions_are_checked_once_and_returned_as_they_are(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: list[object] = []
    real = flaskapp.inspect.iscoroutinefunction

    def counting(func: object) -> bool:
        checked.append(func)
        return real(func)

    monkeypatch.setattr(flaskapp.inspect, "iscoroutinefunction", counting)
    app = ServiceFlask("t")

    def hook() -> None:
        return None

    class View:
        def get(self) -> None:
            return None

    view = View()
    for _ in range(3):
        assert app.ensure_sync(hook) is hook
        bound = view.get  # a new bound method on every access
        assert app.ensure_sync(bound) == bound
    assert len(checked) == 2


def test_coroutine_functions_are_still_wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    app = ServiceFlask("t")
    wrapped: list[Callable[..., Any]] = []

    def to_sync(func: Callable[..., Any]) -> Callable[..., Any]:
        wrapped.append(func)
        return lambda: "sync"

    monkeypatch.setattr(app, "async_to_sync", to_sync)

    async def view() -> str:
        return "async"

    for _ in range(2):
        assert app.ensure_sync(view)() == "sync"
    assert wrapped == [view, view]


def test_other_callables_are_checked_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import functools

    app = ServiceFlask("t")

    def add(a: int, b: int) -> int:
        return a + b

    partial = functools.partial(add, 1)
    assert app.ensure_sync(partial) is partial
    assert partial not in app._is_coroutine  # partials are not kept (new ones each time)
