"""Card codes: every accepted and rejected input form, ranks, suits, points, decks."""

from __future__ import annotations

import pytest

from service.rules.cards import (
    JOKER,
    NATURAL_CARDS,
    CardCodeError,
    build_deck,
    card_points,
    hand_points,
    is_card,
    is_joker,
    make_card,
    parse_card,
    parse_cards,
    rank,
    suit,
)


@pytest.mark.parametrize(
    ("text", "card"),
    [
        # canonical, suit first
        ("HA", "HA"),
        ("H8", "H8"),
        ("H10", "H10"),
        ("SK", "SK"),
        ("DQ", "DQ"),
        ("CJ", "CJ"),
        # case-insensitive
        ("h10", "H10"),
        ("hA", "HA"),
        ("sk", "SK"),
        # rank first
        ("8H", "H8"),
        ("10S", "S10"),
        ("AH", "HA"),
        ("kd", "DK"),
        ("JH", "HJ"),
        # numeric face ranks and T, both orders
        ("H1", "HA"),
        ("1H", "HA"),
        ("S11", "SJ"),
        ("S12", "SQ"),
        ("12S", "SQ"),
        ("C13", "CK"),
        ("13c", "CK"),
        ("TD", "D10"),
        ("DT", "D10"),
        ("td", "D10"),
        # joker
        ("JK", "JK"),
        ("jk", "JK"),
        ("Jk", "JK"),
    ],
)
def test_accepted_forms_parse_to_canonical_code(text: str, card: str) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize("card", NATURAL_CARDS)
def test_every_canonical_code_parses_to_itself(card: str) -> None:
    assert parse_card(card) == card
    assert parse_card(card.lower()) == card


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "H",
        "10",
        "A",
        "HH",
        "H0",
        "H00",
        "H01",
        "H010",
        "H14",
        "H11H",
        "X5",
        "5X",
        "1",
        "KJ",
        "JJ",
        "JKR",
        "joker",
        "JOKER",
        " HA",
        "HA ",
        "H 8",
        "H\x00",
        "H\n8",
        "\tHA",
        "\u017fK",  # long s upper-cases to "SK"
        "H\uff41",  # fullwidth letter
        "H\uff18",
        "♥A",
        "H10H10",
        "HA" * 500,
    ],
)
def test_rejected_forms_name_the_bad_text(text: str) -> None:
    with pytest.raises(CardCodeError) as info:
        parse_card(text)
    assert info.value.text == text
    assert repr(text)[:20] in str(info.value)


@pytest.mark.parametrize("value", [None, 8, b"HA", ["HA"]])
def test_non_string_input_is_rejected(value: object) -> None:
    with pytest.raises(CardCodeError):
        parse_card(value)  # type: ignore[arg-type]


def test_card_code_error_is_a_value_error() -> None:
    assert issubclass(CardCodeError, ValueError)


def test_parse_cards_parses_each_and_keeps_duplicates() -> None:
    assert parse_cards(["ah", "10S", "JK", "HA"]) == ("HA", "S10", "JK", "HA")
    assert parse_cards([]) == ()


def test_parse_cards_refuses_a_bare_string_and_bad_members() -> None:
    with pytest.raises(CardCodeError):
        parse_cards("HA")
    with pytest.raises(CardCodeError) as info:
        parse_cards(["HA", "ZZ"])
    assert info.value.text == "ZZ"


def test_rank_and_suit() -> None:
    assert [rank(c) for c in ("HA", "H2", "H10", "HJ", "HQ", "HK", "JK")] == [
        1,
        2,
        10,
        11,
        12,
        13,
        0,
    ]
    assert [suit(c) for c in ("CA", "D5", "H10", "SK", "JK")] == ["C", "D", "H", "S", ""]
    assert is_joker("JK") and not is_joker("HA")
    assert is_card("H10") and is_card("JK") and not is_card("10H") and not is_card(None)


def test_rank_and_suit_refuse_non_canonical_codes() -> None:
    with pytest.raises(CardCodeError):
        rank("10H")
    with pytest.raises(CardCodeError):
        suit("ha")
    with pytest.raises(CardCodeError):
        card_points("X", 1, 0)


def test_make_card() -> None:
    assert make_card("H", 1) == "HA"
    assert make_card("S", 10) == "S10"
    assert make_card("C", 13) == "CK"
    with pytest.raises(CardCodeError):
        make_card("H", 14)
    with pytest.raises(CardCodeError):
        make_card("X", 3)


def test_card_points() -> None:
    assert card_points("HA", 1, 0) == 1
    assert card_points("HA", 15, 0) == 15
    assert [card_points(f"D{r}", 1, 0) for r in range(2, 11)] == list(range(2, 11))
    assert card_points("CJ", 15, 0) == card_points("CQ", 15, 0) == card_points("CK", 1, 0) == 10
    assert card_points("JK", 1, 15) == 15
    assert card_points("JK", 1, 20) == 20
    assert hand_points(["HA", "SK", "JK", "D7"], 15, 20) == 15 + 10 + 20 + 7


def test_build_deck_order_and_counts() -> None:
    deck = build_deck(1, 0)
    assert len(deck) == 52 and len(set(deck)) == 52
    assert deck[:3] == ["CA", "C2", "C3"]
    assert deck[12:14] == ["CK", "DA"]
    assert deck[-1] == "SK"
    romme = build_deck(2, 6)
    assert len(romme) == 110
    assert romme[:52] == romme[52:104] == deck
    assert romme[104:] == [JOKER] * 6
    assert build_deck(1, 3)[-4:] == ["SK", "JK", "JK", "JK"]


def test_build_deck_returns_a_fresh_list() -> None:
    first = build_deck(1, 0)
    first.pop()
    assert len(build_deck(1, 0)) == 52


@pytest.mark.parametrize(("decks", "jokers"), [(0, 0), (-1, 0), (1, -1), (1.5, 0)])
def test_build_deck_refuses_bad_counts(decks: int, jokers: int) -> None:
    with pytest.raises(ValueError):
        build_deck(decks, jokers)
