"""The move body's fast path answers exactly what the full schema answers."""

from __future__ import annotations

import random
from typing import Any

import marshmallow as ma
import pytest

from service.api import fastpath, schemas
from service.rules.engine import SeatSpec, apply, legal_moves, new_game
from service.rules.options import resolve_options


def outcome(schema: ma.Schema, body: Any, **kwargs: Any) -> tuple[str, Any]:
    """What `load` answers: the data, or the validation messages."""
    try:
        return "ok", schema.load(body, **kwargs)
    except ma.ValidationError as error:
        return "error", error.messages


def listed_moves(preset: str, count: int) -> list[dict[str, Any]]:
    """The JSON of moves `legal_moves` lists along random seeded games."""
    rng = random.Random(7)
    seen: list[dict[str, Any]] = []
    for seed in range(4):
        options = resolve_options(preset, {}, 3)
        state, _ = new_game(options, preset, [SeatSpec(f"p{i}") for i in range(3)], seed=seed)
        while len(seen) < count * (seed + 1) and state.status == "active":
            assert state.round is not None
            seat = state.round.turn
            moves = legal_moves(state, seat)
            seen.extend(m.to_json() for m in moves)
            state, _ = apply(state, seat, rng.choice(moves))
    return seen


@pytest.mark.parametrize("preset", ["standard", "vrotham"])
def test_every_listed_move_takes_the_fast_path_with_the_schemas_answer(preset: str) -> None:
    fast, full = fastpath.MoveRequestSchema(), schemas.MoveRequestSchema()
    moves = listed_moves(preset, 150)
    assert {m["type"] for m in moves} >= {"draw", "discard", "meld"}
    for move in moves + PLAIN_BODIES:
        assert fastpath.is_plain_move(move), move
        assert outcome(fast, move) == outcome(full, move)


PLAIN_BODIES: list[dict[str, Any]] = [
    {"type": "layoff", "meld": 0, "cards": ["H5"]},
    {"type": "layoff", "meld": 10_000, "cards": ["H5", "H6", "JK"]},
    {"type": "swap_joker", "meld": 3, "card": "H9"},
    {"type": "meld", "cards": ["JK", "JK", "SA"]},
    {"type": "discard", "card": "JK"},
    {"type": "draw", "source": "discard"},
    {"type": "reengage"},
]


ODD_BODIES: list[Any] = [
    {"type": "discard", "card": "h10"},
    {"type": "discard", "card": "10H"},
    {"type": "discard", "card": "ZZ"},
    {"type": "discard", "card": 5},
    {"type": "discard", "card": None},
    {"type": "draw", "source": None},
    {"type": "layoff", "meld": None, "cards": ["H5"]},
    {"type": "meld", "cards": None},
    {"type": "meld", "cards": ["H2", None, "H4"]},
    {"type": "discard"},
    {"type": "discard", "card": "SK", "extra": 1},
    {"type": "draw", "source": "deck"},
    {"type": "draw", "source": "stock", "card": "SK"},
    {"type": "meld", "cards": []},
    {"type": "meld", "cards": ["H2"] * 111},
    {"type": "meld", "cards": ["H2", "h3", "H4"]},
    {"type": "meld", "cards": "H2 H3 H4"},
    {"type": "layoff", "meld": "1", "cards": ["H5"]},
    {"type": "layoff", "meld": True, "cards": ["H5"]},
    {"type": "layoff", "meld": 2.0, "cards": ["H5"]},
    {"type": "layoff", "meld": 2.5, "cards": ["H5"]},
    {"type": "layoff", "meld": -1, "cards": ["H5"]},
    {"type": "layoff", "meld": 10_001, "cards": ["H5"]},
    {"type": "swap_joker", "meld": 3, "card": "JK"},
    {"type": "reengage", "source": "stock"},
    {"type": "fly"},
    {"type": None},
    {"actions": [{"type": "draw", "source": "stock"}]},
    {"actions": [{"type": "draw", "source": "stock"}], "type": "draw"},
    {},
    [{"type": "draw", "source": "stock"}],
    "draw",
    None,
]


@pytest.mark.parametrize("body", ODD_BODIES, ids=repr)
def test_any_other_body_gets_the_full_schemas_answer(body: Any) -> None:
    fast, full = fastpath.MoveRequestSchema(), schemas.MoveRequestSchema()
    assert outcome(fast, body) == outcome(full, body)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"If-Match": '"17"'},
        {"if-match": "junk", "X-Other": "1"},
        {"Idempotency-Key": "k1", "If-Match": '"3"'},
        {"idempotency-key": "x" * 255},
        {"Idempotency-Key": ""},
        {"Idempotency-Key": "x" * 256},
    ],
)
def test_move_headers_get_the_full_schemas_answer(headers: dict[str, str]) -> None:
    from webargs.multidictproxy import MultiDictProxy
    from werkzeug.datastructures import Headers

    def proxy(schema: ma.Schema) -> MultiDictProxy:
        return MultiDictProxy(Headers({"Host": "x", **headers}), schema)

    fast, full = fastpath.MoveHeadersSchema(), schemas.MoveHeadersSchema()
    expected = outcome(full, proxy(full), unknown=ma.EXCLUDE)
    assert outcome(fast, proxy(fast), unknown=ma.EXCLUDE) == expected


def test_plain_moves_skip_webargs_and_others_go_through_it(
    api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.api.smorest import BodyParser
    from tests.api.helpers import bearer

    parsed: list[str] = []
    parse = BodyParser.parse

    def counting(self: BodyParser, schema: Any, *args: Any, **kwargs: Any) -> Any:
        parsed.append(type(schema).__name__)
        return parse(self, schema, *args, **kwargs)

    game, ann, _ = api.scripted_game()
    monkeypatch.setattr(BodyParser, "parse", counting)
    path = f"/games/{game}/moves"
    draw = {"type": "draw", "source": "stock"}
    answer = api.client.post(path, json=draw, headers={**bearer(ann), "Idempotency-Key": "k"})
    assert answer.status_code == 200
    assert parsed == []  # both the headers and the body answered without webargs
    # A card code in another form and a key too long: the full schemas answer.
    odd = api.client.post(path, json={"type": "discard", "card": "sk"}, headers=bearer(ann))
    assert parsed == ["MoveRequestSchema"]
    assert odd.status_code in (200, 409, 422)
    too_long = api.client.post(
        path, json=draw, headers={**bearer(ann), "Idempotency-Key": "x" * 256}
    )
    assert too_long.status_code == 422
    assert parsed[1:] == ["MoveHeadersSchema"]
