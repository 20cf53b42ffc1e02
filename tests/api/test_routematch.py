"""`ServiceMap` matches as Werkzeug's `Map` does, and matches a path once."""

from __future__ import annotations

from typing import Any

import pytest
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule

from service.app import create_app
from service.config import TestConfig
from service.serving import routematch
from service.serving.flaskapp import ServiceFlask
from service.serving.routematch import RememberingMatcher, ServiceMap


def _rules() -> list[Rule]:
    return [
        Rule("/healthz", endpoint="health", methods=["GET"]),
        Rule("/games", endpoint="games", methods=["GET", "POST"]),
        Rule("/games/<string:game_id>", endpoint="game", methods=["GET", "DELETE"]),
        Rule("/games/<string:game_id>/moves", endpoint="moves", methods=["POST"]),
        Rule("/games/<int:n>/count", endpoint="count", methods=["GET"]),
        Rule("/files/<path:name>", endpoint="file", methods=["GET"]),
        Rule("/dir/", endpoint="dir", methods=["GET"]),
        Rule("/old/<string:game_id>", endpoint="old", defaults={"v": 1}, methods=["GET"]),
    ]


def _answer(mapping: Map, path: str, method: str) -> Any:
    adapter = mapping.bind("example.org", "/")
    try:
        rule, values = adapter.match(path, method, return_rule=True)
    except HTTPException as exc:
        found = getattr(exc, "new_url", None), getattr(exc, "valid_methods", None)
        return type(exc).__name__, *found
    return rule.rule, values


CASES = [
    ("/healthz", "GET"),
    ("/healthz", "POST"),
    ("/games", "POST"),
    ("/games/abc", "GET"),
    ("/games/abc", "PUT"),
    ("/games/abc/moves", "POST"),
    ("/games/abc/moves", "GET"),
    ("/games/abc/moves/", "POST"),
    ("/games//abc/moves", "POST"),
    ("/games/12/count", "GET"),
    ("/games/x12/count", "GET"),
    ("/files/a/b/c.txt", "GET"),
    ("/dir", "GET"),
    ("/old/abc", "GET"),
    ("/nowhere", "GET"),
]


@pytest.mark.parametrize("strict", [True, False])
def test_every_answer_is_werkzeugs_the_first_time_and_after(strict: bool) -> None:
    plain = Map(_rules(), strict_slashes=strict)
    remembering = ServiceMap(_rules(), strict_slashes=strict)
    assert isinstance(remembering._matcher, RememberingMatcher)
    for _ in range(3):
        for path, method in CASES:
            assert _answer(remembering, path, method) == _answer(plain, path, method), path


def test_a_matched_path_is_matched_by_werkzeug_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walked: list[str] = []
    werkzeug_match = routematch._werkzeug_match

    def counting(matcher: Any, domain: str, path: str, method: str, websocket: bool) -> Any:
        walked.append(path)
        return werkzeug_match(matcher, domain, path, method, websocket)

    monkeypatch.setattr(routematch, "_werkzeug_match", counting)
    mapping = ServiceMap(_rules())
    for _ in range(3):
        assert _answer(mapping, "/games/abc/moves", "POST") == (
            "/games/<string:game_id>/moves",
            {"game_id": "abc"},
        )
        assert _answer(mapping, "/healthz", "GET") == ("/healthz", {})
        assert _answer(mapping, "/games/abc/moves", "GET")[0] == "MethodNotAllowed"
    # Each matched path once; the failing method every time.
    assert walked == ["/games/abc/moves", "/healthz"] + ["/games/abc/moves"] * 3


def test_each_match_gets_its_own_values() -> None:
    mapping = ServiceMap(_rules())
    adapter = mapping.bind("example.org", "/")
    _, first = adapter.match("/old/abc", "GET", return_rule=True)
    first["game_id"] = "changed"  # type: ignore[index]
    first.pop("v")  # type: ignore[attr-defined]
    _, second = adapter.match("/old/abc", "GET", return_rule=True)
    assert second == {"game_id": "abc", "v": 1}


def test_a_new_rule_or_a_full_map_empties_what_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    mapping = ServiceMap(_rules())
    matcher = mapping._matcher
    assert isinstance(matcher, RememberingMatcher)
    _answer(mapping, "/games/abc", "GET")
    assert len(matcher.kept) == 1
    mapping.add(Rule("/games/<string:game_id>/extra", endpoint="extra"))
    assert matcher.kept == {}
    assert _answer(mapping, "/games/abc/extra", "GET") == (
        "/games/<string:game_id>/extra",
        {"game_id": "abc"},
    )
    monkeypatch.setattr(routematch, "KEPT", 3)
    for name in "abcd":
        _answer(mapping, f"/games/{name}", "GET")
    assert len(matcher.kept) <= 3
    assert _answer(mapping, "/games/a", "GET") == ("/games/<string:game_id>", {"game_id": "a"})


def test_the_service_routes_through_it() -> None:
    app = create_app(TestConfig())
    assert isinstance(app, ServiceFlask)
    assert isinstance(app.url_map, ServiceMap)
    client = app.test_client()
    for _ in range(2):
        answer = client.get("/games/AAAAAAAAAAAAAAAAAAAAAA")
        assert answer.status_code == 404
        assert answer.get_json()["code"] == "game_not_found"
    matcher = app.url_map._matcher
    assert isinstance(matcher, RememberingMatcher)
    assert [key[1] for key in matcher.kept] == ["/games/AAAAAAAAAAAAAAAAAAAAAA"]
