"""`GET /games/{id}/legal-moves` says what each joker of a listed meld would stand for
(`laid_out`), exactly as the table shows the meld once it is made."""

from __future__ import annotations

from tests.api.helpers import Api
from tests.api.test_rulings_over_http import deck_of

ANN = ["JK", "JK", "H5", "H6", "H7", "H8", "S9", "D9", "C9", "S3", "D3", "C3", "DK"]
BOB = ["CA", "D3", "H6", "S9", "CQ", "D5", "H8", "S2", "C6", "DJ", "H3", "S5", "C8"]


def romme_game(api: Api, ann: list[str]) -> tuple[str, str]:
    """A `romme` game where Ann (seat 0) plays first with `ann` and the queen of hearts."""
    answer = api.create(
        preset="romme",
        seats=[{"name": "Ann"}, {"name": "Bob"}],
        deck=deck_of([ann, BOB], ["HQ"], decks=2, jokers=6),
        first_dealer=1,
    )
    assert answer.status_code == 201, answer.json
    return answer.json["id"], answer.json["seats"][0]["token"]


def test_each_meld_with_a_joker_is_laid_out_as_the_table_will_show_it(api: Api) -> None:
    game, token = romme_game(api, ANN)
    listing = api.legal(game, token).json
    moves, laid_out = listing["moves"], listing["laid_out"]
    with_jokers = [
        str(i) for i, m in enumerate(moves) if m["type"] == "meld" and "JK" in m["cards"]
    ]
    assert with_jokers and sorted(laid_out) == sorted(with_jokers)  # those melds, and only those
    for index in with_jokers:
        layout = laid_out[index]
        assert sorted(layout["cards"]) == sorted(moves[int(index)]["cards"])
        assert [layout["cards"][int(p)] for p in layout["jokers"]] == ["JK"] * len(layout["jokers"])
    # A run with a joker inside: the joker stands for the card it replaces.
    run = next(i for i in with_jokers if laid_out[i]["type"] == "run")
    made = api.move(game, token, moves[int(run)])
    assert made.status_code == 200, made.json
    table_meld = made.json["round"]["melds"][-1]
    assert {k: table_meld[k] for k in ("type", "cards", "jokers")} == laid_out[run]


def test_a_listing_without_a_joker_meld_has_no_layouts(api: Api) -> None:
    plain = ["C2", "C3", "C4", "DK", "HK", "SK", "D10", "H10", "S10", "H5", "S7", "D8", "C9"]
    game, token = romme_game(api, plain)
    listing = api.legal(game, token).json
    assert any(m["type"] == "meld" for m in listing["moves"])
    assert "laid_out" not in listing
