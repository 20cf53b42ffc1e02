"""A small keep-alive JSON client for the end-to-end tests, and a simple player."""

from __future__ import annotations

import http.client
import json
import random
import time
from typing import Any
from urllib.parse import urlsplit


class Answer:
    """Status, headers and parsed JSON body of one answer."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.json: Any = json.loads(body) if body else None

    def __repr__(self) -> str:
        return f"Answer({self.status}, {self.json!r})"


class Client:
    """One persistent HTTP connection to a server."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def request(
        self, method: str, path: str, body: Any = None, token: str | None = None, **headers: str
    ) -> Answer:
        """Send one request; reconnects once if the server closed the connection."""
        sent = dict(headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        for attempt in range(2):
            try:
                self.connection.request(method, path, body=data, headers=sent)
                response = self.connection.getresponse()
                payload = response.read()
                return Answer(
                    response.status, {k.lower(): v for k, v in response.getheaders()}, payload
                )
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def get(self, path: str, token: str | None = None, **headers: str) -> Answer:
        """GET a path."""
        return self.request("GET", path, token=token, **headers)

    def post(self, path: str, body: Any, token: str | None = None, **headers: str) -> Answer:
        """POST JSON to a path."""
        return self.request("POST", path, body, token=token, **headers)

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()


_RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}


def _rank(card: str) -> int:
    text = card[1:]
    return _RANKS.get(text, 0) if not text.isdigit() else int(text)


def _worth_keeping(card: str, hand: list[str]) -> bool:
    """A card that pairs with another of its rank or sits near one of its suit."""
    if card == "JK":
        return True
    for other in hand:
        if other == card or other == "JK":
            continue
        if _rank(other) == _rank(card):
            return True
        if other[0] == card[0] and abs(_rank(other) - _rank(card)) <= 2:
            return True
    return False


def choose(
    moves: list[dict[str, Any]], rng: random.Random, hand: list[str] | None = None
) -> dict[str, Any]:
    """A plain player: meld the most cards, lay off, draw from the stock, then discard
    the highest card that is not near a meld (a random one without the hand)."""
    melds = [m for m in moves if m["type"] == "meld"]
    if melds:
        return max(melds, key=lambda m: (len(m["cards"]), m["cards"]))
    for kind in ("layoff", "reengage"):
        found = [m for m in moves if m["type"] == kind]
        if found:
            return found[0]
    if {"type": "draw", "source": "stock"} in moves:
        return {"type": "draw", "source": "stock"}
    discards = [m for m in moves if m["type"] == "discard"]
    if discards and hand is not None:
        loose = [m for m in discards if not _worth_keeping(m["card"], hand)] or discards
        return max(loose, key=lambda m: (_rank(m["card"]), m["card"]))
    if discards:
        return rng.choice(discards)
    return moves[0]


def play_to_the_end(
    clients: list[Client], game: str, tokens: dict[int, str], seed: int, max_moves: int = 5000
) -> dict[str, Any]:
    """Play the human seats (`tokens`) until the game ends; requests go round `clients`.

    Each move is checked: it answers 200 with a version one above the last
    one seen (bots play inside the same save, unless the request's bot budget
    ran out: then the runner process plays the rest and saves newer versions).
    Returns the final public view.
    """
    rng = random.Random(seed)
    version = clients[0].get(f"/games/{game}").json["version"]
    runner_owes = False
    deadline = time.monotonic() + 300
    for turn in range(max_moves):
        client = clients[turn % len(clients)]
        view = client.get(f"/games/{game}").json
        if view["status"] == "finished":
            return dict(view)
        to_move = view["round"]["turn"]
        if runner_owes:
            assert view["version"] >= version, "a version was lost"
            version = view["version"]
        assert view["version"] == version, "a version was skipped or lost"
        if to_move not in tokens:  # the runner has bot moves to make
            assert runner_owes, f"seat {to_move} is a bot but the server did not play it"
            assert time.monotonic() < deadline, "the runner did not play the bots"
            time.sleep(0.05)
            continue
        legal = client.get(f"/games/{game}/legal-moves", tokens[to_move]).json["moves"]
        assert legal, view
        hand = client.get(f"/games/{game}", tokens[to_move]).json["hand"]
        move = choose(legal, rng, hand)
        answer = client.post(
            f"/games/{game}/moves", move, tokens[to_move], **{"If-Match": f'"{version}"'}
        )
        assert answer.status == 200, (move, answer)
        assert answer.json["version"] == version + 1
        assert answer.headers["etag"].startswith(f'"{version + 1}.')  # and its epoch
        version += 1
        runner_owes = (
            answer.json["status"] == "active" and answer.json["round"]["turn"] not in tokens
        )
    raise AssertionError(f"the game did not end within {max_moves} moves")
