"""`GET /games/{id}/record`: a game's record (``rummy-record/1``, docs/records.md).

The marshmallow schemas below are the one description of a record: the OpenAPI
component `Record`, the JSON Schema file `openapi/record.schema.json`
(``python -m service.api.records schema``), the serializer (`RecordSchema().dump`)
and the table of docs/records.md (`record_table`) all come from them.

A record is built on read from what the store keeps of the game (its state and
every event, `MAX_EVENTS`): nothing is written for it, so a move's path is
unchanged. Who asks decides what it holds:

- a seat's token: what that seat knew, its own dealt hands and stock draws,
  everybody's public moves and `known_cards`, never another hidden hand or the
  stock before the end (``view: "seat"``);
- no token, the game running: the public record, as far as spectators may see
  it (`spectator_delay`, ``view: "public"``);
- no token, the game over: the whole record, every event as the store keeps it,
  each round's secret and the deal it gives (hands, up-card, stock order), and
  ``verified``: whether the service's own check of it passed
  (`service.bots.recordcheck`, ``view: "full"``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import marshmallow as ma
import orjson
from flask import Response, request
from flask.views import MethodView
from marshmallow import fields

from service.api.access import caller_seat, get_store, load_game
from service.api.events import visible_events
from service.api.paths import (
    ETAG_HEADER,
    GAME_ID_PARAMETER,
    IF_NONE_MATCH_PARAMETER,
    check_game_ids,
)
from service.api.preconditions import conditional_get
from service.api.schemas import DEAL_METADATA
from service.api.smorest import SEAT_OPTIONAL, Blueprint, common_errors
from service.bots.dealcheck import OK, dealt_size, derive_deal, exit_status
from service.bots.recordcheck import FORMAT, RESULT_KEYS, verify_record
from service.games.continuation import RecordRefused, replay_record
from service.games.values import LoadedGame
from service.http.problems import Problem
from service.rules import views
from service.rules.state import REASONS, STATUSES

#: The kinds of record (`view`), by who asks and when.
RECORD_VIEWS = ("seat", "public", "full")

#: The media types of a record: JSON (the default), a transcript, one event a line.
JSON, TEXT, NDJSON = "application/json", "text/plain", "application/x-ndjson"

#: `Cache-Control` of a finished game's whole record: it no longer changes.
FULL_CACHE_CONTROL = "public, max-age=3600"
#: `Cache-Control` of a running game's public record: cache it, ask again each time.
PUBLIC_CACHE_CONTROL = "no-cache"
#: `Cache-Control` of a seat's record (also written for every answer to a token).
SEAT_CACHE_CONTROL = "private, no-store"


def _text(description: str, **kw: Any) -> fields.String:
    return fields.String(metadata={"description": description}, **kw)


class _Part(ma.Schema):
    """Base of the record's parts: their fields in the order written."""

    class Meta:
        ordered = True


class RecordSeatSchema(_Part):
    """A seat of the record."""

    seat = fields.Integer(required=True, metadata={"description": "the seat's number"})
    name = _text(
        "the player's name, or the bot's; null for a seat nobody took",
        allow_none=True,
        required=True,
    )
    kind = _text("`human` or `bot`", required=True, validate=ma.validate.OneOf(["human", "bot"]))
    bot = _text("the strategy playing the seat; null for a person", allow_none=True, required=True)
    client_seed = _text(
        "the seed the seat's player mixed into every round secret (docs/fairness.md)",
        allow_none=True,
        required=True,
    )
    known_cards = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "cards everybody saw this seat take this round and not yet "
            "played, as of the record's version"
        },
    )


class DerivedDealSchema(_Part):
    """A round's deal, derived from its revealed secret (only in a whole record)."""

    hands = fields.List(
        fields.List(fields.String(), allow_none=True),
        required=True,
        metadata={"description": "each seat's dealt hand in the order dealt (null: not dealt in)"},
    )
    upcard = _text(
        "the card turned up to start the discard pile (null with `first_turn_no_draw`)",
        allow_none=True,
        required=True,
    )
    stock = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the stock after the deal, the card drawn first first"},
    )


