"""`/games/{id}/legal-moves` and `/games/{id}/moves`: the hot path.

A move is one `load`, the engine's pure `apply` (and the bot turns that
follow, within the request's budget: `service.bots.play`), then one
compare-and-set `save` that also writes the events, the idempotency record
and the game's entry in the runner's queue. The answer is the engine's
view dict serialised directly, with the version as `ETag`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from flask import Response
from flask.views import MethodView

from service.api import auth, errors
from service.api.access import game_view, load_game, seated, transact
from service.api.idempotency import IDEMPOTENCY_KEY_PARAMETER, fingerprint, idempotency_key
from service.api.jsonio import raw_json_response
from service.api.paths import (
    ETAG_HEADER,
    GAME_ID_PARAMETER,
    IF_NONE_MATCH_PARAMETER,
    check_game_ids,
)
from service.api.preconditions import IF_MATCH_PARAMETER, conditional_get, etag, if_match
from service.api.schemas import GameViewSchema, LegalMovesSchema
from service.api.smorest import SEAT_REQUIRED, Blueprint, SelfParsingSchema, common_errors
from service.games import clock
from service.games.caches import LEGAL_MOVES
from service.games.values import Change, Idempotent, LoadedGame
from service.http.current import current_request
from service.ops import metrics
from service.rules import engine
from service.rules.moves import Move, parse_request

blp = Blueprint("moves", __name__, url_prefix="/games", description="Moves")
check_game_ids(blp)

_SAME_SEAT = "$request.header.Authorization"
_MOVE_LINKS = {
    "NextMove": {
        "operationId": "makeMove",
        "parameters": {
            "game_id": "$request.path.game_id",
            "header.Authorization": _SAME_SEAT,
            "header.If-Match": "$response.header.ETag",
        },
    },
    "LegalMovesAfter": {
        "operationId": "getLegalMoves",
        "parameters": {"game_id": "$request.path.game_id", "header.Authorization": _SAME_SEAT},
    },
    "GameAfter": {"operationId": "getGame", "parameters": {"game_id": "$request.path.game_id"}},
}


#: The first legal move, made by the same seat on the version it was listed for.
_LEGAL_MOVES_LINKS = {
    "MakeLegalMove": {
        "operationId": "makeMove",
        "parameters": {
            "game_id": "$request.path.game_id",
            "header.Authorization": _SAME_SEAT,
            "header.If-Match": "$response.header.ETag",
        },
        "requestBody": "$response.body#/moves/0",
    }
}


def legal_moves(game_id: str) -> Response:
    """`GET /games/{id}/legal-moves`: the caller's moves now, or `304` when unchanged."""
    token = auth.required_token()
    game, seat = seated(load_game(game_id), token)
    return conditional_get(
        game.version,
        lambda headers: raw_json_response(LEGAL_MOVES.answer(game, seat), 200, headers),
        game.epoch,
    )


@blp.route(
    "/<string:game_id>/legal-moves",
    parameters=[GAME_ID_PARAMETER, IF_NONE_MATCH_PARAMETER],
)
class LegalMoves(MethodView):
    """The moves a seat may make now."""

    @blp.response(200, LegalMovesSchema, headers=ETAG_HEADER)
    @blp.alt_response(304, description="Not modified since the ETag in If-None-Match")
    @blp.problem(401, "Missing seat token, or not a seat token of this game")
    @common_errors(blp, 400, 404, 429, 503)
    @blp.doc(
        operationId="getLegalMoves",
        security=SEAT_REQUIRED,
        responses={200: {"links": _LEGAL_MOVES_LINKS}},
    )
    def get(self, game_id: str) -> Response:
        """List the moves the caller may make now

        Empty when it is not the caller's turn. A caller without a seat token
        has no moves to make: `401 missing_token`.
        """
        return legal_moves(game_id)


@dataclass(frozen=True, slots=True)
class MoveBody:
    """A move request's body as sent (`raw`) and the moves it parses to."""

    raw: Any
    moves: tuple[Move, ...]

    @property
    def move_type(self) -> str:
        """The move's ``type``, ``"actions"`` for a batch (the log's and the metric's label)."""
        kind = self.raw.get("type", "actions")
        return kind if isinstance(kind, str) else "actions"


