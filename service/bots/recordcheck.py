"""Check a downloaded game record (``rummy-record/1``, docs/records.md) offline.

`verify_record` checks what a record claims against itself and the commitments it
carries: the events are every event of the game in order; each revealed secret
is the one committed to and comes from the game secret and the client seeds;
each round's deal is the one its secret gives (hands, up-card, stock order) and
every card the events move is one the seat holds in a replay from that deal
(`service.bots.dealcheck`, standard library only); every round's points add up
to its totals and the final totals and winners are the ones the events give.
With the rules engine importable (`service.rules`) and `engine` true it also
replays every move through the engine, from the same secrets, and requires the
engine's events to be the record's: every move legal, every consequence (a
refill, a round's end, the scores, the winners) the one the rules give.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from service.bots.dealcheck import Report, dealt_size, derive_deal, verify_game

#: The format a record names (`format`), and the only one this module reads.
FORMAT = "rummy-record/1"

#: The fields the store adds to an event (not the engine's).
_STORED = ("seq", "version", "at")
#: Events the engine does not make (the turn clock's and the API's).
_NOT_ENGINE = {"seat_away", "seat_back"}


def _merge(report: Report, other: Report) -> None:
    report.lines += other.lines
    report.mismatches += other.mismatches
    report.missing += other.missing


def _bare(event: Mapping[str, Any]) -> Any:
    """The event as the engine made it: without the store's fields, as JSON gives it."""
    return json.loads(json.dumps({k: v for k, v in event.items() if k not in _STORED}))


def verify_record(record: Mapping[str, Any], engine: bool = True) -> Report:
    """Check a record (see the module docstring); `engine`: replay the moves with
    the rules engine when it is importable."""
    report = Report()
    if record.get("format") != FORMAT:
        report.expect(False, f"the record's format is {FORMAT}")
        return report
    events: list[dict[str, Any]] = list(record.get("events") or [])
    seqs = [event.get("seq") for event in events]
    if events and seqs[0] != 1:
        report.unchecked(f"the record starts at event {seqs[0]}: the events before are gone")
    elif not report.expect(
        seqs == list(range(1, len(events) + 1)),
        "the record holds the game's events in order (seq 1, 2, …)",
    ):
        return report
    _check_rounds(report, record, events)
    _check_scores(report, record, events)
    if record.get("deal") != "random":
        report.note(f"the game is dealt {record.get('deal')!r}: it has no commitments")
        return report
    rounds = [r for r in record.get("rounds", []) if r.get("secret") is not None]
    view = {
        "deal": record["deal"],
        "options": record["options"],
        "seats": record["seats"],
        "you": record.get("you"),
        "rounds": [
            {"number": r["number"], "secret": r["secret"], "deal_commitment": r["deal_commitment"]}
            for r in rounds
        ],
        "game_secret": record.get("game_secret"),
        "game_commitment": record.get("game_commitment"),
    }
    _merge(report, verify_game(view, events))
    for rec in rounds:
        _check_deal(report, record, events, rec)
    if record.get("view") != "full":
        # A seat's or the public record lacks others' cards: no engine replay.
        report.note("not a whole record: moves not replayed with the rules engine")
    elif engine and record.get("game_secret") is not None and not report.mismatches:
        replay_with_engine(report, record, events)
    return report


def _round_event(events: Sequence[dict[str, Any]], kind: str, number: int) -> dict[str, Any] | None:
    return next((e for e in events if e.get("type") == kind and e.get("number") == number), None)


def _check_rounds(report: Report, record: Mapping[str, Any], events: list[dict[str, Any]]) -> None:
    """Each round the record lists says what its events say."""
    for rec in record.get("rounds", []):
        number = rec.get("number")
        start = _round_event(events, "round_started", number)
        end = _round_event(events, "round_ended", number)
        if start is None:
            report.unchecked(f"round {number}: its round_started event is not in the record")
            continue
        report.expect(
            all(rec.get(k) == start.get(k) for k in ("dealer", "first", "deal_commitment")),
            f"round {number}: its dealer, first player and commitment are its round_started's",
        )
        result = rec.get("result")
        if end is None:
            report.expect(result is None, f"round {number}: no result before its round_ended")
            continue
        report.expect(
            result is not None
            and all(result.get(k) == end.get(k) for k in RESULT_KEYS)
            and rec.get("secret") == end.get("secret"),
            f"round {number}: its result and secret are its round_ended's",
        )


