"""Path parameters shared by the game resources."""

from __future__ import annotations

import re

from service.api.problems import Problem

_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

#: OpenAPI description of the `game_id` path parameter.
GAME_ID_PARAMETER = {
    "in": "path",
    "name": "game_id",
    "required": True,
    "description": "the game's random id (from `Location` of `POST /games`)",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
}


def game_not_found(game_id: str) -> Problem:
    """The 404 answer for an unknown game."""
    return Problem(404, "game_not_found", f"There is no game {game_id!r}.")


def check_game_id(game_id: str) -> str:
    """A game id of the right form, else 404 (the store is never asked)."""
    if not _GAME_ID.match(game_id):
        raise game_not_found(game_id)
    return game_id


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
