"""Clients that do not read, over gunicorn: every write of an answer has a
deadline (``SEND_TIMEOUT``), and a connection serves a bounded number of
requests (``MAX_REQUESTS_PER_CONNECTION``)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.security.conftest import RedisFactory, ServeFactory
from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"


def _tcp_entry(local_port: int, remote_port: int) -> tuple[str, int] | None:
    """The state (hex, ``01``: established) and send queue (bytes) of the loopback
    connection from `local_port` to `remote_port`, as the kernel lists it; None once gone."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1], fields[2]
        if (
            int(local.rsplit(":", 1)[1], 16) == local_port
            and int(remote.rsplit(":", 1)[1], 16) == remote_port
        ):
            return fields[3], int(fields[4].split(":")[0], 16)
    return None


def _connect(server: GunicornServer, receive_buffer: int | None = None) -> socket.socket:
    address = urlsplit(server.url)
    sock = socket.socket()
    if receive_buffer is not None:  # before connecting: it sets the window offered
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(30)
    sock.connect((address.hostname, address.port))
    return sock


def _send_in_background(sock: socket.socket, data: bytes) -> threading.Thread:
    """Send `data` on a thread (it blocks once the server stops reading); the
    thread ends when all is sent or the connection is gone."""

    def send() -> None:
        with contextlib.suppress(OSError):
            sock.sendall(data)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


def _healthz(server: GunicornServer) -> int:
    with urllib.request.urlopen(server.url + "/healthz", timeout=2) as answer:
        return int(answer.status)


SEND_TIMEOUT = 2.0


def test_a_pipelining_client_that_never_reads_is_dropped_within_the_deadline(
    serve: ServeFactory, redis_factory: RedisFactory
) -> None:
    """40,000 pipelined ``GET /healthz`` on a connection whose client never reads.

    Without a deadline the worker's write waits for ever once the client's
    window and the server's send buffer are full: the connection and its
    greenlet are held for good. With ``SEND_TIMEOUT`` the server drops it once
    a write has waited that long, and the other clients of the same (single)
    worker are served meanwhile. The bound on requests per connection is off
    here, so that only the deadline can end the connection.
    """
    server = serve(
        redis_factory(),
        env={"SEND_TIMEOUT": str(SEND_TIMEOUT), "MAX_REQUESTS_PER_CONNECTION": "0"},
        workers=1,
    )
    port = urlsplit(server.url).port
    assert port is not None
    attacker = _connect(server, receive_buffer=4096)
    client_port = attacker.getsockname()[1]
    try:
        started = time.monotonic()
        sender = _send_in_background(attacker, HEALTHZ * 40_000)
        # Follow the server's side of the connection: its send queue grows while
        # the client's window takes answers, then stalls; the server must close
        # it within SEND_TIMEOUT of the stall.
        queued, progressed, statuses = -1, started, []
        dropped_at = None
        while time.monotonic() - started < 30:
            entry = _tcp_entry(port, client_port)
            now = time.monotonic()
            if entry is None or entry[0] != "01":
                dropped_at = now
                break
            if entry[1] != queued:
                queued, progressed = entry[1], now
            statuses.append(_healthz(server))
            time.sleep(0.05)
        assert dropped_at is not None, "the server still holds the connection after 30 s"
        assert queued > 0  # the answers did pile up unread before the drop
        stalled_for = dropped_at - progressed
        assert stalled_for <= SEND_TIMEOUT + 1.5, (stalled_for, queued)
        # Every other client was served throughout, on the same worker.
        assert statuses and set(statuses) == {200}, statuses
        assert _healthz(server) == 200
        sender.join(10)
        assert not sender.is_alive()  # the connection is gone for the sender too
    finally:
        attacker.close()


def _answers(raw: bytes) -> list[tuple[int, dict[str, str], bytes]]:
    """The answers (status, headers with lower-case names, body) one after the other in `raw`."""
    answers = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {
            name.strip().lower(): value.strip()
            for name, _, value in (line.partition(":") for line in lines[1:])
        }
        length = int(headers["content-length"])
        answers.append((int(lines[0].split()[1]), headers, rest[:length]))
        raw = rest[length:]
    return answers


def _answers_whole(raw: bytes) -> bool:
    """Whether `raw` holds one whole answer (its headers and Content-Length bytes)."""
    head, found, rest = raw.partition(b"\r\n\r\n")
    if not found:
        return False
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return len(rest) >= length


def test_a_connection_serves_at_most_max_requests_per_connection(serve: ServeFactory) -> None:
    server = serve(env={"MAX_REQUESTS_PER_CONNECTION": "5"})
    sock = _connect(server)
    try:
        sock.sendall(HEALTHZ * 8)  # pipelined: all sent before any answer is read
        raw = b""
        with contextlib.suppress(ConnectionResetError):  # closed with 3 requests unread
            while chunk := sock.recv(65536):
                raw += chunk
    finally:
        sock.close()
    answers = _answers(raw)
    assert [status for status, _, _ in answers] == [200] * 5
    assert [json.loads(body) for _, _, body in answers] == [{"status": "ok"}] * 5
    # The last says so; the ones before keep the connection open.
    assert answers[-1][1]["connection"] == "close"
    assert all(headers.get("connection") != "close" for _, headers, _ in answers[:-1])
    # Within the bound, keep-alive serves request after request on one connection.
    sock = _connect(server)
    try:
        for _ in range(4):
            sock.sendall(HEALTHZ)
            answer = b""
            while not _answers_whole(answer):
                chunk = sock.recv(65536)
                assert chunk, "the connection closed"
                answer += chunk
            [(status, headers, _)] = _answers(answer)
            assert status == 200 and headers.get("connection") != "close"
    finally:
        sock.close()
