"""The view's and the stored form's parts are kept per part object (`by_identity`),
and give what the functions give."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from service.rules import state as state_module
from service.rules import views
from service.rules.engine import SeatSpec, apply, new_game
from service.rules.moves import Discard, Draw
from service.rules.options import resolve_options
from service.rules.state import GameState, encode_state

#: The kept part functions of the view and the encoder.
PARTS: list[tuple[Any, str]] = [
    (views, "_client_seeds"),
    (views, "_melds_json"),
    (views, "_deal_commitment"),
    (views, "options_json"),
    (views, "_rounds_json"),
    (state_module, "_stored_options"),
]


def _played() -> Iterator[GameState]:
    """A 4-player game dealt at random, and the states after its first moves."""
    options = resolve_options("standard", {}, 4)
    game, _ = new_game(options, "standard", [SeatSpec(f"p{i}") for i in range(4)])
    yield game
    for _ in range(3):
        assert game.round is not None
        seat = game.round.turn
        game, _ = apply(game, seat, Draw("stock"))
        assert game.round is not None
        game, _ = apply(game, seat, Discard(game.round.hands[seat][0]))
        yield game


def _kept() -> int:
    return sum(len(getattr(module, name).kept) for module, name in PARTS)


def test_a_state_after_a_move_finds_its_unchanged_parts_kept() -> None:
    states = list(_played())
    for state in states:  # every part made and kept once
        views.public_view(state)
        encode_state(state)
    kept = _kept()
    first = [views.public_view(state) for state in states]
    for state in states:
        encode_state(state)
    assert _kept() == kept  # nothing made again
    again = [views.public_view(state) for state in states]
    assert all(a["options"] is b["options"] for a, b in zip(first, again, strict=True))


def test_kept_parts_give_what_the_functions_give() -> None:
    states = list(_played())
    kept = [(views.public_view(s), encode_state(s)) for s in states]
    for module, name in PARTS:
        getattr(module, name).kept.clear()
    for packed in (state_module._packed, state_module._enc_known):
        packed.kept.clear()  # type: ignore[attr-defined]
    assert [(views.public_view(s), encode_state(s)) for s in states] == kept


def test_the_kept_seats_melds_and_finished_rounds_are_kept_serialised() -> None:
    import orjson

    for state in _played():
        data = encode_state(state)
        assert state.round is not None
        for table, part in (
            (state_module._enc_seats, state.seats),
            (state_module._enc_melds, state.round.melds),
            (state_module._enc_records, state.rounds),
        ):
            assert isinstance(table.kept[id(part)][1], orjson.Fragment)  # type: ignore[attr-defined]
        assert orjson.dumps(orjson.loads(data)) == data  # the bytes plain lists give
