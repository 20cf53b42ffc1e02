"""Marshmallow schemas: request shapes (checked) and response shapes (documented).

Request schemas check shape only — types, enums, bounded lengths; the engine
decides every rule. Response schemas document the contract in OpenAPI; the
hot path sends the engine's plain dicts without dumping them through here
(a test checks real answers against these documented shapes).
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from service.api.names import PlayerName
from service.bots.hints import REASON_CODES
from service.bots.levels import LEVELS
from service.bots.strategies import SEAT_STRATEGIES
from service.http.problems import PROBLEM_CODES
from service.rules.cards import CARD_PATTERN
from service.rules.events import EVENTS
from service.rules.fairness import CLIENT_SEED_PATTERN
from service.rules.moves import ERROR_CODES, MAX_CARDS, MOVE_TYPES
from service.rules.options import PRESETS
from service.rules.state import DEALS, PHASES, REASONS, STATUSES

#: A seat is played by a person (`human`, holding a token, or open while nobody
#: holds it) or by the server (`bot`).
SEAT_KINDS = ("human", "bot")

# Every accepted card code form, documented as a pattern; the engine parses the
# code and names a bad one in its 422 answer.
_card = fields.String(
    validate=validate.Length(min=1, max=8), metadata={"example": "H10", "pattern": CARD_PATTERN}
)


class WholeNumber(fields.Integer):
    """A JSON integer of a request body: `2` or `2.0`; never `2.5` (truncated) or `"2"`."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, str) or (isinstance(value, float) and not value.is_integer()):
            raise self.make_error("invalid")
        return int(super()._validated(value))


class _Response(ma.Schema):
    """Base of response schemas: more fields may be added without notice."""

    class Meta:
        unknown = ma.INCLUDE


# --- errors -----------------------------------------------------------------


