"""`set_secret_cache_control` sets `Cache-Control` as Werkzeug's `Headers.set` does."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import Headers

from service.api.headers import SECRET_CACHE_CONTROL, set_secret_cache_control
from tests.api.helpers import DRAW, Api

LISTS = [
    [],
    [("Content-Type", "application/json"), ("ETag", '"3"')],
    [("Cache-Control", "public"), ("ETag", '"3"')],
    [("ETag", '"3"'), ("cache-control", "max-age=60"), ("Vary", "x"), ("CACHE-CONTROL", "y")],
    [("X-Cache-Controls", "z"), ("Cache-Contro", "w")],
]


@pytest.mark.parametrize("pairs", LISTS)
def test_the_headers_are_werkzeugs_set(pairs: list[tuple[str, str]]) -> None:
    expected = Headers(pairs)
    expected.set("Cache-Control", SECRET_CACHE_CONTROL)
    headers = Headers(pairs)
    set_secret_cache_control(headers)
    assert list(headers.items()) == list(expected.items())
    assert headers.getlist("Cache-Control") == [SECRET_CACHE_CONTROL]


def test_a_move_and_a_seat_view_carry_it_once(api: Api) -> None:
    game, ann, _ = api.scripted_game()
    for answer in (api.move(game, ann, DRAW), api.view(game, ann), api.legal(game, ann)):
        assert answer.headers.getlist("Cache-Control") == [SECRET_CACHE_CONTROL]
    assert "Cache-Control" not in api.view(game).headers
