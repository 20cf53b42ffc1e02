"""Quick-play tickets: the queue of players waiting to be matched into games.

A ticket waits in one bucket per table it accepts, a bucket being a preset and
a player count (``"standard:4"``), its entries ordered by when the ticket was
queued (oldest first). The matcher (`service.games.matching`, in the worker)
takes tables out of the buckets with `TicketQueue.claim`, which is atomic: it
moves the tickets it takes from ``waiting`` to ``claimed`` and records them as
a pending match, under an id the caller drew, leased for a while. The game is
then created under the match's id (`GameStore.create`'s ``game_id``), and
`TicketQueue.finish` marks the tickets ``matched`` with their seats. A matcher
killed between the two leaves the match pending: once its lease has passed,
`TicketQueue.stale_matches` hands it to another matcher, which creates the
same game (or finds it made) and finishes it. So no ticket is in two games,
and none is lost.

Bounds: a ticket lives ``ttl`` seconds (waiting, then to be read once
matched); a client (``owner``) holds at most ``per_owner`` waiting tickets; a
bucket holds at most ``max_length`` entries (`TicketQueue.enqueue`).

`MemoryTickets` is the in-process queue of ``memory://``;
`service.store.redis_tickets.RedisTickets` the same over Redis (one hash tag,
``{queue}``, for every key: one slot of a cluster). `open_tickets(store)` picks
the one of a game store.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, TypeAlias

from service.store.errors import StoreError

__all__ = [
    "DEFAULT_TICKET_TTL",
    "Match",
    "MemoryTickets",
    "QueueFull",
    "Ticket",
    "TicketQueue",
    "TicketQuotaExceeded",
    "bucket_name",
    "open_tickets",
    "parse_bucket",
]

#: Seconds a ticket is kept by default (waiting, then matched to be read).
DEFAULT_TICKET_TTL = 600.0

#: Ticket statuses: queued, taken by a matcher (its game being made), seated.
TicketStatus: TypeAlias = Literal["waiting", "claimed", "matched"]

#: What `TicketQueue.cancel` found.
CancelOutcome: TypeAlias = Literal["cancelled", "matched", "missing"]


class TicketQuotaExceeded(StoreError):
    """An enqueue refused: its owner already holds ``limit`` waiting tickets."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the owner already holds {limit} waiting tickets")
        self.limit = limit


class QueueFull(StoreError):
    """An enqueue refused: the ``bucket`` already holds ``limit`` tickets."""

    def __init__(self, bucket: str, limit: int) -> None:
        super().__init__(f"the queue {bucket} already holds {limit} tickets")
        self.bucket = bucket
        self.limit = limit


def bucket_name(preset: str, players: int) -> str:
    """The bucket of a table: ``"<preset>:<players>"``."""
    return f"{preset}:{players}"


def parse_bucket(bucket: str) -> tuple[str, int]:
    """The preset and player count of a bucket name."""
    preset, _, players = bucket.rpartition(":")
    return preset, int(players)


@dataclass(frozen=True)
class Ticket:
    """A player waiting for a table (or seated at one).

    Only digests of its secrets are kept: ``secret_hash`` (SHA-256 of the
    ticket's secret, which reads and cancels it) and ``seat_hash`` (the digest
    the seat the match gives it keeps of its seat token)."""

    id: str
    secret_hash: str
    seat_hash: str
    #: The client the ticket counts against (``""``: none, quotas off).
    owner: str
    name: str
    client_seed: str | None
    #: The tables it accepts (`bucket_name`), in the order given.
    buckets: tuple[str, ...]
    #: Whether bots may fill the table once it has waited long enough.
    bots: bool
    #: When it was queued and when it is forgotten (epoch ms).
    at: int
    expires: int
    status: TicketStatus = "waiting"
    #: The pending match that claimed it ("" while waiting).
    match: str = ""
    #: Once matched: the game and its seat there.
    game: str = ""
    seat: int = -1


@dataclass(frozen=True)
class Match:
    """Tickets claimed together for one table: ``id`` is also the new game's id
    (or, with ``game``, for open seats of a waiting game)."""

    id: str
    bucket: str
    #: The seated tickets in seat order (the oldest first); the other seats are bots.
    tickets: tuple[Ticket, ...]
    #: A waiting game of the lobby the tickets are to join ("": a new game, `id`).
    game: str = ""


