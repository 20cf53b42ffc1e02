"""`GET /games/{id}/stream` through gunicorn's gevent workers and a real Redis.

The stream's reader and the players use different connections, so the stream's
worker learns of most moves from the other worker's saves (Redis Pub/Sub).
"""

from __future__ import annotations

import http.client
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import E2E_ENV
from tests.e2e.http import Client, play_to_the_end
from tests.support.gunicorn import GunicornServer
from tests.support.sse import http_chunks, messages

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stream_server(redis_url: str) -> Iterator[GunicornServer]:
    """gunicorn (2 workers) on Redis keeping every event, so a whole game can be compared."""
    env = {**E2E_ENV, "STORE_URL": redis_url, "STORE_PREFIX": "sse", "MAX_EVENTS": "1000"}
    with GunicornServer(env, workers=2) as server:
        yield server


class Follower:
    """Reads a game's stream as one seat in a thread; drops the connection once
    after `drop_after` events and resumes with `Last-Event-ID`."""

    def __init__(self, server: GunicornServer, game: str, token: str, drop_after: int) -> None:
        self.server, self.game, self.token, self.drop_after = server, game, token, drop_after
        self.received: list[dict[str, Any]] = []
        self.ids: list[int] = []
        self.connections = 0
        self.done = threading.Event()
        self.failure: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _open(self) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
        if self.ids:
            headers["Last-Event-ID"] = str(self.ids[-1])
        conn.request("GET", f"/games/{self.game}/stream", headers=headers)
        response = conn.getresponse()
        assert response.status == 200, response.read()
        assert response.getheader("Content-Type", "").startswith("text/event-stream")
        self.connections += 1
        return conn, response

    def _run(self) -> None:
        try:
            while not self.done.is_set():
                conn, response = self._open()
                dropped = False
                for message in messages(http_chunks(response)):
                    if message.id is None:
                        continue
                    self.ids.append(int(message.id))
                    self.received.append(message.data)
                    if message.data["type"] == "game_ended":
                        self.done.set()
                        break
                    if self.connections == 1 and len(self.ids) == self.drop_after:
                        # A forced disconnect: the socket goes away mid-stream.
                        assert conn.sock is not None
                        conn.sock.shutdown(socket.SHUT_RDWR)
                        dropped = True
                        break
                conn.close()
                if not dropped and not self.done.is_set():
                    continue  # the server ended the stream (lifetime): resume
        except BaseException as exc:
            self.failure = exc
            self.done.set()


def test_a_stream_follows_a_whole_game_played_by_others_and_resumes_after_a_drop(
    stream_server: GunicornServer,
) -> None:
    client = Client(stream_server.url)
    created = client.post(
        "/games",
        {
            "preset": "standard",
            "options": {"target_score": 60},
            "seats": [{"name": "Ann"}, {"name": "Bob"}],
            "seed": 11,
        },
    )
    assert created.status == 201, created
    game = created.json["id"]
    tokens = {s["seat"]: s["token"] for s in created.json["seats"]}
    follower = Follower(stream_server, game, tokens[1], drop_after=15)
    follower.thread.start()
    final = play_to_the_end([client], game, tokens, seed=1)
    assert final["status"] == "finished"
    assert follower.done.wait(30), "the stream never showed game_ended"
    assert follower.failure is None, follower.failure
    assert follower.connections >= 2, "the forced disconnect did not happen"
    # Every event, in order, none twice, across the drop.
    assert follower.ids == list(range(1, final["last_event"] + 1))
    # Exactly what the event log shows the same seat.
    logged = client.get(f"/games/{game}/events?after=0", tokens[1]).json["events"]
    assert follower.received == logged
    # Ann's stock draws never show their card on Bob's stream.
    ann_stock_draws = [
        e for e in follower.received
        if e["type"] == "drew" and e["seat"] == 0 and e["source"] == "stock"
    ]  # fmt: skip
    assert ann_stock_draws and all("card" not in e for e in ann_stock_draws)
    client.close()


@pytest.fixture(scope="module")
def short_stream_server(redis_url: str) -> Iterator[GunicornServer]:
    """gunicorn (1 worker) whose streams beat every 0.3 s and end after 2 s."""
    env = {
        **E2E_ENV,
        "STORE_URL": redis_url,
        "STORE_PREFIX": "sse-short",
        "MAX_EVENTS": "1000",
        "STREAM_HEARTBEAT": "0.3",
        "STREAM_LIFETIME": "2",
    }
    with GunicornServer(env, workers=1) as server:
        yield server


def new_game(client: Client, **options: Any) -> tuple[str, dict[int, str]]:
    body = {
        "preset": "standard",
        "options": options,
        "seats": [{"name": "Ann"}, {"name": "Bob"}],
        "seed": 5,
    }
    created = client.post("/games", body)
    assert created.status == 201, created
    return created.json["id"], {s["seat"]: s["token"] for s in created.json["seats"]}


def test_a_quiet_stream_over_http_beats_and_ends_cleanly_after_its_lifetime(
    short_stream_server: GunicornServer,
) -> None:
    client = Client(short_stream_server.url)
    game, tokens = new_game(client, target_score=60)
    last = client.get(f"/games/{game}", tokens[0]).json["last_event"]
    conn = http.client.HTTPConnection("127.0.0.1", short_stream_server.port, timeout=30)
    conn.request("GET", f"/games/{game}/stream", headers={"Authorization": f"Bearer {tokens[0]}"})
    response = conn.getresponse()
    assert response.status == 200
    # Read to the end: http.client checks the chunked framing, the server ends the body.
    got = list(messages(http_chunks(response)))
    assert [int(m.id) for m in got if m.id is not None] == list(range(1, last + 1))
    assert got[0].retry == 1000
    assert sum(m.comment == "heartbeat" for m in got) >= 2
    # The connection stays usable: the body was ended with its last chunk.
    conn.request("GET", f"/games/{game}", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert conn.getresponse().status == 200
    conn.close()
    client.close()


def test_a_stream_read_late_gets_every_event_in_order(stream_server: GunicornServer) -> None:
    """A reader with a small window that reads nothing while a whole game is
    played: the server's writes meet a full socket and go on later, in order."""
    client = Client(stream_server.url)
    game, tokens = new_game(client)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.connect(("127.0.0.1", stream_server.port))
    conn = http.client.HTTPConnection("127.0.0.1", stream_server.port, timeout=30)
    conn.sock = sock
    conn.request(
        "GET", f"/games/{game}/stream?after=0", headers={"Authorization": f"Bearer {tokens[1]}"}
    )
    response = conn.getresponse()
    assert response.status == 200
    final = play_to_the_end([client], game, tokens, seed=3)
    got = []
    for message in messages(http_chunks(response)):
        if message.id is not None:
            got.append(message)
            if message.data["type"] == "game_ended":
                break
    conn.close()
    assert [int(m.id) for m in got] == list(range(1, len(got) + 1))  # in order, none twice
    assert int(got[-1].id) == final["last_event"]
    logged = client.get(f"/games/{game}/events?after=0", tokens[1]).json["events"]
    by_seq = {event["seq"]: event for event in logged}
    for message in got:  # as the log shows seat 1 (redacted alike)
        assert by_seq.get(message.data["seq"], message.data) == message.data
    client.close()