class ProblemSchema(_Response):
    """RFC 9457 problem details, with a stable `code`."""

    type = fields.String(required=True, metadata={"description": "URI of the problem type"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    code = fields.String(
        required=True,
        metadata={
            "description": "stable snake_case reason, e.g. not_your_turn",
            "enum": list(PROBLEM_CODES),
        },
    )
    errors = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        metadata={"description": "field → messages, for invalid fields"},
    )


# --- presets ----------------------------------------------------------------


class PresetSchema(_Response):
    """A named rule set with the full value of every option."""

    name = fields.String(required=True)
    description = fields.String(required=True)
    options = fields.Dict(keys=fields.String(), values=fields.Raw(), required=True)


class PresetListSchema(_Response):
    """Every preset."""

    presets = fields.List(fields.Nested(PresetSchema), required=True)


# --- games: create, lobby, join ---------------------------------------------


#: A player's entropy for the deals (docs/fairness.md).
CLIENT_SEED = validate.Regexp(CLIENT_SEED_PATTERN, error="1 to 64 of A-Z a-z 0-9 _ -")
CLIENT_SEED_METADATA = {
    "description": "your entropy, mixed into every round secret of a game dealt at random "
    "(docs/fairness.md); shown in views",
    "pattern": CLIENT_SEED_PATTERN,
}


class SeatSpecSchema(ma.Schema):
    """A seat of a new game: `{"name": "Ann"}`, `{"name": null}` (open), `{"bot": "expert"}`
    or `{"bot": "expert", "level": 1}`."""

    name = PlayerName(allow_none=True)
    bot = fields.String(validate=validate.OneOf(SEAT_STRATEGIES))
    level = fields.Integer(
        strict=True,
        validate=validate.Range(min(LEVELS), max(LEVELS)),
        metadata={
            "description": "with `bot: expert`, how strong it plays: "
            + ", ".join(f"{n} {name}" for n, name in LEVELS.items())
            + ' (docs/bots.md, "Levels"); without, the expert plays as level '
            "4 does",
            "x-level-names": dict(LEVELS.items()),
        },
    )
    client_seed = fields.String(validate=CLIENT_SEED, metadata=CLIENT_SEED_METADATA)

    @ma.validates_schema
    def _one_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "bot" in data and data.get("name") is not None:
            raise ma.ValidationError("a seat has either a name or a bot", "bot")
        if "level" in data and data.get("bot") != "expert":
            raise ma.ValidationError("a level belongs to an expert bot seat", "level")
        if "client_seed" in data and data.get("name") is None:
            raise ma.ValidationError(
                "a client_seed belongs to a named seat (an open seat gives it when joining)",
                "client_seed",
            )


class FromRecordSchema(ma.Schema):
    """A finished game's record to continue from, and the version to continue at."""

    game = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": "a finished game's id: its whole record"},
    )
    record = fields.Dict(
        keys=fields.String(validate=validate.Length(max=64)),
        values=fields.Raw(allow_none=True),
        metadata={
            "description": "a whole record (`Record`, `view` `full`), as `GET "
            "/games/{id}/record` answers it after the end (within the body's size limit)"
        },
    )
    at_version = WholeNumber(
        required=True,
        validate=validate.Range(min=1, max=2**31 - 1),
        metadata={"description": "the game's version to continue at (its events carry them)"},
    )

    @ma.validates_schema
    def _one_source(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("game" in data) == ("record" in data):
            raise ma.ValidationError("give either a game or a record", "game")


class CreateGameSchema(ma.Schema):
    """Body of `POST /games`: `seats` (and what else to set), or `from_record`."""

    preset = fields.String(
        load_default="standard",
        validate=validate.Length(min=1, max=64),
        metadata={"enum": sorted(PRESETS)},
    )
    options = fields.Dict(keys=fields.String(validate=validate.Length(max=64)), values=fields.Raw())
    seats = fields.List(
        fields.Nested(SeatSpecSchema),
        validate=validate.Length(min=2, max=6),
        metadata={"description": "every seat; required unless `from_record`"},
    )
    seed = WholeNumber(allow_none=True, validate=validate.Range(min=0, max=2**63 - 1))
    deck = fields.List(_card, allow_none=True, validate=validate.Length(min=52, max=MAX_CARDS))
    first_dealer = WholeNumber(allow_none=True, validate=validate.Range(min=0, max=5))
    from_record = fields.Nested(
        FromRecordSchema,
        metadata={
            "description": "continue a finished game from one of its versions: its "
            "preset, options, seats and deals, every move to `at_version` replayed "
            "(docs/records.md); nothing else may then be given"
        },
    )

    @ma.validates_schema(pass_original=True)
    def _seats_or_record(self, data: dict[str, Any], original: Any, **kwargs: Any) -> None:
        if "from_record" not in data:
            if "seats" not in data:
                raise ma.ValidationError("Missing data for required field.", "seats")
            return
        # Every other member is what the record gives (preset, options, seats, deals).
        given = [name for name in self.fields if name != "from_record" and name in (original or {})]
        if given:
            raise ma.ValidationError(
                "a game continued from a record takes the record's preset, options, "
                "seats and deals",
                given[0],
            )


class CreatedSeatSchema(_Response):
    """A seat of a created game; `token` only for seats taken by this request."""

    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True)
    kind = fields.String(required=True, metadata={"enum": list(SEAT_KINDS)})
    token = fields.String(metadata={"description": "the seat's secret, shown only once"})


class CreatedSchema(_Response):
    """Answer of `POST /games`."""

    id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, metadata={"enum": list(STATUSES)})
    seats = fields.List(fields.Nested(CreatedSeatSchema), required=True)


class LobbyQuerySchema(ma.Schema):
    """Query of `GET /games`."""

    status = fields.String(load_default="waiting", validate=validate.OneOf(["waiting"]))
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = fields.String(validate=validate.Length(min=1, max=200))
    preset = fields.String(
        validate=validate.Length(min=1, max=64),
        metadata={"description": "only games of this preset"},
    )
    open_seats = fields.Integer(
        validate=validate.Range(min=1, max=6),
        metadata={"description": "only games with at least this many open seats"},
    )