class TicketQueue(Protocol):
    """The quick-play queue (see the module docstring). Every method may raise
    `StoreUnavailable`."""

    ttl: float

    def enqueue(self, ticket: Ticket, per_owner: int, max_length: int) -> None:
        """Queue ``ticket`` in each of its buckets, unless its owner holds
        ``per_owner`` waiting tickets already (`TicketQuotaExceeded`) or one of
        its buckets holds ``max_length`` (`QueueFull`); 0: no bound."""
        ...

    def get(self, ticket_id: str) -> Ticket | None:
        """The ticket, or ``None`` (never queued, cancelled or expired)."""
        ...

    def cancel(self, ticket_id: str) -> CancelOutcome:
        """Take a waiting ticket out of the queue (``cancelled``); a ticket
        claimed or matched stays (``matched``)."""
        ...

    def buckets(self) -> list[str]:
        """The buckets that hold tickets, the one with the oldest first."""
        ...

    def demand(self) -> dict[str, int]:
        """Waiting tickets per bucket (a ticket counts in every bucket it accepts)."""
        ...

    def claim(
        self,
        bucket: str,
        players: int,
        match_id: str,
        now_ms: int,
        lease_ms: int,
        bots_before: int | None = None,
        game: str = "",
    ) -> Match | None:
        """Atomically claim the oldest waiting tickets of ``bucket`` for one
        table, as the pending match ``match_id`` leased until ``now_ms +
        lease_ms``: ``players`` of them (``None`` unless there are as many); or,
        with ``bots_before`` (epoch ms), the tickets allowing bots, up to
        ``players``, if the oldest of them was queued before it (a table
        filled with bots). ``game``: the match is for open seats of that waiting
        game (`Match.game`). Expired entries are dropped on the way."""
        ...

    def stale_matches(self, now_ms: int, lease_ms: int, limit: int) -> list[Match]:
        """Pending matches whose lease has passed (their matcher died or is
        stuck), each leased anew to the caller (atomically: one caller each)."""
        ...

    def finish(self, match: Match, game_id: str, seats: Sequence[int] | None = None) -> None:
        """Mark the match's tickets ``matched`` (their ``seats`` in ``game_id``; by
        default the match's order) and forget the pending match; idempotent."""
        ...

    def release(self, match: Match) -> None:
        """Give a pending match's tickets back to their queues (waiting again, in
        their place: a waiting game they were to join had no seat for them) and
        forget the match."""
        ...

    def close(self) -> None:
        """Release what the queue holds (the memory queue holds nothing)."""
        ...


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class MemoryTickets:
    """The in-process `TicketQueue` (``memory://``): one lock over plain dicts."""

    def __init__(self, ttl: float = DEFAULT_TICKET_TTL, clock: Callable[[], int] = _now_ms) -> None:
        self.ttl = float(ttl)
        self._clock = clock
        self._lock = threading.Lock()
        self._tickets: dict[str, Ticket] = {}
        #: bucket -> ticket id -> when queued (ms).
        self._buckets: dict[str, dict[str, int]] = {}
        #: owner -> ticket id -> when it stops counting (ms).
        self._owners: dict[str, dict[str, int]] = {}
        #: match id -> (lease end ms, match).
        self._pending: dict[str, tuple[int, Match]] = {}
        #: Called after an enqueue (outside the lock): the in-process runner's wake-up.
        self.listener: Callable[[], None] | None = None

    def __repr__(self) -> str:
        return f"MemoryTickets(tickets={len(self._tickets)})"

    def _live(self, ticket_id: str, now: int) -> Ticket | None:
        ticket = self._tickets.get(ticket_id)
        if ticket is not None and ticket.expires <= now:
            self._forget(ticket)
            return None
        return ticket

    def _forget(self, ticket: Ticket) -> None:
        self._tickets.pop(ticket.id, None)
        self._unqueue(ticket)

    def _unqueue(self, ticket: Ticket) -> None:
        for bucket in ticket.buckets:
            entries = self._buckets.get(bucket)
            if entries is not None:
                entries.pop(ticket.id, None)
                if not entries:
                    del self._buckets[bucket]
        held = self._owners.get(ticket.owner)
        if held is not None:
            held.pop(ticket.id, None)
            if not held:
                del self._owners[ticket.owner]

    def enqueue(self, ticket: Ticket, per_owner: int, max_length: int) -> None:
        """See `TicketQueue.enqueue`."""
        now = self._clock()
        with self._lock:
            if ticket.owner:
                held = self._owners.get(ticket.owner, {})
                for ticket_id, until in list(held.items()):
                    if until <= now:
                        del held[ticket_id]
                if per_owner and len(held) >= per_owner:
                    raise TicketQuotaExceeded(per_owner)
            if max_length:
                for bucket in ticket.buckets:
                    self._prune(bucket, now)
                    if len(self._buckets.get(bucket, ())) >= max_length:
                        raise QueueFull(bucket, max_length)
            self._tickets[ticket.id] = ticket
            for bucket in ticket.buckets:
                self._buckets.setdefault(bucket, {})[ticket.id] = ticket.at
            if ticket.owner:
                self._owners.setdefault(ticket.owner, {})[ticket.id] = ticket.expires
        listener = self.listener
        if listener is not None:
            listener()

    def _prune(self, bucket: str, now: int) -> None:
        for ticket_id in list(self._buckets.get(bucket, {})):
            self._live(ticket_id, now)

    def get(self, ticket_id: str) -> Ticket | None:
        """See `TicketQueue.get`."""
        with self._lock:
            return self._live(ticket_id, self._clock())

    def cancel(self, ticket_id: str) -> CancelOutcome:
        """See `TicketQueue.cancel`."""
        with self._lock:
            ticket = self._live(ticket_id, self._clock())
            if ticket is None:
                return "missing"
            if ticket.status != "waiting":
                return "matched"
            self._forget(ticket)
            return "cancelled"

    def buckets(self) -> list[str]:
        """See `TicketQueue.buckets`."""
        with self._lock:
            now = self._clock()
            for bucket in list(self._buckets):
                self._prune(bucket, now)
            return sorted(self._buckets, key=lambda b: min(self._buckets[b].values()))

    def demand(self) -> dict[str, int]:
        """See `TicketQueue.demand`."""
        with self._lock:
            now = self._clock()
            for bucket in list(self._buckets):
                self._prune(bucket, now)
            return {bucket: len(entries) for bucket, entries in self._buckets.items()}

    def waiting(self) -> int:
        """How many tickets wait (the in-process runner looks again while any do)."""
        with self._lock:
            return sum(1 for t in self._tickets.values() if t.status == "waiting") + len(
                self._pending
            )

    def claim(
        self,
        bucket: str,
        players: int,
        match_id: str,
        now_ms: int,
        lease_ms: int,
        bots_before: int | None = None,
        game: str = "",
    ) -> Match | None:
        """See `TicketQueue.claim`."""
        with self._lock:
            self._prune(bucket, now_ms)
            entries = self._buckets.get(bucket, {})
            chosen: list[Ticket] = []
            for ticket_id in sorted(entries, key=lambda i: (entries[i], i)):
                ticket = self._tickets[ticket_id]
                if bots_before is not None:
                    if not ticket.bots:
                        continue
                    if not chosen and ticket.at > bots_before:
                        return None  # the oldest allowing bots has not waited enough
                chosen.append(ticket)
                if len(chosen) == players:
                    break
            if not chosen or (bots_before is None and len(chosen) < players):
                return None
            claimed = []
            for ticket in chosen:
                self._unqueue(ticket)
                kept = replace(ticket, status="claimed", match=match_id)
                kept = replace(kept, expires=max(kept.expires, now_ms + int(self.ttl * 1000)))
                self._tickets[ticket.id] = kept
                claimed.append(kept)
            match = Match(match_id, bucket, tuple(claimed), game)
            self._pending[match_id] = (now_ms + lease_ms, match)
            return match

    def stale_matches(self, now_ms: int, lease_ms: int, limit: int) -> list[Match]:
        """See `TicketQueue.stale_matches`."""
        with self._lock:
            stale = [m for until, m in self._pending.values() if until <= now_ms][:limit]
            for match in stale:
                self._pending[match.id] = (now_ms + lease_ms, match)
            return stale

    def finish(self, match: Match, game_id: str, seats: Sequence[int] | None = None) -> None:
        """See `TicketQueue.finish`."""
        order = range(len(match.tickets)) if seats is None else seats
        with self._lock:
            for seat, ticket in zip(order, match.tickets, strict=True):
                kept = self._tickets.get(ticket.id)
                if kept is not None and kept.match == match.id:
                    self._tickets[ticket.id] = replace(
                        kept, status="matched", game=game_id, seat=seat
                    )
            self._pending.pop(match.id, None)

    def release(self, match: Match) -> None:
        """See `TicketQueue.release`."""
        with self._lock:
            for ticket in match.tickets:
                kept = self._tickets.get(ticket.id)
                if kept is None or kept.match != match.id:
                    continue
                kept = replace(kept, status="waiting", match="")
                self._tickets[ticket.id] = kept
                for bucket in kept.buckets:
                    self._buckets.setdefault(bucket, {})[kept.id] = kept.at
                if kept.owner:
                    self._owners.setdefault(kept.owner, {})[kept.id] = kept.expires
            self._pending.pop(match.id, None)

    def pending(self) -> list[str]:
        """The ids of the pending matches (for tests)."""
        with self._lock:
            return list(self._pending)

    def close(self) -> None:
        """Nothing to release."""


