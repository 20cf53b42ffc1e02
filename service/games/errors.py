"""The typed failures of the games layer (the API maps each to a problem answer)."""

from __future__ import annotations

from service.store.errors import GameNotFound

__all__ = ["Busy", "GameNotFound", "KeyReused", "Stale"]


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
