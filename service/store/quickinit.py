"""Speed: a frozen dataclass's ``__init__`` that fills the instance's dict directly.

Why (the measurement): a move builds a handful of small frozen records on its way
(the store's `Loaded` and `SaveResult`, the app's `LoadedGame` twice, `Change`,
`Outcome`), and a frozen dataclass's generated ``__init__`` sets each field
through ``object.__setattr__`` (frozen classes refuse ordinary stores), a call
that costs several times a store into the instance's ``__dict__`` (counted
under valgrind; docs/performance.md, "What a move costs", has the figures).

The one seam: the `quick_init` class decorator, applied under ``@dataclass(frozen=True)``
to those records. The class stays what it was: frozen (``__setattr__`` and
``__delattr__`` still refuse), with its equality, hash and repr; only the
``__init__`` is written out here, with the dataclass's own parameters and
defaults. Classes it cannot serve (slots, ``__post_init__``, fields left out of
``__init__`` or made by a factory) are refused when the class is defined.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

_C = TypeVar("_C", bound=type)


def quick_init(cls: _C) -> _C:
    """Give the frozen dataclass `cls` an ``__init__`` that stores into ``__dict__``."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        raise TypeError(f"{cls.__name__}: quick_init is for frozen dataclasses")
    if "__slots__" in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: quick_init needs a plain instance dict, no __post_init__")
    namespace: dict[str, Any] = {}
    params_code, body = [], []
    for field in dataclasses.fields(cls):
        name = field.name
        if not field.init or field.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{name}: quick_init needs plain init fields")
        if not name.isidentifier():
            raise TypeError(f"{cls.__name__}: unexpected field name {name!r}")
        if field.default is dataclasses.MISSING:
            params_code.append(name)
        else:
            namespace[f"_default_{name}"] = field.default
            params_code.append(f"{name}=_default_{name}")
        body.append(f"    d[{name!r}] = {name}")
    lines = [f"def __init__(self, {', '.join(params_code)}):", "    d = self.__dict__", *body]
    # The code is made of the class's own field names (checked above), nothing else.
    exec("\n".join(lines), namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    setattr(cls, "__init__", init)  # noqa: B010 - a class attribute, not an instance's
    return cls
