"""A game continued from a record: dealt and played exactly to one of its versions.

`POST /games` with ``from_record`` (service/api/games.py) makes a new game of a
finished game's whole record (`rummy-record/1`, ``view`` ``full``; docs/records.md)
as it stood at ``at_version``: the record's preset, options and seats (names,
bots, client seeds), dealt from its revealed game secret (``deal``
``replayed``: every round's secret, and so every deal and first dealer, is the
record's), then every move of its events up to that version replayed by the
rules engine. Each replayed move must make the events the record shows (the
cards drawn above all): a record whose moves are not legal, or whose events
the deals do not give, is refused, so a forged record yields no game.

Only the moves are replayed: a seat that left or was marked away in the
record is played as the new game's seats say (every person's seat has a
token of its own), and a turn clock starts afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from service.bots.recordcheck import FORMAT
from service.bots.strategies import SEAT_STRATEGIES
from service.rules import engine
from service.rules.moves import IllegalMove, Move, MoveFormatError, parse_move
from service.rules.options import OptionsError, resolve_options
from service.rules.state import GameState

__all__ = ["MOVE_OF_EVENT", "Continued", "RecordRefused", "continue_record", "replay_record"]

#: The move that made each kind of event a move makes (the other events follow
#: from the moves and the deals: they are compared, not replayed).
MOVE_OF_EVENT: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "drew": lambda e: {"type": "draw", "source": e["source"]},
    "melded": lambda e: {"type": "meld", "cards": e["meld"]["cards"]},
    "laid_off": lambda e: {"type": "layoff", "meld": e["meld"], "cards": e["cards"]},
    "joker_swapped": lambda e: {"type": "swap_joker", "meld": e["meld"], "card": e["card"]},
    "discarded": lambda e: {"type": "discard", "card": e["card"]},
    "reengaged": lambda e: {"type": "reengage"},
    "reengage_declined": lambda e: {"type": "decline_reengage"},
}
#: Events of who sits where and plays how, not of the cards: not compared.
_SEATING = frozenset(
    {"game_created", "seat_taken", "seat_left", "seat_away", "seat_back", "rematch_offered"}
)
#: An event's members that say when and in which order it was saved.
_STAMPS = ("seq", "version", "at")


class RecordRefused(ValueError):
    """A record (or version) that cannot be continued: a stable ``code``, what is
    wrong, and the member of ``from_record`` it concerns (``""``: the record)."""

    def __init__(self, code: str, detail: str, field: str = "") -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.field = field


@dataclass(frozen=True)
class Continued:
    """The new game at the record's version, and the events that made it."""

    state: GameState
    events: list[dict[str, Any]]
    #: The seats a person plays (each gets a token).
    people: tuple[int, ...]


def _plain(event: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in event.items() if key not in _STAMPS}


def _checked(record: Mapping[str, Any]) -> tuple[str, str, dict[str, Any], list[Any], list[Any]]:
    """The record's secret, preset, options, seats and events, once they are a
    whole record's (else `RecordRefused`)."""
    if record.get("format") != FORMAT:
        raise RecordRefused("record_refused", f"the record's format is not {FORMAT}")
    secret = record.get("game_secret")
    if record.get("view") != "full" or record.get("deal") not in ("random", "replayed"):
        raise RecordRefused(
            "record_refused",
            "only the whole record of a game dealt at random (view `full`) can be "
            "replayed: its secret gives every deal",
        )
    if not isinstance(secret, str):
        raise RecordRefused("record_refused", "the record has no game secret")
    seats = record.get("seats")
    events = record.get("events")
    options = record.get("options")
    preset = record.get("preset")
    if not (
        isinstance(seats, list)
        and all(isinstance(seat, dict) for seat in seats)
        and isinstance(events, list)
        and all(isinstance(event, dict) for event in events)
        and isinstance(options, dict)
        and isinstance(preset, str)
    ):
        raise RecordRefused(
            "record_refused", "the record's preset, options, seats or events are not a record's"
        )
    if not events or events[0].get("seq") != 1 or events[0].get("type") != "game_created":
        raise RecordRefused("record_refused", "the record's events do not start with the game")
    if not all(type(e.get("version")) is int and type(e.get("seq")) is int for e in events):
        raise RecordRefused("record_refused", "every event of a record has its seq and version")
    return secret, preset, options, seats, events


