"""What the OpenAPI document says that marshmallow schemas cannot state.

- Each move is a named component (`DrawMove`, `MeldMove`, ...) generated from
  its class in `service.rules.moves`, the same description the move parser
  uses; `Move` is the `oneOf` of them with a discriminator on `type`,
  `Actions` the all-or-nothing list, `MoveRequest` a move or `Actions`, and
  the items of `LegalMoves.moves` are `Move`s.
- The `wait` bound of the events and ticket long-polls is this deployment's
  `LONGPOLL_MAX`, not the schema's static 30 s.
- `options`, typed option by option from the options table of
  `service.rules.options` (the table that validates them), and that a seat
  has a `name` or a `bot`, not both.
- Examples that work as sent (a game against a bot, one per move shape) and
  example answers; the headers every answer carries (`Retry-After` on 429 and
  503, `WWW-Authenticate` on 401, `ETag` on 304 and 412, `Idempotency-Replayed`).
"""

from __future__ import annotations

from typing import Any

from apispec import APISpec

from service.rules.moves import MAX_ACTIONS, MOVE_CLASSES, Move, move_schema
from service.rules.options import PRESETS, options_json_schema

#: The component name of each kind of move: `DrawMove`, `LayoffMove`, `SwapJokerMove`...
MOVE_COMPONENTS: dict[str, type[Move]] = {
    "".join(part.capitalize() for part in cls.TYPE.split("_")) + "Move": cls for cls in MOVE_CLASSES
}


def _paths(spec: APISpec) -> dict[str, Any]:
    """The document's paths, as the document holds them: `to_dict` hands out
    the spec's own dict (apispec 6), and apispec has no other public way to
    change an operation after its registration."""
    paths: dict[str, Any] = spec.to_dict()["paths"]
    return paths


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def move_components() -> dict[str, dict[str, Any]]:
    """Every move component, `Move`, `Actions` and `MoveRequest`."""
    components: dict[str, dict[str, Any]] = {
        name: move_schema(cls) for name, cls in MOVE_COMPONENTS.items()
    }
    components["Move"] = {
        "description": "One move; `type` says which.",
        "oneOf": [_ref(name) for name in MOVE_COMPONENTS],
        "discriminator": {
            "propertyName": "type",
            "mapping": {cls.TYPE: _ref(name)["$ref"] for name, cls in MOVE_COMPONENTS.items()},
        },
    }
    components["Actions"] = {
        "type": "object",
        "description": "Several moves of one turn, applied all or nothing.",
        "properties": {
            "actions": {
                "type": "array",
                "items": _ref("Move"),
                "minItems": 1,
                "maxItems": MAX_ACTIONS,
            }
        },
        "required": ["actions"],
        "additionalProperties": False,
        "example": {
            "actions": [
                {"type": "meld", "cards": ["S3", "S4", "S5"]},
                {"type": "layoff", "meld": 1, "cards": ["H5"]},
            ]
        },
    }
    components["MoveRequest"] = {
        "description": 'One move, or `{"actions": [...]}` applied all or nothing.',
        "oneOf": [*(_ref(name) for name in MOVE_COMPONENTS), _ref("Actions")],
    }
    return components


EVENTS_PATH = "/games/{game_id}/events"
#: The path of a quick-play ticket (its long-poll has the same bound).
TICKET_PATH = "/queue/{ticket}"
MOVES_PATH = "/games/{game_id}/moves"


def _move_examples(operation: dict[str, Any]) -> None:
    """One request example per move shape (the draw first: /docs pre-fills it)."""
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if content is None:
        return
    content["examples"] = {
        name.removesuffix("Move").lower(): {"summary": f"a {cls.TYPE} move", "value": cls.EXAMPLE}
        for name, cls in MOVE_COMPONENTS.items()
    }


