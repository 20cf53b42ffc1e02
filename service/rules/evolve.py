"""Speed: `evolve`, ``dataclasses.replace`` for the engine's frozen, slotted state classes.

Why (the measurement): every move rebuilds its state and round objects a few
times (`service.rules.engine`), and copying them field by field through a loop
of ``getattr`` and ``object.__setattr__`` calls was about 3 % of a move's time
inside the app in sampling profiles (py-spy over ``bench/wsgi_calls.py --phase
moves``). A function written out for each class (its fields read as plain
attribute loads, no per-field ``getattr`` call or loop) does the same copy;
docs/performance.md, "What a move costs", has the instruction counts.

The one seam: `evolve`, called by the engine wherever it makes a changed copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")

#: The copying function of each class, written on its first copy.
_COPIERS: dict[type, Callable[[Any, dict[str, Any]], Any]] = {}


def evolve(obj: _T, **changes: Any) -> _T:
    """A copy of the frozen, slotted dataclass instance ``obj`` with ``changes``
    (field name → new value; names that are not fields are ignored)."""
    cls = type(obj)
    copier = _COPIERS.get(cls)
    if copier is None:
        copier = _COPIERS[cls] = _copier(cls)
    result: _T = copier(obj, changes)
    return result


def _copier(cls: type) -> Callable[[Any, dict[str, Any]], Any]:
    slots: tuple[str, ...] = tuple(cls.__slots__)  # type: ignore[attr-defined]
    if not all(name.isidentifier() for name in slots):
        raise TypeError(f"{cls.__name__}: unexpected slot names {slots}")
    lines = [
        "def copy(obj, changes):",
        "    new = new_(cls)",
    ]
    for name in slots:
        lines.append(
            f"    set_(new, {name!r}, changes[{name!r}] if {name!r} in changes else obj.{name})"
        )
    lines.append("    return new")
    namespace: dict[str, Any] = {
        "cls": cls,
        "new_": object.__new__,
        "set_": object.__setattr__,
    }
    # The code is made of the class's own slot names (checked above), nothing else.
    exec("\n".join(lines), namespace)
    copier: Callable[[Any, dict[str, Any]], Any] = namespace["copy"]
    return copier
