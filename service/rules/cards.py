"""Card codes: parsing, canonical form, rank, suit, points and decks (docs/rules.md §1).

A card is its canonical code string (``Card = str``): the suit letter then the
rank, ``"HA"``, ``"H8"``, ``"H10"``, ``"SK"``; a joker is ``"JK"``.

Input forms accepted by :func:`parse_card`, case-insensitively:

- suit first: ``HA``, ``H10``, ``h10``;
- rank first: ``8H``, ``10S``, ``AH``;
- ``1``/``11``/``12``/``13`` for A/J/Q/K and ``T`` for 10, in either order
  (``H1``, ``S12``, ``TD``, ``13c``);
- ``JK`` for a joker.

Decisions the rules page leaves open:

- The word ``joker`` (and any other spelling but ``JK``) is rejected: the rules
  give ``JK`` as the joker's code and reject "anything else".
- Nothing is trimmed: surrounding or inner whitespace, control characters,
  non-ASCII text (long s + ``K`` would upper-case to ``SK``), an empty string, more
  than three characters, ``0``/``00``/``010`` style ranks and non-strings are
  all rejected with :class:`CardCodeError`.

Every lookup is a precomputed dict: the engine calls these on its hot path.
"""

from __future__ import annotations

from collections.abc import Iterable

Card = str

SUITS: tuple[str, ...] = ("C", "D", "H", "S")
JOKER: Card = "JK"
# Canonical rank labels, index = rank number (0 is unused for naturals).
RANK_LABELS: tuple[str, ...] = (
    "",
    "A",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "10",
    "J",
    "Q",
    "K",
)
ACE = 1
KING = 13

# Every natural card in deck order: C, D, H, S; A..K within a suit.
NATURAL_CARDS: tuple[Card, ...] = tuple(s + RANK_LABELS[r] for s in SUITS for r in range(1, 14))
#: The one order of cards everywhere cards are sorted: deck order, jokers last
#: (hands, listed moves, and the searches, which branch on a natural card first).
CARD_ORDER: dict[Card, int] = {c: i for i, c in enumerate((*NATURAL_CARDS, JOKER))}

_MAX_INPUT_LEN = 3  # longest accepted form: "H10", "10H", "S12", "13C"

_RANK: dict[Card, int] = {JOKER: 0}
_SUIT: dict[Card, str] = {JOKER: ""}
_PIPS: dict[Card, int] = {JOKER: 0}
_CODE: dict[tuple[str, int], Card] = {}
for _s in SUITS:
    for _r in range(1, 14):
        _c = _s + RANK_LABELS[_r]
        _RANK[_c] = _r
        _SUIT[_c] = _s
        _PIPS[_c] = min(_r, 10)
        _CODE[(_s, _r)] = _c

# Every accepted input spelling, upper-cased, mapped to its canonical code.
_INPUT_FORMS: dict[str, Card] = {JOKER: JOKER}
_RANK_SPELLINGS: dict[int, tuple[str, ...]] = {r: (RANK_LABELS[r],) for r in range(1, 14)}
_RANK_SPELLINGS[1] += ("1",)
_RANK_SPELLINGS[10] += ("T",)
_RANK_SPELLINGS[11] += ("11",)
_RANK_SPELLINGS[12] += ("12",)
_RANK_SPELLINGS[13] += ("13",)
for (_s, _r), _c in _CODE.items():
    for _spelling in _RANK_SPELLINGS[_r]:
        _INPUT_FORMS[_s + _spelling] = _c
        _INPUT_FORMS[_spelling + _s] = _c


#: Every accepted input form of a card code, as a regular expression (for
#: documents such as the OpenAPI contract; :func:`parse_card` decides).
CARD_PATTERN = (
    r"^([Jj][Kk]|[CDHScdhs]([2-9]|1[0-3]?|[AJQKTajqkt])|([2-9]|1[0-3]?|[AJQKTajqkt])[CDHScdhs])$"
)


class CardCodeError(ValueError):
    """A card code that is not one of the accepted forms; ``text`` is the bad input."""

    def __init__(self, text: object) -> None:
        self.text = text
        shown = repr(text) if len(repr(text)) <= 40 else repr(text)[:37] + "..."
        super().__init__(f"unknown card code {shown}")


def parse_card(text: str) -> Card:
    """Return the canonical code of one card given in any accepted input form."""
    if type(text) is str and len(text) <= _MAX_INPUT_LEN and text.isascii():
        card = _INPUT_FORMS.get(text.upper())
        if card is not None:
            return card
    raise CardCodeError(text)


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse several card codes; a bare string is refused rather than split into letters."""
    if isinstance(texts, str):
        raise CardCodeError(texts)
    return tuple(parse_card(t) for t in texts)


def is_card(card: object) -> bool:
    """True when ``card`` is already a canonical code (no parsing)."""
    return type(card) is str and card in _RANK


def rank(card: Card) -> int:
    """Rank number of a canonical card: A=1 … K=13; 0 for a joker."""
    try:
        return _RANK[card]
    except KeyError:
        raise CardCodeError(card) from None


def suit(card: Card) -> str:
    """Suit letter of a canonical card (``C D H S``); ``""`` for a joker."""
    try:
        return _SUIT[card]
    except KeyError:
        raise CardCodeError(card) from None


def is_joker(card: Card) -> bool:
    """True for the joker code ``JK``."""
    return card == JOKER


def make_card(suit_letter: str, rank_number: int) -> Card:
    """Canonical code of the natural card with this suit letter and rank number."""
    try:
        return _CODE[(suit_letter, rank_number)]
    except KeyError:
        raise CardCodeError(f"{suit_letter}{rank_number}") from None


def card_points(card: Card, ace_points: int = 1, joker_points: int = 0) -> int:
    """Card value in hand: A ``ace_points``, 2-10 pips, J Q K 10, joker ``joker_points``."""
    try:
        pips = _PIPS[card]
    except KeyError:
        raise CardCodeError(card) from None
    if pips == 1:
        return ace_points
    if pips == 0:
        return joker_points
    return pips


def hand_points(cards: Iterable[Card], ace_points: int = 1, joker_points: int = 0) -> int:
    """Total :func:`card_points` of several cards."""
    return sum(card_points(c, ace_points, joker_points) for c in cards)


def build_deck(decks: int = 1, jokers: int = 0) -> list[Card]:
    """A fresh ordered deck: ``decks`` copies of C, D, H, S (A..K each), then the jokers."""
    if type(decks) is not int or decks < 1:
        raise ValueError(f"decks must be a positive integer, not {decks!r}")
    if type(jokers) is not int or jokers < 0:
        raise ValueError(f"jokers must be a non-negative integer, not {jokers!r}")
    return list(NATURAL_CARDS) * decks + [JOKER] * jokers
