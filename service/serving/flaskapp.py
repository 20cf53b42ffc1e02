"""The Flask class of the service: Flask, minus a check it repeats on every request."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from flask import Flask


class ServiceFlask(Flask):
    """`Flask` that remembers which handlers are coroutine functions.

    Flask asks `ensure_sync` about every hook and view of a request (about 24
    times), and each answer walks `inspect.iscoroutinefunction`: a few percent
    of a move's CPU in profiles. Plain functions never change kind, so their
    answer is kept; anything else (partials, callables) is checked each time.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._is_coroutine: dict[Callable[..., Any], bool] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """`Flask.ensure_sync`, with the answer kept per plain function."""
        # A bound method is a new object on every access: key on its function.
        target = getattr(func, "__func__", func)
        if not inspect.isfunction(target):
            return super().ensure_sync(func)
        is_coroutine = self._is_coroutine.get(target)
        if is_coroutine is None:
            is_coroutine = self._is_coroutine[target] = inspect.iscoroutinefunction(func)
        return self.async_to_sync(func) if is_coroutine else func
