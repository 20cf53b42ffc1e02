"""`/queue`: quick play. A ticket waits for a table; the worker's matcher seats it.

`POST /queue` queues a ticket for the tables it accepts (presets and player
counts) and answers its id and secret (shown once; kept as its SHA-256, as a
seat token is). `GET /queue/{ticket}` with the secret long-polls until the
ticket is matched, then answers the game and the seat's token. That token is
derived from the ticket's secret (an HMAC of it), never stored: the ticket
keeps only the digest the game's seat keeps, so every read by the secret's
holder answers the same token, and nobody else can learn it. `GET
/queue/{ticket}/stream` says the same as Server-Sent Events: the ticket's
view while it waits (again whenever the demand for its tables changes), then
once matched its view with the token, and the stream ends. `DELETE` leaves
the queue while the ticket waits. Matching: `service.games.matching`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import orjson
from flask import Flask, Response, current_app, request
from flask.views import MethodView

from service.api import auth
from service.api.access import client_name
from service.api.feeds import HEARTBEAT, RETRY
from service.api.jsonio import json_response
from service.api.longpoll import (
    LONG_POLL_429,
    poll_until,
    wait_a_slice,
    waiting_place,
)
from service.api.schemas import (
    DemandSchema,
    EnqueuedSchema,
    EnqueueSchema,
    TicketQuerySchema,
    TicketSchema,
)
from service.api.smorest import TICKET_REQUIRED, Blueprint, common_errors
from service.http.problems import Problem, problem_document
from service.http.tokens import hash_token
from service.rules.options import OptionsError, resolve_options
from service.store.codec import iso_of_ms, now_ms
from service.store.errors import StoreUnavailable
from service.store.tickets import (
    QueueFull,
    Ticket,
    TicketQueue,
    TicketQuotaExceeded,
    bucket_name,
    open_tickets,
)
from service.store.tokens import url_safe_token

blp = Blueprint("queue", __name__, url_prefix="/queue", description="Quick play")

#: The app extension holding the app's `TicketQueue`.
TICKETS_EXTENSION = "rummy.tickets"
#: What a ticket id looks like (as a game id: 1 to 64 URL-safe characters).
_TICKET_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Seconds a refused enqueue is asked to wait.
QUEUE_RETRY_AFTER = 10
#: Seconds between two reads of the queued demand by a ticket's stream (the
#: ticket itself is read every `DISCONNECT_CHECK` s, as the long-poll does).
DEMAND_EVERY = 2.0

#: The messages of a ticket's stream, by their `event:` name, and what each says.
TICKET_STREAM_EVENTS = {
    "waiting": "the ticket waits: its view, as `GET /queue/{ticket}` answers it; "
    "sent first, then whenever the demand for its tables changes",
    "matched": "the ticket is seated: its view with the game, the seat and the "
    "seat's token; the stream ends",
    "gone": "the ticket was cancelled or expired meanwhile (a `ticket_not_found` "
    "problem); the stream ends",
}

#: The answers of the operations on one ticket, as the OpenAPI document describes them.
_SECRET_401 = "Missing or wrong secret (`missing_token`, `invalid_ticket_secret`)"
_NO_TICKET_404 = "No such ticket (`ticket_not_found`)"
_WAITING_503 = (
    "Store unavailable (`store_unavailable`), or this server holds its most "
    "waiting long-polls (`too_many_long_polls`); see Retry-After"
)

_TICKET_PARAMETER = {
    "in": "path",
    "name": "ticket",
    "required": True,
    "description": "the ticket's id (from `POST /queue`)",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
}


def init_queue(app: Flask) -> None:
    """Give the app the ticket queue beside its store (`open_tickets`)."""
    from service.api.access import STORE_EXTENSION

    store = app.extensions[STORE_EXTENSION]
    app.extensions[TICKETS_EXTENSION] = open_tickets(store, float(app.config["QUEUE_TICKET_TTL"]))


def tickets() -> TicketQueue:
    """The current app's ticket queue."""
    queue: TicketQueue = current_app.extensions[TICKETS_EXTENSION]
    return queue


def seat_token_of(secret: str) -> str:
    """The seat token a matched ticket's holder is given: derived from the
    ticket's secret (so never stored, and the same on every read)."""
    return hmac.new(secret.encode(), b"rummy quick-play seat", hashlib.sha256).hexdigest()