#: How a game's cards are dealt, as views, lobby summaries and `game_created` say.
DEAL_METADATA = {
    "enum": list(DEALS),
    "description": "`random`: from secrets committed before each round and revealed after "
    "it (docs/fairness.md); `seeded`: from the creator's `seed`; `explicit`: the first "
    "round from the creator's `deck`; `replayed`: the deals of the finished game a "
    "`from_record` continues (known to whoever has its record). Games with an open "
    "seat are always `random`.",
}


class LobbySeatSchema(_Response):
    """A seat in a lobby summary."""

    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True)
    kind = fields.String(required=True, metadata={"enum": list(SEAT_KINDS)})
    open = fields.Boolean(required=True)


class LobbyGameSchema(_Response):
    """Public summary of a game waiting for players."""

    id = fields.String(required=True)
    preset = fields.String(required=True)
    deal = fields.String(required=True, metadata=DEAL_METADATA)
    seats = fields.List(fields.Nested(LobbySeatSchema), required=True)
    created = fields.String(required=True)


class LobbyPageSchema(_Response):
    """One page of the lobby; pass `next_cursor` as `cursor` for the next page."""

    games = fields.List(fields.Nested(LobbyGameSchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True)
    queued = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={
            "description": "quick-play demand: `<preset>:<players>` → tickets waiting for "
            "that table (`GET /queue`; with `preset`, that preset's tables only)"
        },
    )


class JoinSchema(ma.Schema):
    """Body of `POST /games/{id}/join`."""

    name = PlayerName(required=True)
    seat = WholeNumber(validate=validate.Range(min=0, max=5))
    client_seed = fields.String(validate=CLIENT_SEED, metadata=CLIENT_SEED_METADATA)


# --- views ------------------------------------------------------------------


class MeldLayoutSchema(_Response):
    """A meld as the table shows it: its kind, its cards in table order, its jokers."""

    type = fields.String(required=True, metadata={"enum": ["set", "run"]})
    cards = fields.List(fields.String(), required=True)
    jokers = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        metadata={
            "description": "Only when the meld holds jokers: the index of each joker in "
            "`cards` (as a string) mapped to the card it stands for, e.g. "
            '`{"cards": ["H7", "JK", "H9"], "jokers": {"1": "H8"}}`.',
            "example": {"1": "H8"},
        },
    )


class MeldSchema(MeldLayoutSchema):
    """A meld on the table."""

    id = fields.Integer(required=True)
    owner = fields.Integer(allow_none=True)


class RoundSchema(_Response):
    """The round being played."""

    number = fields.Integer(required=True)
    dealer = fields.Integer(required=True)
    turn = fields.Integer(allow_none=True, required=True)
    phase = fields.String(
        allow_none=True,
        required=True,
        metadata={"enum": [*PHASES, None], "description": "`draw` until the seat to play draws"},
    )
    stock_size = fields.Integer(required=True)
    refills = fields.Integer(required=True)
    discard_pile = fields.List(fields.String(), required=True)
    taken_discard = fields.String(allow_none=True)
    melds = fields.List(fields.Nested(MeldSchema), required=True)
    deal_commitment = fields.String(
        allow_none=True,
        metadata={
            "description": "SHA-256 of the round's secret (hex); null unless dealt at random"
        },
    )


class FinishedRoundSchema(_Response):
    """A finished round: every hand is revealed."""

    number = fields.Integer(required=True)
    reason = fields.String(required=True, metadata={"enum": list(REASONS)})
    winner = fields.Integer(allow_none=True)
    rummy = fields.Boolean()
    points = fields.List(fields.Integer(), required=True)
    hands = fields.List(fields.List(fields.String()), required=True)
    deal_commitment = fields.String(allow_none=True)
    secret = fields.String(
        allow_none=True,
        metadata={"description": "the round's secret (hex), revealed now the round is over"},
    )