class RecordResultSchema(_Part):
    """A finished round's result, as its `round_ended` event gives it."""

    reason = _text("why the round ended", required=True, validate=ma.validate.OneOf(REASONS))
    winner = fields.Integer(
        allow_none=True, required=True, metadata={"description": "the seat that went out"}
    )
    rummy = fields.Boolean(
        required=True, metadata={"description": "the whole hand went down in one turn"}
    )
    points = fields.List(
        fields.Integer(), required=True, metadata={"description": "each seat's points of the round"}
    )
    hands = fields.List(
        fields.List(fields.String()),
        required=True,
        metadata={"description": "every hand at the round's end"},
    )
    scores = fields.List(
        fields.Integer(), required=True, metadata={"description": "each seat's total after it"}
    )


class RecordRoundSchema(_Part):
    """A round of the record."""

    number = fields.Integer(required=True, metadata={"description": "1 for the first round"})
    dealer = fields.Integer(required=True, metadata={"description": "the dealing seat"})
    first = fields.Integer(required=True, metadata={"description": "the seat that played first"})
    deal_commitment = _text(
        "SHA-256 of the round's secret (hex), public from its start; null unless dealt at random",
        allow_none=True,
        required=True,
    )
    secret = _text(
        "the round's secret (hex), once the round is over; null before (or not dealt at random)",
        allow_none=True,
        required=True,
    )
    result = fields.Nested(
        RecordResultSchema,
        allow_none=True,
        required=True,
        metadata={"description": "null while the round is played"},
    )
    deal = fields.Nested(
        DerivedDealSchema,
        allow_none=True,
        required=True,
        metadata={
            "description": "the deal the secret gives; only in a whole record (`view` `full`) "
            "of a game dealt at random"
        },
    )


class RecordSchema(_Part):
    """A game's record, `rummy-record/1` (docs/records.md)."""

    format = _text(
        "the record's format and its version", required=True, validate=ma.validate.OneOf([FORMAT])
    )
    id = _text("the game's id", required=True)
    version = fields.Integer(
        required=True, metadata={"description": "the game's version the record is of"}
    )
    view = _text(
        "whose record: `seat` (what that seat knew), `public` (what spectators may see), "
        "`full` (every card, after the end)",
        required=True,
        validate=ma.validate.OneOf(RECORD_VIEWS),
    )
    you = fields.Integer(
        allow_none=True, required=True, metadata={"description": "the seat of a `seat` record"}
    )
    status = _text("the game's status", required=True, validate=ma.validate.OneOf(STATUSES))
    preset = _text("the preset the game was created from", required=True)
    options = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        required=True,
        metadata={"description": "every option of the game (docs/rules.md)"},
    )
    deal = fields.String(required=True, metadata=DEAL_METADATA)
    game_commitment = _text(
        "SHA-256 of the game secret (hex), public from the start; null unless dealt at random",
        allow_none=True,
        required=True,
    )
    game_secret = _text(
        "the game secret (hex), once the game is over", allow_none=True, required=True
    )
    seats = fields.List(
        fields.Nested(RecordSeatSchema), required=True, metadata={"description": "every seat"}
    )
    rounds = fields.List(
        fields.Nested(RecordRoundSchema),
        required=True,
        metadata={"description": "every round the record's events deal, in order"},
    )
    events = fields.List(
        fields.Dict(keys=fields.String(), values=fields.Raw()),
        required=True,
        metadata={
            "description": "every event in order (`seq` 1, 2, …, each with its `version`), "
            "as the record's reader may see it (the `Event` of `GET /games/{id}/events`)"
        },
    )
    scores = fields.List(
        fields.Integer(), required=True, metadata={"description": "each seat's total"}
    )
    winners = fields.List(
        fields.Integer(),
        allow_none=True,
        required=True,
        metadata={"description": "the winning seats, once the game is over"},
    )
    verified = fields.Boolean(
        allow_none=True,
        required=True,
        metadata={
            "description": "in a whole record of a game dealt at random: whether every "
            "secret is the one committed to, every deal the one it gives and every "
            "card moved, total and winner the one the events give; null otherwise"
        },
    )


# --- building a record -------------------------------------------------------