def _tables(body: dict[str, Any]) -> list[str]:
    """The buckets the body asks for, each preset's player counts within the range
    (422 when a preset seats none of them)."""
    presets = body["presets"] if "presets" in body else [body["preset"]]
    if "players" in body:
        low = high = int(body["players"])
    else:
        low, high = int(body.get("min_players", 2)), int(body.get("max_players", 6))
    tables: list[str] = []
    refused: dict[str, list[str]] = {}
    for preset in dict.fromkeys(presets):
        counts = []
        for players in range(low, high + 1):
            try:
                resolve_options(preset, {}, players)
            except OptionsError:
                continue
            counts.append(players)
        if not counts:
            refused.setdefault("players", []).append(
                f"{preset} seats none of {low}..{high} players"
            )
        tables += [bucket_name(preset, players) for players in counts]
    if refused:
        raise Problem(422, "validation_error", refused["players"][0], errors=refused)
    return tables


def _owner() -> str:
    """Whom a ticket counts against (`QUEUE_TICKETS_PER_CLIENT`), as the game quotas
    name clients; ``""`` when quotas do not apply (0, or the rate limiter off)."""
    config = current_app.config
    if not config["RATELIMIT_ENABLED"] or not config["QUEUE_TICKETS_PER_CLIENT"]:
        return ""
    return client_name()


def _view(ticket: Ticket, secret: str | None, demand: dict[str, int]) -> dict[str, Any]:
    """The ticket as its holder sees it (the seat's token when matched and the
    secret is known)."""
    matched = ticket.status == "matched"
    return {
        "ticket": ticket.id,
        "status": "matched" if matched else "waiting",
        "tables": list(ticket.buckets),
        "bots_allowed": ticket.bots,
        "queued": iso_of_ms(ticket.at),
        "expires": iso_of_ms(ticket.expires),
        "waiting": {} if matched else {b: demand.get(b, 0) for b in ticket.buckets},
        "game": ticket.game if matched else None,
        "seat": ticket.seat if matched else None,
        "token": seat_token_of(secret) if matched and secret is not None else None,
    }


def _held_ticket(ticket_id: str) -> tuple[Ticket, str]:
    """The ticket and the secret the request holds for it (404, 401)."""
    if _TICKET_ID.fullmatch(ticket_id) is None:
        raise _no_ticket(ticket_id)
    secret = auth.bearer_token()
    if secret is None:
        raise Problem(
            401,
            "missing_token",
            "This request needs the ticket's secret: Authorization: Bearer <secret>.",
            headers={"WWW-Authenticate": 'Bearer realm="rummy"'},
        )
    ticket = tickets().get(ticket_id)
    if ticket is None:
        raise _no_ticket(ticket_id)
    # Plain equality of digests, as for seat tokens (service/api/auth.py says why).
    if hash_token(secret) != ticket.secret_hash:
        raise Problem(
            401,
            "invalid_ticket_secret",
            "The bearer token is not this ticket's secret.",
            headers={"WWW-Authenticate": 'Bearer realm="rummy"'},
        )
    return ticket, secret


def _no_ticket(ticket_id: str) -> Problem:
    return Problem(404, "ticket_not_found", f"There is no quick-play ticket {ticket_id!r}.")


