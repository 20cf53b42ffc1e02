"""`/games/{id}/events`: the game's events as the caller may see them, with long-poll."""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from flask import Response, current_app, request
from flask.views import MethodView

from service import admission
from service.api import auth
from service.api.gamestore import get_store, load_game
from service.api.jsonio import json_response
from service.api.paths import GAME_ID_PARAMETER, check_game_id
from service.api.problems import Problem
from service.api.schemas import EventsQuerySchema, EventsSchema
from service.api.smorest import SEAT_OPTIONAL, Blueprint, common_errors
from service.rules import views

blp = Blueprint("events", __name__, url_prefix="/games", description="Events")


@blp.route("/<string:game_id>/events", parameters=[GAME_ID_PARAMETER])
class Events(MethodView):
    """The event log of a game."""

    @blp.arguments(EventsQuerySchema(), location="query")
    @blp.response(200, EventsSchema)
    @blp.problem(401, "The token is not a seat token of this game")
    @blp.problem(404, "No such game (`game_not_found`)")
    @blp.problem(422, "`after` or `wait` out of range (wait: 0 to 30 s)")
    @common_errors(blp, 400, 429, 503)
    @blp.doc(operationId="getEvents", security=SEAT_OPTIONAL)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """List events after `after`, long-polling up to `wait` seconds

        A stock draw shows its card only to the drawer. Only a game's latest
        events are kept (`MAX_EVENTS`, 24 by default): when the first event
        answered has a `seq` above `after + 1`, the events between are gone;
        reload the game's view, then follow the events from there.
        """
        check_game_id(game_id)
        wait = float(query["wait"])
        longest = float(current_app.config["LONGPOLL_MAX"])
        if wait > longest:
            raise Problem(
                422,
                "validation_error",
                f"wait may be at most {longest:g} seconds.",
                errors={"wait": [f"at most {longest:g}"]},
            )
        token = auth.bearer_token()
        game = load_game(game_id)
        seat = auth.seat_of(game.state.seats, token) if token is not None else None
        after = int(query["after"])
        if game.last_event > after:
            wait = 0.0  # already something to answer: no need to wait
        # A long-poll lets other requests of this worker run while it waits.
        with admission.waiting(request.environ) if wait > 0 else nullcontext():
            events = get_store().events(game_id, after, wait=wait)
        shown = [views.redact_event(event, seat) for event in events]
        last = shown[-1]["seq"] if shown else min(after, game.last_event)
        return json_response({"events": shown, "last": last}, 200, {"Vary": "Authorization"})
