"""The scripts' packed heads: the same bytes as packing the whole command, and a bound."""

from __future__ import annotations

import pytest

hiredis = pytest.importorskip("hiredis")

from service.store.scriptpack import PACKED_HEADS_KEPT, ScriptPacker  # noqa: E402

SHA = "a" * 40


@pytest.mark.parametrize(
    ("keys", "args"),
    [
        (["rummy:{g1}", "rummy:{g1}:events"], [3, b"\x00state\r\n", "x", 0]),
        (["rummy:{g1}", "rummy:{g1}:events"], []),
        ([], [7]),
        ([], []),
        (("k",), ("tuple", "args")),
    ],
)
def test_packs_what_hiredis_packs_for_the_whole_command(
    keys: list[str], args: list[object]
) -> None:
    packer = ScriptPacker()
    whole = hiredis.pack_command(("EVALSHA", SHA, len(keys), *keys, *args))
    assert packer.pack(SHA, keys, args) == whole
    assert packer.pack(SHA, keys, args) == whole  # from the kept head


def test_other_arguments_with_the_same_head() -> None:
    packer = ScriptPacker()
    keys = ["rummy:{g1}"]
    packer.pack(SHA, keys, [1, b"one"])
    assert packer.pack(SHA, keys, [2, b"two", "more"]) == hiredis.pack_command(
        ("EVALSHA", SHA, 1, *keys, 2, b"two", "more")
    )
    assert packer.pack("b" * 40, keys, [1]) == hiredis.pack_command(
        ("EVALSHA", "b" * 40, 1, *keys, 1)
    )


def test_refused_types_are_left_to_the_caller() -> None:
    packer = ScriptPacker()
    assert packer.pack(SHA, [["unhashable"]], [1]) is None
    assert packer.pack(SHA, ["k"], [object()]) is None


def test_heads_kept_are_bounded() -> None:
    assert PACKED_HEADS_KEPT == 4096
    packer = ScriptPacker(limit=3)
    for n in range(3):
        packer.pack(SHA, [f"game:{n}"], [1])
    assert len(packer) == 3  # at the limit, all kept
    packer.pack(SHA, ["game:0"], [1])
    assert len(packer) == 3  # a kept head adds nothing
    packer.pack(SHA, ["game:3"], [1])
    assert len(packer) == 1  # one more empties the table, then keeps the new one
    assert packer.pack(SHA, ["game:0"], [1]) == hiredis.pack_command(
        ("EVALSHA", SHA, 1, "game:0", 1)
    )


def test_leading_arguments_are_kept_with_the_head() -> None:
    packer = ScriptPacker()
    keys = ["rummy:{g1}", "rummy:{g1}:events"]
    for args in ([86400000, 50, "g1", 3, b"state"], [86400000, 50, "g1", 4, b"other"]):
        whole = hiredis.pack_command(("EVALSHA", SHA, len(keys), *keys, *args))
        assert packer.pack(SHA, keys, args, leading=3) == whole
    assert len(packer) == 1  # the second call found the head with its leading arguments
    assert packer.pack(SHA, keys, [86400000, 50, "g1"], leading=3) == hiredis.pack_command(
        ("EVALSHA", SHA, 2, *keys, 86400000, 50, "g1")
    )


def test_a_key_and_a_leading_argument_of_the_same_text_pack_apart() -> None:
    packer = ScriptPacker()
    assert packer.pack(SHA, ["a", "b"], ["c"]) == hiredis.pack_command(
        ("EVALSHA", SHA, 2, "a", "b", "c")
    )
    assert packer.pack(SHA, ["a"], ["b", "c"], leading=1) == hiredis.pack_command(
        ("EVALSHA", SHA, 1, "a", "b", "c")
    )
