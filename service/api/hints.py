"""`GET /games/{id}/hint`: the move the expert bot would make now for the caller's seat.

The work is `service.games.hints.Hints` (the app's, made on first use from
`HINT_NODES`, `HINT_SECONDS`, `HINT_PER_MINUTE` and `HINT_CACHE`): this module
checks the caller (a seat token, 401), the game's `hints` option (403
`hints_disabled`), the seat's bucket (429 `too_many_hints`) and the turn (409
`not_your_turn`, or `game_not_active`), in that order.
"""

from __future__ import annotations

from flask import Response
from flask.views import MethodView

from service.api import auth
from service.api.access import get_store, load_game, seated
from service.api.jsonio import raw_json_response
from service.api.paths import ETAG_HEADER, GAME_ID_PARAMETER, check_game_ids
from service.api.preconditions import etag
from service.api.schemas import HintSchema
from service.api.smorest import SEAT_REQUIRED, Blueprint, common_errors
from service.games.hints import Hints
from service.http.current import current_app_object
from service.http.problems import Problem

blp = Blueprint("hints", __name__, url_prefix="/games", description="Hints")
check_game_ids(blp)

#: The app's `Hints` (made on first use).
HINTS_EXTENSION = "rummy.hints"


def app_hints() -> Hints:
    """The current app's hints: their budget, kept answers and per-seat buckets."""
    app = current_app_object()
    hints: Hints | None = app.extensions.get(HINTS_EXTENSION)
    if hints is None:
        config = app.config
        hints = Hints(
            nodes=int(config["HINT_NODES"]),
            seconds=float(config["HINT_SECONDS"]),
            per_minute=int(config["HINT_PER_MINUTE"]),
            size=int(config["HINT_CACHE"]),
        )
        app.extensions[HINTS_EXTENSION] = hints
    return hints


def get_hint(game_id: str) -> Response:
    """`GET /games/{game_id}/hint` (documented by `Hint.get`)."""
    token = auth.required_token()
    game, seat = seated(load_game(game_id), token)
    state = game.state
    if not state.options.hints:
        raise Problem(403, "hints_disabled", "This game was created with hints off.")
    if state.status != "active":
        raise Problem(409, "game_not_active", f"The game is {state.status}: no hint to give.")
    hints = app_hints()
    wait = hints.wait(game_id, seat)
    if wait is not None:
        raise Problem(
            429,
            "too_many_hints",
            f"This seat may ask for {hints.per_minute} hints a minute; "
            f"retry after {int(wait)} s. Its moves go on.",
            headers={"Retry-After": str(int(wait))},
        )
    body = hints.answer(game, seat, lambda: get_store().events(game_id, 0))
    if body is None:
        raise Problem(409, "not_your_turn", "It is not this seat's turn: no move to hint.")
    return raw_json_response(body, 200, {"ETag": etag(game.version, game.epoch)})


@blp.route("/<string:game_id>/hint", parameters=[GAME_ID_PARAMETER])
class Hint(MethodView):
    """A hint for the caller's seat."""

    @blp.response(200, HintSchema, headers=ETAG_HEADER)
    @blp.problem(401, "Missing seat token, or not a seat token of this game")
    @blp.problem(403, "The game's option `hints` is false (`hints_disabled`)")
    @blp.problem(409, "Not the caller's turn (`not_your_turn`) or the game not in play")
    @blp.problem(
        429, "Too many hints for this seat (`too_many_hints`) or requests; see Retry-After"
    )
    @common_errors(blp, 400, 404, 503)
    @blp.doc(operationId="getHint", security=SEAT_REQUIRED)
    def get(self, game_id: str) -> Response:
        """The move the expert bot would make now for the caller, and why

        `move` is a body `POST /games/{id}/moves` takes as is; `reason` says why
        in a stable `code`, an English `detail` and figures (the melds the hand
        builds toward, the deadwood left, what a discard gives away). Worked out
        from the seat's own view and the public events only, on a bounded search
        (`HINT_NODES`, `HINT_SECONDS`), kept per game version and seat, and
        rationed per seat (`HINT_PER_MINUTE`: then `429 too_many_hints`).
        """
        return get_hint(game_id)
