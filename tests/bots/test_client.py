"""The reference bot client against a real gunicorn, and its retry rules against a stub."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from service.bots.client import BotClient, ClientError
from service.bots.http import Answer, Api
from tests.support.gunicorn import ROOT

# Bot clients play whole games over HTTP against a real gunicorn.
pytestmark = pytest.mark.slow


def _create(url: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = Api(url).post("/games", body)
    assert answer.status == 201, answer.body
    created: dict[str, Any] = answer.body
    return created


def _finish_together(players: list[subprocess.Popen[str]], timeout: float) -> list[tuple[str, str]]:
    """Wait for every process; one failing stops the others (they would wait for its moves)."""
    deadline = time.monotonic() + timeout
    while any(p.poll() is None for p in players) and time.monotonic() < deadline:
        if any(p.returncode not in (None, 0) for p in players):
            break
        time.sleep(0.05)
    for p in players:
        if p.poll() is None:
            p.kill()
    return [p.communicate() for p in players]


def test_two_client_processes_play_a_game_to_its_end(service_url: str, tmp_path: Path) -> None:
    game = _create(
        service_url,
        {"preset": "express", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 5},
    )
    command = [sys.executable, "-m", "service.bots.client", "--url", service_url]
    command += ["--game", game["id"], "--seed", "1", "--wait", "5"]
    # One seat's token from the environment, the other's from a file: never argv.
    ann, bob = (seat["token"] for seat in game["seats"])
    token_file = tmp_path / "token"
    token_file.write_text(bob + "\n")
    env = {name: value for name, value in os.environ.items() if name != "RUMMY_TOKEN"}
    players = [
        subprocess.Popen(
            [*command, *extra],
            cwd=ROOT,
            env={**env, **seat_env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for extra, seat_env in (((), {"RUMMY_TOKEN": ann}), (("--token-file", str(token_file)), {}))
    ]
    outputs = _finish_together(players, timeout=60)
    assert [p.returncode for p in players] == [0, 0], outputs
    for out, _ in outputs:
        assert f"game {game['id']} finished" in out
    final = Api(service_url).get(f"/games/{game['id']}")
    assert final.body["status"] == "finished"
    assert final.body["winners"]


def test_client_plays_a_full_game_against_a_server_bot(service_url: str) -> None:
    game = _create(
        service_url,
        {
            "preset": "standard",
            "options": {"end": "rounds", "rounds": 2},
            "seats": [{"name": "Ann"}, {"bot": "greedy"}],
            "seed": 3,
        },
    )
    token = game["seats"][0]["token"]
    client = BotClient(Api(service_url, token), game["id"], "greedy", random.Random(3), wait=5)
    final = client.play()
    assert final["status"] == "finished"
    assert final["winners"]
    assert len(final["rounds"]) == 2
    assert client.latencies  # it moved
    assert client.memory.round == final["rounds"][-1]["number"]  # it followed the events
    client.close()


def test_two_clients_wait_for_each_other_on_the_event_stream(service_url: str) -> None:
    game = _create(
        service_url,
        {"preset": "express", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 9},
    )
    clients = [
        BotClient(Api(service_url, seat["token"]), game["id"], "greedy", random.Random(i), wait=5)
        for i, seat in enumerate(game["seats"])
    ]
    finals: list[dict[str, Any]] = []
    threads = [threading.Thread(target=lambda c=c: finals.append(c.play())) for c in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(finals) == 2 and all(f["status"] == "finished" for f in finals)
    for client in clients:
        # Each waited for the other's moves on the event stream, not on long-polls.
        assert client.stream is not None and client.stream.failed is None
        assert client.stream.connections >= 1 and client.stream.last_id > 0
        client.close()


def test_a_stale_version_answers_412_and_the_client_chooses_again(service_url: str) -> None:
    game = _create(
        service_url,
        {"preset": "express", "seats": [{"name": "Ann"}, {"name": "Bob"}], "seed": 8},
    )
    seats = {s["seat"]: s["token"] for s in game["seats"]}
    first = Api(service_url, seats[0]).get(f"/games/{game['id']}").body["round"]["turn"]
    token = seats[first]
    client = BotClient(Api(service_url, token), game["id"], "greedy")
    other = Api(service_url, token)  # the same seat, from somewhere else
    real_post = client.api.post

    def post_after_a_rival(path: str, body: Any, headers: dict[str, str] | None = None) -> Answer:
        client.api.post = real_post  # type: ignore[method-assign]
        assert other.post(path, {"type": "draw", "source": "stock"}).status == 200
        return real_post(path, body, headers)

    client.api.post = post_after_a_rival  # type: ignore[method-assign]
    assert client.step() is False  # answered 412: nothing applied
    assert client.stale == 1
    assert client.step() is True  # reloaded, chose again from the new version
    assert len(client.latencies) == 1
    drew = [e for e in client.catch_up(0) if e["type"] == "drew"]
    assert len(drew) <= 1  # the rival's draw came before; the client did not draw twice


# --- retries, against a stub service -------------------------------------------------


class _Stub(BaseHTTPRequestHandler):
    """A service whose first two move answers are 503; records every move request."""

    moves: ClassVar[list[dict[str, str]]] = []
    gets: ClassVar[list[str]] = []
    view: ClassVar[dict[str, Any]] = {
        "id": "g",
        "version": 3,
        "status": "active",
        "you": 0,
        "hand": ["C2"],
        "round": {"turn": 0},
    }

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.gets.append(self.path)
        if "/events" in self.path:
            self._send(200, {"events": [], "last": 0})
        elif self.path.endswith("/legal-moves"):
            self._send(200, {"version": 3, "moves": [{"type": "draw", "source": "stock"}]})
        else:
            self._send(200, self.view)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.moves.append(dict(self.headers))
        if len(self.moves) <= 2:
            self._send(503, {"code": "store_unavailable"}, {"Retry-After": "0"})
        else:
            self._send(200, {**self.view, "version": 4})


@pytest.fixture
def stub_url() -> Iterator[str]:
    _Stub.moves = []
    _Stub.gets = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    server.daemon_threads = True
    server.block_on_close = False
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_move_answered_503_is_retried_with_the_same_idempotency_key(stub_url: str) -> None:
    api = Api(stub_url, "secret", backoff=0.001)
    client = BotClient(api, "g", "random")
    assert client.step() is True
    assert client.view["version"] == 4
    assert len(_Stub.moves) == 3 and api.retried == 2
    keys = {m["Idempotency-Key"] for m in _Stub.moves}
    assert len(keys) == 1 and keys != {""}
    assert {m["If-Match"] for m in _Stub.moves} == {'"3"'}
    assert {m["Authorization"] for m in _Stub.moves} == {"Bearer secret"}
    api.close()


def test_a_stopped_client_gives_up_without_a_request() -> None:
    api = Api("http://127.0.0.1:9", "secret", retries=0)
    client = BotClient(api, "g", "greedy")
    client.stop.set()  # e.g. self-play saw another seat of the game fail
    with pytest.raises(ClientError, match="stopped"):
        client.play()
    assert api.retried == 0 and client.view == {}


def test_without_a_stream_the_client_long_polls(stub_url: str) -> None:
    # The stub has no /stream: it answers the game's JSON view there.
    client = BotClient(Api(stub_url, "secret"), "g", "random")
    assert client.catch_up(0.5) == []
    assert client.stream is not None and client.stream.failed == "HTTP 200"
    assert any("/events?after=0&wait=" in path for path in _Stub.gets)
    client.close()
