"""State serialisation: compact, versioned, exact round trip, clear errors."""

from __future__ import annotations

import hashlib
import random

import orjson
import pytest

from service.bots.strategies import choose_move
from service.rules.engine import SeatSpec, apply, legal_moves, new_game
from service.rules.options import PRESETS, resolve_options
from service.rules.state import (
    FORMAT_VERSION,
    GameState,
    StateDecodeError,
    decode_state,
    encode_state,
)
from service.rules.views import seat_view


def played(preset: str, players: int, steps: int, seed: int = 1, **overrides: object) -> GameState:
    opts = resolve_options(preset, dict(overrides), players)
    seats = [
        SeatSpec(f"Player {i}", token_hash=hashlib.sha256(str(i).encode()).hexdigest())
        for i in range(players)
    ]
    state, _ = new_game(opts, preset, seats, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.status != "active" or state.round is None:
            break
        seat = state.round.turn
        moves = legal_moves(state, seat)
        melds = [m for m in moves if type(m).__name__ in ("Meld", "LayOff", "SwapJoker")]
        state, _ = apply(state, seat, rng.choice(melds) if melds else rng.choice(moves))
    return state


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_round_trip_is_exact_at_every_stage(preset: str) -> None:
    hi = PRESETS[preset].options.players[1]
    for steps in (0, 7, 40, 300, 900):
        state = played(preset, hi, steps, seed=steps)
        assert decode_state(encode_state(state)) == state


def test_a_waiting_game_round_trips() -> None:
    opts = resolve_options("standard", {"target_score": {"2": 50, "3": 70}}, 3)
    state, _ = new_game(
        opts, "standard", [SeatSpec("A"), SeatSpec(None), SeatSpec(kind="bot", bot="greedy")]
    )
    assert decode_state(encode_state(state)) == state


def test_a_four_player_game_in_progress_fits_in_2_kb() -> None:
    sizes = []
    for seed in range(20):
        state = played("standard", 4, 150, seed=seed)
        if state.status == "active":
            sizes.append(len(encode_state(state)))
    assert sizes and max(sizes) <= 2048, sizes


def test_unknown_or_corrupt_input_raises_a_clear_error() -> None:
    good = encode_state(played("standard", 3, 30))
    doc = orjson.loads(good)
    bad_inputs = {
        b"": "not a serialised game state",
        b"not json": "not a serialised game state",
        b"{}": "not a serialised game state",
        orjson.dumps([FORMAT_VERSION + 1, *doc[1:]]): "unknown state format version",
        orjson.dumps(doc[:-1]): "wrong number of fields",
        orjson.dumps([*doc[:4], "seats", *doc[5:]]): "bad seats",
        orjson.dumps([*doc[:3], {"ace": "sideways"}, *doc[4:]]): "corrupt",
        orjson.dumps([*doc[:1], 9, *doc[2:]]): "corrupt",
    }
    rnd = list(doc[5])
    rnd[5] = "!!"  # not packed cards
    bad_inputs[orjson.dumps([*doc[:5], rnd, *doc[6:]])] = "unknown packed card"
    for data, fragment in bad_inputs.items():
        with pytest.raises(StateDecodeError) as err:
            decode_state(data)
        assert fragment in str(err.value), (data[:40], str(err.value))


def test_the_encoding_leads_with_its_format_version() -> None:
    assert orjson.loads(encode_state(played("block", 2, 3)))[0] == FORMAT_VERSION


def test_a_long_four_player_game_stays_under_2_kb_throughout() -> None:
    # traditional: refills run out often, so games last many rounds (this one 20+).
    opts = resolve_options("traditional", {}, 4)
    seats = [
        SeatSpec(f"Player {i}", token_hash=hashlib.sha256(str(i).encode()).hexdigest())
        for i in range(4)
    ]
    state, _ = new_game(opts, "traditional", seats, seed=0)
    rng = random.Random(0)
    largest = 0
    while state.status == "active" and state.round is not None:
        seat = state.round.turn
        move = choose_move("greedy", seat_view(state, seat), legal_moves(state, seat), rng)
        state, _ = apply(state, seat, move)
        if state.status == "active":
            largest = max(largest, len(encode_state(state)))
    assert len(state.rounds) >= 10
    assert largest <= 2048


def test_parts_remembered_from_a_good_state_never_pass_a_corrupt_one() -> None:
    # Seats, melds and finished rounds are decoded once per stored form and
    # remembered; a corrupt field equal to a good one in Python (True == 1,
    # False == 0) must still be refused right after the good one was decoded.
    doc = next(
        d
        for d in (
            orjson.loads(encode_state(played("standard", 2, n, seed=n))) for n in range(200, 900, 7)
        )
        if d[6] and d[5] is not None and d[5][7]
    )
    decode_state(orjson.dumps(doc))  # every part remembered
    seat = [*doc[4][0][:5], False, *doc[4][0][6:]]  # eliminated: an integer, not a boolean
    meld = [*doc[5][7][0][:1], doc[5][7][0][1] == 1, *doc[5][7][0][2:]]  # owner as a boolean
    record = [*doc[6][0][:2], [p == 1 for p in [1, 0]], doc[6][0][3]]  # points as booleans
    good_record = [*doc[6][0][:2], [1, 0], doc[6][0][3]]
    decode_state(orjson.dumps([*doc[:6], [good_record, *doc[6][1:]], *doc[7:]]))
    corrupt = [
        [*doc[:4], [seat, *doc[4][1:]], *doc[5:]],
        [*doc[:5], [*doc[5][:7], [meld, *doc[5][7][1:]], *doc[5][8:]], *doc[6:]],
        [*doc[:6], [record, *doc[6][1:]], *doc[7:]],
    ]
    for bad in corrupt:
        with pytest.raises(StateDecodeError):
            decode_state(orjson.dumps(bad))


@pytest.mark.parametrize(
    ("preset", "before"),
    [
        ("vrotham", {"joker_limit": "natural_majority"}),
        ("traditional", {"last_stock": "next_draw"}),
        ("meld_first", {"last_stock": "next_draw"}),
        ("express", {"go_out_requires_discard": False}),
        ("elimination", {"go_out_requires_discard": False}),
        ("straight", {"no_winner": "void"}),
        ("standard", {}),
    ],
)
def test_a_version_3_state_reads_its_preset_as_it_was_before_the_rulings(
    preset: str, before: dict[str, object]
) -> None:
    assert FORMAT_VERSION == 4
    state = played(preset, 2, 3)
    doc = orjson.loads(encode_state(state))
    assert doc[3] == {}  # no overrides: the options are the preset's
    old = decode_state(orjson.dumps([3, *doc[1:]]))
    changed = {
        name: getattr(old.options, name)
        for name in state.options.to_json()
        if getattr(old.options, name) != getattr(state.options, name)
    }
    assert changed == before
    assert decode_state(encode_state(state)) == state  # version 4 reads the preset as it is
