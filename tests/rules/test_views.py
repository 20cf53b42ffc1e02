"""Views and event redaction: exactly docs/api.md's fields, and nothing hidden leaks."""

from __future__ import annotations

import dataclasses
import json
import random

from service.rules import fairness
from service.rules.engine import Event, SeatSpec, apply, legal_moves, new_game, round_secret
from service.rules.options import resolve_options
from service.rules.state import GameState
from service.rules.views import (
    EVERYONE,
    is_public_event,
    public_view,
    redact_event,
    seat_view,
    shared_view,
)
from tests.rules.scripted import play, scripted

SEAT_VIEW_KEYS = {
    "status",
    "preset",
    "options",
    "deal",
    "game_commitment",
    "game_secret",
    "turn_deadline",
    "you",
    "hand",
    "seats",
    "round",
    "rounds",
    "winners",
    "pot",
    "reengage",
    "next_game",
}
SEAT_KEYS = {
    "seat", "name", "kind", "hand_size", "score", "has_melded", "eliminated", "deciding",
    "reengaged", "chips_in", "chips_out", "away", "client_seed", "known_cards",
}  # fmt: skip
ROUND_KEYS = {
    "number", "dealer", "turn", "phase", "stock_size", "refills", "discard_pile",
    "taken_discard", "melds", "deal_commitment",
}  # fmt: skip


def game() -> tuple[GameState, list[Event]]:
    return scripted(
        "standard", ["H5 H6 H7 C2", "D2 D4 S6 S8"], up="SQ", stock="C9 CJ", dealer=1,
        options={"hand_size": 4}, seed=987654321987654321,
    )  # fmt: skip


def test_seat_view_has_exactly_the_api_fields() -> None:
    state, _ = game()
    state, _ = play(state, 0, "draw discard", "meld H5 H6 H7")
    view = seat_view(state, 0)
    assert set(view) == SEAT_VIEW_KEYS
    assert view["you"] == 0 and view["hand"] == ["C2", "SQ"]
    assert set(view["seats"][0]) == SEAT_KEYS
    assert view["seats"][0] == {
        "seat": 0, "name": "P0", "kind": "human", "hand_size": 2, "score": 0,
        "has_melded": True, "eliminated": False, "deciding": False, "reengaged": 0,
        "chips_in": 0, "chips_out": 0, "away": False, "client_seed": None,
        "known_cards": ["SQ"],
    }  # fmt: skip
    assert view["round"] == {
        "number": 1, "dealer": 1, "turn": 0, "phase": "play", "stock_size": 52 - 9,
        "refills": 0, "discard_pile": [], "taken_discard": "SQ",
        "melds": [{"id": 1, "type": "run", "cards": ["H5", "H6", "H7"], "owner": 0}],
        "deal_commitment": None,
    }  # fmt: skip
    assert set(view["round"]) == ROUND_KEYS
    assert view["options"] == state.options.to_json()
    assert view["rounds"] == [] and view["winners"] is None and view["status"] == "active"
    assert view["pot"] is None and view["reengage"] is None  # no stake, no decision


def test_public_view_is_the_seat_view_without_you_and_hand() -> None:
    state, _ = game()
    pub = public_view(state)
    mine = seat_view(state, 1)
    assert set(pub) == SEAT_VIEW_KEYS - {"you", "hand"}
    assert {k: v for k, v in mine.items() if k not in ("you", "hand")} == pub


def test_no_view_shows_another_hand_the_stock_the_seed_or_a_token_hash() -> None:
    state, _ = game()
    assert state.round is not None
    for viewer in (0, 1, None):
        view = public_view(state) if viewer is None else seat_view(state, viewer)
        text = json.dumps(view)
        assert state.seed not in text and "hash-" not in text
        assert "stock" not in view and "stock" not in (view["round"] or {})
        cards_shown = set(text.replace('"', " ").split()) & set(
            state.round.stock + state.round.hands[0] + state.round.hands[1]
        )
        own = set(state.round.hands[viewer]) if viewer is not None else set()
        assert cards_shown <= own


