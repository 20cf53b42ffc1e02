"""Move shapes (docs/api.md), parsing and the one list of refusal codes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.rules.moves import (
    ERROR_CODES,
    Discard,
    Draw,
    IllegalMove,
    LayOff,
    Meld,
    MoveFormatError,
    Reengage,
    SwapJoker,
    parse_move,
)

API_SHAPES = [
    {"type": "draw", "source": "stock"},
    {"type": "draw", "source": "discard"},
    {"type": "meld", "cards": ["H5", "H6", "H7"]},
    {"type": "layoff", "meld": 1, "cards": ["H10"]},
    {"type": "discard", "card": "SK"},
    {"type": "swap_joker", "meld": 3, "card": "H9"},
    {"type": "reengage"},
]


@pytest.mark.parametrize("shape", API_SHAPES)
def test_every_api_move_shape_parses_and_round_trips(shape: dict[str, object]) -> None:
    assert parse_move(shape).to_json() == shape


def test_card_codes_in_moves_are_canonicalised() -> None:
    assert parse_move({"type": "meld", "cards": ["5h", "H6", "7H"]}) == Meld(("H5", "H6", "H7"))
    assert parse_move({"type": "discard", "card": "td"}) == Discard("D10")
    assert parse_move({"type": "layoff", "meld": 2, "cards": ["S12"]}) == LayOff(2, ("SQ",))
    assert parse_move({"type": "swap_joker", "meld": 1, "card": "1h"}) == SwapJoker(1, "HA")
    assert parse_move({"type": "draw", "source": "stock"}) == Draw("stock")
    assert parse_move({"type": "reengage"}) == Reengage()


@pytest.mark.parametrize(
    ("obj", "field", "fragment"),
    [
        ({"type": "fly"}, "type", "unknown move type"),
        ({}, "type", "unknown move type"),
        ({"type": "draw", "source": "deck"}, "source", "stock"),
        ({"type": "meld", "cards": []}, "cards", "non-empty"),
        ({"type": "meld", "cards": "H5 H6 H7"}, "cards", "non-empty list"),
        ({"type": "meld", "cards": ["H5", "X9", "H7"]}, "cards", "'X9'"),
        ({"type": "layoff", "meld": "1", "cards": ["H5"]}, "meld", "meld id"),
        ({"type": "layoff", "meld": -1, "cards": ["H5"]}, "meld", "meld id"),
        ({"type": "discard", "card": "ZZ"}, "card", "'ZZ'"),
        ({"type": "discard"}, "card", "None"),
        ({"type": "discard", "card": "SK", "extra": 1}, "extra", "unknown field"),
    ],
)
def test_malformed_moves_raise_move_format_error_naming_the_field(
    obj: dict[str, object], field: str, fragment: str
) -> None:
    with pytest.raises(MoveFormatError) as err:
        parse_move(obj)
    assert err.value.field == field
    assert fragment in err.value.detail


def test_illegal_move_carries_a_listed_code() -> None:
    err = IllegalMove("not_your_turn", "it is seat 1's turn")
    assert (err.code, err.detail) == ("not_your_turn", "it is seat 1's turn")
    with pytest.raises(AssertionError):
        IllegalMove("made_up_code", "")


def test_every_code_the_rules_raise_is_listed_in_one_place() -> None:
    source = "".join(
        p.read_text() for p in Path("service/rules").glob("*.py") if p.name != "moves.py"
    )
    raised = set(re.findall(r'IllegalMove\(\s*"([a-z_]+)"', source))
    engine = Path("service/rules/engine.py").read_text()
    returned = set(re.findall(r'return "([a-z_]+)"', engine))
    assert raised and raised <= set(ERROR_CODES)
    assert returned and returned <= set(ERROR_CODES)
    # the docs/api.md examples are all kept
    for code in (
        "not_your_turn", "must_draw_first", "already_drew", "card_not_in_hand", "invalid_meld",
        "invalid_layoff", "one_meld_per_turn", "layoff_requires_own_meld",
        "cannot_discard_taken_card", "would_leave_no_legal_discard", "discard_pile_empty",
        "game_not_active",
    ):  # fmt: skip
        assert code in ERROR_CODES
