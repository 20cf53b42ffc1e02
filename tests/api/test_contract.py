"""The OpenAPI document: committed copy up to date, links declared, real answers match it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
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


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method, path, operation)
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "responses" in operation
    ]


def test_seat_tokens_are_a_security_scheme_not_a_header_parameter(app: Flask) -> None:
    spec = _spec(app)
    assert spec["components"]["securitySchemes"]["seatToken"] == {
        "type": "http",
        "scheme": "bearer",
    }
    required, optional = [{"seatToken": []}], [{}, {"seatToken": []}]
    expected = {
        ("post", "/games/{game_id}/moves"): required,
        ("get", "/games/{game_id}/legal-moves"): required,
        ("get", "/games/{game_id}/hint"): required,
        ("get", "/games/{game_id}"): optional,
        ("get", "/games/{game_id}/events"): optional,
        ("get", "/games/{game_id}/stream"): optional,
        ("get", "/games/{game_id}/record"): optional,
        ("get", "/games/{game_id}/replay"): optional,
        ("post", "/games/{game_id}/join"): optional,  # a seated token may not join again
        ("post", "/games/{game_id}/leave"): required,
        ("post", "/games/{game_id}/rematch"): required,
        ("delete", "/games/{game_id}"): required,
        ("get", "/queue/{ticket}"): [{"ticketSecret": []}],
        ("delete", "/queue/{ticket}"): [{"ticketSecret": []}],
        ("get", "/queue/{ticket}/stream"): [{"ticketSecret": []}],
    }
    for method, path, operation in _operations(spec):
        parameters = [*spec["paths"][path].get("parameters", []), *operation.get("parameters", [])]
        assert "authorization" not in {p["name"].lower() for p in parameters}, (method, path)
        assert operation.get("security") == expected.get((method, path)), (method, path)


def test_every_move_is_a_named_component_from_its_move_class(app: Flask) -> None:
    from service.api.spec_overrides import MOVE_COMPONENTS
    from service.rules.moves import MOVE_CLASSES, MoveFormatError, move_schema, parse_move

    schemas = _spec(app)["components"]["schemas"]
    names = [
        "DrawMove", "MeldMove", "LayoffMove", "SwapJokerMove", "DiscardMove", "ReengageMove",
        "DeclineReengageMove",
    ]  # fmt: skip
    assert list(MOVE_COMPONENTS) == names
    move = schemas["Move"]
    assert move["oneOf"] == [{"$ref": f"#/components/schemas/{name}"} for name in names]
    mapping = move["discriminator"]["mapping"]
    assert move["discriminator"]["propertyName"] == "type"
    assert set(mapping) == {cls.TYPE for cls in MOVE_CLASSES}
    request = schemas["MoveRequest"]["oneOf"]
    assert request == [*move["oneOf"], {"$ref": "#/components/schemas/Actions"}]
    assert schemas["Actions"]["properties"]["actions"]["items"] == {
        "$ref": "#/components/schemas/Move"
    }
    assert schemas["LegalMoves"]["properties"]["moves"]["items"] == {
        "$ref": "#/components/schemas/Move"
    }
    for name, cls in MOVE_COMPONENTS.items():
        component = schemas[name]
        assert component == move_schema(cls)
        assert mapping[cls.TYPE] == f"#/components/schemas/{name}"
        # The parser and the document agree: the example parses back to itself, and
        # a body without one of the required fields, or with another field, is refused.
        example = component["example"]
        jsonschema.validate(example, component)
        assert parse_move(example).to_json() == example
        for field in component["required"]:
            with pytest.raises(MoveFormatError):
                parse_move({k: v for k, v in example.items() if k != field})
        with pytest.raises(MoveFormatError):
            parse_move({**example, "extra": 1})
    examples = _spec(app)["paths"]["/games/{game_id}/moves"]["post"]["requestBody"]["content"][
        "application/json"
    ]["examples"]
    assert [e["value"]["type"] for e in examples.values()] == [cls.TYPE for cls in MOVE_CLASSES]


def test_every_operation_has_an_id_a_summary_and_declares_its_headers(app: Flask) -> None:
    spec = _spec(app)
    ids = [operation.get("operationId") for _, _, operation in _operations(spec)]
    assert None not in ids and len(set(ids)) == len(ids), ids
    for method, path, operation in _operations(spec):
        assert operation.get("summary"), (method, path)
        for status, response in operation["responses"].items():
            headers = response.get("headers", {})
            if status in ("429", "503"):
                assert "Retry-After" in headers, (method, path, status)
            if status == "401":
                assert "WWW-Authenticate" in headers, (method, path, status)
            carries_a_game = path.startswith("/games/{game_id}") and not path.endswith(
                ("/events", "/stream")
            )
            if status in ("200", "201", "304") and carries_a_game:
                assert "ETag" in headers, (method, path, status)
    created = spec["paths"]["/games"]["post"]["responses"]["201"]["headers"]
    assert {"Location", "ETag"} <= set(created)
    moved = spec["paths"]["/games/{game_id}/moves"]["post"]["responses"]["200"]["headers"]
    assert {"ETag", "Idempotency-Replayed"} <= set(moved)


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    return {"components": spec["components"], **schema}


def test_every_example_matches_its_schema(app: Flask) -> None:
    spec = _spec(app)
    seen = 0
    for _method, _path, operation in _operations(spec):
        bodies = [operation.get("requestBody", {})]
        bodies += list(operation["responses"].values())
        for body in bodies:
            for media_type, media in body.get("content", {}).items():
                if not media_type.endswith("json"):
                    continue  # an event stream's example is its text
                examples = [e["value"] for e in media.get("examples", {}).values()]
                examples += [media["example"]] if "example" in media else []
                for example in examples:
                    jsonschema.validate(
                        example,
                        _resolve(spec, media["schema"]),
                        cls=jsonschema.Draft202012Validator,
                    )
                    seen += 1
    # create (request and answer), six moves, a seat view, legal moves, a 409 problem
    assert seen >= 11


def test_the_examples_work_as_sent(app: Flask) -> None:
    """The create example makes a game against a bot; each example answer is of the
    shape the service really answers (same fields at the top)."""
    spec = _spec(app)
    client = app.test_client()
    create = spec["paths"]["/games"]["post"]
    example = create["requestBody"]["content"]["application/json"]["example"]
    assert example == {"preset": "express", "seats": [{"name": "Ann"}, {"bot": "greedy"}]}
    created = client.post("/games", json=example)
    assert created.status_code == 201, created.json
    documented = create["responses"]["201"]["content"]["application/json"]["example"]
    assert set(documented) == set(created.json)  # type: ignore[arg-type]
    game, token = created.json["id"], created.json["seats"][0]["token"]  # type: ignore[index]
    auth = {"Authorization": f"Bearer {token}"}
    view = client.get(f"/games/{game}", headers=auth).json
    view_example = spec["paths"]["/games/{game_id}"]["get"]["responses"]["200"]["content"][
        "application/json"
    ]["example"]
    assert set(view_example) == set(view)  # type: ignore[arg-type]
    draw = spec["paths"]["/games/{game_id}/moves"]["post"]["requestBody"]["content"][
        "application/json"
    ]["examples"]["draw"]["value"]
    assert client.post(f"/games/{game}/moves", json=draw, headers=auth).status_code == 200


def test_closed_values_are_enums_of_what_the_service_produces(app: Flask) -> None:
    from service.rules.events import EVENTS
    from service.rules.state import PHASES, REASONS

    schemas = _spec(app)["components"]["schemas"]
    assert schemas["CreatedSeat"]["properties"]["kind"]["enum"] == ["human", "bot"]
    assert schemas["ViewSeat"]["properties"]["kind"]["enum"] == ["human", "bot"]
    assert schemas["Round"]["properties"]["phase"]["enum"] == [*PHASES, None]
    assert schemas["FinishedRound"]["properties"]["reason"]["enum"] == list(REASONS)
    assert schemas["Event"]["properties"]["type"]["enum"] == list(EVENTS)
    assert "not_your_turn" in schemas["Problem"]["properties"]["code"]["enum"]
    # Every kind of seat, event and end of round a game produces is listed.
    api = Api(app.test_client())
    answer = api.create(seats=[{"name": "Ann"}, {"name": None}, {"bot": "random"}])
    assert {s["kind"] for s in answer.json["seats"]} <= {"human", "bot"}  # type: ignore[index]
    last = api.play_script(*api.scripted_game())
    events = api.events(last["id"]).json
    assert {e["type"] for e in events["events"]} <= set(EVENTS)  # type: ignore[index]


def test_every_problem_code_the_code_answers_is_in_the_catalogue() -> None:
    """A scan of the source: each literal code given to `Problem(...)` or
    `problem_response(...)`, and each HTTP error's code, is documented."""
    import re

    from service.http.problems import HTTP_CODES, PROBLEM_CODES

    patterns = [
        re.compile(r"(?:Problem|problem_response)\(\s*\d+,\s*\"([a-z_]+)\""),
        re.compile(r"\"code\": ?\"([a-z_]+)\""),  # a body written out as JSON
        re.compile(r"_CODE(?:: *\w+)? *= *\"([a-z_]+)\""),  # a code named by a constant
    ]
    used = set(HTTP_CODES.values())
    for source in (ROOT / "service").rglob("*.py"):
        text = source.read_text()
        for pattern in patterns:
            used |= set(pattern.findall(text))
    assert len(used) > 15
    assert used - set(PROBLEM_CODES) == set(), "add these codes to API_PROBLEM_CODES"


def test_options_are_typed_from_the_options_table(app: Flask) -> None:
    from service.rules.options import OPTION_NAMES, options_json_schema

    spec = _spec(app)
    schemas = spec["components"]["schemas"]
    table = options_json_schema()["properties"]
    assert schemas["CreateGame"]["properties"]["options"] == {
        "$ref": "#/components/schemas/OptionOverrides"
    }
    for name in ("GameView", "Preset"):
        assert schemas[name]["properties"]["options"] == {"$ref": "#/components/schemas/Options"}
    assert list(schemas["Options"]["properties"]) == list(OPTION_NAMES)
    assert schemas["Options"]["required"] == list(OPTION_NAMES)
    for name, documented in schemas["OptionOverrides"]["properties"].items():
        assert documented["description"] == table[name]["description"], name
        assert documented == {k: v for k, v in table[name].items() if k != "default"}, name
    assert schemas["OptionOverrides"]["additionalProperties"] is False
    # Every preset the service lists is valid under the documented schema.
    presets = app.test_client().get("/presets").json
    for preset in presets["presets"]:  # type: ignore[index]
        jsonschema.validate(
            preset["options"], _resolve(spec, {"$ref": "#/components/schemas/Options"})
        )