def test_finished_rounds_reveal_every_hand() -> None:
    state, _ = scripted(
        "standard", ["H5 H6 H7", "DK DQ SK"], up="CK", stock="S9", dealer=1,
        options={"hand_size": 3, "target_score": 60},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    view = public_view(state)
    assert view["rounds"] == [
        {"number": 1, "reason": "went_out", "winner": 0, "rummy": True, "points": [60, 0],
         "hands": [[], ["DQ", "DK", "SK"]], "deal_commitment": None, "secret": None}
    ]  # fmt: skip
    assert view["winners"] == [0] and view["status"] == "finished" and view["round"] is None


def test_a_stock_draw_shows_its_card_only_to_the_drawer() -> None:
    state, _ = game()
    _, events = play(state, 0, "draw stock")
    drew = events[0]
    assert redact_event(drew, 0) == drew
    assert redact_event(drew, 1) == {"type": "drew", "seat": 0, "source": "stock"}
    assert redact_event(drew, None) == {"type": "drew", "seat": 0, "source": "stock"}
    _, events = play(state, 0, "draw discard")
    assert redact_event(events[0], 1) == events[0]  # the discard is public


def test_a_redacted_event_keeps_the_order_of_its_keys() -> None:
    # Streams send events as JSON in their keys' order: a redaction must not move them.
    drew = {"seq": 4, "type": "drew", "seat": 0, "source": "stock", "card": "S5", "x": 1}
    assert list(redact_event(drew, 1)) == ["seq", "type", "seat", "source", "x"]
    assert list(redact_event(drew, 0)) == ["seq", "type", "seat", "source", "card", "x"]
    dealt = {"seq": 5, "type": "round_started", "hands": [["S5"], None], "dealer": 1}
    assert list(redact_event(dealt, 0)) == ["seq", "type", "dealer", "hand_sizes", "hand"]
    assert list(redact_event(dealt, None)) == ["seq", "type", "dealer", "hand_sizes"]
    assert "card" in drew and "hands" in dealt  # copies: the event is left as it was


def test_the_private_forms_answer_as_the_general_ones_for_events_not_public() -> None:
    from service.rules.views import private_view, redact_private_event, shared_view

    drew = {"type": "drew", "seat": 1, "source": "stock", "card": "S5"}
    dealt = {"type": "round_started", "hands": [["S5"], None, ["D2", "H3"]], "dealer": 1}
    for event in (drew, dealt):
        for viewer in (0, 1, 2, None):
            assert private_view(event, viewer) == shared_view(event, viewer)
            seen = redact_private_event(event, viewer)
            assert seen == redact_event(event, viewer) and list(seen) == list(
                redact_event(event, viewer)
            )
    assert private_view(drew, 1) == 1 and redact_private_event(drew, 1)["card"] == "S5"
    assert "card" not in redact_private_event(drew, 0)


def test_round_started_shows_each_viewer_only_their_own_hand() -> None:
    opts = resolve_options("standard", {}, 3)
    state, events = new_game(opts, "standard", [SeatSpec(f"P{i}") for i in range(3)], seed=5)
    started = events[-1]
    assert started["type"] == "round_started"
    assert state.round is not None
    for viewer in (0, 1, 2):
        seen = redact_event(started, viewer)
        assert "hands" not in seen and seen["hand"] == list(state.round.hands[viewer])
        assert seen["hand_sizes"] == [7, 7, 7]
    spectator = redact_event(started, None)
    assert "hand" not in spectator and "hands" not in spectator
    assert "hands" in started  # redaction returns a copy


def test_a_meld_with_jokers_names_what_each_stands_for() -> None:
    state, _ = scripted(
        "vrotham", ["H7 JK H9 C2 C3 C4 SK D5", "D2 D4 S6 S8 S10 SQ DK"], dealer=1,
        options={"hand_size": 7},
    )  # fmt: skip
    state, _ = play(state, 0, "meld H7 JK H9")
    meld = seat_view(state, 1)["round"]["melds"][0]
    assert meld == {
        "id": 1,
        "type": "run",
        "cards": ["H7", "JK", "H9"],
        "owner": 0,
        "jokers": {"1": "H8"},
    }


def played_events() -> list[Event]:
    """Every event of two seeded 4-player games played by random legal moves."""
    played: list[Event] = []
    for seed in (1, 2):
        rng = random.Random(seed)
        opts = resolve_options("standard", {}, 4)
        state, events = new_game(opts, "standard", [SeatSpec(f"P{i}") for i in range(4)], seed=seed)
        for _ in range(300):
            if state.status != "active" or state.round is None:
                break
            seat = state.round.turn
            state, more = apply(state, seat, rng.choice(legal_moves(state, seat)))
            events += more
        played += events
    return played


def test_an_event_is_public_exactly_when_every_viewer_sees_it_whole() -> None:
    """`is_public_event` (the streams encode such an event once for every viewer)
    agrees with `redact_event` on every event of played games."""
    seen = {True: 0, False: 0}
    for event in played_events():
        whole = all(redact_event(event, viewer) == event for viewer in (None, 0, 1, 2, 3))
        assert is_public_event(event) == whole, event
        seen[whole] += 1
    assert seen[True] and seen[False], seen


def test_viewers_that_share_a_view_see_the_same_and_the_others_do_not() -> None:
    """`shared_view` (the streams encode an event once per view, not per viewer):
    viewers with the same answer get equal redactions, viewers with different
    ones different redactions; a stock draw has two views, a deal one per seat."""
    for event in played_events():
        viewers = (None, 0, 1, 2, 3, 7)
        views = {viewer: shared_view(event, viewer) for viewer in viewers}
        for a in viewers:
            for b in viewers:
                alike = redact_event(event, a) == redact_event(event, b)
                assert alike == (views[a] == views[b]), (event, a, b)
        assert (views[None] == EVERYONE) == is_public_event(event)
        if event["type"] == "drew" and event["source"] == "stock":
            assert set(views.values()) == {None, event["seat"]}
        if event["type"] == "round_started":
            assert set(views.values()) == {None, 0, 1, 2, 3}


def test_finished_rounds_are_shown_once_per_records_with_their_secrets() -> None:
    state, _ = scripted(
        "standard", ["H5 H6 H7", "DK DQ SK"], up="CK", stock="S9", dealer=1,
        options={"hand_size": 3, "target_score": 60},
    )  # fmt: skip
    state, _ = play(state, 0, "draw stock", "meld H5 H6 H7", "discard S9")
    dealt = dataclasses.replace(state, game_secret="ab" * 32)
    secret = round_secret(dealt, 1)
    assert secret is not None
    shown = public_view(dealt)["rounds"]
    assert shown[0]["deal_commitment"] == fairness.commitment(secret)
    assert shown[0]["secret"] == secret.hex()
    # The same records, secret and client seeds: the same (shared) list.
    assert public_view(dataclasses.replace(dealt, steps=dealt.steps + 1))["rounds"] is shown
    # Another client seed makes other secrets.
    seats = (dataclasses.replace(dealt.seats[0], client_seed="seed-0"), *dealt.seats[1:])
    reseeded = dataclasses.replace(dealt, seats=seats)
    other = round_secret(reseeded, 1)
    assert other is not None and other != secret
    assert public_view(reseeded)["rounds"][0]["secret"] == other.hex()
    assert public_view(state)["rounds"][0]["secret"] is None


def test_a_seat_view_can_fill_the_callers_leading_keys() -> None:
    state, _ = game()
    head = {"id": "g", "version": 3}
    view = seat_view(state, 0, head=head)
    assert view is head
    assert list(view) == ["id", "version", *seat_view(state, 0)]
    assert view == {"id": "g", "version": 3, **seat_view(state, 0)}
