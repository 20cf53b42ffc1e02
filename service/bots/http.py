"""A small JSON-over-HTTP caller for bot clients, on the standard library only.

One :class:`Api` keeps one keep-alive connection (``http.client``) and is
meant for one thread. It retries what a client may safely retry: a ``503``
(store unavailable or busy) and a ``429`` (rate limited) after ``Retry-After``
or an exponential backoff with jitter, and a dropped connection. Moves are
retried with the same ``Idempotency-Key``, so a retried move is never applied
twice. Every other status is returned to the caller as an :class:`Answer`.
"""

from __future__ import annotations

import http.client
import json
import random
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

RETRY_STATUSES = frozenset({429, 503})


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

    def _once(self, method: str, path: str, data: bytes | None, headers: dict[str, str]) -> Answer:
        if self._conn is None:
            kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = kind(self._host, self._port, timeout=self.timeout)
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


__all__ = ["Answer", "Api", "ApiError"]
