"""`/games`: create a game, list the lobby, view a game, take a seat."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from flask import Response, current_app
from flask.views import MethodView

from service.api import auth
from service.api.access import (
    busy,
    caller_seat,
    client_name,
    client_owner,
    context,
    game_view,
    get_store,
    load_game,
    play_bots,
    transact,
)
from service.api.jsonio import json_response
from service.api.names import normalise_name
from service.api.paths import (
    ETAG_HEADER,
    GAME_ID_PARAMETER,
    IF_NONE_MATCH_PARAMETER,
    check_game_ids,
)
from service.api.preconditions import conditional_get, etag
from service.api.queue import tickets
from service.api.records import build_record
from service.api.schemas import (
    CreatedSchema,
    CreateGameSchema,
    GameViewSchema,
    JoinedSchema,
    JoinSchema,
    LobbyPageSchema,
    LobbyQuerySchema,
    RematchedSchema,
)
from service.api.smorest import SEAT_OPTIONAL, SEAT_REQUIRED, Blueprint, common_errors
from service.bots.levels import level_strategy
from service.games import rematch
from service.games.caches import STATES
from service.games.continuation import RecordRefused, continue_record
from service.games.errors import Busy
from service.games.transact import lobby_summary, now_iso
from service.games.values import Change, Delete, LoadedGame
from service.http.problems import Problem
from service.rules import engine
from service.rules.options import resolve_options
from service.rules.state import encode_state
from service.store.errors import QuotaExceeded
from service.store.tickets import parse_bucket

blp = Blueprint("games", __name__, url_prefix="/games", description="Games and seats")
check_game_ids(blp)

_LOCATION_ID = "$response.header.Location#regex:/games/(.+)"
_CREATE_LINKS: dict[str, Any] = {
    name: {"operationId": operation, "parameters": {"game_id": _LOCATION_ID}}
    for name, operation in (
        ("GetGame", "getGame"),
        ("JoinGame", "joinGame"),
        ("MakeMove", "makeMove"),
        ("GetLegalMoves", "getLegalMoves"),
        ("GetEvents", "getEvents"),
    )
}
# Moves and legal moves need a seat: the first seat's token, when this request took it.
for _name in ("MakeMove", "GetLegalMoves"):
    _CREATE_LINKS[_name]["parameters"]["header.Authorization"] = (
        "Bearer {$response.body#/seats/0/token}"
    )
#: After a join, the new seat's token drives its requests.
_JOIN_LINKS = {
    name: {
        "operationId": operation,
        "parameters": {
            "game_id": "$request.path.game_id",
            "header.Authorization": "Bearer {$response.body#/token}",
        },
    }
    for name, operation in (
        ("GetGameAsSeat", "getGame"),
        ("GetLegalMovesAsSeat", "getLegalMoves"),
        ("MakeMoveAsSeat", "makeMove"),
        ("GetEventsAsSeat", "getEvents"),
    )
}
_IF_NONE_MATCH = IF_NONE_MATCH_PARAMETER


@blp.route("")
class Games(MethodView):
    """The collection of games."""

    @blp.arguments(CreateGameSchema())
    @blp.response(
        201,
        CreatedSchema,
        headers={
            "Location": {"description": "/games/{id}", "schema": {"type": "string"}},
            **ETAG_HEADER,
        },
    )
    @blp.problem(
        422,
        "Invalid body, options, preset or deck; a record that cannot be continued "
        "(`record_refused`, `record_mismatch`)",
    )
    @common_errors(blp, 400, 404, 413, 415, 429, 503)
    @blp.doc(operationId="createGame", responses={201: {"links": _CREATE_LINKS}})
    def post(self, body: dict[str, Any]) -> Response:
        """Create a game

        Seats with a `name` are taken at once (their tokens are in the answer,
        shown only this once); `{"name": null}` is open for join; `{"bot": …}`
        is played by the server. With `from_record`, the game a finished game
        was at one of its versions (`404` for a `game` not stored): its seats,
        every person's with a token in the answer, and `deal` `replayed`.
        """
        if "from_record" in body:
            return _continue(body["from_record"])
        seats = body["seats"]
        options = resolve_options(body["preset"], body.get("options") or {}, len(seats))
        specs: list[engine.SeatSpec] = []
        tokens: dict[int, str] = {}
        for index, seat in enumerate(seats):
            if "bot" in seat:
                bot = level_strategy(seat["level"]) if "level" in seat else seat["bot"]
                specs.append(engine.SeatSpec(None, "bot", bot, None))
            elif seat.get("name") is None:
                specs.append(engine.SeatSpec(None, "human", None, None))
            else:
                token, token_hash = auth.new_token()
                tokens[index] = token
                specs.append(
                    engine.SeatSpec(
                        seat["name"], "human", None, token_hash, seat.get("client_seed")
                    )
                )
        state, events = engine.new_game(
            options,
            body["preset"],
            specs,
            seed=body.get("seed"),
            deck=body.get("deck"),
            first_dealer=body.get("first_dealer"),
        )
        return _store_new(state, events, tokens)

    @blp.arguments(LobbyQuerySchema(), location="query")
    @blp.response(200, LobbyPageSchema)
    @common_errors(blp, 429, 503)
    @blp.doc(operationId="listGames")
    def get(self, query: dict[str, Any]) -> Response:
        """List games waiting for players

        Public summaries only, newest first; `preset` and `open_seats` (at
        least that many open) filter them. Pass `next_cursor` back as `cursor`
        for the next page; a filtered page may hold fewer games than `limit`
        and still have a `next_cursor`. `queued` is the quick-play demand:
        tickets waiting per table (`POST /queue`).
        """
        games, next_cursor = get_store().lobby(
            query["limit"], query.get("cursor"), _lobby_filter(query)
        )
        queued = tickets().demand()
        preset = query.get("preset")
        if preset is not None:
            queued = {table: n for table, n in queued.items() if parse_bucket(table)[0] == preset}
        return json_response({"games": games, "next_cursor": next_cursor, "queued": queued})


def _lobby_filter(query: dict[str, Any]) -> Callable[[Mapping[str, Any]], bool]:
    """The lobby filter of the query's `preset` and `open_seats` (at least 1: a
    rematch whose every seat is still held for its players is not offered)."""
    preset, open_seats = query.get("preset"), query.get("open_seats") or 1

    def accepts(summary: Mapping[str, Any]) -> bool:
        if preset is not None and summary.get("preset") != preset:
            return False
        free = sum(1 for seat in summary.get("seats", ()) if seat.get("open"))
        return free >= open_seats

    return accepts


#: The setting of each count of a client's games (`game_quotas`), and what it counts.
_QUOTA_SETTINGS = {
    "open": ("QUOTA_ACTIVE_GAMES", "unfinished games (waiting or in play, created or joined)"),
    "waiting": ("QUOTA_WAITING_GAMES", "games waiting for players"),
    "bots": ("QUOTA_BOT_GAMES", "unfinished games of bots only"),
}


def quota_owner() -> str | None:
    """Whom a new or joined game counts against: the client's address as the
    rate limiter sees it (an IPv6 one by its /64); ``None`` when quotas do not
    apply (all 0, or the rate limiter off: a deployment that limits clients at
    its ingress instead)."""
    config = current_app.config
    if not config["RATELIMIT_ENABLED"]:
        return None
    if not any(config[setting] for setting, _ in _QUOTA_SETTINGS.values()):
        return None
    return client_name()


def game_quotas() -> dict[str, int]:
    """The most games of each count one client may have (0: no limit); the
    store checks them atomically with the create (`GameStore.create`)."""
    config = current_app.config
    return {count: int(config[setting]) for count, (setting, _) in _QUOTA_SETTINGS.items()}


def quota_problem(count: str, quota: int) -> Problem:
    """The 429 ``game_quota_exceeded`` of a create or join past one of the
    client's counts."""
    setting, what = _QUOTA_SETTINGS[count]
    return Problem(
        429,
        "game_quota_exceeded",
        f"This client already has {quota} {what} ({setting}); finish or leave "
        "some first (unjoined games expire after WAITING_TTL).",
        headers={"Retry-After": "60"},
    )