class ViewSeatSchema(_Response):
    """A seat as everybody may see it."""

    seat = fields.Integer(required=True)
    name = fields.String(allow_none=True, required=True)
    kind = fields.String(required=True, metadata={"enum": list(SEAT_KINDS)})
    hand_size = fields.Integer(required=True)
    score = fields.Integer(required=True)
    has_melded = fields.Boolean()
    eliminated = fields.Boolean()
    deciding = fields.Boolean(
        metadata={
            "description": "eliminated by the round's end, this seat is to decide whether to "
            "re-engage before the next deal (see the view's `reengage`)"
        }
    )
    reengaged = fields.Integer(metadata={"description": "times this seat has re-engaged"})
    chips_in = fields.Integer(
        metadata={"description": "chips this seat put in the pot (option `stake`; 0 without)"}
    )
    chips_out = fields.Integer(
        metadata={"description": "chips this seat took out of the pot at the game's end"}
    )
    away = fields.Boolean(
        metadata={"description": "the server plays this seat until its player is back"}
    )
    client_seed = fields.String(allow_none=True)
    known_cards = fields.List(
        fields.String(),
        metadata={
            "description": "cards everybody saw this seat take this round (from the discard "
            "pile, or a joker swapped off the table) and not yet played"
        },
    )


class ReengageOfferSchema(_Response):
    """The re-engage decision the next deal waits for (elimination games)."""

    seats = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "the seats still to decide: `reengage` or `decline_reengage`"},
    )
    score = fields.Integer(
        required=True,
        metadata={
            "description": "the total a seat that re-engages comes back with: the highest "
            "among the players still in"
        },
    )
    chips = fields.Integer(
        allow_none=True,
        required=True,
        metadata={
            "description": "chips re-engaging puts in the pot (half the stake); null "
            "without a stake"
        },
    )
    deadline = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "format": "date-time",
            "description": "when an undecided player declines (turn clock); null without one",
        },
    )


class GameViewSchema(_Response):
    """A game as the caller may see it: `you` and `hand` only in a seat's view."""

    id = fields.String(required=True)
    version = fields.Integer(required=True)
    status = fields.String(required=True, metadata={"enum": list(STATUSES)})
    preset = fields.String(required=True)
    options = fields.Dict(keys=fields.String(), values=fields.Raw(), required=True)
    deal = fields.String(required=True, metadata=DEAL_METADATA)
    game_commitment = fields.String(
        allow_none=True,
        metadata={"description": "SHA-256 of the game secret (hex); null unless dealt at random"},
    )
    game_secret = fields.String(
        allow_none=True, metadata={"description": "the game secret (hex), once the game is over"}
    )
    you = fields.Integer()
    hand = fields.List(fields.String())
    seats = fields.List(fields.Nested(ViewSeatSchema), required=True)
    round = fields.Nested(RoundSchema, allow_none=True, required=True)
    rounds = fields.List(fields.Nested(FinishedRoundSchema), required=True)
    winners = fields.List(fields.Integer(), allow_none=True, required=True)
    last_event = fields.Integer(required=True)
    turn_deadline = fields.String(
        allow_none=True,
        metadata={
            "format": "date-time",
            "description": "when the turn of the seat to move runs out (RFC 3339); null "
            "without a turn clock (`turn_seconds`)",
        },
    )
    now = fields.String(
        metadata={"format": "date-time", "description": "the server's time of this answer"}
    )
    pot = fields.Integer(
        allow_none=True,
        metadata={"description": "chips in the pot now (option `stake`); null without a stake"},
    )
    reengage = fields.Nested(
        ReengageOfferSchema,
        allow_none=True,
        metadata={
            "description": "between rounds, the re-engage decision the next deal "
            "waits for; null otherwise"
        },
    )
    next_game = fields.String(
        allow_none=True,
        metadata={
            "description": "the id of the rematch of this finished game (`POST "
            "/games/{id}/rematch`); null until a player asks for one"
        },
    )


class JoinedSchema(_Response):
    """Answer of `POST /games/{id}/join`."""

    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "shown only once"})
    game = fields.Nested(GameViewSchema, required=True)


