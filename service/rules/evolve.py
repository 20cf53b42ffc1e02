"""Speed: `evolve`, ``dataclasses.replace`` for the engine's frozen, slotted state classes.

Why (the measurement): every move rebuilds its state and round objects a few
times (`service.rules.engine`), and copying them field by field through a loop
of ``getattr`` and ``object.__setattr__`` calls was a noticeable share of a
move's time inside the app in sampling profiles (py-spy over
``bench/wsgi_calls.py --phase moves``). A function written out for each class
(its fields read as plain attribute loads, no per-field ``getattr`` call or
loop) does the same copy.
It fills a *draft*: an instance of a plain class with the very same slots,
whose fields are set by ordinary attribute stores, and then makes the draft an
instance of the frozen class (``__class__`` assignment, which Python allows
between classes of the same layout). A frozen class's fields can otherwise
only be set through ``object.__setattr__``, a call that costs several times a
plain store (counted under valgrind, for a field and for a whole `GameState`
copy: docs/performance.md, "What a move costs", has the figures).

The function is written per class *and set of changed fields*: each field is
read from the object or from the changes without a test for each field
(`field in changes`, a dict look-up per field per copy): a `GameState` copy
takes a good share fewer instructions so under valgrind, the key's making and
look-up included, and a move makes about three copies (docs/performance.md,
"What a move costs", has the figures).

The one seam: `evolve`, called by the engine wherever it makes a changed copy.
A class whose layout a draft cannot share is copied through ``object.__setattr__``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")

#: The copying function of each class and tuple of changed names, written on
#: its first copy (the engine's call sites change a few dozen sets of fields).
_COPIERS: dict[tuple[type, tuple[str, ...]], Callable[[Any, dict[str, Any]], Any]] = {}
#: At most this many copiers, then all written again (should names vary freely).
COPIERS_KEPT = 1024


def evolve(obj: _T, **changes: Any) -> _T:
    """A copy of the frozen, slotted dataclass instance ``obj`` with ``changes``
    (field name → new value; names that are not fields are ignored)."""
    key = (type(obj), tuple(changes))
    copier = _COPIERS.get(key)
    if copier is None:
        if len(_COPIERS) >= COPIERS_KEPT:
            _COPIERS.clear()
        copier = _COPIERS[key] = _copier(key[0], frozenset(key[1]))
    result: _T = copier(obj, changes)
    return result


def _copier(cls: type, changed: frozenset[str]) -> Callable[[Any, dict[str, Any]], Any]:
    slots: tuple[str, ...] = tuple(cls.__slots__)  # type: ignore[attr-defined]
    if not all(name.isidentifier() for name in slots):
        raise TypeError(f"{cls.__name__}: unexpected slot names {slots}")
    values = {name: f"changes[{name!r}]" if name in changed else f"obj.{name}" for name in slots}
    draft = _draft_class(cls, slots)
    if draft is not None:
        lines = ["def copy(obj, changes):", "    new = new_(draft)"]
        lines += [f"    new.{name} = {value}" for name, value in values.items()]
        lines.append("    new.__class__ = cls")
    else:
        lines = ["def copy(obj, changes):", "    new = new_(cls)"]
        lines += [f"    set_(new, {name!r}, {value})" for name, value in values.items()]
    lines.append("    return new")
    namespace: dict[str, Any] = {
        "cls": cls,
        "draft": draft,
        "new_": object.__new__,
        "set_": object.__setattr__,
    }
    # The code is made of the class's own slot names (checked above), nothing else:
    # a changed name is written only when it is one of them.
    exec("\n".join(lines), namespace)
    copier: Callable[[Any, dict[str, Any]], Any] = namespace["copy"]
    return copier


def _draft_class(cls: type, slots: tuple[str, ...]) -> type | None:
    """A plain class with `cls`'s slots whose instances may become `cls` instances
    (`None` when `cls` has a base other than `object`, or Python refuses the change)."""
    if cls.__bases__ != (object,):
        return None
    draft = type(f"{cls.__name__}Draft", (), {"__slots__": slots})
    try:
        probe: Any = object.__new__(draft)
        probe.__class__ = cls
    except TypeError:  # "object layout differs"
        return None
    return draft