@blp.route("")
class Queue(MethodView):
    """The quick-play queue."""

    @blp.arguments(EnqueueSchema())
    @blp.response(
        201,
        EnqueuedSchema,
        headers={"Location": {"description": "/queue/{ticket}", "schema": {"type": "string"}}},
    )
    @blp.problem(422, "Invalid body, or a preset seats none of the player counts")
    @blp.problem(
        429,
        "Rate limited (`rate_limited`), or this client holds its most waiting tickets "
        "(`ticket_quota_exceeded`, QUEUE_TICKETS_PER_CLIENT); see Retry-After",
    )
    @blp.problem(
        503,
        "Store unavailable (`store_unavailable`), requests cannot be counted "
        "(`rate_limit_unavailable`), or a queue asked for is full (`queue_full`, "
        "QUEUE_MAX_LENGTH); see Retry-After",
    )
    @common_errors(blp, 400, 413, 415)
    @blp.doc(operationId="enqueue")
    def post(self, body: dict[str, Any]) -> Response:
        """Queue for a table (quick play)

        The ticket waits in one queue per table it accepts (each preset, each
        player count), oldest first; the worker seats tickets at full tables,
        or, for a ticket with `bots_allowed` that has waited
        `QUEUE_BOT_FILL_SECONDS`, at a table whose other seats are bots. The
        answer's `secret` (shown only this once) reads and cancels the ticket.
        """
        buckets = _tables(body)
        config = current_app.config
        secret = url_safe_token(32)
        now = now_ms()
        ticket = Ticket(
            id=url_safe_token(16),
            secret_hash=hash_token(secret),
            seat_hash=hash_token(seat_token_of(secret)),
            owner=_owner(),
            name=body["name"],
            client_seed=body.get("client_seed"),
            buckets=tuple(buckets),
            bots=bool(body["bots_allowed"]),
            at=now,
            expires=now + int(float(config["QUEUE_TICKET_TTL"]) * 1000),
        )
        queue = tickets()
        try:
            queue.enqueue(
                ticket, int(config["QUEUE_TICKETS_PER_CLIENT"]), int(config["QUEUE_MAX_LENGTH"])
            )
        except TicketQuotaExceeded as exc:
            raise Problem(
                429,
                "ticket_quota_exceeded",
                f"This client already holds {exc.limit} waiting tickets "
                "(QUEUE_TICKETS_PER_CLIENT); cancel one or wait until matched.",
                headers={"Retry-After": str(QUEUE_RETRY_AFTER)},
            ) from None
        except QueueFull as exc:
            raise Problem(
                503,
                "queue_full",
                f"The queue for {exc.bucket} holds {exc.limit} tickets (QUEUE_MAX_LENGTH); "
                "retry shortly.",
                headers={"Retry-After": str(QUEUE_RETRY_AFTER)},
            ) from None
        answer = {**_view(ticket, None, queue.demand()), "secret": secret}
        return json_response(answer, 201, {"Location": f"/queue/{ticket.id}"})

    @blp.response(200, DemandSchema)
    @common_errors(blp, 429, 503)
    @blp.doc(operationId="getQueueDemand")
    def get(self) -> Response:
        """Queued demand

        How many tickets wait for each table (`<preset>:<players>`; a ticket
        that accepts several tables counts in each).
        """
        return json_response({"waiting": tickets().demand()})


@blp.route("/<string:ticket>", parameters=[_TICKET_PARAMETER])
class HeldTicket(MethodView):
    """One ticket, read and cancelled by its secret."""

    @blp.arguments(TicketQuerySchema(), location="query")
    @blp.response(200, TicketSchema)
    @blp.problem(401, _SECRET_401)
    @blp.problem(404, _NO_TICKET_404)
    @blp.problem(422, "`wait` out of range (0 to LONGPOLL_MAX s)")
    @blp.problem(429, LONG_POLL_429)
    @blp.problem(503, _WAITING_503)
    @common_errors(blp, 400)
    @blp.doc(operationId="getTicket", security=TICKET_REQUIRED)
    def get(self, query: dict[str, Any], ticket: str) -> Response:
        """Read a ticket, long-polling up to `wait` seconds until it is matched

        Once matched: the game's id, the seat and the seat's token (the same
        on every read with the ticket's secret). A waiting long-poll holds a
        place as the events long-poll does (`LONGPOLL_PER_ADDRESS`,
        `LONGPOLL_WAITING_MAX`).
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
        held, secret = _held_ticket(ticket)
        queue = tickets()
        if held.status != "matched" and wait > 0:
            latest: list[Ticket | None] = [held]

            def matched() -> bool:
                latest[0] = queue.get(ticket)
                return latest[0] is None or latest[0].status == "matched"

            with waiting_place():
                poll_until(matched, wait, request.environ)
            found = latest[0]
            if found is None:
                raise _no_ticket(ticket)
            held = found
        demand = queue.demand() if held.status != "matched" else {}
        return json_response(_view(held, secret, demand), 200, {"Cache-Control": "no-store"})

    @blp.response(204)
    @blp.problem(401, _SECRET_401)
    @blp.problem(404, _NO_TICKET_404)
    @blp.problem(409, "The ticket is matched or being matched (`ticket_matched`)")
    @common_errors(blp, 400, 429, 503)
    @blp.doc(operationId="cancelTicket", security=TICKET_REQUIRED)
    def delete(self, ticket: str) -> Response:
        """Leave the queue

        Only while the ticket waits; a matched ticket's seat is left with
        `POST /games/{id}/leave`.
        """
        _held_ticket(ticket)
        outcome = tickets().cancel(ticket)
        if outcome == "missing":
            raise _no_ticket(ticket)
        if outcome == "matched":
            raise Problem(
                409,
                "ticket_matched",
                "The ticket is matched (or being matched); leave its game instead.",
            )
        return Response(status=204)


_EVENTS = TICKET_STREAM_EVENTS.items()
#: One message of a ticket's stream, as an EventSource hands it over.
_TICKET_STREAM_MESSAGE = {
    "type": "object",
    "properties": {
        "event": {
            "type": "string",
            "enum": list(TICKET_STREAM_EVENTS),
            "description": "; ".join(
                f"`{name}`: {what}" for name, what in TICKET_STREAM_EVENTS.items()
            ),
        },
        "data": {
            "type": "string",
            "description": "the ticket's view (`waiting`, `matched`) or a problem "
            "(`gone`), as JSON",
            "contentMediaType": "application/json",
            "contentSchema": {
                "oneOf": [
                    {"$ref": "#/components/schemas/Ticket"},
                    {"$ref": "#/components/schemas/Problem"},
                ]
            },
        },
        "retry": {"type": "integer", "description": "ms to wait before reconnecting"},
    },
    "required": ["data"],
}


def _message(event: str, data: dict[str, Any]) -> bytes:
    """One message of a ticket's stream."""
    return b"event: %s\ndata: %s\n\n" % (event.encode(), orjson.dumps(data))


