"""Game persistence behind one protocol: `MemoryStore` and `RedisStore`.

``open_store(url)`` picks one from ``STORE_URL``; see `service.store.base` for
the contract and `service.store.redis` for the Redis key layout.
"""

from service.store.base import (
    KEEP,
    Created,
    Due,
    DueClaim,
    DueUpdate,
    GameStore,
    IdempotencyRecord,
    Loaded,
    LobbyUpdate,
    SaveResult,
)
from service.store.errors import GameNotFound, StoreError, StoreUnavailable
from service.store.factory import open_store
from service.store.memory import MemoryStore
from service.store.redis import RedisStore

__all__ = [
    "KEEP",
    "Created",
    "Due",
    "DueClaim",
    "DueUpdate",
    "GameNotFound",
    "GameStore",
    "IdempotencyRecord",
    "Loaded",
    "LobbyUpdate",
    "MemoryStore",
    "RedisStore",
    "SaveResult",
    "StoreError",
    "StoreUnavailable",
    "open_store",
]
