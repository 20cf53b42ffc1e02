"""`/games/{id}/events` (long-poll) and `/games/{id}/stream` (Server-Sent Events):
the game's events as the caller may see them.

Both answer the same events redacted for the caller (`views.redact_event`); the
stream pushes each one as it is saved, from its game's `Feed`
(service/api/feeds.py: one store read and one encoding per viewer for all the
game's streams in this process, woken by the store's `watch`).
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

from flask import Flask, Response, current_app, request
from flask.views import MethodView

from service.api.access import caller_seat, get_store, load_game
from service.api.feeds import HEARTBEAT, RETRY, Feed, Feeds, Following
from service.api.jsonio import json_response
from service.api.longpoll import LONG_POLL_429, init_long_polls, wait_for_events, waiting_place
from service.api.paths import GAME_ID_PARAMETER, check_game_ids
from service.api.pushing import PushedStream
from service.api.schemas import EventsQuerySchema, EventsSchema, StreamQuerySchema
from service.api.smorest import SEAT_OPTIONAL, Blueprint, common_errors
from service.http.problems import Problem
from service.rules import views
from service.serving.sockets import pushable_socket

blp = Blueprint("events", __name__, url_prefix="/games", description="Events")
check_game_ids(blp)

_LAST_EVENT_ID = {
    "in": "header",
    "name": "Last-Event-ID",
    "required": False,
    "description": (
        "the `id` (an event's `seq`) of the last event received: the stream resumes "
        "after it (a browser's `EventSource` sends it when it reconnects); wins over `after`"
    ),
    "schema": {"type": "string", "pattern": "^[0-9]{1,16}$"},
}
_EVENT_ID = re.compile(r"[0-9]{1,16}")

#: Seconds a client refused a stream (all slots taken) is asked to wait.
STREAM_RETRY_AFTER = 5

#: The app extension holding this process's `StreamSlots`.
SLOTS_EXTENSION = "rummy.stream_slots"
#: The app extension holding this process's `Feeds`.
FEEDS_EXTENSION = "rummy.stream_feeds"


def visible_events(
    events: list[dict[str, Any]], seat: int | None, newest: int = 0, delay: int = 0
) -> list[dict[str, Any]]:
    """The events as `seat` (`None`: a spectator) may see them: redacted, and for a
    spectator of a game with `spectator_delay`, only those at least `delay` events
    older than the game's `newest`."""
    if seat is None and delay:
        events = [event for event in events if event["seq"] <= newest - delay]
    return [views.redact_event(event, seat) for event in events]


@blp.route("/<string:game_id>/events", parameters=[GAME_ID_PARAMETER])
class Events(MethodView):
    """The event log of a game."""

    @blp.arguments(EventsQuerySchema(), location="query")
    @blp.response(200, EventsSchema)
    @blp.problem(401, "The token is not a seat token of this game")
    @blp.problem(422, "`after` or `wait` out of range (wait: 0 to 30 s)")
    @blp.problem(429, LONG_POLL_429)
    @blp.problem(
        503,
        "Store unavailable (`store_unavailable`), requests cannot be counted "
        "(`rate_limit_unavailable`), or this server holds its most waiting "
        "long-polls (`too_many_long_polls`); see Retry-After",
    )
    @common_errors(blp, 400, 404)
    @blp.doc(operationId="getEvents", security=SEAT_OPTIONAL)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """List events after `after`, long-polling up to `wait` seconds

        A stock draw shows its card only to the drawer. Without a seat token, a
        game with `spectator_delay` N shows events once N more have followed
        them (docs/fairness.md). Only a game's latest
        events are kept (`MAX_EVENTS`, 5000 by default): when the first event
        answered has a `seq` above `after + 1`, the events between are gone;
        reload the game's view, then follow the events from there. A client
        that hangs up while its long-poll waits frees its place at once; one
        client may hold `LONGPOLL_PER_ADDRESS` waiting long-polls per server
        process (then 429), a process `LONGPOLL_WAITING_MAX` (then 503).
        """
        wait = float(query["wait"])
        longest = float(current_app.config["LONGPOLL_MAX"])
        if wait > longest:
            raise Problem(
                422,
                "validation_error",
                f"wait may be at most {longest:g} seconds.",
                errors={"wait": [f"at most {longest:g}"]},
            )
        game = load_game(game_id)
        game, seat = caller_seat(game)
        after = int(query["after"])
        # Spectators see an event once `spectator_delay` more have followed it.
        delay = views.spectator_delay(game.state) if seat is None else 0
        if game.last_event - delay > after:
            wait = 0.0  # already something to answer: no need to wait
        store = get_store()
        if wait > 0:
            # Wait for the event that makes the next one visible, then read.
            with waiting_place():
                found = wait_for_events(store, game_id, after + delay, wait, request.environ)
            if found is None:  # the client hung up: nobody reads the answer
                return json_response({"events": [], "last": after}, 200)
            events = found
        else:
            events = store.events(game_id, after + delay)
        if delay:
            newest = max([game.last_event, *(event["seq"] for event in events)])
            events = store.events(game_id, after)
            shown = visible_events(events, seat, newest, delay)
        else:
            shown = visible_events(events, seat)
        last = shown[-1]["seq"] if shown else min(after, max(0, game.last_event - delay))
        return json_response({"events": shown, "last": last}, 200, {"Vary": "Authorization"})


