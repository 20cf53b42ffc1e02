"""Game ids and seat tokens never begin with ``-`` (a command line would read an option)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.api import auth
from service.http import tokens
from service.store import codec
from service.store.tokens import url_safe_token


@pytest.fixture
def dash_first(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """`secrets.token_urlsafe` answers two leading-dash draws before a plain one."""
    draws: Iterator[str] = iter(["-dash", "-again", "plain"])
    sizes: list[int] = []

    def token_urlsafe(nbytes: int) -> str:
        sizes.append(nbytes)
        return next(draws)

    monkeypatch.setattr("service.store.tokens.secrets.token_urlsafe", token_urlsafe)
    return sizes


def test_a_leading_dash_is_drawn_again(dash_first: list[int]) -> None:
    assert url_safe_token(16) == "plain"
    assert dash_first == [16, 16, 16]


def test_game_ids_and_seat_tokens_are_drawn_that_way(dash_first: list[int]) -> None:
    assert codec.new_game_id() == "plain"
    assert dash_first == [16, 16, 16]


def test_seat_tokens_are_drawn_that_way(dash_first: list[int]) -> None:
    token, token_hash = auth.new_token()
    assert token == "plain"
    assert token_hash == tokens.hash_token("plain")
    assert dash_first == [32, 32, 32]


def test_real_draws_keep_their_length_and_alphabet() -> None:
    tokens = [url_safe_token(16) for _ in range(2000)]
    assert not any(t.startswith("-") for t in tokens)
    assert {len(t) for t in tokens} == {22}
    assert codec.is_game_id(tokens[0])
