"""Jokers over HTTP: a ``vrotham`` game dealt from a written deck, a joker meld shown
with what the joker stands for, and a ``swap_joker`` move (issue 7: the same move
shapes plus ``swap_joker``)."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import DRAW, Api, problem
from tests.rules.scripted import scripted_deck

#: Seat 0 (first, eight cards, no draw) holds H7 JK H9; seat 1 holds H8.
HANDS = ["H7 JK H9 C2 C4 C6 SK D5", "H8 D2 S6 S8 S10 SQ DK"]


def joker_game(api: Api) -> tuple[str, str, str]:
    """A 2-player vrotham game dealt from ``HANDS``: (game id, seat 0's token, seat 1's)."""
    deck = scripted_deck(HANDS, dealer=1, up=None, stock="H10 CK", jokers=3)
    answer = api.create(
        preset="vrotham", seats=[{"name": "Ann"}, {"name": "Bob"}], deck=deck, first_dealer=1
    )
    assert answer.status_code == 201, answer.json
    body: dict[str, Any] = answer.json  # type: ignore[assignment]
    return body["id"], body["seats"][0]["token"], body["seats"][1]["token"]


def test_a_joker_meld_and_a_joker_swap_over_http(any_api: Api) -> None:
    game, ann, bob = joker_game(any_api)
    first = any_api.legal(game, ann).json
    assert first is not None
    assert {"type": "meld", "cards": ["H7", "JK", "H9"]} in first["moves"]
    assert not any(m["type"] == "draw" for m in first["moves"])
    problem(any_api.move(game, ann, DRAW), 409, "no_draw_first_turn")
    assert any_api.move(game, ann, {"type": "meld", "cards": ["9H", "JK", "7H"]}).status_code == 200
    assert any_api.move(game, ann, {"type": "discard", "card": "SK"}).status_code == 200
    meld = {"id": 1, "type": "run", "cards": ["H7", "JK", "H9"], "owner": 0, "jokers": {"1": "H8"}}
    seen = any_api.view(game).json
    assert seen is not None and seen["round"]["melds"] == [meld]
    swap = {"type": "swap_joker", "meld": 1, "card": "H8"}
    problem(any_api.move(game, bob, swap), 409, "must_draw_first")
    any_api.move(game, bob, DRAW)
    legal = any_api.legal(game, bob).json
    assert legal is not None and swap in legal["moves"]
    problem(any_api.move(game, bob, {**swap, "card": "H10"}), 409, "invalid_joker_swap")
    assert any_api.move(game, bob, swap).status_code == 200
    view = any_api.view(game, bob).json
    assert view is not None
    assert view["round"]["melds"][0]["cards"] == ["H7", "H8", "H9"]
    assert "jokers" not in view["round"]["melds"][0]
    assert "JK" in view["hand"] and "H8" not in view["hand"]
