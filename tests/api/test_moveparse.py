"""`service.api.moveparse`: a move body's parsed moves kept per body bytes."""

from __future__ import annotations

import orjson
import pytest

from service.api import moveparse
from service.api.moveparse import parsed_moves
from service.rules.moves import Discard, Draw, MoveFormatError, parse_request


@pytest.fixture(autouse=True)
def _empty(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moveparse, "_KEPT", {})


def _parsed(body: object) -> object:
    data = orjson.dumps(body)
    return parsed_moves(data, orjson.loads(data))


def test_a_body_seen_before_gets_its_moves_again() -> None:
    first = _parsed({"type": "discard", "card": "10h"})
    assert first == (Discard("H10"),) == tuple(parse_request({"type": "discard", "card": "10h"}))
    assert _parsed({"type": "discard", "card": "10h"}) is first
    other = _parsed({"type": "draw", "source": "stock"})
    assert other == (Draw("stock"),) and other is not first
    assert _parsed({"type": "discard", "card": "H10"}) is not first  # other bytes, parsed
    assert parsed_moves(None, {"type": "draw", "source": "stock"}) == (Draw("stock"),)


def test_a_malformed_body_is_refused_every_time_and_not_kept() -> None:
    for _ in range(2):
        with pytest.raises(MoveFormatError):
            _parsed({"type": "discard", "card": "XX"})
    assert moveparse._KEPT == {}


def test_only_short_bodies_are_kept_and_at_most_moves_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    long_body = {
        "type": "meld",
        "cards": [f"{suit}{rank}" for suit in "CDH" for rank in range(2, 10)],
    }
    assert len(orjson.dumps(long_body)) > moveparse.BODY_BYTES_KEPT
    _parsed(long_body)
    assert moveparse._KEPT == {}
    monkeypatch.setattr(moveparse, "MOVES_KEPT", 2)
    for card in ("H2", "H3", "H4"):
        _parsed({"type": "discard", "card": card})
    assert len(moveparse._KEPT) == 1  # the third emptied the table first
    assert moveparse.MOVES_KEPT == 2 and moveparse.BODY_BYTES_KEPT == 128