def apply(spec: APISpec, longpoll_max: float) -> None:
    """Rewrite the parts of `spec` described in the module docstring."""
    schemas = spec.components.schemas
    schemas.update(move_components())
    schemas["LegalMoves"]["properties"]["moves"]["items"] = _ref("Move")
    schemas["Hint"]["properties"]["move"] = _ref("Move")
    # Every option typed, bounded and described from the options table.
    overrides = options_json_schema()
    schemas["OptionOverrides"] = {
        **overrides,
        # An override has no default of its own: what is not given is the preset's.
        "properties": {
            name: {key: value for key, value in schema.items() if key != "default"}
            for name, schema in overrides["properties"].items()
        },
        "description": "overrides of the preset's options (`GET /presets`); any subset",
    }
    schemas["Options"] = {
        **overrides,
        "required": list(overrides["properties"]),
        "description": "the value of every option of a game or preset",
    }
    schemas["CreateGame"]["properties"]["options"] = _ref("OptionOverrides")
    for name in ("GameView", "Preset"):
        schemas[name]["properties"]["options"] = _ref("Options")
    schemas["SeatSpec"]["not"] = {
        "required": ["name", "bot"],
        "properties": {"name": {"type": "string"}},
    }
    _move_examples(_paths(spec).get(MOVES_PATH, {}).get("post", {}))
    complete(spec)
    for path, what in ((EVENTS_PATH, "an event"), (TICKET_PATH, "the match")):
        operation = _paths(spec).get(path, {}).get("get", {})
        for parameter in operation.get("parameters", []):
            if parameter.get("in") == "query" and parameter.get("name") == "wait":
                parameter["schema"]["maximum"] = float(longpoll_max)
                parameter["description"] = (
                    f"seconds to wait for {what} (at most {float(longpoll_max):g} here)"
                )


#: The body /docs pre-fills for `POST /games`: a game against a server bot.
CREATE_EXAMPLE: dict[str, Any] = {
    "preset": "express",
    "seats": [{"name": "Ann"}, {"bot": "greedy"}],
}
_GAME_ID = "rQ48bh9JlFYgj7BHm-HG4g"
#: Example answers, checked against their schemas by the tests.
CREATED_EXAMPLE: dict[str, Any] = {
    "id": _GAME_ID,
    "version": 1,
    "status": "active",
    "seats": [
        {
            "seat": 0,
            "name": "Ann",
            "kind": "human",
            "token": "4MMma1HSx_-D1ghbZgW_6kpkgpPxzFYAbSHlB5kiGNc",
        },
        {"seat": 1, "name": "greedy bot", "kind": "bot"},
    ],
}
SEAT_VIEW_EXAMPLE: dict[str, Any] = {
    "id": _GAME_ID,
    "version": 1,
    "status": "active",
    "preset": "express",
    "options": PRESETS["express"].options.to_json(),
    "you": 0,
    "hand": ["CJ", "DA", "D2", "D7", "D10", "H6", "HK", "S2", "S6", "SJ"],
    "deal": "random",
    "game_commitment": "8aada612c89d8854a0282d591f91275dc24a46fd8150da55a70cd8de8f55d988",
    "game_secret": None,
    "seats": [
        {"seat": 0, "name": "Ann", "kind": "human", "hand_size": 10, "score": 0,
         "has_melded": False, "eliminated": False, "deciding": False, "reengaged": 0,
         "chips_in": 0, "chips_out": 0, "away": False, "client_seed": None, "known_cards": []},
        {"seat": 1, "name": "greedy bot", "kind": "bot", "hand_size": 4, "score": 0,
         "has_melded": True, "eliminated": False, "deciding": False, "reengaged": 0,
         "chips_in": 0, "chips_out": 0, "away": False, "client_seed": None, "known_cards": []},
    ],
    "round": {
        "number": 1, "dealer": 0, "turn": 0, "phase": "draw", "stock_size": 30, "refills": 0,
        "discard_pile": ["SK", "SQ"], "taken_discard": None,
        "melds": [
            {"id": 1, "type": "run", "cards": ["H9", "H10", "HJ"], "owner": 1},
            {"id": 2, "type": "set", "cards": ["D4", "H4", "S4"], "owner": 1},
        ],
        "deal_commitment": "384ef83a8a7e43a8b744eadc8948bc67392f0c21e22cd94cc9684544cb421184",
    },
    "rounds": [],
    "winners": None,
    "last_event": 6,
    "turn_deadline": None,
    "pot": None,
    "reengage": None,
    "next_game": None,
    "now": "2026-12-01T11:05:46.012Z",
}  # fmt: skip
LEGAL_MOVES_EXAMPLE: dict[str, Any] = {
    "version": 1,
    "moves": [{"type": "draw", "source": "discard"}, {"type": "draw", "source": "stock"}],
    "unavailable": {
        kind: {"code": "must_draw_first", "detail": "draw a card first"}
        for kind in ("meld", "layoff", "swap_joker", "discard")
    }
    | {
        "reengage": {
            "code": "cannot_reengage",
            "detail": "there is no re-engage decision for you now",
        },
        "decline_reengage": {
            "code": "no_reengage_decision",
            "detail": "there is no re-engage decision for you now",
        },
    },
}
CONFLICT_EXAMPLE: dict[str, Any] = {
    "type": "https://rummy.example/problems/must_draw_first",
    "title": "Conflict",
    "status": 409,
    "detail": "draw a card first",
    "code": "must_draw_first",
}

