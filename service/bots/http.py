"""A small JSON-over-HTTP caller for bot clients, on the standard library only.

One :class:`Api` keeps one keep-alive connection (``http.client``) and is
meant for one thread. It retries what a client may safely retry: a ``503``
(store unavailable or busy) and a ``429`` (rate limited) after ``Retry-After``
or an exponential backoff with jitter, and a dropped connection. Moves are
retried with the same ``Idempotency-Key``, so a retried move is never applied
twice. Every other status is returned to the caller as an :class:`Answer`.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import random
import secrets
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

RETRY_STATUSES = frozenset({429, 503})


def new_client_seed() -> str:
    """A random client seed (docs/fairness.md): 32 characters of ``A-Z a-z 0-9 _ -``
    (192 bits) from the operating system's cryptographic generator. A seat that
    sends one is dealt from secrets the server could not choose alone."""
    return secrets.token_urlsafe(24)


def seed_used(view: dict[str, Any], seat: int, seed: str) -> bool:
    """Whether the game's view shows ``seed`` as ``seat``'s client seed: the
    service mixes exactly the seeds its views show into every round secret, which
    ``python -m service.bots.dealcheck verify`` checks once the game is over."""
    seats = view.get("seats") or []
    return 0 <= seat < len(seats) and seats[seat].get("client_seed") == seed


class ApiError(Exception):
    """The service could not be reached, or kept answering 503/429, after every retry."""


@dataclass
class Answer:
    """One HTTP answer: ``status``, lower-cased ``headers`` and the decoded JSON ``body``."""

    status: int
    headers: dict[str, str]
    body: Any
    seconds: float = 0.0

    @property
    def etag_version(self) -> int | None:
        """The game version of the ``ETag`` header (``"17"`` → 17), if any."""
        tag = self.headers.get("etag", "").strip('W/"')
        return int(tag) if tag.isdigit() else None


@dataclass
class Api:
    """Calls one service at ``base_url`` (``http://host:port``), optionally as one seat."""

    base_url: str
    token: str | None = None
    timeout: float = 40.0
    retries: int = 8
    backoff: float = 0.05
    max_backoff: float = 2.0
    #: Retries made so far (503/429/connection), for reports.
    retried: int = 0
    _conn: http.client.HTTPConnection | None = field(default=None, repr=False)
    _rng: random.Random = field(default_factory=random.Random, repr=False)

    def __post_init__(self) -> None:
        url = urllib.parse.urlsplit(self.base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"not an http(s) URL: {self.base_url!r}")
        self._https = url.scheme == "https"
        self._host = url.hostname
        self._port = url.port
        self._prefix = url.path.rstrip("/")

    def close(self) -> None:
        """Close the connection (a later call opens a new one)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def get(self, path: str, params: dict[str, Any] | None = None) -> Answer:
        """``GET path?params``."""
        if params:
            path = f"{path}?{urllib.parse.urlencode(params)}"
        return self.call("GET", path)

    def post(self, path: str, body: Any, headers: dict[str, str] | None = None) -> Answer:
        """``POST path`` with a JSON body."""
        return self.call("POST", path, body, headers)

    def join(
        self, game_id: str, name: str, seat: int | None = None, client_seed: str | None = None
    ) -> Answer:
        """``POST /games/{id}/join`` as ``name`` (at ``seat``, else the lowest open
        one), with ``client_seed`` or, by default, a fresh random one
        (`new_client_seed`); the answer's body holds the seat's token."""
        body: dict[str, Any] = {"name": name, "client_seed": client_seed or new_client_seed()}
        if seat is not None:
            body["seat"] = seat
        return self.post(f"/games/{game_id}/join", body)

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Answer:
        """One request, retried on 503/429 and dropped connections; other answers returned."""
        sent = {"Accept": "application/json", **(headers or {})}
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        problem = "no attempt"
        for attempt in range(self.retries + 1):
            if attempt:
                self.retried += 1
            started = time.perf_counter()
            try:
                answer = self._once(method, self._prefix + path, data, sent)
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                problem = f"{type(exc).__name__}: {exc}"
                self._sleep(attempt, None)
                continue
            answer.seconds = time.perf_counter() - started
            if answer.status not in RETRY_STATUSES:
                return answer
            problem = f"HTTP {answer.status}"
            self._sleep(attempt, answer.headers.get("retry-after"))
        raise ApiError(f"{method} {path}: gave up after {self.retries + 1} attempts ({problem})")

    @property
    def prefix(self) -> str:
        """The base URL's path (prepended to every request path)."""
        return self._prefix

    def connect(self, timeout: float | None = None) -> http.client.HTTPConnection:
        """A new connection to the service (not the one `call` keeps)."""
        kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        return kind(self._host, self._port, timeout=self.timeout if timeout is None else timeout)

    def _once(self, method: str, path: str, data: bytes | None, headers: dict[str, str]) -> Answer:
        if self._conn is None:
            self._conn = self.connect()
        self._conn.request(method, path, body=data, headers=headers)
        raw = self._conn.getresponse()
        payload = raw.read()
        got = {k.lower(): v for k, v in raw.getheaders()}
        if got.get("connection", "").lower() == "close":
            self.close()
        decoded: Any = None
        if payload and "json" in got.get("content-type", ""):
            decoded = json.loads(payload)
        return Answer(raw.status, got, decoded)

    def _sleep(self, attempt: int, retry_after: str | None) -> None:
        """Wait before the next attempt: Retry-After if given, else backoff with jitter."""
        delay = min(self.max_backoff, self.backoff * 2**attempt)
        delay *= 0.5 + self._rng.random()
        if retry_after and retry_after.isdigit():
            delay = max(delay, float(retry_after))
        time.sleep(delay)


class EventStream:
    """A game's ``GET /games/{id}/stream`` read by a background thread.

    `events(wait)` answers the events received since the last call, waiting up
    to ``wait`` s for the first. The thread reconnects with ``Last-Event-ID``
    when the server ends the stream (its lifetime) or the connection drops. If
    the service answers anything but a stream (an older server without
    ``/stream``, or ``503 too_many_streams``), `failed` is set and the caller
    goes back to long-polling ``/events``.
    """

    #: Seconds without a byte (heartbeats come every 15 s) before reconnecting.
    READ_TIMEOUT = 45.0

    def __init__(self, api: Api, path: str, after: int = 0) -> None:
        self.api = api
        self.path = path
        self.last_id = after
        #: Why the stream could not be used (``None`` while it works).
        self.failed: str | None = None
        #: Connections opened so far (1 + reconnections).
        self.connections = 0
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue()
        self._closed = threading.Event()
        self._conn: http.client.HTTPConnection | None = None
        self._thread = threading.Thread(target=self._run, name="event-stream", daemon=True)
        self._thread.start()

    def events(self, wait: float) -> list[dict[str, Any]]:
        """The events received since the last call, waiting up to ``wait`` s for one."""
        got: list[dict[str, Any]] = []
        try:
            got.append(self._queue.get(timeout=max(wait, 0.001)))
        except queue.Empty:
            return got
        while True:
            try:
                got.append(self._queue.get_nowait())
            except queue.Empty:
                return got

    def close(self) -> None:
        """Stop reading (the thread ends with its connection)."""
        self._closed.set()
        conn = self._conn
        if conn is not None and conn.sock is not None:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)

    def _run(self) -> None:
        failures = 0
        while not self._closed.is_set() and self.failed is None:
            try:
                self._read_once()
                failures = 0
            except (OSError, http.client.HTTPException):
                failures += 1
                if failures > self.api.retries:
                    self.failed = "the stream kept dropping"
                    return
                self.api._sleep(failures, None)
            finally:
                if self._conn is not None:
                    self._conn.close()
                    self._conn = None

    def _read_once(self) -> None:
        conn = self._conn = self.api.connect(self.READ_TIMEOUT)
        headers = {"Accept": "text/event-stream", "Last-Event-ID": str(self.last_id)}
        if self.api.token:
            headers["Authorization"] = f"Bearer {self.api.token}"
        conn.request("GET", self.api.prefix + self.path, headers=headers)
        response = conn.getresponse()
        kind = response.getheader("Content-Type", "")
        if response.status != 200 or not kind.startswith("text/event-stream"):
            self.failed = f"HTTP {response.status}"
            response.read()
            return
        self.connections += 1
        data: list[str] = []
        seq: int | None = None
        while not self._closed.is_set():
            raw = response.readline()
            if not raw:
                return  # the server ended the stream: reconnect
            line = raw.decode().rstrip("\r\n")
            if line.startswith(":"):
                continue  # a heartbeat
            if line:
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "data":
                    data.append(value)
                elif name == "id" and value.isdigit():
                    seq = int(value)
                continue
            if data and seq is not None and seq > self.last_id:
                self.last_id = seq
                self._queue.put(json.loads("\n".join(data)))
            data, seq = [], None


__all__ = ["Answer", "Api", "ApiError", "EventStream"]
