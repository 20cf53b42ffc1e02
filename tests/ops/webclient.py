"""A few lines of HTTP client for tests against a real server, and a game driver."""

from __future__ import annotations

import functools
import http.client
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

import orjson
from flask.testing import FlaskClient


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


class Sender(Protocol):
    """Sends one request: `call` bound to a server, or a Flask test client."""

    def __call__(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer: ...


def to_server(base: str) -> Sender:
    """A sender to the server at ``base`` (``http://127.0.0.1:PORT``)."""
    return functools.partial(call, base)


def to_app(client: FlaskClient) -> Sender:
    """A sender through a Flask test client (no server)."""

    def send(
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        answer = client.open(path, method=method, json=body, headers=sent)
        return Answer(
            answer.status_code,
            {name.lower(): value for name, value in answer.headers.items()},
            answer.get_data(),
        )

    return send


@dataclass
class Game:
    """A two-seat game of humans played through the API, turn by turn."""

    send: Sender
    id: str = ""
    tokens: list[str] = field(default_factory=list)
    moves: dict[str, int] = field(default_factory=dict)

    @classmethod
    def create(cls, target: str | Sender, seed: int = 1) -> Game:
        """Create the game with both seats taken, on a server URL or through a sender."""
        send = to_server(target) if isinstance(target, str) else target
        answer = send("POST", "/games", {"seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": seed})
        assert answer.status == 201, answer.body
        created = answer.json()
        return cls(send, created["id"], [seat["token"] for seat in created["seats"]])

    def get(self, path: str = "", token: str | None = None) -> Answer:
        """``GET /games/{id}{path}``."""
        return self.send("GET", f"/games/{self.id}{path}", token=token)

    def view(self) -> dict[str, Any]:
        """The public view of the game (no token, so no rate-limit count)."""
        answer = self.get()
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
        return self.send("POST", f"/games/{self.id}/moves", move, token=token, headers=headers)

    def play_turn(self, headers: dict[str, str] | None = None) -> None:
        """Draw from the stock (with ``headers``), then discard the first legal discard."""
        token = self.to_move()
        drawn = self.move({"type": "draw", "source": "stock"}, token, headers)
        assert drawn.status == 200, drawn.body
        legal = self.get("/legal-moves", token).json()
        discard = next(m for m in legal["moves"] if m["type"] == "discard")
        assert self.move(discard, token).status == 200
        self.moves["draw"] = self.moves.get("draw", 0) + 1
        self.moves["discard"] = self.moves.get("discard", 0) + 1