_RETRY_AFTER = {
    "description": "whole seconds to wait before sending the request again",
    "schema": {"type": "string", "pattern": "^[0-9]+$"},
}
_WWW_AUTHENTICATE = {
    "description": 'the scheme to authenticate with: `Bearer realm="rummy"`',
    "schema": {"type": "string"},
}
_ETAG = {
    "description": 'the game version and its epoch, quoted: `"17.3f9a1c2b4d5e6f70"`',
    "schema": {"type": "string"},
}
_REPLAYED = {
    "description": "`true` when the answer replays the first answer to this Idempotency-Key",
    "schema": {"type": "string", "enum": ["true"]},
}


def _example(operation: dict[str, Any], status: str, example: dict[str, Any]) -> None:
    response = operation.get("responses", {}).get(status, {})
    for media in response.get("content", {}).values():
        media["example"] = example


def _headers(operation_id: str, responses: dict[str, Any]) -> None:
    """Declare every header an answer carries."""
    for status, response in responses.items():
        if not isinstance(response, dict) or "$ref" in response:
            continue
        headers = response.setdefault("headers", {})
        if status in ("429", "503"):
            headers["Retry-After"] = _RETRY_AFTER
        if status == "401":
            headers["WWW-Authenticate"] = _WWW_AUTHENTICATE
        if status in ("304", "412"):
            headers["ETag"] = _ETAG
        if operation_id == "makeMove" and status == "200":
            headers["Idempotency-Replayed"] = _REPLAYED
        if not headers:
            del response["headers"]


def complete(spec: APISpec) -> None:
    """Examples and response headers of every operation."""
    for path in _paths(spec).values():
        for operation in path.values():
            if isinstance(operation, dict) and "responses" in operation:
                _headers(operation.get("operationId", ""), operation["responses"])
    games = _paths(spec)["/games"]["post"]
    games["requestBody"]["content"]["application/json"]["example"] = CREATE_EXAMPLE
    _example(games, "201", CREATED_EXAMPLE)
    _example(_paths(spec)["/games/{game_id}"]["get"], "200", SEAT_VIEW_EXAMPLE)
    _example(_paths(spec)["/games/{game_id}/legal-moves"]["get"], "200", LEGAL_MOVES_EXAMPLE)
    _example(_paths(spec)[MOVES_PATH]["post"], "409", CONFLICT_EXAMPLE)
