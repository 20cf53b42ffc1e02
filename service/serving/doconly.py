"""flask-smorest's documentation-only decorators without their wrappers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])


def doc_only(decorator: Callable[[_F], _F]) -> Callable[[_F], _F]:
    """`decorator`'s documentation without its wrapper around the view.

    flask-smorest's `alt_response` and `doc` wrap the view in a function that
    only calls it, to hold a copy of its `_apidoc` (the documentation its
    decorators keep on a view, checked on the version `versions.py` names); an
    operation with ten documented answers ran ten such layers per request. The
    copy is kept on the view itself instead (each view function belongs to
    one operation).
    """

    def apply(func: _F) -> _F:
        wrapper = decorator(func)
        if getattr(wrapper, "__wrapped__", None) is not func:
            return wrapper
        func._apidoc = wrapper._apidoc  # type: ignore[attr-defined]
        return func

    return apply