def build_record(
    game_id: str, game: LoadedGame, events: Sequence[dict[str, Any]], seat: int | None
) -> dict[str, Any]:
    """The record of `game` (its stored `events`) as `seat` (`None`: no token) may see it."""
    state = game.state
    finished = state.status == "finished"
    if seat is not None:
        kind = "seat"
        view = views.seat_view(state, seat)
        shown = visible_events(list(events), seat)
    elif finished:
        kind = "full"
        view = views.public_view(state)
        shown = [dict(event) for event in events]
    else:
        kind = "public"
        view, _ = views.spectator_view(state)
        shown = visible_events(list(events), None, game.last_event, views.spectator_delay(state))
    rounds = _rounds(shown)
    record: dict[str, Any] = {
        "format": FORMAT,
        "id": game_id,
        "version": game.version,
        "view": kind,
        "you": seat,
        "status": view["status"],
        "preset": state.preset,
        "options": view["options"],
        "deal": state.deal,
        "game_commitment": view["game_commitment"],
        "game_secret": view["game_secret"],
        "seats": [
            {
                "seat": i,
                "name": entry["name"],
                "kind": entry["kind"],
                "bot": state.seats[i].bot if entry["kind"] == "bot" else None,
                "client_seed": entry.get("client_seed"),
                "known_cards": list(entry.get("known_cards") or ()),
            }
            for i, entry in enumerate(view["seats"])
        ],
        "rounds": rounds,
        "events": shown,
        "scores": [entry["score"] for entry in view["seats"]],
        "winners": view["winners"],
        "verified": None,
    }
    if kind == "full" and state.deal == "random":
        _add_deals(record, shown)
        record["verified"] = exit_status(verify_record(record, engine=False)) == OK
    dumped: dict[str, Any] = RecordSchema().dump(record)
    return dumped


def _rounds(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The rounds the events deal, each with its result once it ended."""
    rounds: dict[int, dict[str, Any]] = {}
    for event in events:
        if event["type"] == "round_started":
            rounds[event["number"]] = {
                "number": event["number"],
                "dealer": event["dealer"],
                "first": event["first"],
                "deal_commitment": event.get("deal_commitment"),
                "secret": None,
                "result": None,
                "deal": None,
            }
        elif event["type"] == "round_ended" and event["number"] in rounds:
            entry = rounds[event["number"]]
            entry["secret"] = event.get("secret")
            entry["result"] = {key: event[key] for key in RESULT_KEYS}
    return list(rounds.values())


def _add_deals(record: dict[str, Any], events: Sequence[Mapping[str, Any]]) -> None:
    """Each finished round's deal, derived from its secret (docs/fairness.md)."""
    starts = {e["number"]: e for e in events if e["type"] == "round_started"}
    for entry in record["rounds"]:
        start = starts.get(entry["number"])
        if entry["secret"] is None or start is None:
            continue
        sizes = [None if hand is None else len(hand) for hand in start["hands"]]
        entry["deal"] = derive_deal(
            record["options"],
            bytes.fromhex(entry["secret"]),
            start["dealer"],
            [size is not None for size in sizes],
            dealt_size(record["options"], sizes),
        )


# --- the transcript -----------------------------------------------------------


def _cards(cards: Sequence[str] | None) -> str:
    return " ".join(cards) if cards else "-"


def _seats(values: Sequence[Any]) -> str:
    return " ".join(f"{i}:{value}" for i, value in enumerate(values))


def event_line(event: Mapping[str, Any]) -> str:
    """One event as a transcript line (without its time, so a game's is reproducible)."""
    kind = event["type"]
    who = f"seat {event['seat']}" if "seat" in event else ""
    if kind == "game_created":
        dealer = event.get("first_dealer")
        return (
            f"game created: {event['preset']}, {event['players']} seats, dealt {event['deal']}"
            + ("" if dealer is None else f", first dealer seat {dealer}")
        )
    if kind == "seat_taken":
        return f"{who} taken by {event['name']}"
    if kind == "drew":
        card = event.get("card", "a card")
        return f"{who} draws {card} from the {event['source']}"
    if kind == "discarded":
        return f"{who} discards {event['card']}"
    if kind == "melded":
        meld = event["meld"]
        return f"{who} melds a {meld['type']} {_cards(meld['cards'])} (meld {meld.get('id')})"
    if kind == "laid_off":
        return f"{who} lays off {_cards(event['cards'])} on meld {event['meld']}"
    if kind == "joker_swapped":
        return f"{who} swaps {event['card']} for the joker of meld {event['meld']}"
    if kind == "went_out":
        return f"{who} goes out" + (" (rummy)" if event["rummy"] else "")
    if kind == "stock_refilled":
        return f"stock refilled (refill {event['refills']}): {event['stock_size']} cards"
    if kind == "round_started":
        lines = [
            f"round {event['number']}: dealer seat {event['dealer']}, seat {event['first']} "
            f"plays first, up-card {_cards(event['discard_pile'])}, stock {event['stock_size']}"
        ]
        if "hands" in event:
            lines += [
                f"  seat {i} is dealt {_cards(hand)}"
                for i, hand in enumerate(event["hands"])
                if hand is not None
            ]
        elif "hand" in event:
            lines.append(f"  you are dealt {_cards(event['hand'])}")
        return "\n".join(lines)
    if kind == "round_ended":
        winner = "nobody" if event["winner"] is None else f"seat {event['winner']}"
        return (
            f"round {event['number']} ends ({event['reason']}, won by {winner}): "
            f"points {_seats(event['points'])}; totals {_seats(event['scores'])}"
        )
    if kind == "game_ended":
        return (
            f"game over: winners {' '.join(str(s) for s in event['winners'])}; "
            f"totals {_seats(event['scores'])}"
        )
    shown = {k: v for k, v in event.items() if k not in ("seq", "version", "at", "type", "seat")}
    details = " ".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in shown.items())
    return " ".join(part for part in (kind.replace("_", " "), who, details) if part)


