"""A script call's packed ``EVALSHA sha numkeys keys...`` kept per script and keys.

A move runs two scripts (the counting load and the compare-and-set), and
`hiredis.pack_command` formats every argument anew (a ``sprintf`` each); the
command's head repeats for every move of a game: the script's digest and the
game's keys. Kept packed, only the arguments are packed per call (a save's
packing takes a good share fewer instructions, counted in isolation under valgrind;
docs/performance.md, "What a move costs", has the figures). The bytes sent are
the same as packing the whole command (`tests/store/test_scriptpack.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hiredis import pack_command as _hiredis_pack

__all__ = ["PACKED_HEADS_KEPT", "ScriptPacker"]

#: Packed heads kept per process before the table is emptied: a game's keys
#: and the rate-limit counters' (one set per window) enter it, so it is bounded
#: (under 1 KB a head; docs/security.md).
PACKED_HEADS_KEPT = 4096


class ScriptPacker:
    """Packs ``EVALSHA`` calls, keeping each script's and keys' packed head."""

    def __init__(self, limit: int = PACKED_HEADS_KEPT) -> None:
        self._limit = limit
        self._heads: dict[tuple[Any, ...], bytes] = {}

    def __len__(self) -> int:
        return len(self._heads)

    def pack(
        self, sha: str, keys: Sequence[Any], args: Sequence[Any], leading: int = 0
    ) -> bytes | None:
        """``EVALSHA sha len(keys) *keys *args`` packed as hiredis packs it, or
        None when an argument is of a type hiredis does not take as is (the
        caller then packs the command its usual way).

        The first ``leading`` arguments are kept packed with the head: a
        script's arguments that repeat from call to call (a save's expiries,
        game id and status: hiredis formats each argument with a ``sprintf``,
        and an integer through its ``repr``; measured with valgrind in
        docs/performance.md, "What a move costs").
        """
        heads = self._heads
        try:
            fixed = args[:leading]
            at = (sha, len(keys), *keys, *fixed)
            head = heads.get(at)
            if head is None:
                packed: bytes = _hiredis_pack(("EVALSHA", sha, len(keys), *keys, *fixed))
                head = packed[packed.index(b"\n") + 1 :]  # without the "*count" line
                if len(heads) >= self._limit:
                    heads.clear()
                heads[at] = head
            rest = args[leading:] if leading else args
            if not rest:
                return b"*%d\r\n%b" % (3 + len(keys) + len(args), head)
            body: bytes = _hiredis_pack(rest if type(rest) is tuple else tuple(rest))
        except TypeError:  # an unhashable key, or an argument hiredis refuses
            return None
        return b"*%d\r\n%b%b" % (3 + len(keys) + len(args), head, body[body.index(b"\n") + 1 :])
