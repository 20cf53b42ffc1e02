"""The OpenAPI document: committed copy up to date, links declared, real answers match it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from flask import Flask
from werkzeug.test import TestResponse

from tests.api.helpers import DRAW, Api

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "openapi" / "openapi.json"


def _spec(app: Flask) -> dict[str, Any]:
    spec: dict[str, Any] = app.test_client().get("/openapi.json").json  # type: ignore[assignment]
    return spec


def test_committed_openapi_is_what_the_app_generates(app: Flask) -> None:
    committed = json.loads(COMMITTED.read_text())
    assert committed == _spec(app), (
        "openapi/openapi.json is stale: run "
        "`.venv/bin/flask --app service.app:create_app openapi write openapi/openapi.json`"
    )


def test_errors_are_documented_as_problem_json(app: Flask) -> None:
    spec = _spec(app)
    default = spec["components"]["responses"]["DEFAULT_ERROR"]
    assert list(default["content"]) == ["application/problem+json"]
    moves = spec["paths"]["/games/{game_id}/moves"]["post"]["responses"]
    expected = {"400", "401", "404", "409", "412", "413", "415", "422", "429", "503"}
    assert expected <= set(moves)
    for status in expected:
        assert list(moves[status]["content"]) == ["application/problem+json"], status


def test_links_chain_the_id_and_the_version(app: Flask) -> None:
    spec = _spec(app)
    created = spec["paths"]["/games"]["post"]["responses"]["201"]
    links = created["links"]
    assert {"GetGame", "JoinGame", "MakeMove", "GetLegalMoves", "GetEvents"} <= set(links)
    assert links["MakeMove"]["parameters"]["game_id"].startswith("$response.header.Location")
    moved = spec["paths"]["/games/{game_id}/moves"]["post"]["responses"]["200"]["links"]
    assert moved["NextMove"]["parameters"]["header.If-Match"] == "$response.header.ETag"
    operation_ids = {
        op["operationId"]
        for path in spec["paths"].values()
        for op in path.values()
        if "operationId" in op
    }
    for link in [*links.values(), *moved.values()]:
        assert link["operationId"] in operation_ids


class _Checker:
    """Validates real answers against the response schemas of the document."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.checked: set[tuple[str, str, int]] = set()

    def _resolve(self, item: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in item:
            node: Any = self.spec
            for part in item["$ref"].removeprefix("#/").split("/"):
                node = node[part]
            item = node
        return item

    def check(self, method: str, path: str, answer: TestResponse) -> None:
        operation = self.spec["paths"][path][method]
        responses = operation["responses"]
        status = str(answer.status_code)
        assert status in responses or "default" in responses, (method, path, status)
        documented = self._resolve(responses.get(status) or responses["default"])
        if answer.status_code == 304:
            return
        content = documented["content"]
        assert answer.mimetype in content, (method, path, status, answer.mimetype)
        schema = content[answer.mimetype]["schema"]
        root = {"components": self.spec["components"], **schema}
        jsonschema.validate(
            json.loads(answer.get_data()), root, cls=jsonschema.Draft202012Validator
        )
        self.checked.add((method, path, answer.status_code))


def test_real_answers_match_the_documented_schemas(app: Flask) -> None:
    checker = _Checker(_spec(app))
    api = Api(app.test_client())
    client = api.client
    check = checker.check
    check("get", "/presets", client.get("/presets"))
    check("get", "/presets/{name}", client.get("/presets/standard"))
    check("get", "/presets/{name}", client.get("/presets/nope"))
    check("get", "/healthz", client.get("/healthz"))
    check("get", "/readyz", client.get("/readyz"))
    open_game = api.create(seats=[{"name": "Ann"}, {"name": None}, {"bot": "random"}])
    check("post", "/games", open_game)
    check("post", "/games", api.create(seats="x"))
    check("get", "/games", client.get("/games?limit=5"))
    open_id = open_game.json["id"]  # type: ignore[index]
    check(
        "post", "/games/{game_id}/join", client.post(f"/games/{open_id}/join", json={"name": "Bo"})
    )
    check(
        "post", "/games/{game_id}/join", client.post(f"/games/{open_id}/join", json={"name": "Cy"})
    )
    game, ann, bob = api.scripted_game()
    check("get", "/games/{game_id}", api.view(game))
    check("get", "/games/{game_id}", api.view(game, ann))
    check("get", "/games/{game_id}", api.view(game, "bad"))
    check("get", "/games/{game_id}", api.view("nope"))
    check("get", "/games/{game_id}/legal-moves", api.legal(game, ann))
    check("post", "/games/{game_id}/moves", api.move(game, bob, DRAW))
    check("post", "/games/{game_id}/moves", api.move(game, ann, DRAW, **{"If-Match": '"1"'}))
    check("post", "/games/{game_id}/moves", api.move(game, ann, {"type": "x"}))
    check("post", "/games/{game_id}/moves", api.move(game, ann, DRAW))
    check("get", "/games/{game_id}/events", api.events(game, bob))
    check("get", "/games/{game_id}/events", api.events(game, wait=99))
    last = api.play_script(*api.scripted_game())
    assert last["status"] == "finished"
    finished = last["id"]
    check("get", "/games/{game_id}", api.view(finished))
    check("get", "/games/{game_id}/events", api.events(finished))
    assert len(checker.checked) >= 18