#: The fields of a round's result, as its ``round_ended`` event gives them.
RESULT_KEYS = ("reason", "winner", "rummy", "points", "hands", "scores")


def _check_scores(report: Report, record: Mapping[str, Any], events: list[dict[str, Any]]) -> None:
    """Every round's totals are the totals before it plus its points (a re-engaged
    or rejoining seat starts again at the total its event gives), and the record's
    final totals and winners are the game's end's."""
    players = len(record.get("seats", []))
    # The totals before the first round the record holds (unknown when the
    # record starts later: that round's totals are taken as they are).
    totals: list[int] | None = [0] * players if events and events[0].get("seq") == 1 else None
    ended = None
    for event in events:
        kind = event.get("type")
        if kind == "round_ended":
            points = event.get("points") or []
            if totals is not None:
                expected = [totals[i] + points[i] for i in range(min(players, len(points)))]
                report.expect(
                    event.get("scores") == expected,
                    f"round {event.get('number')}: the totals are the totals before plus its "
                    "points",
                )
            totals = list(event.get("scores") or [])
        elif kind in ("reengaged", "seat_rejoined") and event.get("score") is not None:
            if totals is not None:
                totals[event["seat"]] = event["score"]
        elif kind == "game_ended":
            ended = event
    if ended is None:
        return
    if totals is None:  # no round's end in the record: the game's end is all there is
        totals = list(ended.get("scores") or [])
    report.expect(
        ended.get("scores") == totals
        and record.get("scores") == totals
        and record.get("winners") == ended.get("winners"),
        "the final totals and winners are the ones the rounds give",
    )


def _check_deal(
    report: Report,
    record: Mapping[str, Any],
    events: list[dict[str, Any]],
    rec: Mapping[str, Any],
) -> None:
    """The deal the record shows for a round is the one its secret gives."""
    number = rec["number"]
    start = _round_event(events, "round_started", number)
    shown = rec.get("deal")
    if start is None or shown is None:
        return
    try:
        secret = bytes.fromhex(rec["secret"])
    except ValueError:
        return  # verify_game named the bad secret already
    sizes = start.get("hand_sizes") or [None if h is None else len(h) for h in start["hands"]]
    dealt = [size is not None for size in sizes]
    derived = derive_deal(
        record["options"], secret, start["dealer"], dealt, dealt_size(record["options"], sizes)
    )
    report.expect(
        shown == derived,
        f"round {number}: the record's deal (hands, up-card, stock) is the one its secret gives",
    )
    if "hands" in start:
        report.expect(
            all(
                (h is None and d is None)
                or (h is not None and d is not None and sorted(h) == sorted(d))
                for h, d in zip(start["hands"], derived["hands"], strict=False)
            )
            and len(start["hands"]) == len(derived["hands"]),
            f"round {number}: every hand dealt is the derived one",
        )


