# ruff: noqa: E501 - one bad request per line reads best as a table
"""Bad input over real HTTP (gunicorn + Redis): always a documented 4xx problem, never a 5xx.

Each request below is sent as raw bytes; its answer must be
`application/problem+json` with the expected status and `code`, the status
must be one the OpenAPI document lists for that operation, and nothing may
change in the game.
"""

from __future__ import annotations

import http.client
import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.api.helpers import DECK, DRAW
from tests.e2e.http import Client
from tests.robustness.conftest import Live

JSON = {"Content-Type": "application/json"}


@dataclass(frozen=True)
class Bad:
    """One bad request: what is sent and the answer expected."""

    name: str
    method: str
    path: str
    body: bytes | None
    status: int
    code: str
    headers: dict[str, str] = field(default_factory=lambda: dict(JSON))
    token: str | None = None  # "ann", "bob", "other" (a seat of another game) or None


def _j(value: Any) -> bytes:
    return json.dumps(value).encode()


def _nested(depth: int) -> bytes:
    return b'{"seats": ' + b"[" * depth + b"]" * depth + b"}"


SEATS = [{"name": "Ann"}, {"name": "Bob"}]
MOVES = "/games/{game}/moves"
CASES = [
    # Malformed JSON, content types, sizes.
    Bad("truncated json", "POST", "/games", b'{"seats": [', 400, "invalid_json"),
    Bad("not utf-8", "POST", "/games", b'{"seats": "\xff\xfe"}', 400, "invalid_json"),
    Bad("lone surrogate", "POST", "/games", b'{"seats": "\\ud800"}', 400, "invalid_json"),
    Bad("number out of range", "POST", "/games", b'{"seats": [], "seed": 1e400}', 400, "invalid_json"),
    Bad("wrong content type", "POST", "/games", _j({"seats": SEATS}), 415, "unsupported_media_type", {"Content-Type": "text/plain"}),
    Bad("form content type", "POST", MOVES, b"type=draw", 415, "unsupported_media_type", {"Content-Type": "application/x-www-form-urlencoded"}, "ann"),
    Bad("missing content type", "POST", "/games", _j({"seats": SEATS}), 415, "unsupported_media_type", {}),
    Bad("empty body", "POST", "/games", b"", 422, "validation_error"),
    Bad("body over the limit", "POST", "/games", b'{"seats": "' + b"x" * 70_000 + b'"}', 413, "body_too_large"),
    Bad("deeply nested json", "POST", "/games", _nested(20_000), 400, "invalid_json"),
    Bad("nested under the parser limit", "POST", "/games", _nested(500), 422, "validation_error"),
    Bad("huge array of seats", "POST", "/games", _j({"seats": [{}] * 5000}), 422, "validation_error"),
    Bad("huge array of actions", "POST", MOVES, _j({"actions": [DRAW] * 1000}), 422, "validation_error", token="ann"),
    Bad("huge deck", "POST", "/games", _j({"seats": SEATS, "deck": DECK * 50}), 422, "validation_error"),
    Bad("json array body", "POST", MOVES, _j([DRAW]), 422, "validation_error", token="ann"),
    Bad("json string body", "POST", "/games", _j("seats"), 422, "validation_error"),
    # Cards.
    Bad("invalid card code", "POST", MOVES, _j({"type": "discard", "card": "Q9"}), 422, "validation_error", token="ann"),
    Bad("card code as a number", "POST", MOVES, _j({"type": "discard", "card": 12}), 422, "validation_error", token="ann"),
    Bad("fullwidth card code", "POST", MOVES, _j({"type": "discard", "card": "\uff28\uff12"}), 422, "validation_error", token="ann"),
    Bad("duplicate card codes", "POST", MOVES, _j({"type": "meld", "cards": ["H2", "2h", "H3"]}), 422, "validation_error", token="ann"),
    Bad("deck with a duplicate", "POST", "/games", _j({"seats": SEATS, "deck": [*DECK[:-1], "H2"]}), 422, "validation_error"),
    Bad("deck with a bad code", "POST", "/games", _j({"seats": SEATS, "deck": [*DECK[:-1], "ZZ"]}), 422, "validation_error"),
    # Unicode and control characters.
    Bad("control characters in a name", "POST", "/games", _j({"seats": [{"name": "A\u0000nn"}, {"name": "B\u001b[31m"}]}), 422, "validation_error"),
    Bad("control characters in a join", "POST", "/games/{waiting}/join", _j({"name": "Cy\u0007"}), 422, "validation_error"),
    Bad("control character in a move type", "POST", MOVES, _j({"type": "draw\u0000", "source": "stock"}), 422, "validation_error", token="ann"),
    Bad("unicode preset", "POST", "/games", _j({"preset": "ständard", "seats": SEATS}), 422, "validation_error"),
    Bad("unicode game id", "GET", "/games/%C3%A9t%C3%A9", None, 404, "game_not_found"),
    Bad("overlong game id", "GET", "/games/" + "a" * 200, None, 404, "game_not_found"),
    # Numbers.
    Bad("negative seed", "POST", "/games", _j({"seats": SEATS, "seed": -1}), 422, "validation_error"),
    Bad("huge seed", "POST", "/games", _j({"seats": SEATS, "seed": 2**70}), 422, "validation_error"),
    Bad("fractional dealer", "POST", "/games", _j({"seats": SEATS, "first_dealer": 0.5}), 422, "validation_error"),
    Bad("negative meld id", "POST", MOVES, _j({"type": "layoff", "meld": -1, "cards": ["H5"]}), 422, "validation_error", token="ann"),
    Bad("huge meld id", "POST", MOVES, _j({"type": "layoff", "meld": 10**30, "cards": ["H5"]}), 422, "validation_error", token="ann"),
    Bad("seat out of range", "POST", "/games/{waiting}/join", _j({"name": "Cy", "seat": 99}), 422, "validation_error"),
    Bad("negative after", "GET", "/games/{game}/events?after=-1", None, 422, "validation_error", {}),
    Bad("huge after", "GET", "/games/{game}/events?after=" + "9" * 40, None, 422, "validation_error", {}),
    Bad("lobby limit zero", "GET", "/games?limit=0", None, 422, "validation_error", {}),
    Bad("lobby limit text", "GET", "/games?limit=ten", None, 422, "validation_error", {}),
    # Unknown fields.
    Bad("unknown field in create", "POST", "/games", _j({"seats": SEATS, "colour": "red"}), 422, "validation_error"),
    Bad("unknown field in a move", "POST", MOVES, _j({**DRAW, "x": 1}), 422, "validation_error", token="ann"),
    Bad("unknown option", "POST", "/games", _j({"seats": SEATS, "options": {"wild_twos": True}}), 422, "validation_error"),
    Bad("move and actions at once", "POST", MOVES, _j({**DRAW, "actions": [DRAW]}), 422, "validation_error", token="ann"),
    # Tokens.
    Bad("missing token", "POST", MOVES, _j(DRAW), 401, "missing_token"),
    Bad("wrong token", "POST", MOVES, _j(DRAW), 401, "invalid_token", {**JSON, "Authorization": "Bearer nope"}),
    Bad("basic auth", "POST", MOVES, _j(DRAW), 401, "invalid_token", {**JSON, "Authorization": "Basic QW5uOng="}),
    Bad("empty bearer", "GET", "/games/{game}", None, 401, "invalid_token", {"Authorization": "Bearer "}),
    Bad("token of another game", "POST", MOVES, _j(DRAW), 401, "invalid_token", token="other"),
    Bad("token of another game, view", "GET", "/games/{game}", None, 401, "invalid_token", {}, "other"),
    Bad("not your turn", "POST", MOVES, _j(DRAW), 409, "not_your_turn", token="bob"),
    # Methods.
    Bad("delete a game without a token", "DELETE", "/games/{game}", None, 401, "missing_token", {}),
    Bad("delete a game being played", "DELETE", "/games/{game}", None, 409, "game_not_waiting", token="ann"),
    Bad("put a game", "PUT", "/games/{game}", None, 405, "method_not_allowed", {}),
    Bad("put presets", "PUT", "/presets", _j({}), 405, "method_not_allowed"),
    Bad("patch moves", "PATCH", MOVES, _j(DRAW), 405, "method_not_allowed", token="ann"),
    Bad("get moves", "GET", MOVES, None, 405, "method_not_allowed", {}),
    # Long-poll bounds.
    Bad("wait too long", "GET", "/games/{game}/events?wait=31", None, 422, "validation_error", {}),
    Bad("negative wait", "GET", "/games/{game}/events?wait=-1", None, 422, "validation_error", {}),
    Bad("wait not a number", "GET", "/games/{game}/events?wait=soon", None, 422, "validation_error", {}),
    Bad("wait infinite", "GET", "/games/{game}/events?wait=inf", None, 422, "validation_error", {}),
    Bad("wait nan", "GET", "/games/{game}/events?wait=nan", None, 422, "validation_error", {}),
    # Preconditions and idempotency.
    Bad("stale If-Match", "POST", MOVES, _j(DRAW), 412, "version_mismatch", {**JSON, "If-Match": '"7"'}, "ann"),
    Bad("malformed If-Match", "POST", MOVES, _j(DRAW), 400, "invalid_if_match", {**JSON, "If-Match": "seven"}, "ann"),
    Bad("unquoted If-Match", "POST", MOVES, _j(DRAW), 400, "invalid_if_match", {**JSON, "If-Match": "1"}, "ann"),
    Bad("reused Idempotency-Key", "POST", MOVES, _j({"type": "draw", "source": "discard"}), 422, "idempotency_key_reused", {**JSON, "Idempotency-Key": "k-1"}, "ann"),
    Bad("overlong Idempotency-Key", "POST", MOVES, _j(DRAW), 422, "validation_error", {**JSON, "Idempotency-Key": "k" * 300}, "ann"),
]  # fmt: skip


