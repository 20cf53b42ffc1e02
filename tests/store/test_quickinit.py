"""`service.store.quickinit.quick_init`: a frozen dataclass's ``__init__`` filling its dict."""

from __future__ import annotations

import dataclasses

import pytest

from service.games.values import Change, LoadedGame, Outcome
from service.store.base import Loaded, SaveResult
from service.store.quickinit import quick_init


@quick_init
@dataclasses.dataclass(frozen=True)
class Quick:
    name: str
    count: int = 0
    tags: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Plain:
    name: str
    count: int = 0
    tags: tuple[str, ...] = ()


def test_instances_are_those_of_the_dataclass_init() -> None:
    for args, kwargs in [
        (("a",), {}),
        (("a", 2), {}),
        (("a",), {"tags": ("x",)}),
        ((), {"name": "b", "count": 3}),
    ]:
        quick, plain = Quick(*args, **kwargs), Plain(*args, **kwargs)
        assert vars(quick) == vars(plain)
        assert list(vars(quick)) == list(vars(plain))  # the same field order
    assert Quick("a", 1) == Quick("a", 1) and hash(Quick("a", 1)) == hash(Quick("a", 1))
    assert repr(Quick("a")) == "Quick(name='a', count=0, tags=())"
    with pytest.raises(TypeError):
        Quick()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Quick("a", 1, (), 4)  # type: ignore[call-arg]


def test_the_class_stays_frozen() -> None:
    quick = Quick("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick.name = "b"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del quick.count  # type: ignore[misc]


def test_the_records_of_a_move_have_it() -> None:
    for cls in (Loaded, SaveResult, LoadedGame, Change, Outcome):
        assert cls.__init__.__code__.co_filename == "<string>", cls  # written by quick_init
    assert Loaded(b"s", 2, 1).counts == ()
    assert Change.__init__.__defaults__ == (None, None, False)


def test_classes_it_cannot_serve_are_refused() -> None:
    with pytest.raises(TypeError):
        quick_init(Plain.__mro__[1])  # not a dataclass
    with pytest.raises(TypeError):

        @quick_init
        @dataclasses.dataclass
        class Mutable:
            a: int

    with pytest.raises(TypeError):

        @quick_init
        @dataclasses.dataclass(frozen=True, slots=True)
        class Slotted:
            a: int

    with pytest.raises(TypeError):

        @quick_init
        @dataclasses.dataclass(frozen=True)
        class Later:
            a: int

            def __post_init__(self) -> None:
                pass

    with pytest.raises(TypeError):

        @quick_init
        @dataclasses.dataclass(frozen=True)
        class Made:
            a: list[int] = dataclasses.field(default_factory=list)
