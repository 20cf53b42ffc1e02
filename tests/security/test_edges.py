"""The edges of HTTP, over gunicorn: metrics labels, the metrics port, chunked
bodies over the limit, and clients that send their headers or bodies slowly."""

from __future__ import annotations

import contextlib
import http.client
import select
import selectors
import socket
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest

from tests.security.conftest import RedisFactory, ServeFactory
from tests.support.gunicorn import GunicornServer
from tests.support.redis_server import find_free_port

pytestmark = pytest.mark.slow


def _raw(server: GunicornServer, data: bytes, timeout: float = 10.0) -> bytes:
    """Send raw bytes to the server; everything it answers until it closes."""
    address = urlsplit(server.url)
    with socket.create_connection((address.hostname, address.port), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def _get(url: str, timeout: float = 10.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_weird_methods_leave_metrics_the_same_size(hardened: GunicornServer) -> None:
    def scrape() -> bytes:
        status, body = _get(hardened.url + "/metrics")
        assert status == 200
        return body

    def weird(index: int) -> None:
        address = urlsplit(hardened.url)
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
        try:
            connection.request(f"M{index:04d}X", f"/random/{index}")
            connection.getresponse().read()
        finally:
            connection.close()

    # Each label set the attack (and the scrape) uses exists before the first count.
    weird(0)
    scrape()
    before = scrape()
    for index in range(1, 201):
        weird(index)
    after = scrape()
    # Counts and sums change, the series do not: the same lines, the same names.
    series = sorted(line.rpartition(b" ")[0] for line in before.splitlines())
    assert sorted(line.rpartition(b" ")[0] for line in after.splitlines()) == series
    assert abs(len(after) - len(before)) < 200  # a few digits more in some counts
    assert b"M0001X" not in after
    assert b'method="other",route="other"' in after


def test_metrics_on_their_own_port_only(serve: ServeFactory) -> None:
    metrics_port = find_free_port()
    server = serve(env={"METRICS_PORT": str(metrics_port)})
    status, _ = _get(server.url + "/metrics")
    assert status == 404
    # The Host header does not choose the port.
    address = urlsplit(server.url)
    forged = _raw(
        server,
        f"GET /metrics HTTP/1.1\r\nHost: {address.hostname}:{metrics_port}\r\n"
        "Connection: close\r\n\r\n".encode(),
    )
    assert forged.startswith(b"HTTP/1.1 404")
    status, body = _get(f"http://127.0.0.1:{metrics_port}/metrics")
    assert status == 200
    assert b"rummy_http_request_duration_seconds" in body


def test_a_chunked_body_over_the_limit_answers_413(hardened: GunicornServer) -> None:
    chunk = b"x" * 8192
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(10)) + b"0\r\n\r\n"
    answer = _raw(
        hardened,
        b"POST /games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + body,
    )
    head, _, payload = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413"), answer[:300]
    assert b'"code":"body_too_large"' in payload
    # A chunked body within the limit is read whole.
    small = b'{"seats": [{"name": "Ann"}, {"name": null}]}'
    answer = _raw(
        hardened,
        b"POST /games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        + b"%x\r\n%s\r\n0\r\n\r\n"
        % (len(small), small),
    )
    assert answer.startswith(b"HTTP/1.1 201"), answer[:300]


def test_a_slow_body_is_answered_408_and_dropped(serve: ServeFactory) -> None:
    server = serve(env={"BODY_READ_TIMEOUT": "1"})
    address = urlsplit(server.url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
        sock.sendall(
            b"POST /games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b'"code":"body_timeout"' in answer


def _trickle_headers(server: GunicornServer, head: bytes, pause: float) -> tuple[int, bytes]:
    """Send ``head`` a byte at a time, ``pause`` seconds apart, stopping if the
    server closes the connection; the bytes sent and everything answered."""
    address = urlsplit(server.url)
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
        sent = 0
        for byte in head:
            try:
                sock.sendall(bytes([byte]))
            except OSError:  # reset: the server closed the connection
                return sent, b""
            sent += 1
            readable, _, _ = select.select([sock], [], [], pause)
            if readable:
                break  # the server answered or closed
        answer = b""
        with contextlib.suppress(OSError):
            while chunk := sock.recv(4096):
                answer += chunk
        return sent, answer


def test_headers_sent_a_byte_at_a_time_are_dropped_after_the_keepalive_bound(
    serve: ServeFactory,
) -> None:
    """``GUNICORN_KEEPALIVE`` bounds the time to send a request's headers: headers
    a byte at a time that take longer are cut off (no answer, the connection
    closed), the same bytes within the bound are served."""
    server = serve(env={"GUNICORN_KEEPALIVE": "2"})
    head = b"GET /healthz HTTP/1.1\r\nHost: test\r\nX-Slow: " + b"a" * 40 + b"\r\n\r\n"
    # Within the bound (about 0.6 s in all): answered.
    sent, answer = _trickle_headers(server, head, 0.01)
    assert sent == len(head) and answer.startswith(b"HTTP/1.1 200"), answer[:200]
    # Ten bytes a second would take about 7 s: dropped after 2 s, before the end
    # of the headers, without an answer.
    sent, answer = _trickle_headers(server, head, 0.1)
    assert sent < len(head) and answer == b"", (sent, answer[:200])


SLOW_CONNECTIONS = 2100


def test_2000_slow_bodies_leave_healthz_answering(
    serve: ServeFactory, redis_factory: RedisFactory
) -> None:
    """2,100 connections that each send headers, then one body byte a second.

    Each worker holds at most `GUNICORN_WORKER_CONNECTIONS` (1,000) connections,
    so without a body deadline these would hold every slot of both workers
    for as long as they keep sending. With it, each is dropped after
    ``BODY_READ_TIMEOUT``, and ``/healthz`` is answered while the attack goes on.
    """
    server = serve(redis_factory(), env={"BODY_READ_TIMEOUT": "3"}, workers=2)
    address = (urlsplit(server.url).hostname, urlsplit(server.url).port)
    selector = selectors.DefaultSelector()
    attackers: list[socket.socket] = []
    head = (
        b"POST /games HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Content-Length: 60000\r\n\r\n"
    )
    try:
        for _ in range(SLOW_CONNECTIONS):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex(address)
            attackers.append(sock)
            selector.register(sock, selectors.EVENT_WRITE)
        # Send each one's headers once it connects (the backlog may hold some).
        started = time.monotonic()
        pending = set(attackers)
        while pending and time.monotonic() - started < 20:
            for key, _ in selector.select(timeout=0.5):
                sock = key.fileobj  # type: ignore[assignment]
                if sock in pending:
                    pending.discard(sock)
                    with contextlib.suppress(OSError):
                        sock.send(head)
                    selector.unregister(sock)
        connected = SLOW_CONNECTIONS - len(pending)
        assert connected >= 2000, connected
        # Trickle one byte a second on every connection while /healthz is asked.
        healthz: list[int] = []
        dropped = 0
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and not healthz:
            for sock in attackers:
                with contextlib.suppress(OSError):
                    sock.send(b" ")
            try:
                status, _ = _get(server.url + "/healthz", timeout=2)
                healthz.append(status)
            except OSError:
                time.sleep(0.5)
        assert healthz == [200], "the service stopped answering /healthz"
        # The server closed the slow connections (answering 408), not the test.
        for sock in attackers:
            sock.setblocking(True)
            sock.settimeout(10)
            try:
                answer = sock.recv(4096)
            except OSError:
                continue
            if answer.startswith(b"HTTP/1.1 408") or answer == b"":
                dropped += 1
        assert dropped >= 2000, dropped
    finally:
        for sock in attackers:
            sock.close()
        selector.close()
