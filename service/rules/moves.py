"""Moves a seat can make: the one description of each move's JSON shape, and the
errors that refuse a move.

Each move class names its `type`, its fields (a :class:`MoveField` each: the
field's JSON Schema and its parser) and an example. From that one description
come :func:`parse_request` (the parser of a move request body: one move or
`{"actions": [...]}`), each move's ``to_json`` and :func:`move_schema` (the
JSON Schema the API documents as the move's component).

:class:`MoveFormatError` means the move is malformed (shape, field or card code:
the API answers 422); :class:`IllegalMove` means a rule forbids it now (409).
Every refusal code is listed, with its meaning, in :data:`ERROR_CODES`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from service.rules.cards import (
    CARD_ORDER,
    CARD_PATTERN,
    JOKER,
    Card,
    CardCodeError,
    parse_card,
)

#: Most cards one move may name (two decks and six jokers).
MAX_CARDS = 110
#: Largest meld id a move may name (ids count the melds of a game from 0).
MAX_MELD_ID = 10_000
#: Most moves in one all-or-nothing request.
MAX_ACTIONS = 64

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
    "cannot_reengage": "the seat has no re-engage decision to make now (re-engaging is decided "
    "between rounds, by a seat the round's end eliminated, while its re-engagements last)",
    "no_reengage_decision": "the seat has no re-engage decision to decline now",
    "reengage_pending": "the next round is dealt once every eliminated seat has decided whether "
    "to re-engage",
    "nothing_to_meld": "no meld can be made from the seat's hand now",
    "nothing_to_lay_off": "none of the seat's cards can be laid off on a meld on the table now",
    "nothing_to_swap": "the seat holds no card a melded joker stands for",
    "seat_taken": "the seat is already taken",
    "seat_reserved": "the seat is held for a player of the game before (a rematch) until "
    "the game's reserved_until",
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


@dataclass(frozen=True, slots=True)
class Unavailable:
    """Why no move of one kind is legal now: a code of :data:`ERROR_CODES` (the one
    a move of that kind would be refused with), its words, and where a figure is
    behind it the points ``needed`` and those the seat ``have`` (a first-meld
    minimum: needed 40, have 9)."""

    code: str
    detail: str
    needed: int | None = None
    have: int | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"code", "detail"}``, with ``needed`` and ``have`` when set."""
        out: dict[str, Any] = {"code": self.code, "detail": self.detail}
        if self.needed is not None:
            out["needed"] = self.needed
            out["have"] = self.have
        return out


class MoveFormatError(ValueError):
    """A move object with a bad shape or card code; ``field`` names the offending field."""

    def __init__(self, detail: str, field: str = "type") -> None:
        self.detail = detail
        self.field = field
        super().__init__(f"{field}: {detail}")


# --- fields -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MoveField:
    """A kind of move field: its JSON Schema and its parser.

    ``parse(value, path)`` returns the value the move holds (card codes in
    canonical form) or raises :class:`MoveFormatError` naming ``path``.
    """

    schema: Mapping[str, Any]
    parse: Callable[[Any, str], Any]


def _parse_source(value: Any, path: str) -> str:
    if value not in ("stock", "discard"):
        raise MoveFormatError("must be 'stock' or 'discard'", path)
    return str(value)


def _parse_card(value: Any, path: str) -> Card:
    try:
        return parse_card(value)
    except CardCodeError as exc:
        raise MoveFormatError(str(exc), path) from None


def _parse_cards(value: Any, path: str) -> tuple[Card, ...]:
    if type(value) is not list or not 1 <= len(value) <= MAX_CARDS:
        raise MoveFormatError(f"must be a non-empty list of at most {MAX_CARDS} card codes", path)
    try:
        cards = tuple([parse_card(c) for c in value])
    except CardCodeError as exc:
        raise MoveFormatError(str(exc), path) from None
    return cards


def _parse_meld_id(value: Any, path: str) -> int:
    if type(value) is not int or not 0 <= value <= MAX_MELD_ID:
        raise MoveFormatError(f"must be a meld id (an integer from 0 to {MAX_MELD_ID})", path)
    return value


_CARD_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": CARD_PATTERN,
    "description": "a card code: suit then rank (`H10`, `SK`), or `JK` for a joker; rank "
    "first, any case, `1`/`11`/`12`/`13` and `T` are accepted too (`10h`, `S12`, `TD`)",
    "example": "SK",
}

