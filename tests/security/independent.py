"""An independent implementation of docs/fairness.md, written from the document.

It imports nothing of the service: the tests compare it with the service's own
implementation (service/rules/fairness.py) and re-derive real deals with it.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence


def sha256_hex(data: bytes) -> str:
    """SHA-256, lowercase hex."""
    return hashlib.sha256(data).hexdigest()


def round_secret(game_secret: bytes, number: int, seeds: Sequence[str | None]) -> bytes:
    """HMAC-SHA256(G, "round/<n>/<seed 0>/<seed 1>/...")."""
    message = f"round/{number}" + "".join("/" + (seed or "") for seed in seeds)
    return hmac.new(game_secret, message.encode("ascii"), hashlib.sha256).digest()


def words(key: bytes, label: str) -> Iterator32:
    """The draw stream: 32-bit big-endian words of HMAC(key, label ‖ k as 8 bytes)."""
    return Iterator32(key, label)


class Iterator32:
    """The words of one draw stream, in order."""

    def __init__(self, key: bytes, label: str) -> None:
        self.key, self.label, self.k, self.pending = key, label.encode("ascii"), 0, b""

    def __next__(self) -> int:
        if not self.pending:
            msg = self.label + self.k.to_bytes(8, "big")
            self.pending = hmac.new(self.key, msg, hashlib.sha256).digest()
            self.k += 1
        word, self.pending = self.pending[:4], self.pending[4:]
        return int.from_bytes(word, "big")


def uniform_below(stream: Iterator32, m: int) -> int:
    """Rejection sampling below the largest multiple of m under 2**32."""
    limit = 2**32 - (2**32 % m)
    while True:
        w = next(stream)
        if w < limit:
            return w % m


def shuffle(items: Sequence[str], key: bytes, label: str) -> list[str]:
    """Durstenfeld's Fisher-Yates, i from len-1 down to 1."""
    a = list(items)
    stream = words(key, label)
    for i in range(len(a) - 1, 0, -1):
        j = uniform_below(stream, i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def fresh_deck(decks: int, jokers: int) -> list[str]:
    """Each deck's clubs, diamonds, hearts, spades from ace to king, then the jokers."""
    ranks = ["A", *map(str, range(2, 11)), "J", "Q", "K"]
    one = [suit + rank for suit in "CDHS" for rank in ranks]
    return one * decks + ["JK"] * jokers


def first_dealer(round_one_secret: bytes, seats: int) -> int:
    """The uniform integer below the seat count from (S_1, "dealer")."""
    return uniform_below(words(round_one_secret, "dealer"), seats)


def deal(
    key: bytes, decks: int, jokers: int, dealer: int, dealt: Sequence[bool], size: int,
    first_turn_no_draw: bool,
) -> tuple[dict[int, list[str]], list[str], list[str]]:  # fmt: skip
    """(hands by seat, discard pile, stock in drawing order) of a round."""
    cards = shuffle(fresh_deck(decks, jokers), key, "deal")
    n = len(dealt)
    order = []
    seat = dealer
    while len(order) < sum(dealt):
        seat = (seat + 1) % n
        if dealt[seat]:
            order.append(seat)
    hands: dict[int, list[str]] = {s: [] for s in order}
    position = 0
    for _ in range(size):
        for s in order:
            hands[s].append(cards[position])
            position += 1
    discard = []
    if first_turn_no_draw:
        hands[order[0]].append(cards[position])
    else:
        discard.append(cards[position])
    return hands, discard, cards[position + 1 :]
