"""Moves a seat can make, their JSON shapes (API.md) and the errors that refuse them.

:class:`MoveFormatError` means the move is malformed (shape, field or card code:
the API answers 422); :class:`IllegalMove` means a rule forbids it now (409).
Every refusal code is listed, with its meaning, in :data:`ERROR_CODES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.rules.cards import JOKER, NATURAL_CARDS, Card, CardCodeError, parse_card

ERROR_CODES: Mapping[str, str] = {
    "game_not_active": "the game is not being played (waiting for players or finished)",
    "not_your_turn": "another seat is to move",
    "not_in_round": "the seat is not dealt in this round (eliminated)",
    "must_draw_first": "the turn starts with a draw",
    "already_drew": "the seat has already drawn this turn",
    "no_draw_first_turn": "first_turn_no_draw: the first player does not draw on the first turn",
    "discard_pile_empty": "there is no card to take from the discard pile",
    "card_not_in_hand": "a card of the move is not in the seat's hand",
    "invalid_meld": "the cards do not form a valid meld",
    "unknown_meld": "no meld on the table has this id",
    "invalid_layoff": "the meld with the added cards would not be a valid meld",
    "one_meld_per_turn": "melds_per_turn 1: the seat has already melded this turn",
    "layoff_requires_own_meld": "lay-offs only after the seat has put down a meld this round",
    "cannot_discard_taken_card": "the card taken from the discard pile cannot be discarded "
    "this turn",
    "would_leave_no_legal_discard": "the move would leave no legal way to finish the turn",
    "first_meld_minimum": "first_meld_min_points: the first melds of the round must reach the "
    "minimum before a lay-off or a discard, and a meld must keep the minimum reachable",
    "concealed_round": "concealed round: melds only in the turn the seat goes out, whole hand "
    "at once; no lay-offs",
    "joker_swap_not_allowed": "joker_swap is off in this game",
    "invalid_joker_swap": "no joker in that meld stands for this card",
    "cannot_reengage": "re-engaging is not allowed now (not eliminated, option off, limit reached, "
    "or fewer than two players remain)",
    "seat_taken": "the seat is already taken",
    "no_open_seat": "no seat is open",
    "invalid_seat": "no such seat",
}


class IllegalMove(Exception):
    """A rule forbids the move now; ``code`` is one of :data:`ERROR_CODES`."""

    def __init__(self, code: str, detail: str) -> None:
        assert code in ERROR_CODES, code
        self.code = code
        self.detail = detail
        super().__init__(f"{code}: {detail}")


class MoveFormatError(ValueError):
    """A move object with a bad shape or card code; ``field`` names the offending field."""

    def __init__(self, detail: str, field: str = "type") -> None:
        self.detail = detail
        self.field = field
        super().__init__(f"{field}: {detail}")


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw the top card of the ``stock`` or the ``discard`` pile."""

    source: str

    def to_json(self) -> dict[str, Any]:
        """The API.md shape."""
        return {"type": "draw", "source": self.source}


@dataclass(frozen=True, slots=True)
class Meld:
    """Put a new meld of these cards from hand on the table."""

    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        """The API.md shape."""
        return {"type": "meld", "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class LayOff:
    """Add cards from hand to the table meld with id ``meld``."""

    meld: int
    cards: tuple[Card, ...]

    def to_json(self) -> dict[str, Any]:
        """The API.md shape."""
        return {"type": "layoff", "meld": self.meld, "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card face up; ends the turn."""

    card: Card

    def to_json(self) -> dict[str, Any]:
        """The API.md shape."""
        return {"type": "discard", "card": self.card}


@dataclass(frozen=True, slots=True)
class SwapJoker:
    """Give ``card`` from hand for the joker standing for it in meld ``meld``."""

    meld: int
    card: Card

    def to_json(self) -> dict[str, Any]:
        """The API.md shape."""
        return {"type": "swap_joker", "meld": self.meld, "card": self.card}


@dataclass(frozen=True, slots=True)
class Reengage:
    """An eliminated seat re-enters the game (elimination mode)."""

    def to_json(self) -> dict[str, Any]:
        """The API.md shape."""
        return {"type": "reengage"}


Move = Draw | Meld | LayOff | Discard | SwapJoker | Reengage

_ORDER = {Draw: 0, Meld: 1, LayOff: 2, SwapJoker: 3, Discard: 4, Reengage: 5}


_CARD_ORDER: dict[Card, int] = {c: i for i, c in enumerate((*NATURAL_CARDS, JOKER))}


def move_sort_key(move: Move) -> tuple[Any, ...]:
    """The order of :func:`legal_moves`: by type (draw, meld, lay-off, joker swap,
    discard, re-engage), then by meld id, then by the cards in deck order (C D H S, A..K)."""
    if isinstance(move, Draw):
        return (0, 0, (move.source,))
    order = _CARD_ORDER
    if isinstance(move, Meld):
        return (1, 0, tuple([order[c] for c in move.cards]))
    if isinstance(move, LayOff):
        return (2, move.meld, tuple([order[c] for c in move.cards]))
    if isinstance(move, SwapJoker):
        return (3, move.meld, (order[move.card],))
    if isinstance(move, Discard):
        return (4, 0, (order[move.card],))
    return (5, 0, ())


def _cards(obj: Mapping[str, Any], field: str) -> tuple[Card, ...]:
    value = obj.get(field)
    if not isinstance(value, list) or not value:
        raise MoveFormatError("must be a non-empty list of card codes", field)
    try:
        return tuple(parse_card(c) for c in value)
    except CardCodeError as exc:
        raise MoveFormatError(str(exc), field) from None


def _card(obj: Mapping[str, Any], field: str) -> Card:
    try:
        return parse_card(obj.get(field))  # type: ignore[arg-type]
    except CardCodeError as exc:
        raise MoveFormatError(str(exc), field) from None


def _meld_id(obj: Mapping[str, Any]) -> int:
    value = obj.get("meld")
    if type(value) is not int or value < 0:
        raise MoveFormatError("must be a meld id (a non-negative integer)", "meld")
    return value


_FIELDS = {
    "draw": {"type", "source"},
    "meld": {"type", "cards"},
    "layoff": {"type", "meld", "cards"},
    "discard": {"type", "card"},
    "swap_joker": {"type", "meld", "card"},
    "reengage": {"type"},
}


def parse_move(obj: Mapping[str, Any]) -> Move:
    """Parse one move object of API.md; card codes may use any accepted input form."""
    if not isinstance(obj, Mapping):
        raise MoveFormatError("a move must be an object", "type")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise MoveFormatError(f"unknown move type {kind!r}; one of {', '.join(_FIELDS)}", "type")
    extra = set(obj) - _FIELDS[kind]
    if extra:
        name = sorted(str(e) for e in extra)[0]
        raise MoveFormatError(f"unknown field for a {kind} move", name)
    if kind == "draw":
        source = obj.get("source")
        if source not in ("stock", "discard"):
            raise MoveFormatError("must be 'stock' or 'discard'", "source")
        return Draw(str(source))
    if kind == "meld":
        return Meld(_cards(obj, "cards"))
    if kind == "layoff":
        return LayOff(_meld_id(obj), _cards(obj, "cards"))
    if kind == "discard":
        return Discard(_card(obj, "card"))
    if kind == "swap_joker":
        return SwapJoker(_meld_id(obj), _card(obj, "card"))
    return Reengage()
