"""`MemoryStore`: the in-process store (``memory://``), same contract as Redis.

One lock guards everything, so a save is trivially atomic; long-polls wait on a
condition that every write notifies. Data lives as long as the process.
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import orjson

from service.store.base import (
    CLAIM_WINDOW,
    DEFAULT_FINISHED_TTL,
    DEFAULT_IDEMPOTENCY_BYTES,
    DEFAULT_IDEMPOTENCY_TTL,
    DEFAULT_IDLE_TTL,
    DEFAULT_LOBBY_LIMIT,
    DEFAULT_MAX_EVENTS,
    DEFAULT_MAX_WAIT,
    DEFAULT_QUOTA_PENDING,
    DEFAULT_RECORD_TTL,
    DEFAULT_WAITING_TTL,
    KEEP,
    OWNER_COUNTS,
    Created,
    Due,
    DueClaim,
    DueUpdate,
    IdempotencyRecord,
    Lifetimes,
    LoadCounters,
    Loaded,
    LobbyUpdate,
    SaveResult,
    lifecycle,
    owner_counts,
    record_bytes,
)
from service.store.codec import (
    decode_cursor,
    decode_event,
    due_text,
    event_tail,
    lobby_page,
    new_game_id,
    now_ms,
    stamp_event,
)
from service.store.errors import GameExists, GameNotFound, QuotaExceeded
from service.store.watch import Deliver, Hub, Watch

__all__ = ["MemoryStore"]

# Expired games are swept at most this often (seconds); reads check expiry anyway.
_SWEEP_INTERVAL = 60.0


def pick_due(
    window: Sequence[tuple[str, str]],
    limit: int,
    first: str,
    others: int | None,
    served: dict[str, int],
    now_ms: int,
) -> list[int]:
    """Which of the due entries ``window`` (game id, reason text; earliest first) a
    claim takes, by index: ``first``'s, then the others by owner in turns, the owner
    ``served`` least recently first (`GameStore.claim_due`; Redis's `CLAIM_SCRIPT`
    chooses alike). Each owner served is stamped ``now_ms`` (in the order served)."""
    limit = max(limit, 0)
    picked: list[int] = []
    queues: dict[str, list[int]] = {}  # owner -> its entries, earliest first
    for index, (_, text) in enumerate(window):
        reason, _, owner = text.partition(" ")
        if first and reason == first:
            if len(picked) < limit:
                picked.append(index)
        else:
            queues.setdefault(owner, []).append(index)
    room = limit - len(picked) if others is None else min(limit - len(picked), others)
    # Least recently served first; owners never served (0) in the order they are due.
    order = sorted(queues, key=lambda owner: served.get(owner, 0))
    turn = 0
    while room > 0 and order:
        for owner in order:
            if room > 0 and turn < len(queues[owner]):
                picked.append(queues[owner][turn])
                room -= 1
                served[owner] = now_ms + len(picked)  # in the order served
        turn += 1
        order = [owner for owner in order if turn < len(queues[owner])]
    return picked


@dataclass
class _Game:
    state: bytes
    version: int
    last_event: int
    expires: float
    events: deque[bytes]
    status: str = ""
    #: The epoch of `version` (`Loaded.epoch`), drawn anew by each save.
    epoch: str = ""
    idempotency: dict[tuple[int, str], tuple[IdempotencyRecord, float]] = field(
        default_factory=dict
    )
    #: Bytes of the records in `idempotency` (`record_bytes`).
    idempotency_bytes: int = 0
    #: The owners the game counts for (its creator, then who joined it).
    owners: list[str] = field(default_factory=list)


@dataclass
class _Listing:
    score: int  # wall-clock ms of the last listing, as in Redis
    summary: bytes


class MemoryStore:
    """A thread-safe in-process `GameStore` (dict + lock + condition)."""

    def __init__(
        self,
        *,
        idle_ttl: float = DEFAULT_IDLE_TTL,
        waiting_ttl: float = DEFAULT_WAITING_TTL,
        finished_ttl: float = DEFAULT_FINISHED_TTL,
        record_ttl: float = DEFAULT_RECORD_TTL,
        idempotency_ttl: float = DEFAULT_IDEMPOTENCY_TTL,
        idempotency_bytes: int = DEFAULT_IDEMPOTENCY_BYTES,
        max_events: int = DEFAULT_MAX_EVENTS,
        max_wait: float = DEFAULT_MAX_WAIT,
        quota_pending: float = DEFAULT_QUOTA_PENDING,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.idle_ttl = float(idle_ttl)
        #: TTLs by what a save says of its game (`service.store.base.lifecycle`).
        self.lifetimes = Lifetimes.capped(idle_ttl, waiting_ttl, finished_ttl, record_ttl)
        #: Each owner's index: count (`OWNER_COUNTS`) -> game id -> when it stops
        #: counting (the game's expiry as of its last status change; a `reserve`
        #: not confirmed by a save: `quota_pending` after it).
        self._owned: dict[str, dict[str, dict[str, float]]] = {}
        self.quota_pending = float(quota_pending)
        self.idempotency_ttl = float(idempotency_ttl)
        self.idempotency_bytes = int(idempotency_bytes)
        self.max_events = max_events
        self.max_wait = max_wait
        self._clock = clock
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._games: dict[str, _Game] = {}
        self._lobby: dict[str, _Listing] = {}
        #: The queue of due games: game id -> (due, epoch ms; reason, and its
        #: owner after a space when it has one: Redis's form, `due_text`).
        self._due: dict[str, tuple[int, str]] = {}
        #: When a claim last took an entry of each owner (epoch ms): owners take turns.
        self._served: dict[str, int] = {}
        #: Counters counted by loads: key -> (count, when it is forgotten).
        self._counters: dict[str, tuple[int, float]] = {}
        #: Called (outside the lock) after a write queued a game: the in-process
        #: runner's wake-up (service.worker).
        self.due_listener: Callable[[], None] | None = None
        self._next_sweep = clock() + _SWEEP_INTERVAL
        self._hub = Hub()

    def __repr__(self) -> str:
        return f"MemoryStore(games={len(self._games)})"

    # -- helpers (caller holds the lock) -------------------------------------

    def _live(self, game_id: str) -> _Game | None:
        game = self._games.get(game_id)
        if game is not None and game.expires <= self._clock():
            self._drop(game_id)
            return None
        return game

    def _drop(self, game_id: str) -> None:
        game = self._games.pop(game_id, None)
        self._lobby.pop(game_id, None)
        self._due.pop(game_id, None)
        if game is not None:
            self._touch_owners(game_id, game, "gone")

    def _touch_owners(self, game_id: str, game: _Game, status: str) -> None:
        """After a change of the game's status (or owners): each owner's entries
        of it count until its expiry, or no more once it is finished or gone;
        it no longer waits once it is in play."""
        for owner in game.owners:
            index = self._owned.get(owner)
            if index is None:
                continue
            for name, entries in index.items():
                if game_id not in entries:
                    continue
                if status in ("finished", "gone") or (name == "waiting" and status != "waiting"):
                    del entries[game_id]
                else:
                    entries[game_id] = game.expires
            if not any(index.values()):
                del self._owned[owner]

    def _index(self, owner: str) -> dict[str, dict[str, float]]:
        """``owner``'s index, its entries past their time dropped (an index only
        grows under its quotas, so this is bounded by them)."""
        index = self._owned.setdefault(owner, {name: {} for name in OWNER_COUNTS})
        now = self._clock()
        for entries in index.values():
            for game_id in [g for g, until in entries.items() if until <= now]:
                del entries[game_id]
        return index

    def _record(self, game: _Game, record: IdempotencyRecord, now: float) -> None:
        """Keep ``record`` in the game's records, the oldest (and expired) ones
        dropped past the byte budget (the newest is always kept)."""
        slot = (record.seat, record.key)
        old = game.idempotency.pop(slot, None)
        if old is not None:
            game.idempotency_bytes -= record_bytes(old[0])
        game.idempotency[slot] = (record, now + self.idempotency_ttl)
        game.idempotency_bytes += record_bytes(record)
        for other, (kept, until) in list(game.idempotency.items()):
            if game.idempotency_bytes <= self.idempotency_bytes and until > now:
                break
            if other == slot:
                continue
            del game.idempotency[other]
            game.idempotency_bytes -= record_bytes(kept)

    def _sweep(self) -> None:
        now = self._clock()
        if now < self._next_sweep:
            return
        self._next_sweep = now + _SWEEP_INTERVAL
        for game_id in [g for g, game in self._games.items() if game.expires <= now]:
            self._drop(game_id)
        self._counters = {k: v for k, v in self._counters.items() if v[1] > now}
        for owner in list(self._owned):
            if not any(self._index(owner).values()):
                del self._owned[owner]

    def _write(
        self,
        game_id: str,
        game: _Game,
        state: bytes,
        tails: list[bytes],
        idempotency: IdempotencyRecord | None,
        lobby: LobbyUpdate,
        events: Sequence[Mapping[str, Any]] = (),
        due: DueUpdate = KEEP,
    ) -> str:
        """Apply a create's or save's write (under the lock); the status it gave
        the game (``""``: unchanged)."""
        status, ttl = lifecycle(events, lobby, self.lifetimes)
        if status:
            game.status = status
        version = game.version + 1
        at = now_ms()
        for tail in tails:
            game.last_event += 1
            game.events.append(stamp_event(game.last_event, version, at, tail))
        game.state = state
        game.version = version
        # Drawn as Redis's save nonce is: the ETag's form does not depend on the store.
        game.epoch = f"{random.getrandbits(64):016x}"
        now = self._clock()
        game.expires = now + ttl
        if idempotency is not None:
            self._record(game, idempotency, now)
        if lobby is None:
            self._lobby.pop(game_id, None)
        elif lobby is not KEEP:
            # Listed at its first listing's time: the lobby shows the newest first.
            listed = self._lobby.get(game_id)
            score = int(time.time() * 1000) if listed is None else listed.score
            self._lobby[game_id] = _Listing(score, orjson.dumps(dict(lobby)))
        if due is None:
            self._due.pop(game_id, None)
        elif due is not KEEP:
            self._due[game_id] = (int(due.at * 1000), due_text(due))
        self._changed.notify_all()
        if tails:
            self._hub.notify(game_id)
        return status

    def _queued(self, due: DueUpdate) -> None:
        """After a write (outside the lock): wake the runner if a game was queued."""
        listener = self.due_listener
        if isinstance(due, Due) and listener is not None:
            listener()

    # -- GameStore -----------------------------------------------------------

    def create(
        self,
        state: bytes,
        events: Sequence[Mapping[str, Any]] = (),
        lobby: LobbyUpdate = None,
        owner: str | None = None,
        due: Due | None = None,
        quota: Mapping[str, int] | None = None,
        bots: bool = False,
        game_id: str | None = None,
    ) -> Created:
        """Store a new game under a fresh random id, version 1 (the owner's
        ``quota`` checked under the store's lock, with the create)."""
        tails = [event_tail(e) for e in events]
        status = lifecycle(events, lobby, self.lifetimes)[0]
        counts = owner_counts(status, bots) if owner is not None else ()
        with self._lock:
            self._sweep()
            index = self._index(owner) if owner is not None and counts else None
            if index is not None:
                for name in counts:
                    limit = (quota or {}).get(name, 0)
                    if limit and len(index[name]) >= limit:
                        raise QuotaExceeded(name, limit)
            if game_id is not None:
                if self._live(game_id) is not None:
                    raise GameExists(game_id)
            else:
                game_id = new_game_id()
                while game_id in self._games:  # pragma: no cover - 128 random bits
                    game_id = new_game_id()
            game = _Game(b"", 0, 0, 0.0, deque(maxlen=self.max_events))
            self._games[game_id] = game
            self._write(game_id, game, bytes(state), tails, None, lobby, events, due)
            if index is not None and owner is not None:
                game.owners.append(owner)
                for name in counts:
                    index[name][game_id] = game.expires
            created = Created(game_id, game.version, game.last_event, game.epoch)
        self._queued(due)
        return created

    def reserve(self, owner: str, game_id: str, limit: int) -> None:
        """Count ``game_id`` among ``owner``'s open games for `quota_pending`
        seconds (a `save` with this ``owner`` confirms it), unless the owner has
        ``limit`` of them already (see `GameStore.reserve`)."""
        with self._lock:
            entries = self._index(owner)["open"]
            if game_id in entries:
                return
            if limit and len(entries) >= limit:
                raise QuotaExceeded("open", limit)
            entries[game_id] = self._clock() + self.quota_pending

    def open_games(self, owner: str) -> dict[str, int]:
        """``owner``'s counts (`OWNER_COUNTS`): a length per count, no scan of games."""
        with self._lock:
            index = self._index(owner)
            counts = {name: len(entries) for name, entries in index.items()}
            if not any(counts.values()):
                del self._owned[owner]
            return counts

    def load(self, game_id: str, counters: LoadCounters = ()) -> Loaded:
        """The stored state and version, and ``counters`` counted; raises `GameNotFound`."""
        with self._lock:
            counts = self._count(counters)
            game = self._live(game_id)
            if game is None:
                raise GameNotFound(game_id, counts if counters else None)
            return Loaded(game.state, game.version, game.last_event, counts, game.epoch)

    def _count(self, counters: LoadCounters) -> tuple[int, ...]:
        now = self._clock()
        counts = []
        for key, ttl_ms in counters:
            count, expires = self._counters.get(key, (0, 0.0))
            if expires <= now:
                count, expires = 0, now + ttl_ms / 1000
            self._counters[key] = (count + 1, expires)
            counts.append(count + 1)
        return tuple(counts)

    def save(
        self,
        game_id: str,
        expected_version: int,
        state: bytes,
        events: Sequence[Mapping[str, Any]] = (),
        idempotency: IdempotencyRecord | None = None,
        lobby: LobbyUpdate = KEEP,
        due: DueUpdate = KEEP,
        owner: str | None = None,
    ) -> SaveResult:
        """Compare-and-set on the version (see `GameStore.save`)."""
        tails = [event_tail(e) for e in events]
        with self._lock:
            game = self._live(game_id)
            if game is None:
                return SaveResult("not_found", 0, 0)
            if game.version != expected_version:
                return SaveResult("stale", game.version, game.last_event, game.epoch)
            said = self._write(game_id, game, bytes(state), tails, idempotency, lobby, events, due)
            joined = owner is not None and owner not in game.owners
            if joined and owner is not None:
                game.owners.append(owner)
            if joined or said:  # as the save script: an ordinary move touches no owner
                self._touch_owners(game_id, game, game.status)
            result = SaveResult("saved", game.version, game.last_event, game.epoch)
        self._queued(due)
        return result

    def claim_due(
        self, now: float, limit: int, lease: float, first: str = "", others: int | None = None
    ) -> list[DueClaim]:
        """Games due at ``now``, each leased for ``lease`` s: ``first``'s earliest
        first, then the others by owner in turns (see `GameStore.claim_due`)."""
        now_ms = int(now * 1000)
        until = int((now + lease) * 1000)
        with self._lock:
            window = sorted(
                (at, game_id, text) for game_id, (at, text) in self._due.items() if at <= now_ms
            )[:CLAIM_WINDOW]
            picked = pick_due(
                [(game_id, text) for _, game_id, text in window],
                limit,
                first,
                others,
                self._served,
                now_ms,
            )
            claims = []
            for index in picked:
                at, game_id, text = window[index]
                self._due[game_id] = (until, text)
                reason, _, owner = text.partition(" ")
                claims.append(DueClaim(game_id, reason, until, owner, at))
            if len(self._served) > 2 * CLAIM_WINDOW:  # forget owners not served for an hour
                self._served = {o: t for o, t in self._served.items() if t > now_ms - 3_600_000}
            return claims

    def drop_due(self, claim: DueClaim) -> bool:
        """Take the claimed game off the queue unless it was queued again since."""
        with self._lock:
            entry = self._due.get(claim.game_id)
            if entry is None or entry[0] != claim.lease:
                return False
            del self._due[claim.game_id]
            return True

    def release_due(self, claims: Sequence[DueClaim]) -> int:
        """Make each claimed game not queued again since due again at its entry's time."""
        released = 0
        with self._lock:
            for claim in claims:
                entry = self._due.get(claim.game_id)
                if entry is not None and entry[0] == claim.lease:
                    self._due[claim.game_id] = (claim.due, entry[1])
                    released += 1
        if released and self.due_listener is not None:
            self.due_listener()
        return released

    def repair_due_queue(self) -> int:
        """Nothing to repair: a save queues its game under the same lock (0)."""
        return 0

    def next_due(self) -> float | None:
        """When the earliest queued game is due (epoch s), or ``None``."""
        with self._lock:
            earliest = min((at for at, _ in self._due.values()), default=None)
        return None if earliest is None else earliest / 1000

    def delete(self, game_id: str, expected_version: int) -> SaveResult:
        """Delete the game if it is at ``expected_version`` (see `GameStore.delete`)."""
        with self._lock:
            game = self._live(game_id)
            if game is None:
                return SaveResult("not_found", 0, 0)
            if game.version != expected_version:
                return SaveResult("stale", game.version, game.last_event)
            self._drop(game_id)
            self._changed.notify_all()
        self._hub.notify(game_id)
        return SaveResult("saved", game.version + 1, game.last_event)

    def events(
        self, game_id: str, after: int = 0, wait: float = 0.0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Events after ``after``, waiting up to ``wait`` seconds for the first."""
        deadline = time.monotonic() + min(max(wait, 0.0), self.max_wait)
        with self._lock:
            while True:
                game = self._live(game_id)
                if game is None:
                    raise GameNotFound(game_id)
                if game.last_event > after:
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return []
                self._changed.wait(remaining)
            first_kept = game.last_event - len(game.events) + 1
            start = max(after + 1, first_kept) - first_kept
            stop = len(game.events) if limit is None else min(len(game.events), start + limit)
            return [decode_event(game.events[i]) for i in range(start, stop)]

    def watch(self, game_id: str, deliver: Deliver | None = None) -> AbstractContextManager[Watch]:
        """Wake-ups of this game's writes that append events (see `GameStore.watch`:
        they carry no events here, the holder reads them from memory)."""
        return self._hub.watch(game_id, deliver)

    def get_idempotency(self, game_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        """The record stored by `save` for this seat and key, or ``None``."""
        with self._lock:
            game = self._live(game_id)
            if game is None:
                return None
            found = game.idempotency.get((seat, key))
            if found is None:
                return None
            if found[1] <= self._clock():
                del game.idempotency[(seat, key)]
                return None
            return found[0]

    def lobby(
        self,
        limit: int = DEFAULT_LOBBY_LIMIT,
        cursor: str | None = None,
        where: Callable[[Mapping[str, Any]], bool] | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of listed games, newest first (see `GameStore.lobby`)."""
        after = decode_cursor(cursor)
        with self._lock:
            entries = sorted(
                (
                    (listing.score, game_id, listing.summary)
                    for game_id, listing in list(self._lobby.items())
                    if self._live(game_id) is not None
                ),
                reverse=True,
            )
        rows = (
            (score, game_id, orjson.loads(summary))
            for score, game_id, summary in entries
            if after is None or (score, game_id) < after
        )
        return lobby_page(rows, max(limit, 0), where)

    def ping(self) -> None:
        """The memory store always answers."""

    def close(self) -> None:
        """Nothing to release; wakes any waiting long-poll or stream."""
        with self._lock:
            self._changed.notify_all()
        self._hub.close()