class MoveRequestSchema(SelfParsingSchema):
    """The move body: one move, or ``{"actions": [...]}`` (`parse_request`).

    Documented as the `MoveRequest` component, which the move classes generate
    (`service.api.spec_overrides` fills it in): the one description of a move
    is `service.rules.moves`, so this schema has no fields of its own and its
    `load` is the rules' parser. A malformed move raises `MoveFormatError`
    (422, `service.api.errors`).
    """

    def load(self, data: Any, **kwargs: Any) -> MoveBody:
        """The `MoveBody` of the parsed JSON `data`."""
        return MoveBody(data, tuple(parse_request(data)))


@blp.route("/<string:game_id>/moves", parameters=[GAME_ID_PARAMETER])
class Moves(MethodView):
    """Moves of a game."""

    @blp.arguments(MoveRequestSchema())
    @blp.response(200, GameViewSchema, headers=ETAG_HEADER)
    @blp.problem(400, "Malformed JSON or If-Match (`invalid_if_match`)")
    @blp.problem(401, "Missing or wrong seat token")
    @blp.problem(409, "The rules forbid this move now (`code` says why)")
    @blp.problem(412, "If-Match names another version (`version_mismatch`)")
    @blp.problem(422, "Body does not match the schema, or Idempotency-Key reused")
    @blp.problem(503, "Store unavailable or busy; see Retry-After")
    @common_errors(blp, 404, 413, 415, 429)
    @blp.doc(
        operationId="makeMove",
        security=SEAT_REQUIRED,
        parameters=[IF_MATCH_PARAMETER, IDEMPOTENCY_KEY_PARAMETER],
        responses={200: {"links": _MOVE_LINKS}},
    )
    def post(self, body: MoveBody, game_id: str) -> Response:
        """Make a move, or several all-or-nothing

        Answers the mover's view after the move and after any bot turns
        that follow it. `If-Match: "<version>"` makes the move conditional
        (stale → 412, nothing changes); without it a move that loses a race
        is applied again to the new state. A retry with the same
        `Idempotency-Key` and body applies nothing again and answers the
        seat's view with `Idempotency-Replayed: true`: the first answer while
        the game has not moved on since.
        """
        # The move counts in `rummy_moves_total` by its answer, refusals
        # included: the answer is made here rather than by the app's handlers.
        try:
            answer = make_move(game_id, body)
        except Exception as error:
            refusal = errors.answer_for(error)
            if refusal is None:
                raise
            answer = refusal
        metrics.record_move_answer(body.move_type, answer)
        return answer


def make_move(game_id: str, request: MoveBody) -> Response:
    """`POST /games/{game_id}/moves` (documented by `Moves.post`): the mover's
    view after the move and the bot turns that follow it."""
    # The environ read once for the three headers (`current_request`: each
    # reader's own look-up was two Python calls; "What a move costs").
    env = current_request().environ
    key = idempotency_key(env)
    body, moves = request.raw, request.moves
    token = auth.required_token(env)
    expected = if_match(env)
    # The fingerprint covers the body as sent, not as it was parsed.
    idempotent = Idempotent(key, fingerprint(body)) if key is not None else None

    def mover(game: LoadedGame) -> tuple[LoadedGame, int]:
        # The move type is for the request log line, logged with the seat.
        return seated(game, token, request.move_type)

    def move(game: LoadedGame, seat: int | None) -> Change:
        assert seat is not None
        if len(moves) == 1:
            state, events = engine.apply(game.state, seat, moves[0])
        else:
            state, events = engine.apply_all(game.state, seat, moves)
        return Change(clock.moved(state, seat), events, seat)

    done = transact(game_id, move, seat=mover, expected=expected, idempotency=idempotent)
    game = done.game
    view = game_view(game_id, game.state, game.version, game.last_event, done.seat)
    headers = {"ETag": etag(game.version, game.epoch)}
    if done.replayed is None:
        return raw_json_response(orjson.dumps(view), 200, headers)
    # A retry with its Idempotency-Key: the record holds only the status and
    # the version the move made (a few bytes for 24 h, not a whole view), so
    # the answer is rebuilt: while the game is still at that version it is the
    # first answer byte for byte; once it has moved on, the seat's view now
    # (the move was applied once, and the client sees what followed).
    headers["Idempotency-Replayed"] = "true"
    return raw_json_response(orjson.dumps(view), done.replayed, headers)