def _replayed(
    record: Mapping[str, Any],
    beyond: Callable[[Mapping[str, Any]], bool],
    token_hashes: Callable[[int], str],
) -> tuple[Continued, int]:
    """The game of ``record`` dealt from its secret, its moves replayed up to the
    first one ``beyond`` says is past the point; and how many of the record's
    card events (not those of seating) the replay made, each the record's."""
    secret, preset, options, seats, events = _checked(record)
    try:
        resolved = resolve_options(preset, options, len(seats))
    except (OptionsError, TypeError, ValueError) as exc:
        raise RecordRefused("record_refused", f"the record's options: {exc}") from None
    specs = []
    people = []
    for index, seat in enumerate(seats):
        seed = seat.get("client_seed")
        if seed is not None and not isinstance(seed, str):
            raise RecordRefused("record_refused", f"seat {index}: its client seed is not text")
        if seat.get("kind") == "bot" and seed is None:
            bot = seat.get("bot")
            if bot not in SEAT_STRATEGIES:
                raise RecordRefused("record_refused", f"seat {index}: no bot {bot!r}")
            specs.append(engine.SeatSpec(None, "bot", str(bot), None))
        else:
            # A person's seat, or a leaver's (a bot by the end) whose seed the deals need.
            name = str(seat.get("name") or f"Player {index + 1}")
            specs.append(engine.SeatSpec(name, "human", None, token_hashes(index), seed))
            people.append(index)
    try:
        state, made = engine.new_game(resolved, preset, specs, game_secret=secret)
    except (OptionsError, ValueError) as exc:
        raise RecordRefused("record_refused", f"the record's seats: {exc}") from None
    expected = [_plain(e) for e in events if e.get("type") not in _SEATING]
    produced = [_plain(e) for e in made if e["type"] not in _SEATING]
    if produced != expected[: len(produced)]:
        raise RecordRefused("record_mismatch", "the record's first deal is not its secret's")
    for event in events:
        to_move = MOVE_OF_EVENT.get(str(event.get("type")))
        if to_move is None:
            continue
        if beyond(event):
            break
        seq = event["seq"]
        try:
            move: Move = parse_move(to_move(event))
            seat = event["seat"]
            if type(seat) is not int or not 0 <= seat < state.players:
                raise ValueError(f"no seat {seat!r}")
            state, caused = engine.apply(state, seat, move)
        except (IllegalMove, MoveFormatError, KeyError, TypeError, ValueError) as exc:
            raise RecordRefused(
                "record_mismatch", f"event {seq} ({event.get('type')}) does not replay: {exc}"
            ) from None
        made += caused
        start = len(produced)
        produced += [_plain(e) for e in caused if e["type"] not in _SEATING]
        if produced[start:] != expected[start : len(produced)]:
            raise RecordRefused(
                "record_mismatch",
                f"event {seq} ({event.get('type')}) replays to other events than the record's",
            )
    return Continued(state, made, tuple(people)), len(produced)


def continue_record(
    record: Mapping[str, Any],
    at_version: int,
    token_hashes: Callable[[int], str],
) -> Continued:
    """The game of ``record`` at ``at_version`` (`RecordRefused` if it cannot be
    made); each person's seat is given the token digest ``token_hashes(seat)``."""
    _, _, _, _, events = _checked(record)
    last = int(events[-1]["version"])
    if not 1 <= at_version <= last:
        raise RecordRefused(
            "record_refused", f"at_version must be 1 to {last}, the record's", "at_version"
        )
    continued, made = _replayed(record, lambda e: e["version"] > at_version, token_hashes)
    upto = sum(1 for e in events if e["version"] <= at_version and e["type"] not in _SEATING)
    if made != upto:
        raise RecordRefused(
            "record_mismatch", "the record's events up to at_version are not what its moves make"
        )
    if continued.state.status != "active":
        raise RecordRefused(
            "record_refused", f"the game is over at version {at_version}", "at_version"
        )
    return continued


def replay_record(record: Mapping[str, Any], seq: int) -> GameState:
    """The game of ``record`` just after its event ``seq``: every move up to it
    replayed (a move's events go together: an event a move made shows the state
    after that move). `RecordRefused` as `continue_record`."""
    _, _, _, _, events = _checked(record)
    last = int(events[-1]["seq"])
    if not 1 <= seq <= last:
        raise RecordRefused("record_refused", f"seq must be 1 to {last}", "seq")
    continued, _ = _replayed(record, lambda e: e["seq"] > seq, lambda _seat: "")
    return continued.state