#: Each memory store's ticket queue (the web process and its in-process runner
#: share the store, so they share its queue).
_QUEUES: weakref.WeakKeyDictionary[object, MemoryTickets] = weakref.WeakKeyDictionary()
_QUEUES_LOCK = threading.Lock()


def open_tickets(store: object, ttl: float = DEFAULT_TICKET_TTL) -> TicketQueue:
    """The ticket queue beside a game store (an instrumented store's inner one):
    in-process for the memory store (one per store), in the same Redis for a
    Redis store."""
    from service.store.memory import MemoryStore

    inner = getattr(store, "inner", store)
    if isinstance(inner, MemoryStore):
        with _QUEUES_LOCK:
            queue = _QUEUES.get(inner)
            if queue is None:
                queue = _QUEUES[inner] = MemoryTickets(ttl)
            return queue
    from service.store.redis import RedisStore
    from service.store.redis_tickets import RedisTickets

    if isinstance(inner, RedisStore):
        return RedisTickets(inner, ttl)
    raise TypeError(f"no ticket queue for {inner!r}")


def ticket_fields(ticket: Ticket) -> Mapping[str, str]:
    """A ticket as the flat text fields Redis keeps of it."""
    return {
        "id": ticket.id,
        "secret": ticket.secret_hash,
        "seat_hash": ticket.seat_hash,
        "owner": ticket.owner,
        "name": ticket.name,
        "seed": "" if ticket.client_seed is None else ticket.client_seed,
        "has_seed": "1" if ticket.client_seed is not None else "",
        "buckets": " ".join(ticket.buckets),
        "bots": "1" if ticket.bots else "",
        "at": str(ticket.at),
        "expires": str(ticket.expires),
        "status": ticket.status,
        "match": ticket.match,
        "game": ticket.game,
        "seat": str(ticket.seat),
    }


def ticket_of(values: Mapping[str, str]) -> Ticket:
    """The ticket of `ticket_fields`' text (as Redis gives them back)."""
    text = values.get("status", "waiting")
    status: TicketStatus = (
        "matched" if text == "matched" else "claimed" if text == "claimed" else "waiting"
    )
    return Ticket(
        id=values["id"],
        secret_hash=values["secret"],
        seat_hash=values["seat_hash"],
        owner=values.get("owner", ""),
        name=values["name"],
        client_seed=values.get("seed", "") if values.get("has_seed") else None,
        buckets=tuple(values.get("buckets", "").split()),
        bots=bool(values.get("bots")),
        at=int(values["at"]),
        expires=int(values["expires"]),
        status=status,
        match=values.get("match", ""),
        game=values.get("game", ""),
        seat=int(values.get("seat", "-1") or -1),
    )


#: The names of `ticket_fields`, in order (Redis's HMGET of a ticket).
TICKET_FIELDS: Sequence[str] = tuple(
    ticket_fields(Ticket("", "", "", "", "", None, (), False, 0, 0)).keys()
)
