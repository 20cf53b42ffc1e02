"""Helpers of the API tests: create games, move, and the scripted two-player deal."""

from __future__ import annotations

import json
import re
from typing import Any

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

#: The deck of docs/walkthrough.sh: Ann (seat 0) holds H2 H3 H4 C7 D7 S7 D9 D10 DJ SQ,
#: Bob (seat 1) S3 S4 S5 CK DK HK H5 C2 D3 H9; CA is turned up; the stock starts
#: S9, C4, DQ. With first_dealer 1, Ann plays first.
DECK = [
    "H2", "S3", "H3", "S4", "H4", "S5", "C7", "CK", "D7", "DK", "S7", "HK", "D9", "H5",
    "D10", "C2", "DJ", "D3", "SQ", "H9", "CA", "S9", "C4", "DQ", "C3", "C5", "C6", "C8",
    "C9", "C10", "CJ", "CQ", "DA", "D2", "D4", "D5", "D6", "D8", "HA", "H6", "H7", "H8",
    "H10", "HJ", "HQ", "SA", "S2", "S6", "S8", "S10", "SJ", "SK",
]  # fmt: skip
ANN_HAND = ["H2", "H3", "H4", "C7", "D7", "S7", "D9", "D10", "DJ", "SQ"]

DRAW = {"type": "draw", "source": "stock"}


_ETAG = re.compile(r'^"(\d+)\.([0-9a-f]{16})"$')


def etag_version(tag: str) -> int:
    """The version of a game's `ETag` (``"<version>.<epoch>"``, the epoch 16 hex digits)."""
    match = _ETAG.match(tag)
    assert match is not None, f"not a game ETag: {tag!r}"
    return int(match.group(1))


def bearer(token: str | None) -> dict[str, str]:
    """The Authorization header of a seat token."""
    return {} if token is None else {"Authorization": f"Bearer {token}"}


class Api:
    """A test client with the calls the tests repeat."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def create(self, **body: Any) -> TestResponse:
        """`POST /games` with the given body."""
        return self.client.post("/games", json=body)

    def scripted_game(self, preset: str = "express") -> tuple[str, str, str]:
        """A two-player game on `DECK`: (game id, Ann's token, Bob's token)."""
        answer = self.create(
            preset=preset,
            seats=[{"name": "Ann"}, {"name": "Bob"}],
            deck=DECK,
            first_dealer=1,
        )
        assert answer.status_code == 201, answer.json
        body = answer.json
        assert body is not None
        return body["id"], body["seats"][0]["token"], body["seats"][1]["token"]

    def view(self, game: str, token: str | None = None, **headers: str) -> TestResponse:
        """`GET /games/{id}`."""
        return self.client.get(f"/games/{game}", headers={**bearer(token), **headers})

    def legal(self, game: str, token: str | None = None) -> TestResponse:
        """`GET /games/{id}/legal-moves`."""
        return self.client.get(f"/games/{game}/legal-moves", headers=bearer(token))

    def move(self, game: str, token: str | None, body: Any, **headers: str) -> TestResponse:
        """`POST /games/{id}/moves` with a JSON body."""
        return self.client.post(
            f"/games/{game}/moves", json=body, headers={**bearer(token), **headers}
        )

    def events(self, game: str, token: str | None = None, **query: Any) -> TestResponse:
        """`GET /games/{id}/events`."""
        return self.client.get(f"/games/{game}/events", query_string=query, headers=bearer(token))

    def play_script(self, game: str, ann: str, bob: str) -> dict[str, Any]:
        """Play the walkthrough's game to its end; returns Ann's last view."""
        steps: list[tuple[str, Any]] = [
            (ann, DRAW),
            (ann, {"type": "meld", "cards": ["H2", "H3", "H4"]}),
            (ann, {"type": "meld", "cards": ["7C", "7D", "7S"]}),
            (ann, {"type": "discard", "card": "S9"}),
            (bob, DRAW),
        ]
        for token, body in steps:
            answer = self.move(game, token, body)
            assert answer.status_code == 200, answer.json
        run = self.run_meld_id(game)
        bob_melds = {
            "actions": [
                {"type": "meld", "cards": ["S3", "S4", "S5"]},
                {"type": "meld", "cards": ["CK", "DK", "HK"]},
                {"type": "layoff", "meld": run, "cards": ["H5"]},
            ]
        }
        last: dict[str, Any] = {}
        for token, body in [
            (bob, bob_melds),
            (bob, {"type": "discard", "card": "H9"}),
            (ann, DRAW),
            (ann, {"type": "meld", "cards": ["D9", "D10", "DJ", "DQ"]}),
            (ann, {"type": "discard", "card": "SQ"}),
        ]:
            answer = self.move(game, token, body)
            assert answer.status_code == 200, answer.json
            last = answer.json or {}
        return last

    def run_meld_id(self, game: str) -> int:
        """The id of the heart run Ann melded."""
        view = self.view(game).json
        assert view is not None
        return int(next(m["id"] for m in view["round"]["melds"] if "H2" in m["cards"]))


def problem(answer: TestResponse, status: int, code: str) -> dict[str, Any]:
    """Check an answer is a problem of that status and code; return its body."""
    assert answer.status_code == status, (answer.status_code, answer.get_data(as_text=True))
    assert answer.mimetype == "application/problem+json"
    body = json.loads(answer.get_data())
    assert body["status"] == status
    assert body["code"] == code, body
    assert {"type", "title", "detail"} <= set(body)
    return dict(body)
