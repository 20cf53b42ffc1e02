"""The seven rulings of a fresh reading of the presets' rule texts, each played over
the HTTP API from a fixed deal (docs/rules.md, "Rulings").

Each test creates one game with a fixed `deck` and `first_dealer` (every seat named:
a fixed deal is refused while a seat is open), plays it as a client would, and
asserts what the rule text says. The dealer is the last seat, so seat 0 plays first
and the hands are dealt one card at a time from seat 0; `deck_of` builds the deck.
"""

from __future__ import annotations

from typing import Any

from service.rules.cards import build_deck
from tests.api.helpers import DRAW, Api


def deck_of(hands: list[list[str]], then: list[str], decks: int = 1, jokers: int = 0) -> list[str]:
    """A deck that deals ``hands`` (seat 0 first), then puts ``then`` next (the card
    turned up, or the first player's extra card, then the stock from its top), then
    every other card of the game in deck order."""
    size = len(hands[0])
    dealt = [hands[seat][i] for i in range(size) for seat in range(len(hands))]
    rest = build_deck(decks, jokers)
    for card in [*dealt, *then]:
        rest.remove(card)
    return [*dealt, *then, *rest]


def create(api: Api, preset: str, names: list[str], deck: list[str], **options: Any) -> Any:
    """A game of ``preset`` for ``names`` on ``deck`` (last seat deals); its answer."""
    answer = api.create(
        preset=preset,
        seats=[{"name": name} for name in names],
        deck=deck,
        first_dealer=len(names) - 1,
        options=options,
    )
    assert answer.status_code == 201, answer.json
    return answer.json


def draw_and_discard(api: Api, game: str, token: str) -> dict[str, Any]:
    """The seat draws from the stock and discards the card it drew; its view after."""
    drawn = api.move(game, token, DRAW)
    assert drawn.status_code == 200, drawn.json
    view = drawn.json
    assert view is not None
    card = [e for e in api.events(game, token).json["events"] if e["type"] == "drew"][-1]
    answer = api.move(game, token, {"type": "discard", "card": card["card"]})
    assert answer.status_code == 200, answer.json
    return answer.json  # type: ignore[no-any-return]


def play_to_round_end(api: Api, game: str, tokens: list[str], rounds_before: int = 0) -> Any:
    """Every seat draws and discards what it drew, in turn, until the round ends (or a
    seat facing the empty stock draws from it); the last view."""
    view = api.view(game, tokens[0]).json
    for _ in range(400):
        if len(view["rounds"]) > rounds_before or view["status"] != "active":
            return view
        if view["round"] is None:
            return view
        seat = view["round"]["turn"]
        if view["round"]["stock_size"] == 0:
            answer = api.move(game, tokens[seat], DRAW)
            assert answer.status_code == 200, answer.json
            view = answer.json
            continue
        view = draw_and_discard(api, game, tokens[seat])
    raise AssertionError("the round did not end")


# --- elimination (Greek points game) ---------------------------------------------


def test_elimination_tie_when_all_reach_the_target_goes_to_who_closed(api: Api) -> None:
    """ "If all players exceed the limit at the same time, the fewest points win. In a
    tie, the player who closed wins": both hands count 17 against a target of 10; the
    round ends when Bob draws from the empty stock, so Bob wins alone, and no
    re-engage is offered."""
    deck = deck_of([["H2", "S5", "DK"], ["C2", "D5", "SK"]], ["HA"])
    game = create(
        api, "elimination", ["Ann", "Bob"], deck, target_score=10, stock_refill="none", hand_size=3
    )
    tokens = [s["token"] for s in game["seats"]]
    view = play_to_round_end(api, game["id"], tokens)
    assert view["rounds"][0]["reason"] == "stock_exhausted"
    assert [s["score"] for s in view["seats"]] == [17, 17]
    assert view["status"] == "finished"
    assert view["winners"] == [1]  # Bob's draw from the empty stock ended the round
    assert view["reengage"] is None


