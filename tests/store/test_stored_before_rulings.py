"""Games stored before the rulings that changed six presets keep the rules they
were created with: their options were kept as differences from their preset, so
they read the preset as it was (`PRESETS_BEFORE_RULINGS`) and play on unchanged.

The fixture holds states saved by the format-3 codec in the middle of a round, and
the outcome each reached when the greedy bot played every seat on with that code.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

from service.bots.strategies import choose_move
from service.rules.engine import apply, legal_moves
from service.rules.options import PRESETS, PRESETS_BEFORE_RULINGS, options_from_json
from service.rules.state import FORMAT_VERSION, decode_state, encode_state
from service.rules.views import seat_view

FIXTURE = Path(__file__).parent / "fixtures" / "states_before_rulings.json"
GAMES: dict[str, Any] = json.loads(FIXTURE.read_text())["games"]
#: Presets whose every changed rule is an option: a stored game plays exactly as before.
SAME_PLAY = ("vrotham", "traditional", "meld_first", "express", "straight")


def _play_out(text: str) -> dict[str, Any]:
    state = decode_state(text.encode())
    rng = random.Random(2)
    steps = 0
    while state.status == "active" and steps < 20_000:
        seat = next(i for i in range(state.players) if legal_moves(state, i))
        move = choose_move("greedy", seat_view(state, seat), legal_moves(state, seat), rng)
        state, _ = apply(state, seat, move)
        steps += 1
    assert state.winners is not None
    return {
        "winners": list(state.winners),
        "scores": [s.score for s in state.seats],
        "rounds": len(state.rounds),
        "steps": steps,
    }


@pytest.mark.parametrize("preset", sorted(GAMES))
def test_a_game_stored_before_the_rulings_reads_its_preset_as_it_was(preset: str) -> None:
    state = decode_state(GAMES[preset]["state"].encode())
    before = {**PRESETS[preset].options.to_json(), **PRESETS_BEFORE_RULINGS.get(preset, {})}
    assert state.options == options_from_json(before)
    assert (state.options.joker_limit, state.options.last_stock, state.options.stake) == (
        "natural_majority",
        "next_draw",
        None,
    )
    if preset in PRESETS_BEFORE_RULINGS:
        assert state.options != PRESETS[preset].options
    # Saved again, it keeps those rules under the current format.
    again = encode_state(state)
    assert json.loads(again)[0] == FORMAT_VERSION
    assert decode_state(again).options == state.options


@pytest.mark.parametrize("preset", SAME_PLAY)
def test_a_game_stored_before_the_rulings_plays_to_the_same_end(preset: str) -> None:
    assert _play_out(GAMES[preset]["state"]) == GAMES[preset]["outcome"]


@pytest.mark.parametrize("preset", ["elimination", "block"])
def test_a_game_stored_before_the_rulings_plays_to_its_end(preset: str) -> None:
    """Elimination and Block changed rulings that are not options (re-engage between
    rounds and its ties; no blocked-round shortcut in Block): the game still plays
    to its end under them."""
    outcome = _play_out(GAMES[preset]["state"])
    assert outcome["winners"]


def test_a_new_game_of_a_changed_preset_is_stored_with_the_current_rules() -> None:
    from service.rules.engine import SeatSpec, new_game

    state, _ = new_game(
        PRESETS["vrotham"].options, "vrotham", [SeatSpec("Ann"), SeatSpec("Bob")], seed=1
    )
    decoded = decode_state(encode_state(state))
    assert decoded.options.joker_limit == "one_natural"
    assert dataclasses.asdict(decoded.options) == dataclasses.asdict(PRESETS["vrotham"].options)