SOURCE = MoveField(
    {
        "type": "string",
        "enum": ["stock", "discard"],
        "description": "`stock`: the top of the stock; `discard`: the top of the discard pile",
    },
    _parse_source,
)
CARD = MoveField(_CARD_SCHEMA, _parse_card)
CARDS = MoveField(
    {
        "type": "array",
        "items": _CARD_SCHEMA,
        "minItems": 1,
        "maxItems": MAX_CARDS,
        "description": "card codes from the hand; a natural card at most once",
    },
    _parse_cards,
)
MELD_ID = MoveField(
    {
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_MELD_ID,
        "description": "the `id` of a meld on the table",
    },
    _parse_meld_id,
)


# --- moves ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw the top card of the stock or of the discard pile: every turn starts so."""

    TYPE: ClassVar[str] = "draw"
    EXAMPLE: ClassVar[dict[str, Any]] = {"type": "draw", "source": "stock"}
    source: str = field(metadata={"kind": SOURCE})

    def to_json(self) -> dict[str, Any]:
        """The move's JSON shape."""
        return {"type": "draw", "source": self.source}


@dataclass(frozen=True, slots=True)
class Meld:
    """Put a new meld (a set or a run) of these cards from the hand on the table."""

    TYPE: ClassVar[str] = "meld"
    EXAMPLE: ClassVar[dict[str, Any]] = {"type": "meld", "cards": ["H5", "H6", "H7"]}
    cards: tuple[Card, ...] = field(metadata={"kind": CARDS})

    def to_json(self) -> dict[str, Any]:
        """The move's JSON shape."""
        return {"type": "meld", "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class LayOff:
    """Add cards from the hand to a meld on the table (any meld, whoever put it down)."""

    TYPE: ClassVar[str] = "layoff"
    EXAMPLE: ClassVar[dict[str, Any]] = {"type": "layoff", "meld": 1, "cards": ["H10"]}
    meld: int = field(metadata={"kind": MELD_ID})
    cards: tuple[Card, ...] = field(metadata={"kind": CARDS})

    def to_json(self) -> dict[str, Any]:
        """The move's JSON shape."""
        return {"type": "layoff", "meld": self.meld, "cards": list(self.cards)}


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card from the hand face up on the discard pile: this ends the turn."""

    TYPE: ClassVar[str] = "discard"
    EXAMPLE: ClassVar[dict[str, Any]] = {"type": "discard", "card": "SK"}
    card: Card = field(metadata={"kind": CARD})

    def to_json(self) -> dict[str, Any]:
        """The move's JSON shape."""
        return {"type": "discard", "card": self.card}


@dataclass(frozen=True, slots=True)
class SwapJoker:
    """Give the card a melded joker stands for, from the hand, and take the joker
    (where the option `joker_swap` is on)."""

    TYPE: ClassVar[str] = "swap_joker"
    EXAMPLE: ClassVar[dict[str, Any]] = {"type": "swap_joker", "meld": 3, "card": "H9"}
    meld: int = field(metadata={"kind": MELD_ID})
    card: Card = field(metadata={"kind": CARD})

    def to_json(self) -> dict[str, Any]:
        """The move's JSON shape."""
        return {"type": "swap_joker", "meld": self.meld, "card": self.card}


@dataclass(frozen=True, slots=True)
class Reengage:
    """A seat the round's end eliminated comes back, dealt in at the next deal with
    the highest total among the players still in (elimination games where the
    option `reengage` is on; decided between rounds)."""

    TYPE: ClassVar[str] = "reengage"
    EXAMPLE: ClassVar[dict[str, Any]] = {"type": "reengage"}

    def to_json(self) -> dict[str, Any]:
        """The move's JSON shape."""
        return {"type": "reengage"}


@dataclass(frozen=True, slots=True)
class DeclineReengage:
    """A seat the round's end eliminated declines to re-engage: it is out for good."""

    TYPE: ClassVar[str] = "decline_reengage"
    EXAMPLE: ClassVar[dict[str, Any]] = {"type": "decline_reengage"}

    def to_json(self) -> dict[str, Any]:
        """The move's JSON shape."""
        return {"type": "decline_reengage"}


Move = Draw | Meld | LayOff | Discard | SwapJoker | Reengage | DeclineReengage

#: Every kind of move, in the order of :func:`move_sort_key`.
MOVE_CLASSES: tuple[type[Move], ...] = (
    Draw,
    Meld,
    LayOff,
    SwapJoker,
    Discard,
    Reengage,
    DeclineReengage,
)
#: The move class of each `type`.
MOVE_TYPES: Mapping[str, type[Move]] = {cls.TYPE: cls for cls in MOVE_CLASSES}
#: The fields of each `type`, as (name, kind) pairs in the class's order.
MOVE_FIELDS: Mapping[str, tuple[tuple[str, MoveField], ...]] = {
    cls.TYPE: tuple((f.name, f.metadata["kind"]) for f in fields(cls)) for cls in MOVE_CLASSES
}
_KEYS: dict[str, frozenset[str]] = {
    kind: frozenset({"type", *(name for name, _ in shape)}) for kind, shape in MOVE_FIELDS.items()
}
#: The kinds of move that name several cards.
_WITH_CARDS = frozenset(cls for cls in MOVE_CLASSES if "cards" in dict(MOVE_FIELDS[cls.TYPE]))
_PARSERS: dict[type[Move], tuple[tuple[str, Callable[[Any, str], Any]], ...]] = {
    cls: tuple((name, kind.parse) for name, kind in MOVE_FIELDS[cls.TYPE]) for cls in MOVE_CLASSES
}


def move_schema(cls: type[Move]) -> dict[str, Any]:
    """The JSON Schema of one kind of move (its documented component)."""
    shape = MOVE_FIELDS[cls.TYPE]
    return {
        "type": "object",
        "description": " ".join((cls.__doc__ or "").split()),
        "properties": {
            "type": {"type": "string", "enum": [cls.TYPE]},
            **{name: dict(kind.schema) for name, kind in shape},
        },
        "required": ["type", *(name for name, _ in shape)],
        "additionalProperties": False,
        "example": cls.EXAMPLE,
    }


def parse_move(obj: Any, path: str = "") -> Move:
    """Parse one move object; card codes may use any accepted input form.

    ``path`` prefixes the field named by a :class:`MoveFormatError`
    (``actions.2.`` inside a request of several moves).
    """
    # A JSON body's objects are dicts: the exact type check spares the ABC's.
    if type(obj) is not dict and not isinstance(obj, Mapping):
        raise MoveFormatError("a move must be an object", path + "type")
    kind = obj.get("type")
    cls = MOVE_TYPES.get(kind) if type(kind) is str else None
    if cls is None:
        raise MoveFormatError(
            f"unknown move type {kind!r}; one of {', '.join(MOVE_TYPES)}", path + "type"
        )
    extra = obj.keys() - _KEYS[cls.TYPE]
    if extra:
        name = sorted(str(e) for e in extra)[0]
        raise MoveFormatError(f"unknown field for a {cls.TYPE} move", path + name)
    return cls(*[parse(obj.get(name), path + name) for name, parse in _PARSERS[cls]])


def parse_request(body: Any) -> list[Move]:
    """The moves of a move request body: one move, or ``{"actions": [move, ...]}``
    (1 to :data:`MAX_ACTIONS` moves, applied all or nothing).

    A request naming one natural card twice in a move is malformed (two
    spellings of a card count as the same card); :func:`parse_move` alone lets
    the rules refuse such a move (`invalid_meld`).
    """
    if (type(body) is dict or isinstance(body, Mapping)) and "actions" in body:
        if len(body) > 1:
            raise MoveFormatError("`actions` stands alone", "actions")
        actions = body["actions"]
        if type(actions) is not list or not 1 <= len(actions) <= MAX_ACTIONS:
            raise MoveFormatError(f"must be a list of 1 to {MAX_ACTIONS} moves", "actions")
        paths = [f"actions.{index}." for index in range(len(actions))]
        moves = [parse_move(item, path) for item, path in zip(actions, paths, strict=True)]
    else:
        paths, moves = [""], [parse_move(body)]
    for move, path in zip(moves, paths, strict=True):
        # Only the kinds with a `cards` field are looked at (a failed attribute
        # lookup formats an error message).
        cards = move.cards if type(move) in _WITH_CARDS else ()  # type: ignore[union-attr]
        if len(set(cards)) < len(cards):
            counts = Counter(cards)
            repeated = sorted(c for c, n in counts.items() if n > 1 and c != JOKER)
            if repeated:
                detail = f"card {repeated[0]} is named more than once in one move"
                raise MoveFormatError(detail, path + "cards")
    return moves


def move_sort_key(move: Move) -> tuple[Any, ...]:
    """The order of :func:`legal_moves`: by type (draw, meld, lay-off, joker swap,
    discard, re-engage, declining it), then by meld id, then by the cards in deck order
    (C D H S, A..K)."""
    if isinstance(move, Draw):
        return (0, 0, (move.source,))
    order = CARD_ORDER
    if isinstance(move, Meld):
        return (1, 0, tuple(map(order.__getitem__, move.cards)))
    if isinstance(move, LayOff):
        return (2, move.meld, tuple(map(order.__getitem__, move.cards)))
    if isinstance(move, SwapJoker):
        return (3, move.meld, (order[move.card],))
    if isinstance(move, Discard):
        return (4, 0, (order[move.card],))
    if isinstance(move, Reengage):
        return (5, 0, ())
    return (6, 0, ())