def transcript(record: Mapping[str, Any]) -> str:
    """The record as text: a head, one line an event (numbered by its `seq`), the
    rounds' results and the final totals."""
    seats = ", ".join(
        f"{s['seat']} {s['name']} ({s['bot'] + ' bot' if s['bot'] else s['kind']})"
        for s in record["seats"]
    )
    whose = "" if record["you"] is None else f" of seat {record['you']}"
    lines = [
        f"# {record['format']} game {record['id']} version {record['version']} "
        f"({record['view']} record{whose})",
        f"# preset {record['preset']}, dealt {record['deal']}, status {record['status']}",
        f"# seats: {seats}",
    ]
    if record["game_commitment"] is not None:
        lines.append(f"# game commitment {record['game_commitment']}")
    for event in record["events"]:
        text = event_line(event)
        head, _, rest = text.partition("\n")
        lines.append(f"{event['seq']:>4} {head}")
        lines += [f"     {line}" for line in rest.split("\n") if rest]
    lines.append(f"totals {_seats(record['scores'])}")
    if record["winners"] is not None:
        lines.append(f"winners {' '.join(str(s) for s in record['winners'])}")
    if record["verified"] is not None:
        lines.append(f"verified {'yes' if record['verified'] else 'NO'}")
    return "\n".join(lines) + "\n"


def ndjson(record: Mapping[str, Any]) -> Iterator[bytes]:
    """The record's events, one JSON object a line."""
    for event in record["events"]:
        yield orjson.dumps(event) + b"\n"


# --- the endpoint -------------------------------------------------------------

blp = Blueprint("records", __name__, url_prefix="/games", description="Records")
check_game_ids(blp)

_ACCEPT = {
    "in": "header",
    "name": "Accept",
    "required": False,
    "description": (
        f"`{JSON}` (the default): the record; `{TEXT}`: a transcript, one line an "
        f"event; `{NDJSON}`: the record's events, one a line"
    ),
    "schema": {"type": "string"},
}
_TEXT_EXAMPLE = (
    "# rummy-record/1 game 3f2a version 9 (full record)\n"
    "   5 seat 0 draws S9 from the stock\n"
    "   6 seat 0 discards S9\n"
)


@blp.route(
    "/<string:game_id>/record", parameters=[GAME_ID_PARAMETER, IF_NONE_MATCH_PARAMETER, _ACCEPT]
)
class Record(MethodView):
    """A game's record."""

    @blp.response(200, RecordSchema, headers=ETAG_HEADER)
    @blp.alt_response(304, description="Not modified since the ETag in If-None-Match")
    @blp.problem(401, "The token is not a seat token of this game")
    @common_errors(blp, 400, 404, 429, 503)
    @blp.doc(
        operationId="getRecord",
        security=SEAT_OPTIONAL,
        responses={
            200: {
                "content": {
                    TEXT: {"schema": {"type": "string"}, "example": _TEXT_EXAMPLE},
                    NDJSON: {
                        "schema": {"type": "string"},
                        "description": "one `Event` a line",
                    },
                }
            }
        },
    )
    def get(self, game_id: str) -> Response:
        """A game's record

        With a seat token: what that seat knew (its own dealt hands and stock
        draws, every public move, `known_cards`); without one, while the game
        runs: the public record (`spectator_delay` honoured); without one after
        the end: the whole record, every deal derived from its revealed secret
        and `verified` (docs/records.md). `Accept: text/plain` answers a
        transcript, `application/x-ndjson` the events one a line.
        """
        game, seat = caller_seat(load_game(game_id))
        wanted = request.accept_mimetypes.best_match([JSON, TEXT, NDJSON], default=JSON) or JSON

        def answer(headers: dict[str, str]) -> Response:
            events = get_store().events(game_id, 0)
            record = build_record(game_id, game, events, seat)
            if wanted == TEXT:
                response = Response(transcript(record), 200, mimetype=TEXT)
            elif wanted == NDJSON:
                response = Response(b"".join(ndjson(record)), 200, mimetype=NDJSON)
            else:
                response = Response(orjson.dumps(record), 200, mimetype=JSON)
            response.headers.update(headers)
            return response

        response = conditional_get(game.version, answer, game.epoch)
        response.headers["Vary"] = "Authorization, Accept"
        if seat is not None:
            response.headers["Cache-Control"] = SEAT_CACHE_CONTROL
        elif game.state.status == "finished":
            response.headers["Cache-Control"] = FULL_CACHE_CONTROL
        else:
            response.headers["Cache-Control"] = PUBLIC_CACHE_CONTROL
        return response