def replay_with_engine(
    report: Report, record: Mapping[str, Any], events: list[dict[str, Any]]
) -> bool:
    """Replay every move of a finished record through the rules engine, from its
    game secret and client seeds; the engine's events must be the record's.
    `False` (and a note) when the rules engine cannot be imported."""
    try:
        from service.rules import engine
        from service.rules.moves import (
            DeclineReengage,
            Discard,
            Draw,
            IllegalMove,
            LayOff,
            Meld,
            Move,
            Reengage,
            SwapJoker,
        )
        from service.rules.options import OptionsError, options_from_json
        from service.rules.state import GameState
    except ImportError:  # pragma: no cover - the service is installed in the tests
        report.note("the rules engine is not importable: moves not replayed with it")
        return False
    import dataclasses

    def move_of(event: Mapping[str, Any]) -> Move | None:
        kind = event.get("type")
        if kind == "drew":
            return Draw(str(event["source"]))
        if kind == "melded":
            return Meld(tuple(event["meld"]["cards"]))
        if kind == "laid_off":
            return LayOff(int(event["meld"]), tuple(event["cards"]))
        if kind == "joker_swapped":
            return SwapJoker(int(event["meld"]), str(event["card"]))
        if kind == "discarded":
            return Discard(str(event["card"]))
        if kind == "reengaged":
            return Reengage()
        if kind == "reengage_declined":
            return DeclineReengage()
        return None

    seats = record.get("seats", [])
    created = events[0] if events and events[0].get("type") == "game_created" else None
    if created is None:
        report.unchecked("the record has no game_created event: moves not replayed")
        return True
    try:
        options = options_from_json(record["options"])
        state, _ = engine.new_game(
            options,
            str(record["preset"]),
            [engine.SeatSpec(None, "human", None, None)] * len(seats),
        )
    except (OptionsError, KeyError, TypeError, ValueError) as exc:
        report.expect(False, f"the rules engine cannot set the game up: {exc}")
        return True
    state = dataclasses.replace(
        state, game_secret=record["game_secret"], first_dealer=created.get("first_dealer")
    )
    expected: deque[Any] = deque()
    # The seats taken when the game was created: taken here without their events.
    for seat in created.get("seats", []):
        if seat.get("name") is not None:
            state, made = _take(engine, state, seat["seat"], seat["name"], seats)
            expected.extend(_bare(e) for e in made if e.get("type") != "seat_taken")
    replayed = 0
    rest = [e for e in events[1:] if e.get("type") not in _NOT_ENGINE]
    for index, event in enumerate(rest):
        kind = event.get("type")
        if not expected:
            # The next action recorded (a refill or a round's end may be written
            # before the move that caused it): its events start here.
            action = next((e for e in rest[index:] if _is_action(e, move_of)), None)
            if kind == "round_ended" and event.get("reason") == "stock_exhausted":
                # A draw from a stock that is empty for good ends the round
                # without a `drew` event: the seat to move tried it.
                action = {"type": "drew", "source": "stock", "seq": event.get("seq")}
                action["seat"] = engine.seat_to_move(state)
            if action is None:
                report.expect(False, f"event {event.get('seq')} ({kind}) follows no move of a seat")
                return True
            try:
                state, acted = _act(engine, state, action, move_of, seats)
            except (IllegalMove, OptionsError) as exc:
                report.expect(
                    False,
                    f"event {action.get('seq')} ({action.get('type')}): the rules refuse it: {exc}",
                )
                return True
            expected.extend(_bare(e) for e in acted or [])
            replayed += 1
        if not expected or expected.popleft() != _bare(event):
            report.expect(
                False,
                f"event {event.get('seq')} ({kind}) is not what the rules engine makes there",
            )
            return True
    report.expect(
        not expected and isinstance(state, GameState) and state.status == "finished",
        f"the rules engine replays all {replayed} moves to the game's end, event for event",
    )
    return True


def _take(
    engine: Any, state: Any, seat: int, name: str, seats: Sequence[Mapping[str, Any]]
) -> tuple[Any, list[dict[str, Any]]]:
    seed = seats[seat].get("client_seed") if seat < len(seats) else None
    result: tuple[Any, list[dict[str, Any]]] = engine.take_seat(state, seat, name, None, seed)
    return result


def _is_action(event: Mapping[str, Any], move_of: Any) -> bool:
    """Whether `event` records something a seat did (a move, taking or leaving a seat)."""
    if event.get("type") in ("seat_taken", "seat_left"):
        return True
    return "seat" in event and move_of(event) is not None


def _act(
    engine: Any,
    state: Any,
    event: Mapping[str, Any],
    move_of: Any,
    seats: Sequence[Mapping[str, Any]],
) -> tuple[Any, list[dict[str, Any]] | None]:
    """Apply the action `event` records; `None` events when it records none."""
    kind = event.get("type")
    if kind == "seat_taken":
        return _take(engine, state, int(event["seat"]), str(event["name"]), seats)
    if kind == "seat_left":
        made: tuple[Any, list[dict[str, Any]]] = engine.leave_seat(state, int(event["seat"]))
        return made
    move = move_of(event)
    if move is None or "seat" not in event:
        return state, None
    applied: tuple[Any, list[dict[str, Any]]] = engine.apply(state, int(event["seat"]), move)
    return applied


__all__ = ["FORMAT", "RESULT_KEYS", "replay_with_engine", "verify_record"]