def _reserve_seat(owner: str | None, game_id: str) -> None:
    """Count the game a client joins among its unfinished games, within
    `QUOTA_ACTIVE_GAMES` (once: a game it created or joined counts already)."""
    limit = int(current_app.config["QUOTA_ACTIVE_GAMES"])
    if owner is None or not limit:
        return
    try:
        get_store().reserve(owner, game_id, limit)
    except QuotaExceeded as exc:
        raise quota_problem(exc.count, exc.limit) from None


def _store_new(state: Any, events: list[dict[str, Any]], tokens: dict[int, str]) -> Response:
    """Store a new game (bots within the request's budget first, the client's
    game quotas checked) and answer it: `201` with each seat, ``tokens`` shown."""
    state, bot_events, due = play_bots(state, None)
    created_at = now_iso()
    store = get_store()
    owner = quota_owner()
    data = encode_state(state)
    try:
        created = store.create(
            data,
            events + bot_events,
            _lobby_for_create(state, created_at),
            owner=owner,
            due=due,
            quota=game_quotas() if owner is not None else None,
            bots=all(seat.kind == "bot" for seat in state.seats),
        )
    except QuotaExceeded as exc:
        raise quota_problem(exc.count, exc.limit) from None
    game_id = created.game_id
    STATES.remember(game_id, data, state)  # its first load needs no decoding
    answer_seats = []
    for index, seat in enumerate(state.seats):
        entry: dict[str, Any] = {"seat": index, "name": seat.name, "kind": seat.kind}
        if index in tokens:
            entry["token"] = tokens[index]
        answer_seats.append(entry)
    answer = {
        "id": game_id,
        "version": created.version,
        "status": state.status,
        "seats": answer_seats,
    }
    return json_response(
        answer,
        201,
        {"Location": f"/games/{game_id}", "ETag": etag(created.version, created.epoch)},
    )


