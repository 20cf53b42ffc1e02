"""Path parameters shared by the game resources, and the check of `game_id`."""

from __future__ import annotations

from flask import Blueprint

from service.http.current import current_request
from service.http.problems import game_not_found
from service.store.codec import GAME_ID_PATTERN, is_game_id

#: OpenAPI description of the `game_id` path parameter.
GAME_ID_PARAMETER = {
    "in": "path",
    "name": "game_id",
    "required": True,
    "description": "the game's random id (from `Location` of `POST /games`)",
    "schema": {"type": "string", "pattern": f"^{GAME_ID_PATTERN}$"},
}


def check_game_ids(blueprint: Blueprint) -> None:
    """Answer 404 `game_not_found` before any view of `blueprint` whose path has a
    malformed `game_id` (the store is never asked). A blueprint's hook runs after
    the app's, so such a request is still counted by the rate limiter; a
    converter would do the same but rename the routes (`<string:game_id>`), which
    the metrics and the request log use as labels."""

    @blueprint.before_request
    def check() -> None:
        game_id = (current_request().view_args or {}).get("game_id")
        if game_id is not None and not is_game_id(game_id):
            raise game_not_found(game_id)


#: The documented `ETag` response header of every answer that carries a game.
ETAG_HEADER = {
    "ETag": {
        "description": 'the game version and its epoch, quoted: `"17.3f9a1c2b4d5e6f70"`',
        "schema": {"type": "string"},
    }
}

#: OpenAPI description of the optional `If-None-Match` header of the game reads.
IF_NONE_MATCH_PARAMETER = {
    "in": "header",
    "name": "If-None-Match",
    "required": False,
    "description": "an ETag from an earlier answer: 304 while the game has not changed",
    "schema": {"type": "string"},
}