@pytest.fixture(scope="module")
def games(live: Live) -> dict[str, str]:
    """An active game (Ann to draw), another game, a waiting game; the tokens."""
    client = Client(live.url)
    body = {"preset": "express", "seats": SEATS, "deck": DECK, "first_dealer": 1}
    game = client.post("/games", body).json
    other = client.post("/games", body).json
    waiting = client.post("/games", {"seats": [{"name": "Cy"}, {"name": None}]}).json
    ids = {"game": game["id"], "other_game": other["id"], "waiting": waiting["id"]}
    tokens = {
        "ann": game["seats"][0]["token"],
        "bob": game["seats"][1]["token"],
        "other": other["seats"][0]["token"],
    }
    # `k-1` is first used on the other game (which `game` must not be: it stays
    # at version 1 with Ann to draw, for the other cases).
    first = client.post(
        f"/games/{ids['other_game']}/moves", DRAW, tokens["other"], **{"Idempotency-Key": "k-1"}
    )
    assert first.status == 200
    return {**ids, **tokens}


def _send(live: Live, bad: Bad, games: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    path = bad.path.format(game=games["game"], waiting=games["waiting"])
    headers = dict(bad.headers)
    if bad.token is not None:
        headers["Authorization"] = f"Bearer {games[bad.token]}"
    if bad.name == "reused Idempotency-Key":  # the key was used on the other game, by its seat
        path = MOVES.format(game=games["other_game"])
        headers["Authorization"] = f"Bearer {games['other']}"
    connection = http.client.HTTPConnection("127.0.0.1", live.server.port, timeout=30)
    try:
        connection.request(bad.method, path, body=bad.body, headers=headers)
        answer = connection.getresponse()
        return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
    finally:
        connection.close()


def _documented(spec: dict[str, Any], method: str, path: str, status: int) -> bool:
    template = path.split("?")[0]
    for name, item in spec["paths"].items():
        pattern = name.replace("{game_id}", "[^/]+").replace("{name}", "[^/]+")
        if re.fullmatch(pattern, template):
            operation = item.get(method.lower())
            if operation is None:
                return status == 405
            return str(status) in operation["responses"]
    return status == 404


@pytest.mark.parametrize("bad", CASES, ids=[bad.name for bad in CASES])
def test_bad_input_is_a_documented_4xx_problem(live: Live, games: dict[str, str], bad: Bad) -> None:
    version = live.store.load(games["game"]).version
    status, headers, body = _send(live, bad, games)
    assert status == bad.status, (status, body[:300])
    assert headers["content-type"] == "application/problem+json", headers
    problem = json.loads(body)
    assert problem["status"] == status and problem["code"] == bad.code, problem
    assert {"type", "title", "detail"} <= set(problem)
    if status == 405:
        assert headers.get("allow"), headers
    if status == 401:
        assert headers.get("www-authenticate", "").startswith("Bearer"), headers
    spec = Client(live.url).get("/openapi.json").json
    concrete = bad.path.format(game=games["game"], waiting=games["waiting"])
    assert _documented(spec, bad.method, concrete, status), (bad.method, concrete, status)
    assert live.store.load(games["game"]).version == version  # nothing changed
