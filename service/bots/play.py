"""The server's turns for bot seats, within a budget of moves and time.

`play_bots` lets bot seats move until a human is to move, the game ends, or
the budget runs out. A request gives it a small budget (`REQUEST_BUDGET`:
the settings `BOT_MOVES_PER_REQUEST` and `BOT_SECONDS_PER_REQUEST`), so no
request holds a worker for long; a game whose bots are still to move is
saved as it stands and queued for the runner (`service.worker`), which goes
on with the same function in the background.

Between two moves it yields (``time.sleep(0)``): under gevent other
greenlets of the worker run, in a thread other threads do.

Randomness: without ``rng`` each choice uses a generator seeded from the
game's seed and step count (``"<seed>/bot/<step>"``), so a seeded game replays
the same way however its bot turns are split between calls. Each bot sees its
seat view, its legal moves and a memory of the public events of the call.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service.bots import strategies
from service.bots.memory import Memory
from service.rules.engine import LEAVER_BOT, apply, legal_moves
from service.rules.state import GameState, Seat
from service.rules.views import redact_event, seat_view

Event = dict[str, Any]


@dataclass(frozen=True)
class Budget:
    """How much bot play one call may do: at most ``moves`` moves and about
    ``seconds`` of wall-clock time (checked between moves)."""

    moves: int = 500
    seconds: float = 0.25


#: A request's default budget (the settings' defaults).
REQUEST_BUDGET = Budget()
#: No limit: for tests, benchmarks and offline self-play of whole games.
UNBOUNDED = Budget(moves=2**62, seconds=math.inf)


@dataclass
class BotPlay:
    """What `play_bots` did: the state after it, the events, and whether bots
    are still to move (the budget ran out first)."""

    state: GameState
    events: list[Event] = field(default_factory=list)
    pending: bool = False


def _server_plays(seat: Seat) -> bool:
    return seat.kind == "bot" or seat.away


def server_seat(state: GameState) -> int | None:
    """The seat the server plays now: the seat to move, or between rounds the first
    seat still to decide whether to re-engage, when it is a bot or a player's seat
    marked away (turn clocks, service/games/clock.py); else ``None``."""
    if state.status != "active":
        return None
    r = state.round
    if r is None:
        return next((i for i in state.deciding if _server_plays(state.seats[i])), None)
    return r.turn if _server_plays(state.seats[r.turn]) else None


def bot_to_move(state: GameState) -> bool:
    """Whether the game is in play and the server plays the seat to act now
    (`server_seat`)."""
    return server_seat(state) is not None


def strategy_of(seat: Seat) -> str:
    """The strategy the server plays `seat` with: its bot's; an away player's
    seat is played like a leaver's (`LEAVER_BOT`) until the player is back."""
    if seat.kind == "bot":
        return seat.bot or "random"
    return LEAVER_BOT


def play_bots(
    state: GameState,
    budget: Budget = REQUEST_BUDGET,
    rng: random.Random | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
    pause: Callable[[float], None] = time.sleep,
) -> BotPlay:
    """Let bot seats move until a human is to move, the game ends, or ``budget`` is spent."""
    played = BotPlay(state)
    if not bot_to_move(state):
        return played
    memory = Memory(round=state.round.number if state.round is not None else None)
    deadline = clock() + budget.seconds
    for done in range(budget.moves + 1):
        seat_or_none = server_seat(state)
        if seat_or_none is None:
            break
        if done == budget.moves or clock() >= deadline:
            played.pending = True
            break
        if done:
            pause(0)  # let the worker's other requests run between two moves
        seat = seat_or_none
        chooser = rng if rng is not None else random.Random(f"{state.seed}/bot/{state.steps}")
        move = strategies.choose_move(  # looked up per call: benchmarks time it
            strategy_of(state.seats[seat]),
            seat_view(state, seat),
            legal_moves(state, seat),
            chooser,
            memory,
        )
        state, events = apply(state, seat, move)
        memory.observe_all(redact_event(e, None) for e in events)
        played.events.extend(events)
    played.state = state
    return played


__all__ = [
    "REQUEST_BUDGET",
    "UNBOUNDED",
    "BotPlay",
    "Budget",
    "bot_to_move",
    "play_bots",
    "server_seat",
]