class StreamSlots:
    """The streams one worker process may hold open at once (`STREAM_MAX`)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0
        self._lock = threading.Lock()

    def take(self) -> bool:
        """Take a slot; `False` when all `limit` are taken."""
        with self._lock:
            if self.open >= self.limit:
                return False
            self.open += 1
            return True

    def give_back(self) -> None:
        """Return a slot."""
        with self._lock:
            self.open -= 1


def init_streams(app: Flask) -> None:
    """Give the app its per-process stream slots and game feeds."""
    app.extensions[SLOTS_EXTENSION] = StreamSlots(int(app.config["STREAM_MAX"]))
    app.extensions[FEEDS_EXTENSION] = Feeds(
        keep=min(int(app.config["FEED_EVENTS"]), int(app.config["MAX_EVENTS"]))
    )
    init_long_polls(app)


def _too_many_streams(limit: int) -> Problem:
    return Problem(
        503,
        "too_many_streams",
        f"This server holds its most open streams ({limit}); retry shortly, or long-poll "
        "GET /games/{id}/events meanwhile.",
        headers={"Retry-After": str(STREAM_RETRY_AFTER)},
    )


def _last_event_id() -> int | None:
    """The `Last-Event-ID` header as a sequence number (`None` without it; 400 if malformed)."""
    header = request.headers.get("Last-Event-ID")
    if header is None:
        return None
    if _EVENT_ID.fullmatch(header) is None:
        raise Problem(
            400,
            "invalid_last_event_id",
            "Last-Event-ID must be the id (a sequence number) of an event of this stream.",
            errors={"Last-Event-ID": ["a non-negative integer"]},
        )
    return int(header)


#: One message of the stream, as an EventSource hands it over.
_STREAM_MESSAGE = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "pattern": "^[0-9]+$", "description": "the event's `seq`"},
        "event": {"type": "string", "enum": ["message"]},
        "data": {
            "type": "string",
            "description": "the event, as JSON",
            "contentMediaType": "application/json",
            "contentSchema": {"$ref": "#/components/schemas/Event"},
        },
        "retry": {"type": "integer", "description": "ms to wait before reconnecting"},
    },
    "required": ["data"],
}
_STREAM_EXAMPLE = (
    'id: 7\ndata: {"seq":7,"version":5,"at":"2026-12-01T10:00:00.000Z",'
    '"type":"discarded","seat":1,"card":"SK"}\n\n'
)


@blp.route("/<string:game_id>/stream", parameters=[GAME_ID_PARAMETER, _LAST_EVENT_ID])
class Stream(MethodView):
    """The events of a game, pushed as they happen."""

    @blp.arguments(StreamQuerySchema(), location="query")
    @blp.problem(400, "Malformed `Last-Event-ID` (`invalid_last_event_id`)")
    @blp.problem(401, "The token is not a seat token of this game")
    @blp.problem(422, "`after` out of range")
    @blp.problem(
        503,
        "Store unavailable, or this server holds its most open streams "
        "(`too_many_streams`); see Retry-After",
    )
    @common_errors(blp, 404, 429)
    @blp.doc(
        operationId="streamEvents",
        security=SEAT_OPTIONAL,
        responses={
            200: {
                "description": (
                    "A `text/event-stream`: one message per event (`id:` its `seq`, "
                    "`data:` the event as `GET /events` shows it), a `: heartbeat` "
                    "comment after `STREAM_HEARTBEAT` s without one; the server "
                    "closes it after `STREAM_LIFETIME` s (reconnect with `Last-Event-ID`)."
                ),
                "content": {
                    "text/event-stream": {"schema": _STREAM_MESSAGE, "example": _STREAM_EXAMPLE}
                },
            }
        },
    )
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """Follow a game's events as Server-Sent Events

        The events after `Last-Event-ID` (else after `after`, else from the
        first kept), then each new one as it is saved, redacted for the caller
        as in `GET /games/{id}/events`. Like there, only a game's latest events
        are kept: an `id` above the last one received plus 1 means events were
        missed; reload the view. The stream ends when the game is gone.
        """
        resume = _last_event_id()
        after = resume if resume is not None else int(query["after"])
        game = load_game(game_id)
        game, seat = caller_seat(game)
        slots: StreamSlots = current_app.extensions[SLOTS_EXTENSION]
        if not slots.take():
            raise _too_many_streams(slots.limit)
        cleanup = ExitStack()
        cleanup.callback(slots.give_back)
        config = current_app.config
        feeds: Feeds = current_app.extensions[FEEDS_EXTENSION]
        try:
            feed = cleanup.enter_context(
                feeds.follow(get_store(), game_id, reread=float(config["STREAM_HEARTBEAT"]))
            )
        except BaseException:
            cleanup.close()
            raise
        following = Following(
            seat=seat,
            after=after,
            delay=views.spectator_delay(game.state) if seat is None else 0,
            heartbeat=float(config["STREAM_HEARTBEAT"]),
            lifetime=float(config["STREAM_LIFETIME"]),
            push_interval=float(config["STREAM_PUSH_INTERVAL"]),
        )
        request_environ = request.environ
        sock = pushable_socket(request_environ)
        if sock is not None:  # a gevent worker: the feed writes to the socket itself
            body = PushedStream(feed, sock, following).body()
        else:
            body = _follow(feed, following)
        response = Response(body, 200, mimetype="text/event-stream")
        response.headers["Cache-Control"] = "no-cache, no-store"
        response.headers["X-Accel-Buffering"] = "no"  # proxies: pass each event on at once
        response.headers["Vary"] = "Authorization"
        response.call_on_close(cleanup.close)
        response.call_on_close(lambda: _hang_up_if_ending(feeds, request_environ))
        return response


def _hang_up_if_ending(feeds: Feeds, environ: dict[str, Any]) -> None:
    """Once a stream has ended because its worker stops (`feeds.end_streams`):
    stop reading its connection (gunicorn wrote the body's end already), so
    gunicorn closes it rather than keep it alive for another request, which
    would hold the stopping worker until its keep-alive timeout. The client
    reconnects, to a worker still serving."""
    if feeds.ending:
        sock = environ.get("gunicorn.socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RD)


def _follow(feed: Feed, following: Following) -> Iterator[bytes]:
    """The body of a stream: events after `after`, then each new one (all that
    came since the last, in one write), until `lifetime` s have passed or the
    feed ended (the game is gone or the store failed). A spectator of a game
    with `spectator_delay` gets each event once `delay` more followed."""
    seat, after, delay = following.seat, following.after, following.delay
    heartbeat, clock = following.heartbeat, following.clock
    ends = clock() + following.lifetime
    yield RETRY
    while True:
        changed, ended = feed.changed, feed.ended  # before reading: no change is missed
        messages, after = feed.since(after, seat, delay)
        if messages:
            yield messages
        if ended:
            return
        remaining = ends - clock()
        if remaining <= 0:
            return
        if not changed.wait(min(heartbeat, remaining)) and clock() < ends:
            yield HEARTBEAT