def test_elimination_tie_without_the_closer_goes_to_who_played_first(api: Api) -> None:
    """ "...or if still tied, the 'hand'": Ann (17) and Cy (17) tie below Bob (22).
    Ann takes the discard on her first turn, so the stock's last card falls to her and
    Bob closes the round: the tie goes to Ann, who played first."""
    deck = deck_of([["H2", "S5", "DK"], ["C2", "D10", "SK"], ["S2", "C5", "HK"]], ["DQ"])
    game = create(
        api,
        "elimination",
        ["Ann", "Bob", "Cy"],
        deck,
        target_score=10,
        stock_refill="none",
        hand_size=3,
    )
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    assert api.move(gid, tokens[0], {"type": "draw", "source": "discard"}).status_code == 200
    assert api.move(gid, tokens[0], {"type": "discard", "card": "DK"}).status_code == 200
    view = play_to_round_end(api, gid, tokens)
    assert [s["score"] for s in view["seats"]] == [17, 22, 17]
    assert view["you"] == 1  # the last move, which ended the round, was Bob's
    assert view["status"] == "finished" and view["winners"] == [0]


def test_elimination_reengage_waits_between_rounds_with_the_highest_total_then(
    api: Api,
) -> None:
    """ "A player eliminated may re-engage ... with the same points as the player with
    the most points at that moment": round 1 puts Ann at 30 against a target of 20,
    Bob at 12 and Cy at 9. The next round is not dealt until Ann decides; she comes
    back with 12, and is dealt into the very next round."""
    deck = deck_of([["DK", "SK", "HQ"], ["C2", "D3", "H7"], ["S2", "C3", "D4"]], ["HA"])
    game = create(
        api,
        "elimination",
        ["Ann", "Bob", "Cy"],
        deck,
        target_score=20,
        stock_refill="none",
        hand_size=3,
    )
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    view = play_to_round_end(api, gid, tokens)
    assert [s["score"] for s in view["seats"]] == [30, 12, 9]
    assert view["status"] == "active" and view["round"] is None
    assert view["reengage"] == {"seats": [0], "score": 12, "chips": None, "deadline": None}
    assert view["seats"][0]["eliminated"] and view["seats"][0]["deciding"]
    legal = api.legal(gid, tokens[0]).json["moves"]
    assert legal == [{"type": "reengage"}, {"type": "decline_reengage"}]
    assert api.legal(gid, tokens[1]).json["moves"] == []
    refused = api.move(gid, tokens[1], DRAW)
    assert refused.status_code == 409 and refused.json["code"] == "reengage_pending"
    back = api.move(gid, tokens[0], {"type": "reengage"})
    assert back.status_code == 200, back.json
    view = back.json
    assert view["seats"][0]["score"] == 12 and not view["seats"][0]["eliminated"]
    assert view["round"]["number"] == 2 and len(view["hand"]) == 3  # dealt in at once
    assert view["reengage"] is None
    types = [e["type"] for e in api.events(gid, tokens[0]).json["events"]]
    assert types[-3:] == ["reengage_offered", "reengaged", "round_started"]
    again = api.move(gid, tokens[0], {"type": "reengage"})
    assert again.status_code == 409 and again.json["code"] == "cannot_reengage"


def test_elimination_declining_leaves_the_last_player_in_the_winner(api: Api) -> None:
    """A player who declines is out for good: with one player left in, the game ends."""
    deck = deck_of([["DK", "SK", "HQ"], ["C2", "D3", "H7"]], ["HA"])
    game = create(
        api, "elimination", ["Ann", "Bob"], deck, target_score=20, stock_refill="none", hand_size=3
    )
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    view = play_to_round_end(api, gid, tokens)
    assert view["reengage"]["seats"] == [0]
    wrong = api.move(gid, tokens[1], {"type": "decline_reengage"})
    assert wrong.status_code == 409 and wrong.json["code"] == "no_reengage_decision"
    out = api.move(gid, tokens[0], {"type": "decline_reengage"})
    assert out.status_code == 200, out.json
    assert out.json["status"] == "finished" and out.json["winners"] == [1]