def _continue(spec: dict[str, Any]) -> Response:
    """`POST /games` with `from_record`: the game of a finished game's whole record
    (its `game`, read here, or the `record` sent) at `at_version`."""
    if "game" in spec:
        game = load_game(spec["game"])
        if game.state.status != "finished":
            raise Problem(
                422,
                "record_refused",
                "Only a finished game's whole record can be continued; this game is "
                f"{game.state.status}.",
                errors={"from_record.game": ["the game is not finished"]},
            )
        record = build_record(spec["game"], game, get_store().events(spec["game"], 0), None)
    else:
        record = spec["record"]
        # A record sent whole is not trusted: its names follow the name rule.
        seats = record.get("seats")
        for index, seat in enumerate(seats if isinstance(seats, list) else ()):
            name = seat.get("name") if isinstance(seat, dict) else None
            try:
                if name is not None:
                    normalise_name(str(name))
            except ValueError as exc:
                raise Problem(
                    422,
                    "record_refused",
                    f"The record's seat {index} has a name the name rule refuses: {exc}.",
                    errors={"from_record.record": [f"seat {index}: {exc}"]},
                ) from None
    tokens: dict[int, str] = {}

    def token_hash(seat: int) -> str:
        tokens[seat], digest = auth.new_token()
        return digest

    try:
        continued = continue_record(record, int(spec["at_version"]), token_hash)
    except RecordRefused as exc:
        field = "from_record" + (f".{exc.field}" if exc.field else "")
        raise Problem(422, exc.code, f"{exc.detail}.", errors={field: [exc.detail]}) from None
    return _store_new(continued.state, continued.events, tokens)


def _lobby_for_create(state: Any, created_at: str) -> Any:
    """The lobby summary a new game is created with (the store fills in the id)."""
    return lobby_summary("", state, created_at)


