"""The typed failures of the games layer (the API maps each to a problem answer)."""

from __future__ import annotations

from service.store.errors import GameNotFound

__all__ = ["Busy", "GameNotFound", "KeyReused", "RematchRefused", "Stale"]


class Busy(Exception):
    """A write lost the compare-and-set race on every attempt (API: 503 `busy`)."""


class Stale(Exception):
    """The game is not at the version the caller expects (API: 412)."""

    def __init__(self, version: int, epoch: str) -> None:
        super().__init__(f"the game is at version {version}")
        #: The game's current version and epoch.
        self.version = version
        self.epoch = epoch


class KeyReused(Exception):
    """An idempotency key already recorded with another request (API: 422)."""


class RematchRefused(Exception):
    """A rematch the game's state refuses (API: 409 with ``code``):
    ``game_not_finished`` before the game's end, ``rematch_seat_released`` when
    the caller's seat of the next game is no longer held for them."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
