"""A few lines of HTTP client for tests against a real server, and a game driver."""

from __future__ import annotations

import http.client
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson


@dataclass
class Answer:
    """Status, headers (lower-case names) and body of one HTTP answer."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON."""
        return orjson.loads(self.body)


def call(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> Answer:
    """One request on a fresh connection (so successive calls may reach any worker)."""
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    sent = dict(headers or {})
    data = None
    if body is not None:
        data = orjson.dumps(body)
        sent["Content-Type"] = "application/json"
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    try:
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        return Answer(
            response.status,
            {name.lower(): value for name, value in response.getheaders()},
            response.read(),
        )
    finally:
        connection.close()


@dataclass
class Game:
    """A two-seat game of humans played through the API, turn by turn."""

    base: str
    id: str = ""
    tokens: list[str] = field(default_factory=list)
    moves: dict[str, int] = field(default_factory=dict)

    @classmethod
    def create(cls, base: str, seed: int = 1) -> Game:
        """Create the game with both seats taken."""
        answer = call(
            base, "POST", "/games", {"seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": seed}
        )
        assert answer.status == 201, answer.body
        created = answer.json()
        return cls(base, created["id"], [seat["token"] for seat in created["seats"]])

    def view(self) -> dict[str, Any]:
        """Seat 0's view of the game."""
        answer = call(self.base, "GET", f"/games/{self.id}", token=self.tokens[0])
        assert answer.status == 200, answer.body
        view: dict[str, Any] = answer.json()
        return view

    def to_move(self) -> str:
        """The token of the seat whose turn it is."""
        return self.tokens[self.view()["round"]["turn"]]

    def move(
        self, move: dict[str, Any], token: str, headers: dict[str, str] | None = None
    ) -> Answer:
        """Send one move."""
        path = f"/games/{self.id}/moves"
        return call(self.base, "POST", path, move, token=token, headers=headers)

    def play_turn(self, headers: dict[str, str] | None = None) -> None:
        """Draw from the stock (with ``headers``), then discard the first legal discard."""
        token = self.to_move()
        drawn = self.move({"type": "draw", "source": "stock"}, token, headers)
        assert drawn.status == 200, drawn.body
        legal = call(self.base, "GET", f"/games/{self.id}/legal-moves", token=token).json()
        discard = next(m for m in legal["moves"] if m["type"] == "discard")
        assert self.move(discard, token).status == 200
        self.moves["draw"] = self.moves.get("draw", 0) + 1
        self.moves["discard"] = self.moves.get("discard", 0) + 1