def test_elimination_with_a_stake_puts_half_the_stake_in_to_reengage(api: Api) -> None:
    """Stakes: each player puts 10 chips in; re-engaging costs 5 (half, rounded up);
    the winner takes the pot."""
    deck = deck_of([["DK", "SK", "HQ"], ["C2", "D3", "H7"]], ["HA"])
    game = create(
        api,
        "elimination",
        ["Ann", "Bob"],
        deck,
        target_score=20,
        stock_refill="none",
        hand_size=3,
        stake=9,
    )
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    assert api.view(gid).json["pot"] == 18
    view = play_to_round_end(api, gid, tokens)
    assert view["reengage"]["chips"] == 5
    view = api.move(gid, tokens[0], {"type": "reengage"}).json
    assert view["pot"] == 23 and view["seats"][0]["chips_in"] == 14
    assert api.move(gid, tokens[0], {"type": "decline_reengage"}).status_code == 409


# --- express and elimination: the final discard -----------------------------------


def test_express_going_out_needs_a_final_discard(api: Api) -> None:
    """ "To end his turn the player must discard a card from his hand": Ann, holding
    H2 H3 H4 and drawing H5, may not meld all four; she melds three and goes out by
    discarding H5."""
    deck = deck_of([["H2", "H3", "H4"], ["C9", "D9", "SJ"]], ["CK", "H5"])
    game = create(api, "express", ["Ann", "Bob"], deck, hand_size=3)
    gid, ann = game["id"], game["seats"][0]["token"]
    assert api.move(gid, ann, DRAW).status_code == 200
    all_four = api.move(gid, ann, {"type": "meld", "cards": ["H2", "H3", "H4", "H5"]})
    assert all_four.status_code == 409
    assert all_four.json["code"] == "would_leave_no_legal_discard"
    assert api.move(gid, ann, {"type": "meld", "cards": ["H2", "H3", "H4"]}).status_code == 200
    out = api.move(gid, ann, {"type": "discard", "card": "H5"})
    assert out.status_code == 200
    assert out.json["status"] == "finished" and out.json["winners"] == [0]


# --- vrotham (Danish): any number of jokers -----------------------------------------


def test_vrotham_a_joker_may_replace_any_card_needed_h7_jk_jk(api: Api) -> None:
    """ "A joker can be used to replace any card needed to meld a set or run": H7 JK JK
    melds (one natural card and two jokers: a set of sevens)."""
    hands = [
        ["H7", "JK", "JK", "C2", "D5", "S9", "HQ"],
        ["C3", "D6", "S10", "HK", "CA", "D8", "S4"],
    ]
    deck = deck_of(hands, ["JK"], jokers=3)
    game = create(api, "vrotham", ["Ann", "Bob"], deck)
    gid, ann = game["id"], game["seats"][0]["token"]
    answer = api.move(gid, ann, {"type": "meld", "cards": ["H7", "JK", "JK"]})
    assert answer.status_code == 200, answer.json
    meld = answer.json["round"]["melds"][0]
    assert meld["type"] == "set" and meld["cards"] == ["JK", "JK", "H7"]
    assert meld["jokers"] == {"0": "C7", "1": "D7"}


# --- traditional (Icelandic) and meld_first (Swedish): the stock empty again --------


