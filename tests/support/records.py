"""Helpers of the record tests: bot games played to their end, and their records."""

from __future__ import annotations

import time
from typing import Any

from tests.api.helpers import Api


def finished_game(api: Api, preset: str = "standard", players: int = 4, **body: Any) -> str:
    """The id of a game of bots only (greedy and random, in turn), played to its end."""
    seats = [{"bot": ("greedy", "random")[i % 2]} for i in range(players)]
    answer = api.create(preset=preset, seats=seats, **body)
    assert answer.status_code == 201, answer.json
    game = str(answer.json["id"])  # type: ignore[index]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = api.view(game).json
        assert view is not None
        if view["status"] == "finished":
            return game
        time.sleep(0.02)
    raise AssertionError(f"game {game} did not finish")


def record(api: Api, game: str, token: str | None = None, **headers: str) -> dict[str, Any]:
    """`GET /games/{id}/record` as JSON (200 expected)."""
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    answer = api.client.get(f"/games/{game}/record", headers=headers)
    assert answer.status_code == 200, answer.data
    body = answer.json
    assert isinstance(body, dict)
    return body
