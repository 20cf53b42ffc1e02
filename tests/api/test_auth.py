"""The seat lookup by a token's SHA-256 (`auth.seat_of`)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from service.api import auth
from service.http import tokens
from service.http.problems import Problem


def seats(*hashes: str | None) -> list[SimpleNamespace]:
    return [SimpleNamespace(token_hash=value) for value in hashes]


def test_a_token_finds_its_own_seat_among_bots_and_others() -> None:
    table = seats(None, tokens.hash_token("a"), "", tokens.hash_token("b"))
    assert auth.seat_of(table, "a") == 1
    assert auth.seat_of(table, "b") == 3  # the last seat is looked at too


@pytest.mark.parametrize("token", ["c", "", tokens.hash_token("a")])
def test_a_token_of_no_seat_is_refused_even_where_bots_have_no_hash(token: str) -> None:
    # The stored digest itself sent as a token is hashed again: no match.
    table = seats(None, tokens.hash_token("a"), "")
    with pytest.raises(Problem) as refused:
        auth.seat_of(table, token)
    assert refused.value.code == 401
    assert refused.value.problem_code == "invalid_token"