def view_game(game_id: str) -> Response:
    """`GET /games/{id}`: the caller's view of the game, or `304` when unchanged."""
    game, seat = caller_seat(load_game(game_id))

    def answer(headers: dict[str, str]) -> Response:
        view = game_view(game_id, game.state, game.version, game.last_event, seat)
        return json_response(view, 200, headers)

    return conditional_get(game.version, answer, game.epoch)


@blp.route("/<string:game_id>", parameters=[GAME_ID_PARAMETER, _IF_NONE_MATCH])
class Game(MethodView):
    """One game."""

    @blp.response(200, GameViewSchema, headers=ETAG_HEADER)
    @blp.alt_response(304, description="Not modified since the ETag in If-None-Match")
    @blp.problem(401, "The token is not a seat token of this game")
    @common_errors(blp, 400, 404, 429, 503)
    @blp.doc(operationId="getGame", security=SEAT_OPTIONAL)
    def get(self, game_id: str) -> Response:
        """View a game

        With a seat token: that seat's view (its hand included); without: the
        public view. Never another player's cards.
        """
        return view_game(game_id)

    @blp.response(204)
    @blp.problem(401, "Missing token, or not a seat token of this game")
    @blp.problem(403, "The token is not the creator's (`not_creator`)")
    @blp.problem(409, "The game is no longer waiting for players (`game_not_waiting`)")
    @common_errors(blp, 400, 404, 429, 503)
    @blp.doc(operationId="deleteGame", security=SEAT_REQUIRED)
    def delete(self, game_id: str) -> Response:
        """Delete a game waiting for players

        Only with the token of a seat its creator took (in `POST /games`),
        and only while it waits: it leaves the lobby and is gone.
        """
        token = auth.required_token()

        def delete(game: LoadedGame, seat: int | None) -> Delete:
            assert seat is not None
            if game.state.status != "waiting":
                raise Problem(
                    409,
                    "game_not_waiting",
                    "Only a game waiting for players can be deleted; leave it instead.",
                )
            if not game.state.seats[seat].host:
                raise Problem(
                    403, "not_creator", "Only the game's creator may delete it; leave it instead."
                )
            return Delete()

        transact(game_id, delete, seat=_seat_of(token))
        return Response(status=204)


@blp.route("/<string:game_id>/join", parameters=[GAME_ID_PARAMETER])
class Join(MethodView):
    """Seats of a game."""

    @blp.arguments(JoinSchema())
    @blp.response(201, JoinedSchema, headers=ETAG_HEADER)
    @blp.problem(409, "No open seat, or that seat is taken")
    @blp.problem(422, "Invalid body")
    @common_errors(blp, 400, 404, 413, 415, 429, 503)
    @blp.doc(
        operationId="joinGame", security=SEAT_OPTIONAL, responses={201: {"links": _JOIN_LINKS}}
    )
    def post(self, body: dict[str, Any], game_id: str) -> Response:
        """Take an open seat

        The answer carries the seat's token, shown only this once.
        """
        held = auth.bearer_token()
        token, token_hash = auth.new_token()
        owner = quota_owner()

        def join(game: LoadedGame, _seat: int | None) -> Change:
            if held is not None and auth.holds_seat(game.state.seats, held):
                raise Problem(
                    409, "already_seated", "This token already holds a seat of this game."
                )
            # A rematch's seats held past their time are open to this join.
            before = rematch.open_lapsed(game.state, int(time.time() * 1000))
            state, events = engine.take_seat(
                before, body.get("seat"), body["name"], token_hash, body.get("client_seed")
            )
            # Counted before the save, so joins sent at once cannot pass the
            # quota together; a join refused after it frees its place soon.
            _reserve_seat(owner, game_id)
            return Change(state, events, auth.seat_of(state.seats, token), owner)

        done = transact(game_id, join)
        game = done.game
        view = game_view(game_id, game.state, game.version, game.last_event, done.seat)
        return json_response(
            {"seat": done.seat, "token": token, "game": view},
            201,
            {"ETag": etag(game.version, game.epoch)},
        )


