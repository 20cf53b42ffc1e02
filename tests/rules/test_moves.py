"""Move shapes (docs/api.md), parsing and the one list of refusal codes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.rules.moves import (
    ERROR_CODES,
    MAX_ACTIONS,
    MAX_CARDS,
    MAX_MELD_ID,
    DeclineReengage,
    Discard,
    Draw,
    IllegalMove,
    LayOff,
    Meld,
    MoveFormatError,
    Reengage,
    SwapJoker,
    move_sort_key,
    parse_move,
    parse_request,
)

API_SHAPES = [
    {"type": "draw", "source": "stock"},
    {"type": "draw", "source": "discard"},
    {"type": "meld", "cards": ["H5", "H6", "H7"]},
    {"type": "layoff", "meld": 1, "cards": ["H10"]},
    {"type": "discard", "card": "SK"},
    {"type": "swap_joker", "meld": 3, "card": "H9"},
    {"type": "reengage"},
    {"type": "decline_reengage"},
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
    assert parse_move({"type": "decline_reengage"}) == DeclineReengage()


def test_the_reengage_decision_sorts_reengage_first() -> None:
    decision = [DeclineReengage(), Reengage(), Discard("SK")]
    assert sorted(decision, key=move_sort_key) == [Discard("SK"), Reengage(), DeclineReengage()]


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


def test_a_request_body_is_one_move_or_actions_up_to_the_limits() -> None:
    draw = {"type": "draw", "source": "stock"}
    assert parse_request(draw) == [Draw("stock")]
    assert parse_request({"actions": [draw] * MAX_ACTIONS}) == [Draw("stock")] * MAX_ACTIONS
    jokers = {"type": "meld", "cards": ["JK"] * MAX_CARDS}
    assert parse_request(jokers) == [Meld(("JK",) * MAX_CARDS)]
    edge = {"type": "layoff", "meld": MAX_MELD_ID, "cards": ["h5", "JK", "JK"]}
    assert parse_request(edge) == [LayOff(MAX_MELD_ID, ("H5", "JK", "JK"))]


@pytest.mark.parametrize(
    ("body", "field", "fragment"),
    [
        ({"actions": []}, "actions", "1 to 64"),
        ({"actions": [{"type": "draw", "source": "stock"}] * 65}, "actions", "1 to 64"),
        ({"actions": {"type": "reengage"}}, "actions", "1 to 64"),
        ({"actions": [{"type": "reengage"}], "type": "reengage"}, "actions", "stands alone"),
        ({"actions": [{"type": "reengage"}, {"type": "fly"}]}, "actions.1.type", "unknown"),
        ({"actions": [{"type": "reengage"}, "draw"]}, "actions.1.type", "an object"),
        (
            {"actions": [{"type": "reengage"}, {"type": "meld", "cards": ["H2", "2h", "H3"]}]},
            "actions.1.cards",
            "card H2 is named more than once",
        ),
        ({"type": "meld", "cards": ["JK", "S3", "S3"]}, "cards", "card S3 is named"),
        ({"type": "meld", "cards": ["H2"] * (MAX_CARDS + 1)}, "cards", "at most 110"),
        ({"type": "layoff", "meld": MAX_MELD_ID + 1, "cards": ["H5"]}, "meld", "meld id"),
        ({"type": "layoff", "meld": True, "cards": ["H5"]}, "meld", "meld id"),
        ({"type": "layoff", "meld": 2.0, "cards": ["H5"]}, "meld", "meld id"),
        ({"type": "discard", "card": "\uff28\uff12"}, "card", "card code"),
        ([{"type": "reengage"}], "type", "an object"),
        (None, "type", "an object"),
    ],
)
def test_malformed_request_bodies_name_the_field(body: object, field: str, fragment: str) -> None:
    with pytest.raises(MoveFormatError) as err:
        parse_request(body)
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
    checks = "".join(Path(f"service/rules/{name}.py").read_text() for name in ("engine", "search"))
    returned = set(re.findall(r'return "([a-z_]+)"', checks))
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