class RematchedSchema(_Response):
    """Answer of `POST /games/{id}/rematch`: the caller's seat of the next game."""

    seat = fields.Integer(required=True, metadata={"description": "the seat in the next game"})
    token = fields.String(
        required=True,
        metadata={
            "description": "the seat token of the next game: the same for every call "
            "with the same token of this game"
        },
    )
    game = fields.Nested(GameViewSchema, required=True, metadata={"description": "the next game"})


# --- moves ------------------------------------------------------------------


class UnavailableSchema(_Response):
    """Why no move of one kind is legal now."""

    code = fields.String(
        required=True,
        metadata={
            "enum": list(ERROR_CODES),
            "description": "the code a move of this kind would be refused with now",
        },
    )
    detail = fields.String(required=True)
    needed = fields.Integer(
        metadata={
            "description": "the points needed (a first-meld minimum), when a figure is "
            "behind the code"
        }
    )
    have = fields.Integer(metadata={"description": "the points the seat has towards them"})


class LegalMovesSchema(_Response):
    """Every move the caller may make now, and why each other kind is not legal."""

    version = fields.Integer(required=True)
    # Items: the `Move` component (see spec_overrides).
    moves = fields.List(fields.Dict(), required=True)
    laid_out = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(MeldLayoutSchema),
        metadata={
            "description": "Only when a listed meld holds a joker: for each such meld, by "
            "its index in `moves` (as a string), the meld as the table would show it once "
            "made, so a client can say what each joker would stand for",
            "example": {"0": {"type": "run", "cards": ["H5", "JK", "H7"], "jokers": {"1": "H6"}}},
        },
    )
    unavailable = fields.Dict(
        keys=fields.String(metadata={"enum": list(MOVE_TYPES)}),
        values=fields.Nested(UnavailableSchema),
        metadata={
            "description": "per move type with no move listed, why none is legal now (the "
            "refusal code, its words and any figures), so a client can say why a control "
            "is disabled"
        },
    )


class HintReasonSchema(_Response):
    """Why the hinted move: a stable code, a sentence, and the figures behind it."""

    code = fields.String(
        required=True,
        metadata={"enum": list(REASON_CODES), "description": "why, in one stable word"},
    )
    detail = fields.String(required=True, metadata={"description": "why, in English"})
    card = fields.String(
        allow_none=True, metadata={"description": "the card the move throws or takes"}
    )
    cards = fields.List(fields.String(), metadata={"description": "the cards the move plays"})
    meld = fields.Integer(metadata={"description": "the table meld a lay-off or swap is on"})
    builds = fields.List(
        fields.List(fields.String()),
        metadata={"description": "the melds of the hand's best split after the move"},
    )
    deadwood = fields.Integer(metadata={"description": "the points left in no meld after the move"})
    outs = fields.Integer(
        metadata={"description": "unseen cards that would have melded the thrown card"}
    )
    feeds_table = fields.Boolean(
        metadata={"description": "whether the thrown card can be laid off on a table meld"}
    )
    feeds_next = fields.Boolean(
        metadata={"description": "whether the next player was seen taking cards like it"}
    )


class HintSchema(_Response):
    """The move the expert bot would make now for the caller's seat, and why."""

    version = fields.Integer(required=True, metadata={"description": "the game's version"})
    # The `Move` component (see spec_overrides): a body `POST /games/{id}/moves` takes as is.
    move = fields.Dict(required=True)
    reason = fields.Nested(HintReasonSchema, required=True)


# --- events -----------------------------------------------------------------


class EventsQuerySchema(ma.Schema):
    """Query of `GET /games/{id}/events`."""

    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**53))
    wait = fields.Float(load_default=0.0, validate=validate.Range(min=0, max=30))


class StreamQuerySchema(ma.Schema):
    """Query of `GET /games/{id}/stream`."""

    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=2**53))


