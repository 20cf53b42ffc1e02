"""The edges of HTTP that gunicorn itself answers, over gunicorn: its own error
answers as problems, no redirect built from the ``Host`` header, and only a
plain ``chunked`` transfer coding."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest

from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow

PROBLEM_MEMBERS = {"type", "title", "status", "detail", "code"}


def _exchange(server: GunicornServer, data: bytes, timeout: float = 10.0) -> bytes:
    """Send raw bytes; everything the server answers until it closes."""
    address = urlsplit(server.url)
    with socket.create_connection((address.hostname, address.port), timeout=timeout) as sock:
        sock.sendall(data)
        chunks = []
        try:
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:  # closed with the rest of our bytes unread
            pass
        return b"".join(chunks)


def _answer(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """The status, headers (lower-case names) and body of the first answer in `raw`."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", len(body)))
    return int(lines[0].split()[1]), headers, body[:length]


def _assert_problem(raw: bytes, status: int, *codes: str) -> dict[str, object]:
    got, headers, body = _answer(raw)
    assert got == status, raw[:300]
    assert headers["content-type"] == "application/problem+json", raw[:300]
    assert headers["x-content-type-options"] == "nosniff"
    problem = json.loads(body)
    assert set(problem) == PROBLEM_MEMBERS, problem
    assert problem["status"] == status
    assert problem["code"] in codes, problem
    assert problem["type"] == f"https://rummy.example/problems/{problem['code']}"
    return problem  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        # A request line gunicorn cannot parse.
        (b"GET /healthz HTTP/1.1 extra\r\nHost: t\r\n\r\n", 400, "bad_request"),
        (b"\x16\x03\x01\x00\xa5\x01\r\n\r\n", 400, "bad_request"),  # TLS to the plain port
        # Past limit_request_line (8,190 bytes).
        (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: t\r\n\r\n", 414, "uri_too_long"),
        # Past limit_request_fields (100).
        (
            b"GET /healthz HTTP/1.1\r\nHost: t\r\n"
            + b"".join(b"X-H%d: v\r\n" % index for index in range(150))
            + b"\r\n",
            431,
            "headers_too_large",
        ),
        # One field past gunicorn's limit_request_field_size (8,190 bytes).
        (
            b"GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n",
            431,
            "headers_too_large",
        ),
        (b"GET /healthz HTTP/1.1\r\nHost: t\r\nBad Name: v\r\n\r\n", 400, "bad_request"),
    ],
    ids=["request-line", "tls-hello", "414", "431-fields", "431-field-size", "header-name"],
)
def test_gunicorns_own_errors_are_problems(
    hardened: GunicornServer, request_bytes: bytes, status: int, code: str
) -> None:
    problem = _assert_problem(_exchange(hardened, request_bytes), status, code)
    assert len(str(problem["detail"])) <= 200  # gunicorn's message, cut


@pytest.mark.parametrize(
    "path",
    [
        "/games//x",
        "//games/x",
        "/games//x/legal-moves",
        "/docs//static/x.css",
        "/play//assets/a.js",
    ],
)
def test_no_redirect_is_built_from_the_host_header(hardened: GunicornServer, path: str) -> None:
    """Werkzeug once answered ``/games//x`` with a 308 to ``http://<Host>/games/x``."""
    raw = _exchange(
        hardened,
        f"GET {path} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n".encode(),
    )
    assert b"evil.example" not in raw
    _assert_problem(raw, 404, "not_found", "game_not_found")


def test_the_services_own_redirect_is_relative(hardened: GunicornServer) -> None:
    raw = _exchange(hardened, b"GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
    status, headers, _ = _answer(raw)
    assert status == 302
    assert headers["location"] == "/docs"
    assert b"evil.example" not in raw
    for path in ("/play", "/play/", "/docs", "/docs/", "/healthz/", "/openapi.json"):
        raw = _exchange(
            hardened,
            f"GET {path} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n".encode(),
        )
        status, headers, _ = _answer(raw)
        assert status == 200, (path, raw[:200])
        assert "location" not in headers


SMALL = b'{"seats": [{"name": "Ann"}, {"name": null}]}'
CHUNKED_BODY = b"%x\r\n%s\r\n0\r\n\r\n" % (len(SMALL), SMALL)


@pytest.mark.parametrize(
    "codings",
    [
        [b"identity, chunked"],
        [b"gzip, chunked"],
        [b"deflate, chunked"],
        [b"chunked, chunked"],
        [b"chunked", b"chunked"],  # two fields
        [b"identity", b"chunked"],
        [b"chunked, identity"],
        [b"foo, chunked"],  # gunicorn alone answers an unknown coding 501
        [b"gzip"],
    ],
    ids=lambda codings: "+".join(coding.decode() for coding in codings),
)
def test_a_transfer_encoding_other_than_chunked_is_refused(
    hardened: GunicornServer, codings: list[bytes]
) -> None:
    fields = b"".join(b"Transfer-Encoding: %s\r\n" % coding for coding in codings)
    # A second request behind the body: never served (the connection closes).
    raw = _exchange(
        hardened,
        b"POST /games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        + fields
        + b"\r\n"
        + CHUNKED_BODY
        + b"GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n",
    )
    _assert_problem(raw, 400, "bad_request")
    assert raw.count(b"HTTP/1.1 ") == 1, raw[:500]


@pytest.mark.parametrize("coding", [b"chunked", b"Chunked", b" chunked "])
def test_a_plain_chunked_body_is_served(hardened: GunicornServer, coding: bytes) -> None:
    raw = _exchange(
        hardened,
        b"POST /games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: " + coding + b"\r\nConnection: close\r\n\r\n" + CHUNKED_BODY,
    )
    assert raw.startswith(b"HTTP/1.1 201"), raw[:300]
