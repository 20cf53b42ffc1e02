"""`GET /legal-moves` says why each kind of move with none listed is not legal now:
the refusal code a move of that kind would get, its words and the figures behind a
first-meld minimum, so any client can explain a disabled control."""

from __future__ import annotations

import random

from service.rules.engine import SeatSpec, apply, legal_moves, new_game, unavailable
from service.rules.moves import ERROR_CODES, MOVE_TYPES
from service.rules.options import PRESETS
from tests.api.helpers import DRAW, Api
from tests.api.test_rulings_over_http import create, deck_of

ROMME_HAND = [
    "C2", "C3", "C4", "DK", "HK", "SK", "D10", "H10", "S10", "H5", "S7", "D8", "C9",
]  # fmt: skip


def test_romme_after_a_nine_point_first_meld_the_discard_says_40_needed_9_had(api: Api) -> None:
    hands = [
        ROMME_HAND,
        ["CA", "D3", "H6", "S9", "CQ", "D5", "H8", "S2", "C6", "DJ", "H3", "S5", "C8"],
    ]
    game = create(api, "romme", ["Ann", "Bob"], deck_of(hands, ["HQ"], decks=2, jokers=6))
    gid, ann, bob = game["id"], game["seats"][0]["token"], game["seats"][1]["token"]
    assert api.move(gid, ann, {"type": "meld", "cards": ["C2", "C3", "C4"]}).status_code == 200
    listing = api.legal(gid, ann).json
    assert not any(m["type"] == "discard" for m in listing["moves"])
    why = listing["unavailable"]["discard"]
    assert (why["code"], why["needed"], why["have"]) == ("first_meld_minimum", 40, 9)
    assert listing["unavailable"]["layoff"]["code"] == "first_meld_minimum"
    refused = api.move(gid, ann, {"type": "discard", "card": "H5"})
    assert refused.status_code == 409 and refused.json["code"] == why["code"]
    # Not her turn: every kind says so, with the code a move would be refused with.
    theirs = api.legal(gid, bob).json
    assert theirs["moves"] == []
    assert {k: v["code"] for k, v in theirs["unavailable"].items() if "reengage" not in k} == {
        kind: "not_your_turn" for kind in MOVE_TYPES if "reengage" not in kind
    }
    tried = api.move(gid, bob, DRAW)
    assert tried.status_code == 409 and tried.json["code"] == "not_your_turn"


def test_every_kind_is_either_listed_or_explained_with_a_catalogued_code() -> None:
    """Random games of every preset: each move type is listed or has a reason, never
    both, and each reason's code is one of the refusal codes."""
    rng = random.Random(7)
    for name, preset in PRESETS.items():
        seats = [SeatSpec(name="A"), SeatSpec(name="B")]
        state, _ = new_game(preset.options, name, seats, seed=f"why-{name}")
        for _ in range(120):
            if state.status != "active":
                break
            for seat in range(state.players):
                moves = legal_moves(state, seat)
                why = unavailable(state, seat, moves)
                kinds = {type(m).TYPE for m in moves}
                assert kinds.isdisjoint(why) and kinds | set(why) == set(MOVE_TYPES)
                assert all(reason.code in ERROR_CODES for reason in why.values())
            mover = next(s for s in range(state.players) if legal_moves(state, s))
            state, _ = apply(state, mover, rng.choice(legal_moves(state, mover)))
