"""The entry a game leaves in the worker's queue of due games: what it waits for."""

from __future__ import annotations

import time

from service.bots.play import bot_to_move
from service.games import clock
from service.rules.state import GameState
from service.store.base import Due

#: The reason of a game queued because bot seats are still to move.
BOTS = "bots"


#: The reason of a game queued for its turn clock: the turn's deadline.
CLOCK = "clock"


#: The reason of a rematch queued for when its held seats open (service/games/rematch.py).
REMATCH = "rematch"


def next_due(state: GameState, now: float | None = None, owner: str = "") -> Due | None:
    """What the game waits for from the server, or ``None``: bots to move are due
    at once, a clocked turn at its deadline (service/games/clock.py); left by ``owner``
    (`owner_tag` of the client whose request leaves it: claims take turns by owner);
    a rematch waiting on seats held for its players when they open."""
    if bot_to_move(state):
        return Due(time.time() if now is None else now, BOTS, owner)
    deadline = clock.due(state)
    if deadline is not None:
        return Due(deadline / 1000, CLOCK, owner)
    if state.reserved_until is not None and state.status == "waiting":
        return Due(state.reserved_until / 1000, REMATCH, owner)
    return None