class ReplayQuerySchema(ma.Schema):
    """Query of `GET /games/{id}/replay`."""

    seq = fields.Integer(
        required=True,
        strict=False,
        validate=ma.validate.Range(min=1, max=2**31 - 1),
        metadata={"description": "the event to show the game just after (its `seq`)"},
    )


class ReplaySchema(ma.Schema):
    """A game as it was just after one of its events."""

    seq = fields.Integer(required=True, metadata={"description": "the event shown"})
    last_seq = fields.Integer(required=True, metadata={"description": "the game's last event"})
    event = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(allow_none=True),
        required=True,
        metadata={"description": "the event, as the caller may see it (an `Event`)"},
    )
    view = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(allow_none=True),
        required=True,
        metadata={
            "description": "the game then, as `GET /games/{id}` shows it to the caller "
            "(a `GameView`: a seat's with its token, else the public one)"
        },
    )
    hands = fields.List(
        fields.List(fields.String()),
        allow_none=True,
        required=True,
        metadata={"description": "every hand then, once the game is over; else null"},
    )


def _whole_record(game: LoadedGame, events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The server's own whole record of a game (its secret included, never
    answered): what `replay_record` replays."""
    state = game.state
    return {
        "format": FORMAT,
        "view": "full",
        "deal": state.deal,
        "game_secret": state.game_secret,
        "preset": state.preset,
        "options": views.options_json(state.options),
        "seats": [
            {"name": seat.name, "kind": seat.kind, "bot": seat.bot, "client_seed": seat.client_seed}
            for seat in state.seats
        ],
        "events": list(events),
    }


@blp.route("/<string:game_id>/replay", parameters=[GAME_ID_PARAMETER, IF_NONE_MATCH_PARAMETER])
class Replay(MethodView):
    """A game stepped through event by event."""

    @blp.arguments(ReplayQuerySchema(), location="query")
    @blp.response(200, ReplaySchema, headers=ETAG_HEADER)
    @blp.alt_response(304, description="Not modified since the ETag in If-None-Match")
    @blp.problem(401, "No seat token while the game runs (`missing_token`), or a wrong one")
    @blp.problem(404, "No such game (`game_not_found`), or no event `seq` (`event_not_found`)")
    @blp.problem(
        409,
        "The game cannot be replayed (`replay_unavailable`): not started, not dealt at "
        "random, or its first events no longer kept",
    )
    @blp.problem(422, "`seq` is not a whole number of 1 or more")
    @common_errors(blp, 400, 429, 503)
    @blp.doc(operationId="getReplay", security=SEAT_OPTIONAL)
    def get(self, query: dict[str, Any], game_id: str) -> Response:
        """A game as it was just after one of its events

        The game's deals and every move up to event `seq` replayed by the rules
        engine: with a seat token, that seat's view then (its own hand, never
        another's or the stock), at any time; without one, once the game is
        over, the public view and every hand (`hands`). What `/play`'s replay
        steps through.
        """
        game, seat = caller_seat(load_game(game_id))
        finished = game.state.status == "finished"
        if seat is None and not finished:
            raise Problem(
                401,
                "missing_token",
                "A game in play is replayed from a seat's point of view: "
                "Authorization: Bearer <seat token>.",
                headers={"WWW-Authenticate": 'Bearer realm="rummy"'},
            )
        if game.state.status == "waiting":
            raise Problem(409, "replay_unavailable", "The game has not started.")
        seq = int(query["seq"])

        def answer(headers: dict[str, str]) -> Response:
            events = get_store().events(game_id, 0)
            try:
                state = replay_record(_whole_record(game, events), seq)
            except RecordRefused as exc:
                if exc.field == "seq":
                    raise Problem(404, "event_not_found", f"{exc.detail}.") from None
                raise Problem(409, "replay_unavailable", f"{exc.detail}.") from None
            shown = visible_events([e for e in events if e["seq"] == seq], seat)
            event = shown[0] if shown else {"seq": seq}
            head: dict[str, Any] = {"id": game_id, "version": int(event.get("version", 0))}
            if seat is not None:
                view = views.seat_view(state, seat, head=head)
            else:
                view = {**head, **views.public_view(state)}
            view["last_event"] = seq
            round_ = state.round
            hands = [list(h) for h in round_.hands] if finished and round_ is not None else None
            body = {"seq": seq, "last_seq": game.last_event, "event": event, "view": view}
            response = Response(orjson.dumps({**body, "hands": hands}), 200, mimetype=JSON)
            response.headers.update(headers)
            return response

        # A game's replay at one event changes only with the game (its ETag).
        response = conditional_get(game.version, answer, game.epoch)
        response.headers["Vary"] = "Authorization"
        response.headers["Cache-Control"] = (
            SEAT_CACHE_CONTROL if seat is not None else FULL_CACHE_CONTROL
        )
        return response


# --- the derived descriptions --------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
#: Where the record's JSON Schema is committed.
SCHEMA_FILE = ROOT / "openapi/record.schema.json"


def record_json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of a record, from `RecordSchema` (its parts in `$defs`)."""
    from apispec import APISpec
    from apispec.ext.marshmallow import MarshmallowPlugin

    spec = APISpec("record", "1", "3.1.0", plugins=[MarshmallowPlugin()])
    spec.components.schema("Record", schema=RecordSchema)
    parts = spec.to_dict()["components"]["schemas"]
    text = json.dumps(parts).replace("#/components/schemas/", "#/$defs/")
    defs = json.loads(text)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rummy.invalid/openapi/record.schema.json",
        "title": FORMAT,
        "description": "A game's record (docs/records.md).",
        "$ref": "#/$defs/Record",
        "$defs": dict(sorted(defs.items())),
    }