def _follow_ticket(
    queue: TicketQueue,
    held: Ticket,
    secret: str,
    environ: dict[str, Any],
    heartbeat: float,
    lifetime: float,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[bytes]:
    """The body of a ticket's stream (see `TICKET_STREAM_EVENTS`): it ends once
    the ticket is matched or gone, after ``lifetime`` s, when the client hangs
    up (looked at every `DISCONNECT_CHECK` s), or when the store fails."""
    yield RETRY
    now = clock()
    ends, quiet_since, demand_at = now + lifetime, now, now
    ticket: Ticket | None = held
    shown: dict[str, int] | None = None
    try:
        while True:
            if ticket is None:
                gone = _no_ticket(held.id)
                yield _message(
                    "gone", problem_document(404, gone.problem_code, str(gone.description))
                )
                return
            if ticket.status == "matched":
                yield _message("matched", _view(ticket, secret, {}))
                return
            now = clock()
            if shown is None or now >= demand_at:
                demand_at = now + DEMAND_EVERY
                demand = queue.demand()
                waiting = {table: demand.get(table, 0) for table in ticket.buckets}
                if waiting != shown:
                    shown = waiting
                    quiet_since = now
                    yield _message("waiting", _view(ticket, None, demand))
            if now - quiet_since >= heartbeat:
                quiet_since = now
                yield HEARTBEAT
            if now >= ends:
                return
            if not wait_a_slice(ends - now, environ):
                return
            ticket = queue.get(held.id)
    except StoreUnavailable:
        return  # the client opens the stream again, as after its lifetime


@blp.route("/<string:ticket>/stream", parameters=[_TICKET_PARAMETER])
class TicketStream(MethodView):
    """One ticket, followed by its secret."""

    @blp.problem(401, _SECRET_401)
    @blp.problem(404, _NO_TICKET_404)
    @blp.problem(429, LONG_POLL_429)
    @blp.problem(503, _WAITING_503)
    @common_errors(blp, 400)
    @blp.doc(
        operationId="streamTicket",
        security=TICKET_REQUIRED,
        responses={
            200: {
                "description": (
                    "A `text/event-stream`: a `waiting` message with the ticket's "
                    "view, another whenever the demand for its tables changes, a "
                    "`: heartbeat` comment after `STREAM_HEARTBEAT` s without one, "
                    "then `matched` (the view with the seat's token) or `gone`, and "
                    "the stream ends; else the server closes it after "
                    "`STREAM_LIFETIME` s (reconnect)."
                ),
                "content": {"text/event-stream": {"schema": _TICKET_STREAM_MESSAGE}},
            }
        },
    )
    def get(self, ticket: str) -> Response:
        """Follow a ticket as Server-Sent Events until it is matched

        What `GET /queue/{ticket}?wait=S` answers, pushed: the ticket's view
        while it waits, then once matched the game, the seat and the seat's
        token (the same on every read with the ticket's secret). The stream
        holds a waiting place as a long-poll does (`LONGPOLL_PER_ADDRESS`,
        `LONGPOLL_WAITING_MAX`) while it is open.
        """
        held, secret = _held_ticket(ticket)
        config = current_app.config
        place = ExitStack()
        place.enter_context(waiting_place())
        body = _follow_ticket(
            tickets(),
            held,
            secret,
            request.environ,
            heartbeat=float(config["STREAM_HEARTBEAT"]),
            lifetime=float(config["STREAM_LIFETIME"]),
        )
        response = Response(body, 200, mimetype="text/event-stream")
        response.headers["Cache-Control"] = "no-cache, no-store"
        response.headers["X-Accel-Buffering"] = "no"  # proxies: pass each message on at once
        response.call_on_close(place.close)
        return response