class EventSchema(_Response):
    """An event as the caller may see it; more fields depend on `type`."""

    seq = fields.Integer(required=True)
    version = fields.Integer(required=True)
    type = fields.String(required=True, metadata={"enum": list(EVENTS)})
    at = fields.String(required=True)
    seat = fields.Integer(allow_none=True)


class EventsSchema(_Response):
    """Events after `after`; `last` is the sequence to pass as `after` next."""

    events = fields.List(fields.Nested(EventSchema), required=True)
    last = fields.Integer(required=True)


# --- health -----------------------------------------------------------------


class HealthSchema(_Response):
    """Liveness or readiness."""

    status = fields.String(required=True)


# --- quick play --------------------------------------------------------------


class EnqueueSchema(ma.Schema):
    """Body of `POST /queue`: the tables a player accepts, and who they are."""

    preset = fields.String(
        validate=validate.OneOf(list(PRESETS)),
        metadata={"description": "the one preset accepted (or give `presets`)"},
    )
    presets = fields.List(
        fields.String(validate=validate.OneOf(list(PRESETS))),
        validate=validate.Length(min=1, max=len(PRESETS)),
        metadata={"description": "the presets accepted, any of them (or give `preset`)"},
    )
    players = WholeNumber(
        validate=validate.Range(min=2, max=6),
        metadata={"description": "the table's player count (or give `min_players`/`max_players`)"},
    )
    min_players = WholeNumber(validate=validate.Range(min=2, max=6))
    max_players = WholeNumber(validate=validate.Range(min=2, max=6))
    name = PlayerName(required=True)
    bots_allowed = fields.Boolean(
        load_default=False,
        metadata={
            "description": "whether bots may fill the table once the ticket has waited "
            "`QUEUE_BOT_FILL_SECONDS`"
        },
    )
    client_seed = fields.String(validate=CLIENT_SEED, metadata=CLIENT_SEED_METADATA)

    @ma.validates_schema
    def _one_of_each(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("preset" in data) == ("presets" in data):
            raise ma.ValidationError("give exactly one of preset and presets", "preset")
        ranged = "min_players" in data or "max_players" in data
        if ("players" in data) == ranged:
            raise ma.ValidationError("give players, or min_players and max_players", "players")
        if ranged:
            low, high = data.get("min_players", 2), data.get("max_players", 6)
            if low > high:
                raise ma.ValidationError("min_players is above max_players", "min_players")


class TicketQuerySchema(ma.Schema):
    """Query of `GET /queue/{ticket}`."""

    wait = fields.Float(
        load_default=0.0,
        validate=validate.Range(min=0, max=30),
        metadata={"description": "seconds to wait until the ticket is matched"},
    )


class TicketSchema(_Response):
    """A quick-play ticket as its holder sees it."""

    ticket = fields.String(required=True, metadata={"description": "the ticket's id"})
    status = fields.String(required=True, metadata={"enum": ["waiting", "matched"]})
    tables = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the tables accepted, `<preset>:<players>` each"},
    )
    bots_allowed = fields.Boolean(required=True)
    queued = fields.String(required=True, metadata={"description": "when queued (ISO 8601)"})
    expires = fields.String(required=True, metadata={"description": "when forgotten (ISO 8601)"})
    waiting = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={"description": "tickets waiting for each accepted table, this one included"},
    )
    game = fields.String(allow_none=True, required=True, metadata={"description": "once matched"})
    seat = fields.Integer(allow_none=True, required=True)
    token = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "once matched: the seat's token (the same on every read by "
            "the ticket's secret; never stored)"
        },
    )


class EnqueuedSchema(TicketSchema):
    """The answer of `POST /queue`: the ticket, with its secret (shown only this once)."""

    secret = fields.String(
        required=True,
        metadata={"description": "the ticket's secret: `Authorization: Bearer <secret>`"},
    )


class DemandSchema(_Response):
    """Queued quick-play demand: waiting tickets per table."""

    waiting = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={"description": "`<preset>:<players>` → tickets waiting for that table"},
    )
