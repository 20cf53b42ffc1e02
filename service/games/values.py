"""The values `transact` works with: a loaded game, a step's change, its outcome."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.rules.state import GameState


@dataclass(frozen=True)
class LoadedGame:
    """A game as loaded: its decoded state, version and last event sequence."""

    game_id: str
    state: GameState
    version: int
    last_event: int
    #: The version's epoch (`service.store.base.Loaded.epoch`): with the version,
    #: the game's `ETag`.
    epoch: str = ""


@dataclass(frozen=True)
class Expected:
    """The version a write expects (an `If-Match`), and its epoch (``None``: the
    version alone)."""

    version: int
    epoch: str | None = None

    def matches(self, version: int, epoch: str) -> bool:
        """Whether a game at `version` of `epoch` is the one expected."""
        return self.version == version and (self.epoch is None or self.epoch == epoch)


@dataclass(frozen=True)
class Change:
    """What a write step makes of a game: the state after it and its events (the
    bot turns that follow are played by `transact`, unless `timed_out`); `seat`
    is whose view the answer shows (`None`: the public view); `owner`: a client
    the game counts for from this save on (a join's, after its `GameStore.reserve`)."""

    state: GameState
    events: list[dict[str, Any]]
    seat: int | None = None
    owner: str | None = None
    #: A turn clock's timeout (the worker's): the bots that move next are queued,
    #: not played, and the clock stamp reads the state after the timeout.
    timed_out: bool = False


class Delete:
    """A write step's answer that forgets the game (`GameStore.delete`)."""


@dataclass(frozen=True)
class Idempotent:
    """A write sent with an `Idempotency-Key`: its key and the fingerprint of the
    request (kept in the record `transact` saves with it, with the answer's 200)."""

    key: str
    fingerprint: str


@dataclass(frozen=True)
class Outcome:
    """What `transact` did: the game after the write (as loaded when nothing was
    written), the seat its answer is for and, for a request replayed by its
    `Idempotency-Key`, the status of the first answer."""

    game: LoadedGame
    seat: int | None
    replayed: int | None = None


#: A write step: the change it makes of the loaded game, given the caller's seat
#: (`None` without one); `Delete()` to forget the game, `None` to write nothing.
Step = Callable[[LoadedGame, int | None], "Change | Delete | None"]
