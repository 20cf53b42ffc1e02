"""What the OpenAPI document says that marshmallow schemas cannot state.

- A move body is exactly one of the move shapes of API.md (each with its own
  required fields and nothing else), or `{"actions": [...]}`: documented as a
  `oneOf`, so a client (or a fuzzer) that follows the document sends bodies
  the service can parse. The view still checks every body itself.
- The `wait` bound of the events long-poll is this deployment's
  `LONGPOLL_MAX`, not the schema's static 30 s.
- The names `options` of a new game may hold (RULES.md §7), and that a seat
  has a `name` or a `bot`, not both.
"""

from __future__ import annotations

from typing import Any

from apispec import APISpec

from service.api.schemas import CARD_PATTERN, MAX_ACTIONS, MAX_CARDS
from service.rules.options import OPTION_NAMES

_CARD: dict[str, Any] = {"type": "string", "pattern": CARD_PATTERN, "example": "H10"}
_CARDS: dict[str, Any] = {"type": "array", "items": _CARD, "minItems": 1, "maxItems": MAX_CARDS}
_MELD_ID: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": 10_000}


def _shape(kind: str, **fields: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "title": kind,
        "properties": {"type": {"type": "string", "enum": [kind]}, **fields},
        "required": ["type", *fields],
        "additionalProperties": False,
    }


#: One move, in each of the shapes `POST /moves` accepts.
MOVE_SHAPES: list[dict[str, Any]] = [
    _shape("draw", source={"type": "string", "enum": ["stock", "discard"]}),
    _shape("meld", cards=_CARDS),
    _shape("layoff", meld=_MELD_ID, cards=_CARDS),
    _shape("discard", card=_CARD),
    _shape("swap_joker", meld=_MELD_ID, card=_CARD),
    _shape("reengage"),
]

MOVE_DOC: dict[str, Any] = {
    "description": "One move; which fields it has depends on `type` (see API.md).",
    "oneOf": MOVE_SHAPES,
}

MOVE_REQUEST_DOC: dict[str, Any] = {
    "description": 'One move, or `{"actions": [...]}` applied all-or-nothing.',
    "oneOf": [
        *MOVE_SHAPES,
        {
            "type": "object",
            "title": "actions",
            "properties": {
                "actions": {
                    "type": "array",
                    "items": {"$ref": "#/components/schemas/Move"},
                    "minItems": 1,
                    "maxItems": MAX_ACTIONS,
                }
            },
            "required": ["actions"],
            "additionalProperties": False,
        },
    ],
}

EVENTS_PATH = "/games/{game_id}/events"


def apply(spec: APISpec, longpoll_max: float) -> None:
    """Rewrite the parts of `spec` described in the module docstring."""
    schemas = spec.components.schemas
    schemas["Move"] = MOVE_DOC
    schemas["MoveRequest"] = MOVE_REQUEST_DOC
    options = schemas["CreateGame"]["properties"]["options"]
    options["propertyNames"] = {"enum": sorted(OPTION_NAMES)}
    options["description"] = "overrides of the preset's options (`GET /presets`)"
    schemas["SeatSpec"]["not"] = {
        "required": ["name", "bot"],
        "properties": {"name": {"type": "string"}},
    }
    operation = spec._paths.get(EVENTS_PATH, {}).get("get", {})
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "query" and parameter.get("name") == "wait":
            parameter["schema"]["maximum"] = float(longpoll_max)
            parameter["description"] = (
                f"seconds to wait for an event (at most {float(longpoll_max):g} here)"
            )
