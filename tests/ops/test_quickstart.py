"""The README's serve command keeps games across a restart, and stops within seconds.

`rummy-service` is run as the quickstart runs it (no ``STORE_URL``: its own
valkey-server with AOF in ``DATA_DIR``, gunicorn on ``redis://`` and the
runner process), stopped with SIGTERM and started again on the same folder.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.redis_server import find_free_port

# Each test starts rummy-service (a server, gunicorn and the runner) and stops it.
pytestmark = pytest.mark.slow

RUMMY_SERVICE = str(Path(sys.executable).with_name("rummy-service"))

#: What "within a few seconds" means for a stop with a stream open.
STOP_WITHIN = 5.0


class Service:
    """One `rummy-service` process on a free port with its data in `data_dir`."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = find_free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if k not in ("STORE_URL", "STORE_PASSWORD")}
        env.update(DATA_DIR=str(data_dir), PORT=str(self.port), ACCESS_LOG="0")
        self.proc = subprocess.Popen(
            [RUMMY_SERVICE], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.banner = self._banner()
        self._wait_healthy()

    def _banner(self, timeout: float = 60.0) -> str:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, "no banner"
        return self.proc.stdout.readline().decode()

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{self.base}/readyz", timeout=2):
                    return
            except OSError:
                assert time.monotonic() < deadline, "never ready"
                time.sleep(0.1)

    def call(self, method: str, path: str, body: Any = None, token: str = "") -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.base}{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    def stop(self) -> float:
        """SIGTERM; the seconds until the process (and so all it started) exited."""
        started = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        return time.monotonic() - started


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "rummy-data"


def test_a_game_made_before_a_restart_is_there_after_it(data_dir: Path) -> None:
    first = Service(data_dir)
    try:
        assert f"games kept in {data_dir}" in first.banner
        created = first.call(
            "POST", "/games", {"preset": "standard", "seats": [{"name": "A"}, {"name": "B"}]}
        )
        game = created["id"]
        turn = first.call("GET", f"/games/{game}")["round"]["turn"]  # the dealer is drawn
        token = created["seats"][turn]["token"]
        first.call("POST", f"/games/{game}/moves", {"type": "draw", "source": "stock"}, token)
        before = first.call("GET", f"/games/{game}", token=token)
        assert before["version"] == 2
    finally:
        first.stop()
    assert first.proc.returncode == 0
    second = Service(data_dir)
    try:
        after = second.call("GET", f"/games/{game}", token=token)
        after.pop("now"), before.pop("now")
        assert after == before  # the drawn card in the hand, the same version
        # and play goes on from there
        discard = {"type": "discard", "card": after["hand"][0]}
        moved = second.call("POST", f"/games/{game}/moves", discard, token)
        assert moved["version"] == 3
    finally:
        second.stop()


def test_sigterm_with_a_stream_open_ends_the_stream_and_stops_within_seconds(
    data_dir: Path,
) -> None:
    service = Service(data_dir)
    created = service.call(
        "POST", "/games", {"preset": "standard", "seats": [{"name": "A"}, {"name": "B"}]}
    )
    stream = socket.create_connection(("127.0.0.1", service.port), timeout=STOP_WITHIN + 5)
    try:
        stream.sendall(f"GET /games/{created['id']}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        received = b""
        while b"retry: " not in received:
            received += stream.recv(65536)
        assert received.startswith(b"HTTP/1.1 200")
        took = service.stop()
        while chunk := stream.recv(65536):  # the server closes the stream, not a reset
            received += chunk
    finally:
        stream.close()
        if service.proc.poll() is None:
            service.proc.kill()
    print(f"\nstopped in {took:.1f} s with a stream open")
    assert took < STOP_WITHIN, f"stopped in {took:.1f} s"
    assert service.proc.returncode == 0
    # The body ended as a chunked body ends: the client reconnects after `retry`.
    assert received.endswith(b"0\r\n\r\n")


def test_a_second_service_on_the_same_folder_is_refused(data_dir: Path) -> None:
    first = Service(data_dir)
    try:
        env = {k: v for k, v in os.environ.items() if k != "STORE_URL"}
        second = subprocess.run(
            [RUMMY_SERVICE, "--port", str(find_free_port())],
            env={**env, "DATA_DIR": str(data_dir)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode != 0
        assert "in use by another rummy-service" in second.stderr
        # and the first still serves
        assert first.call("GET", "/healthz") is not None
    finally:
        first.stop()
