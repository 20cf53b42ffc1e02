"""Turn clocks: a deadline per human turn, the turn played for a seat whose time ran
out, seats marked away after repeated timeouts, and their players coming back.

A game with the option ``turn_seconds`` gives the human seat to move that many
seconds (`GameState.turn_deadline`, epoch ms, set by `stamp` on every save that
starts a new turn). When it passes, the runner (service/worker.py: the only
writer of timeouts) calls `time_out`: the seat draws, then discards the card the
``basic`` bot chooses (no melds: a player's plan is not played for them). After
``timeouts_to_away`` timeouts in a row the seat is marked away (event
``seat_away``) and the server's ``greedy`` bot plays its turns at once, with no
clock, until its player makes any authenticated request (`come_back`: event
``seat_back``). A move of the player's own resets the count (`moved`).

Every function is pure (a state in, a state and events out); `now_ms` is given
by the caller, so tests drive the clock.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from service.bots.strategies import choose_move
from service.rules import engine
from service.rules import events as vocab
from service.rules.events import Event
from service.rules.moves import DeclineReengage, Discard, Draw, Move
from service.rules.state import GameState
from service.rules.views import seat_view

#: The strategy that picks a timed-out turn's discard.
TIMEOUT_BOT = "basic"
#: The strategy that plays an away seat's turns (as it plays a leaver's).
AWAY_BOT = engine.LEAVER_BOT


def clocked_decision(state: GameState) -> tuple[int, ...]:
    """Between rounds of a game with ``turn_seconds``: the human seats (not away)
    still to decide whether to re-engage, whose time runs on the clock."""
    if state.options.turn_seconds is None or state.status != "active" or state.round is not None:
        return ()
    return tuple(
        i for i in state.deciding if state.seats[i].kind == "human" and not state.seats[i].away
    )


def clocked_seat(state: GameState) -> int | None:
    """The seat whose turn runs on the clock now: a human, not away, to move in an
    active game with ``turn_seconds``; else `None`."""
    if state.options.turn_seconds is None or state.status != "active" or state.round is None:
        return None
    seat = state.round.turn
    player = state.seats[seat]
    if player.kind != "human" or player.away:
        return None
    return seat


def _turn(state: GameState) -> tuple[int, int, int] | None:
    """What identifies the current turn: round number, turns played, seat; between
    rounds (a re-engage decision), the rounds played so far and -1 twice."""
    r = state.round
    if state.status != "active":
        return None
    if r is None:
        return (len(state.rounds), -1, -1) if state.deciding else None
    return (r.number, r.turns, r.turn)


def _runs(state: GameState) -> bool:
    """Whether a clock runs now: a clocked turn, or a clocked re-engage decision."""
    return clocked_seat(state) is not None or bool(clocked_decision(state))


def stamp(before: GameState | None, after: GameState, now_ms: int) -> GameState:
    """`after` with its turn deadline: kept while the same turn goes on, a new one
    (``now + turn_seconds``) when a clocked turn starts, none without a clock."""
    deadline: int | None = None
    if _runs(after):
        seconds = after.options.turn_seconds
        assert seconds is not None  # _runs checked it
        same_turn = before is not None and _turn(before) == _turn(after)
        if same_turn and before is not None and before.turn_deadline is not None:
            deadline = before.turn_deadline
        else:
            deadline = now_ms + seconds * 1000
    if deadline == after.turn_deadline:
        return after
    return dataclasses.replace(after, turn_deadline=deadline)


def due(state: GameState) -> int | None:
    """When the runner must look at this game for its clock (epoch ms), or `None`."""
    return state.turn_deadline if _runs(state) else None


def _set_seat(state: GameState, seat: int, **changes: Any) -> GameState:
    seats = list(state.seats)
    seats[seat] = dataclasses.replace(seats[seat], **changes)
    return dataclasses.replace(state, seats=tuple(seats))


def _timeout_move(state: GameState, seat: int, rng: random.Random) -> Move:
    """A timed-out turn's next move: a draw (from the stock when allowed), then
    the ``basic`` bot's discard; melds only when no discard is legal."""
    moves = engine.legal_moves(state, seat)
    draws = [m for m in moves if isinstance(m, Draw)]
    if draws:
        return next((m for m in draws if m.source == "stock"), draws[0])
    discards = [m for m in moves if isinstance(m, Discard)]
    return choose_move(TIMEOUT_BOT, seat_view(state, seat), discards or moves, rng)


def time_out(state: GameState, now_ms: int) -> tuple[GameState, list[Event]] | None:
    """Play the turn whose deadline has passed (see the module docstring), or
    `None` when no clocked turn is over at `now_ms`. The state answered has no
    deadline yet: the caller plays the bots that follow, then `stamp`s it."""
    if state.turn_deadline is None or now_ms < state.turn_deadline:
        return None
    undecided = clocked_decision(state)
    if undecided:
        # "a player who has not decided when their time runs out declines"
        events: list[Event] = []
        for decider in undecided:
            state, more = engine.apply(state, decider, DeclineReengage())
            events.extend(more)
        return dataclasses.replace(state, turn_deadline=None), events
    seat = clocked_seat(state)
    if seat is None:
        return None
    turn = _turn(state)
    rng = random.Random(f"{state.seed}/timeout/{state.steps}")
    events = []
    for _ in range(8):  # a draw and a discard; bounded whatever the rules answer
        if _turn(state) != turn or not engine.legal_moves(state, seat):
            break
        state, more = engine.apply(state, seat, _timeout_move(state, seat, rng))
        events.extend(more)
    timeouts = state.seats[seat].timeouts + 1
    away = timeouts >= state.options.timeouts_to_away
    state = _set_seat(state, seat, timeouts=timeouts, away=away)
    state = dataclasses.replace(state, turn_deadline=None)
    if away:
        events.append(vocab.seat_away(seat=seat, timeouts=timeouts))
    return state, events


def moved(state: GameState, seat: int) -> GameState:
    """After a move of the seat's own player: its timeouts in a row start again."""
    if state.seats[seat].timeouts == 0:
        return state
    return _set_seat(state, seat, timeouts=0)


def come_back(state: GameState, seat: int) -> tuple[GameState, list[Event]] | None:
    """The player of an away seat made a request: the seat is theirs again
    (event ``seat_back``); `None` when the seat is not away."""
    if not state.seats[seat].away:
        return None
    state = _set_seat(state, seat, away=False, timeouts=0)
    return state, [vocab.seat_back(seat=seat)]


__all__ = [
    "AWAY_BOT",
    "TIMEOUT_BOT",
    "clocked_decision",
    "clocked_seat",
    "come_back",
    "due",
    "moved",
    "stamp",
    "time_out",
]
