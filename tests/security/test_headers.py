"""Headers of every answer, over gunicorn: no sniffing; tokens and hands never cached."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow


def _request(
    server: GunicornServer,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
) -> tuple[int, dict[str, str], Any]:
    address = urlsplit(server.url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers=headers)
        answer = connection.getresponse()
        raw = answer.read()
        payload = json.loads(raw) if raw and "json" in answer.getheader("Content-Type", "") else raw
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, payload
    finally:
        connection.close()


def test_every_answer_is_nosniff_and_secret_answers_are_not_stored(
    hardened: GunicornServer,
) -> None:
    status, headers, created = _request(
        hardened, "POST", "/games", {"seats": [{"name": "Ann"}, {"name": None}]}
    )
    assert status == 201
    game = created["id"]
    ann = created["seats"][0]["token"]
    status, join_headers, joined = _request(
        hardened, "POST", f"/games/{game}/join", {"name": "Bob"}
    )
    assert status == 201
    bob = joined["token"]
    secret = {
        "create (a token)": headers,
        "join (a token)": join_headers,
        "seat view (a hand)": _request(hardened, "GET", f"/games/{game}", token=ann)[1],
        "legal moves": _request(hardened, "GET", f"/games/{game}/legal-moves", token=ann)[1],
        "events as a seat": _request(hardened, "GET", f"/games/{game}/events", token=bob)[1],
        "a move": _request(
            hardened, "POST", f"/games/{game}/moves", {"type": "draw", "source": "stock"}, ann
        )[1],
        "a refused move": _request(
            hardened, "POST", f"/games/{game}/moves", {"type": "draw", "source": "stock"}, bob
        )[1],
    }
    public = {
        "public view": _request(hardened, "GET", f"/games/{game}")[1],
        "lobby": _request(hardened, "GET", "/games")[1],
        "not found": _request(hardened, "GET", "/nowhere")[1],
        "healthz": _request(hardened, "GET", "/healthz")[1],
        "metrics": _request(hardened, "GET", "/metrics")[1],
        "openapi": _request(hardened, "GET", "/openapi.json")[1],
    }
    for name, answer in {**secret, **public}.items():
        assert answer.get("x-content-type-options") == "nosniff", name
    for name, answer in secret.items():
        directives = {part.strip() for part in answer.get("cache-control", "").split(",")}
        assert {"private", "no-store"} <= directives, (name, answer.get("cache-control"))
    for name, answer in public.items():
        assert "no-store" not in answer.get("cache-control", ""), name


def test_a_name_with_a_bidi_override_is_refused_over_gunicorn(hardened: GunicornServer) -> None:
    status, headers, problem = _request(
        hardened, "POST", "/games", {"seats": [{"name": "Ann\u202egnp.exe"}, {"name": None}]}
    )
    assert status == 422
    assert problem["code"] == "validation_error"
    assert headers["content-type"].startswith("application/problem+json")