def schema_text() -> str:
    """`openapi/record.schema.json` as it is committed."""
    return json.dumps(record_json_schema(), indent=2, sort_keys=False) + "\n"


def _type_of(field: fields.Field[Any]) -> str:
    if isinstance(field, fields.List):
        assert field.inner is not None
        kind = f"list of {_type_of(field.inner)}"
    elif isinstance(field, fields.Nested | fields.Dict):
        kind = "object"
    elif isinstance(field, fields.Integer):
        kind = "integer"
    elif isinstance(field, fields.Boolean):
        kind = "boolean"
    elif isinstance(field, fields.String):
        kind = "string"
    else:
        kind = "any"
    return kind + (" or null" if field.allow_none else "")


def _rows(schema: type[ma.Schema], prefix: str) -> Iterator[str]:
    for name, field in schema().fields.items():
        path = f"{prefix}{name}"
        description = str(field.metadata.get("description", "")).replace("|", "\\|")
        yield f"| `{path}` | {_type_of(field)} | {description} |"
        inner = field.inner if isinstance(field, fields.List) else field
        if isinstance(inner, fields.Nested):
            nested = inner.nested
            assert isinstance(nested, type)
            suffix = "[]." if isinstance(field, fields.List) else "."
            yield from _rows(nested, path + suffix)


def record_table() -> str:
    """docs/records.md's table of a record's fields, from `RecordSchema`."""
    return "\n".join(["| field | type | what |", "|---|---|---|", *_rows(RecordSchema, "")])


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m service.api.records schema [--write]``: print (or write) the
    record's JSON Schema; ``table``: print the docs table."""
    parser = argparse.ArgumentParser(prog="python -m service.api.records")
    parser.add_argument("what", choices=["schema", "table"])
    parser.add_argument("--write", action="store_true", help=f"write {SCHEMA_FILE.name}")
    args = parser.parse_args(argv)
    if args.what == "table":
        print(record_table())
    elif args.write:
        SCHEMA_FILE.write_text(schema_text())
    else:
        sys.stdout.write(schema_text())
    return 0


__all__ = ["RecordSchema", "blp", "build_record", "record_table", "transcript"]


if __name__ == "__main__":
    sys.exit(main())
