"""`service.rules.identity.by_identity`: results kept per argument object."""

from __future__ import annotations

from service.rules.identity import by_identity


def test_a_result_is_kept_per_object_not_per_value() -> None:
    calls: list[tuple[int, ...]] = []

    @by_identity(8)
    def total(numbers: tuple[int, ...]) -> int:
        calls.append(numbers)
        return sum(numbers)

    first = tuple(range(3))
    equal = tuple(range(3))
    assert first is not equal and first == equal
    assert [total(first), total(first), total(equal), total(equal)] == [3, 3, 3, 3]
    assert len(calls) == 2  # once per object


def test_further_arguments_are_part_of_the_key() -> None:
    calls: list[str] = []

    @by_identity(8)
    def tag(numbers: tuple[int, ...], name: str) -> str:
        calls.append(name)
        return f"{name}{len(numbers)}"

    numbers = (1, 2)
    assert [tag(numbers, "a"), tag(numbers, "b"), tag(numbers, "a")] == ["a2", "b2", "a2"]
    assert calls == ["a", "b"]


def test_a_full_table_starts_over() -> None:
    calls: list[int] = []

    @by_identity(2)
    def length(items: list[int]) -> int:
        calls.append(len(items))
        return len(items)

    one, two, three = [1], [1, 2], [1, 2, 3]
    for items in (one, two, two, three, three):
        length(items)
    assert calls == [1, 2, 3]  # two was kept; three found the table full and emptied it
    length(one)
    assert calls == [1, 2, 3, 1]


def test_the_table_of_a_one_argument_function_is_read_by_id() -> None:
    @by_identity(8)
    def length(items: tuple[int, ...]) -> int:
        return len(items)

    items = (1, 2, 3)
    table = length.kept  # type: ignore[attr-defined]
    assert table == {}
    assert length(items) == 3
    assert table[id(items)] == (items, 3)


def test_the_table_of_a_function_of_more_arguments_is_read_by_id_and_them() -> None:
    @by_identity(8)
    def tag(items: tuple[int, ...], name: str, number: int) -> str:
        return f"{name}{number}{len(items)}"

    items = (1, 2)
    assert tag(items, "a", 3) == "a32"
    assert tag.kept[(id(items), "a", 3)] == (items, "a32")  # type: ignore[attr-defined]