def _two_stocks(api: Api, preset: str) -> None:
    """Both seats draw and discard until a stock's last card is drawn twice: the round
    goes on after the first (the stock is refilled once) and ends with the turn of the
    second, before the next player could take the discard."""
    deck = deck_of(
        [["C2", "C4", "C6", "C8", "C10", "D2", "D4", "D6", "D8", "D10"],
         ["H2", "H4", "H6", "H8", "H10", "S2", "S4", "S6", "S8", "S10"]],
        ["CK"],
    )  # fmt: skip
    game = create(api, preset, ["Ann", "Bob"], deck)
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    view = api.view(gid, tokens[0]).json
    emptied = 0  # turns that drew a stock's last card
    while not view["rounds"]:
        assert emptied < 2, "the round went on after the second stock's last card"
        stock = view["round"]["stock_size"]
        view = draw_and_discard(api, gid, tokens[view["round"]["turn"]])
        emptied += stock == 1
    record = view["rounds"][0]
    assert emptied == 2 and view["round"]["refills"] == 0  # the next round's
    assert record["reason"] == "stock_exhausted"
    assert record["winner"] is None and record["points"] == [0, 0]


def test_traditional_the_stock_empty_again_is_a_draw(api: Api) -> None:
    """ "If the stock is empty again, the round is a draw": the round ends when the
    refilled stock's last card has been drawn and that turn ends; the next player may
    not take the discard."""
    _two_stocks(api, "traditional")


def test_meld_first_the_stock_running_out_a_second_time_is_a_draw(api: Api) -> None:
    """ "If it runs out a second time and nobody goes out, the round ends in a draw"."""
    _two_stocks(api, "meld_first")


# --- straight (Danish): the lowest hand takes the difference ----------------------


def test_straight_without_anyone_out_the_lowest_hand_takes_the_difference(api: Api) -> None:
    """ "If play ends without anyone going out, the lowest hand wins and scores the sum
    of the differences": Ann holds 24 points, Bob 81 when the stock runs out (no
    refill in this game), so Ann scores 57."""
    hands = [
        ["CA", "C3", "D5", "H6", "SA", "C2", "D2", "HA", "S2", "DA"],
        ["CK", "DQ", "HJ", "S9", "C8", "D7", "H3", "S4", "CQ", "DJ"],
    ]
    game = create(api, "straight", ["Ann", "Bob"], deck_of(hands, ["SK"]), max_refills=0)
    tokens = [s["token"] for s in game["seats"]]
    view = play_to_round_end(api, game["id"], tokens)
    record = view["rounds"][0]
    assert record["reason"] == "stock_exhausted"
    assert [sorted(h) for h in record["hands"]] == [sorted(h) for h in hands]
    assert record["points"] == [81 - 24, 0]


# --- block (Danish): play on to the stock's end ------------------------------------


def test_block_a_round_nobody_can_go_out_of_plays_on_to_the_stocks_end(api: Api) -> None:
    """ "If the stock has run out and the next player does not want the discard, the
    game ends": with one card each nobody can ever go out, yet draws and discards still
    change the hands, so the round is not cut short after the first discard."""
    deck = deck_of([["CK"], ["DA"]], ["S5", "C2"])
    game = create(api, "block", ["Ann", "Bob"], deck, hand_size=1)
    gid, tokens = game["id"], [s["token"] for s in game["seats"]]
    view = draw_and_discard(api, gid, tokens[0])  # Ann draws C2, lets it go
    assert view["rounds"] == [] and view["round"]["turn"] == 1
    # Bob takes the discarded C2 and discards his ace.
    assert api.move(gid, tokens[1], {"type": "draw", "source": "discard"}).status_code == 200
    assert api.move(gid, tokens[1], {"type": "discard", "card": "DA"}).status_code == 200
    view = play_to_round_end(api, gid, tokens)
    record = view["rounds"][0]
    assert record["reason"] == "stock_exhausted"
    assert len(view["rounds"]) == 1 and record["hands"][1] != ["DA"]


def test_standard_a_round_nobody_can_go_out_of_still_ends_at_once(api: Api) -> None:
    """Where the round is void, ending it early changes nothing: it ends at once."""
    deck = deck_of([["CK"], ["DA"]], ["S5", "C2"])
    game = create(api, "standard", ["Ann", "Bob"], deck, hand_size=1)
    view = draw_and_discard(api, game["id"], game["seats"][0]["token"])
    assert view["rounds"][0]["reason"] == "blocked"
