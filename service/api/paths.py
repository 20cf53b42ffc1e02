"""Path parameters shared by the game resources: the `game_id` URL converter."""

from __future__ import annotations

from typing import Any

from flask import Flask
from werkzeug.routing import BaseConverter

from service.api.problems import game_not_found
from service.store.codec import GAME_ID_PATTERN, is_game_id

#: OpenAPI description of the `game_id` path parameter.
GAME_ID_PARAMETER = {
    "in": "path",
    "name": "game_id",
    "required": True,
    "description": "the game's random id (from `Location` of `POST /games`)",
    "schema": {"type": "string", "pattern": f"^{GAME_ID_PATTERN}$"},
}


class GameIdConverter(BaseConverter):
    """``<game_id:game_id>``: a path segment that is a game id of the right form,
    else 404 `game_not_found` before the view runs (the store is never asked)."""

    def to_python(self, value: str) -> Any:
        """The id itself; a malformed one is no game (raised while routing)."""
        if not is_game_id(value):
            raise game_not_found(value)
        return value


def install(app: Flask) -> None:
    """Register the converter (before the blueprints' rules use it)."""
    app.url_map.converters["game_id"] = GameIdConverter


#: OpenAPI description of the optional `If-None-Match` header of the game reads.
#: The documented `ETag` response header of every answer that carries a game.
ETAG_HEADER = {
    "ETag": {"description": 'the game version, quoted: `"17"`', "schema": {"type": "string"}}
}

IF_NONE_MATCH_PARAMETER = {
    "in": "header",
    "name": "If-None-Match",
    "required": False,
    "description": "an ETag from an earlier answer: 304 while the game has not changed",
    "schema": {"type": "string"},
}
