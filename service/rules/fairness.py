"""Deals anyone can verify: the derivation of docs/fairness.md (standard library only).

A game dealt at random (``deal == "random"``) has a 256-bit *game secret* ``G``,
drawn by the server when the game is created; ``SHA-256(G)`` (the game
commitment) is public from the start and ``G`` is revealed when the game ends.
Round ``n`` is dealt from its *round secret*
``S_n = HMAC-SHA256(G, "round/<n>/<client seeds>")``; ``SHA-256(S_n)`` (the deal
commitment) is public from the round's start and ``S_n`` is revealed when the
round ends. Every shuffle of the round (the deal, each stock refill) and the
first dealer are drawn from ``S_n`` by :class:`DrawStream`: HMAC-SHA256 blocks
read as 32-bit big-endian words, uniform integers by rejection sampling, and a
Fisher-Yates shuffle. The engine deals with these functions and
``python -m service.bots.dealcheck verify`` checks finished games with them.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Sequence
from typing import TypeVar

_T = TypeVar("_T")

#: Bytes in a game secret (256 bits).
SECRET_BYTES = 32
#: What a client seed may be: 1 to 64 URL-safe characters (never ``/``, which
#: separates the seeds in a round secret's message).
CLIENT_SEED_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
_CLIENT_SEED = re.compile(CLIENT_SEED_PATTERN)
#: The label of a round's deal shuffle and of its first dealer draw.
DEAL_LABEL = "deal"
DEALER_LABEL = "dealer"

_WORDS_PER_BLOCK = 8
_TWO_32 = 1 << 32


def commitment(secret: bytes) -> str:
    """The public commitment to a secret: SHA-256 of its bytes, lowercase hex."""
    return hashlib.sha256(secret).hexdigest()


def is_client_seed(text: object) -> bool:
    """Whether ``text`` is an acceptable client seed (see :data:`CLIENT_SEED_PATTERN`)."""
    return type(text) is str and _CLIENT_SEED.fullmatch(text) is not None


def is_secret(text: object) -> bool:
    """Whether ``text`` is a secret's hex form (`SECRET_BYTES` bytes, lower case)."""
    return (
        type(text) is str
        and len(text) == 2 * SECRET_BYTES
        and all(c in "0123456789abcdef" for c in text)
    )


def round_message(number: int, client_seeds: Sequence[str | None]) -> bytes:
    """The message a round secret is the HMAC of: ``round/<n>/<seed 0>/<seed 1>/…``
    in ASCII, one entry per seat in seat order, empty for a seat without a seed."""
    if type(number) is not int or number < 1:
        raise ValueError(f"a round number is 1 or more, not {number!r}")
    for seed in client_seeds:
        if seed is not None and not is_client_seed(seed):
            raise ValueError(f"not a client seed: {seed!r}")
    parts = [f"round/{number}", *(seed or "" for seed in client_seeds)]
    return "/".join(parts).encode("ascii")


def round_secret(game_secret: bytes, number: int, client_seeds: Sequence[str | None]) -> bytes:
    """Round ``number``'s secret: HMAC-SHA256 keyed by the game secret over
    :func:`round_message`."""
    return hmac.new(game_secret, round_message(number, client_seeds), hashlib.sha256).digest()


def refill_label(refill: int) -> str:
    """The label of a round's ``refill``-th stock refill shuffle (1 for the first)."""
    return f"refill/{refill}"


class DrawStream:
    """Uniform integers drawn from ``(secret, label)``.

    Block ``k`` (``k`` = 0, 1, 2, …) is ``HMAC-SHA256(secret, label ‖ k)``, with the
    label in ASCII and ``k`` as 8 bytes big-endian; each block gives eight 32-bit
    big-endian words, used in order.
    """

    def __init__(self, secret: bytes, label: str) -> None:
        self._secret = secret
        self._label = label.encode("ascii")
        self._counter = 0
        self._words: list[int] = []

    def word(self) -> int:
        """The next 32-bit word of the stream."""
        if not self._words:
            block = hmac.new(
                self._secret, self._label + self._counter.to_bytes(8, "big"), hashlib.sha256
            ).digest()
            self._counter += 1
            self._words = [
                int.from_bytes(block[i : i + 4], "big") for i in range(28, -1, -4)
            ]  # reversed, so that pop() takes them in order
        return self._words.pop()

    def below(self, bound: int) -> int:
        """A uniform integer in ``0 .. bound - 1`` (``1 <= bound <= 2**32``): the next
        word below the largest multiple of ``bound`` that fits in 32 bits, modulo
        ``bound``; words at or above it are skipped."""
        if type(bound) is not int or not 1 <= bound <= _TWO_32:
            raise ValueError(f"bound must be 1 .. 2**32, not {bound!r}")
        limit = _TWO_32 - _TWO_32 % bound
        while True:
            word = self.word()
            if word < limit:
                return word % bound


def shuffled(items: Sequence[_T], secret: bytes, label: str) -> list[_T]:
    """A Fisher-Yates shuffle of ``items`` drawn from ``(secret, label)``: for ``i``
    from ``len - 1`` down to 1, swap item ``i`` with item ``below(i + 1)``."""
    out = list(items)
    stream = DrawStream(secret, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def first_dealer(secret: bytes, players: int) -> int:
    """The first dealer of a game dealt at random: ``below(players)`` from round 1's
    secret with the label ``dealer``."""
    return DrawStream(secret, DEALER_LABEL).below(players)


__all__ = [
    "CLIENT_SEED_PATTERN",
    "DEALER_LABEL",
    "DEAL_LABEL",
    "SECRET_BYTES",
    "DrawStream",
    "commitment",
    "first_dealer",
    "is_client_seed",
    "is_secret",
    "refill_label",
    "round_message",
    "round_secret",
    "shuffled",
]
