"""`known_cards`: what every player at the table saw a seat take, and not yet played.

Random games through the engine (every preset, 2-4 seats), followed from their
events as a player at the table would: a card taken from the discard pile (or a
joker swapped off the table) becomes known, a known card played (melded, laid off,
swapped in or discarded) stops being known, one copy at a time. After every move
the views list exactly that, never a card drawn from the stock.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from service.rules.cards import JOKER
from service.rules.engine import SeatSpec, apply, legal_moves, new_game, seat_to_move
from service.rules.options import PRESETS, resolve_options
from service.rules.state import decode_state, encode_state
from service.rules.views import public_view, seat_view


def _follow(
    known: list[Counter[str]], stock_drawn: list[Counter[str]], event: dict[str, Any]
) -> None:
    kind, seat = event["type"], event.get("seat")
    if kind == "round_started":
        for counter in (*known, *stock_drawn):
            counter.clear()
        return
    played: list[str] = []
    if kind == "drew" and event["source"] == "discard":
        known[seat][event["card"]] += 1
    elif kind == "drew":
        stock_drawn[seat][event["card"]] += 1
    elif kind == "melded":
        played = event["meld"]["cards"]
    elif kind == "laid_off":
        played = event["cards"]
    elif kind in ("discarded", "joker_swapped"):
        played = [event["card"]]
    for card in played:
        if known[seat][card]:
            known[seat][card] -= 1
    if kind == "joker_swapped":
        known[seat][JOKER] += 1


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_known_cards_are_the_cards_seen_taken_and_not_yet_played(preset: str) -> None:
    rng = random.Random(preset)
    low, high = PRESETS[preset].options.players
    taken_seen = 0
    for game in range(3):
        players = rng.randint(low, min(high, 4))
        options = resolve_options(preset, {}, players)
        seats = [SeatSpec(f"P{i}") for i in range(players)]
        state, events = new_game(options, preset, seats, seed=f"{preset}/{game}")
        known = [Counter[str]() for _ in range(players)]
        stock_drawn = [Counter[str]() for _ in range(players)]
        for event in events:
            _follow(known, stock_drawn, event)
        for _ in range(250):
            seat = seat_to_move(state)
            if seat is None:
                break
            moves = legal_moves(state, seat)
            # Prefer the discard pile now and then, so that cards become known.
            draws = [m for m in moves if getattr(m, "source", None) == "discard"]
            move = draws[0] if draws and rng.random() < 0.5 else rng.choice(moves)
            state, events = apply(state, seat, move)
            for event in events:
                _follow(known, stock_drawn, event)
            if state.round is None:
                continue
            assert decode_state(encode_state(state)) == state
            public = public_view(state)
            for i, shown in enumerate(public["seats"]):
                expected = sorted(known[i].elements())
                assert sorted(shown["known_cards"]) == expected, (i, shown, expected)
                assert not Counter(shown["known_cards"]) - Counter(state.round.hands[i])
                taken_seen += len(expected)
            mine = seat_view(state, seat)
            assert mine["seats"] == public["seats"]
    assert taken_seen > 0