@blp.route("/<string:game_id>/leave", parameters=[GAME_ID_PARAMETER])
class Leave(MethodView):
    """Leaving a seat."""

    @blp.response(200, GameViewSchema, headers=ETAG_HEADER)
    @blp.problem(401, "Missing token, or not a seat token of this game")
    @blp.problem(409, "The game is over (`game_not_active`)")
    @common_errors(blp, 400, 404, 429, 503)
    @blp.doc(operationId="leaveGame", security=SEAT_REQUIRED)
    def post(self, game_id: str) -> Response:
        """Leave a seat

        In a game waiting for players the seat is open again (the game is
        back in the lobby); in a game being played the server's `greedy` bot
        plays the seat to the end. Either way the token no longer counts.
        Answers the public view after it (event `seat_left`).
        """
        token = auth.required_token()

        def leave(game: LoadedGame, seat: int | None) -> Change:
            assert seat is not None
            return Change(*engine.leave_seat(game.state, seat))

        game = transact(game_id, leave, seat=_seat_of(token)).game
        view = game_view(game_id, game.state, game.version, game.last_event, None)
        return json_response(view, 200, {"ETag": etag(game.version, game.epoch)})


#: After a rematch, the next game's id and seat token drive its requests.
_REMATCH_LINKS = {
    name: {
        "operationId": operation,
        "parameters": {
            "game_id": "$response.body#/game/id",
            "header.Authorization": "Bearer {$response.body#/token}",
        },
    }
    for name, operation in (
        ("GetNextGameAsSeat", "getGame"),
        ("GetNextGameLegalMoves", "getLegalMoves"),
        ("GetNextGameEvents", "getEvents"),
    )
}


@blp.route("/<string:game_id>/rematch", parameters=[GAME_ID_PARAMETER])
class Rematch(MethodView):
    """The next game of a finished game's players."""

    @blp.response(200, RematchedSchema, headers=ETAG_HEADER)
    @blp.problem(401, "Missing token, or not a seat token of this game")
    @blp.problem(
        409,
        "The game is not over (`game_not_finished`), or the caller's seat of the "
        "rematch is no longer held (`rematch_seat_released`)",
    )
    @common_errors(blp, 400, 404, 429, 503)
    @blp.doc(
        operationId="rematch", security=SEAT_REQUIRED, responses={200: {"links": _REMATCH_LINKS}}
    )
    def post(self, game_id: str) -> Response:
        """Play again: the caller's seat of the rematch

        With a seat token of this finished game. The first call creates the
        next game (same preset and options, the seats rotated by one, bots
        kept) and stores its id as this game's `next_game` (event
        `rematch_offered`); every call answers the caller's seat of it and its
        token, the same for every call with the same token. The other players'
        seats are held for them for `REMATCH_SECONDS`, then open in the lobby.
        """
        token = auth.required_token()
        new_token, new_hash = auth.rematch_token(token, game_id)
        owner = quota_owner()
        quotas = rematch.Quotas(owner, game_quotas(), int(current_app.config["QUOTA_ACTIVE_GAMES"]))
        try:
            done = rematch.rematch(
                context(),
                game_id,
                seat_of=lambda game: auth.seat_of(game.state.seats, token),
                new_hash=new_hash,
                seconds=float(current_app.config["REMATCH_SECONDS"]),
                owner=client_owner,
                quotas=quotas,
            )
        except QuotaExceeded as exc:
            raise quota_problem(exc.count, exc.limit) from None
        except Busy:
            raise busy() from None
        game = done.game
        view = game_view(game.game_id, game.state, game.version, game.last_event, done.seat)
        return json_response(
            {"seat": done.seat, "token": new_token, "game": view},
            200,
            {"ETag": etag(game.version, game.epoch)},
        )


def _seat_of(token: str) -> Callable[[LoadedGame], tuple[LoadedGame, int]]:
    """The caller's seat by its token (401 if none; an away seat stays away)."""
    return lambda game: (game, auth.seat_of(game.state.seats, token))


__all__ = ["Problem", "blp"]
