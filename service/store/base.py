"""The `GameStore` protocol and the values it exchanges.

A store keeps, per game: the state (an opaque ``bytes`` blob), its version (1
after ``create``, +1 per successful ``save``), the events (JSON-able dicts to
which the store adds ``seq``, ``version`` and ``at``; ``seq`` is contiguous per
game from 1), idempotency records, and an optional lobby listing.

Lifetimes (`lifecycle`): a save that lists the game in the lobby (it waits
for players) keeps it `Lifetimes.waiting` seconds (1 h: an unjoined game
does not hold storage for a week); a save carrying the ``game_ended`` event
keeps it `Lifetimes.finished` seconds (24 h, to read the result); any other
save `Lifetimes.idle` seconds (7 days). Each game also records that status
(``waiting``, ``active``, ``finished``).

Owners (the API's clients) have games counted against them while not finished
and not forgotten (`GameStore.open_games`), for the per-client quotas: each
owner's index holds ``open`` (its games waiting or in play: created, or joined
with `GameStore.reserve`), ``waiting`` (those it created still waiting for
players) and ``bots`` (those it created with bot seats only). An index is only
added to under its quota and read as a count (never a scan of the owner's
games): a save that changes a game's status, or counts it for a new owner,
updates the entries of every owner of the game, each counted until the game's
expiry as of that save.
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from service.store.watch import Deliver, Watch

__all__ = [
    "CLAIM_WINDOW",
    "DEFAULT_FINISHED_TTL",
    "DEFAULT_IDEMPOTENCY_BYTES",
    "DEFAULT_IDEMPOTENCY_TTL",
    "DEFAULT_IDLE_TTL",
    "DEFAULT_LOBBY_LIMIT",
    "DEFAULT_MAX_EVENTS",
    "DEFAULT_MAX_SUBSCRIBERS",
    "DEFAULT_MAX_WAIT",
    "DEFAULT_QUOTA_PENDING",
    "DEFAULT_RECORD_TTL",
    "DEFAULT_WAITING_TTL",
    "GAME_ENDED",
    "KEEP",
    "OWNER_COUNTS",
    "RECORD_OVERHEAD",
    "REMATCH_OFFERED",
    "Created",
    "Due",
    "DueClaim",
    "DueUpdate",
    "GameStore",
    "IdempotencyRecord",
    "Keep",
    "Lifetimes",
    "LoadCounters",
    "Loaded",
    "LobbyUpdate",
    "SaveResult",
    "SaveStatus",
    "lifecycle",
    "owner_counts",
    "owner_tag",
    "record_bytes",
]

#: Seconds after its last write that an idle game may be forgotten (7 days).
DEFAULT_IDLE_TTL = 7 * 24 * 3600
#: Seconds a game waiting for players is kept after its last change (1 h).
DEFAULT_WAITING_TTL = 3600
#: Seconds a finished game is kept, to read its result (24 h).
DEFAULT_FINISHED_TTL = 24 * 3600
#: Seconds a finished game's record is kept beyond that (the store's own default:
#: none; the app's `RECORD_TTL` is 30 days).
DEFAULT_RECORD_TTL = 0
#: Seconds a game noted against its creator's quota but not stored yet counts
#: without being there (Redis): its create stores it within a round trip, and
#: one that failed in between frees the place after this.
DEFAULT_QUOTA_PENDING = 30.0
#: The type of the event that ends a game.
GAME_ENDED = "game_ended"
#: The type of the event a finished game records when its players ask for the
#: next one (a rematch): the game stays finished, kept as long as when it ended.
REMATCH_OFFERED = "rematch_offered"
#: Seconds an idempotency record is kept (docs/api.md: at least 24 h).
DEFAULT_IDEMPOTENCY_TTL = 24 * 3600
#: Bytes of idempotency records (key, fingerprint and answer) one game keeps:
#: past it the oldest are dropped, so a long game's records stay a few KB
#: (a retry comes seconds after its request, not hundreds of moves later).
DEFAULT_IDEMPOTENCY_BYTES = 8192
#: The counts of an owner's index (`GameStore.open_games`, a create's ``quota``).
OWNER_COUNTS = ("open", "waiting", "bots")
#: At most this many of a game's events are kept, for the game's life (older ones
#: are dropped past it): a 4-player `standard` game makes about 850 events, so a
#: whole game's record fits (docs/records.md) while a game that never ends
#: (turn limits, rounds that block) cannot grow without limit. A client further
#: behind than the kept events reloads the view.
DEFAULT_MAX_EVENTS = 5000
#: Longest long-poll wait a store accepts, in seconds (longer waits are cut).
DEFAULT_MAX_WAIT = 30.0
#: Long-polls of one process that may each hold a Redis Pub/Sub connection at
#: once (Redis accepts 10,000 clients by default); further ones poll.
DEFAULT_MAX_SUBSCRIBERS = 256
#: Lobby page size when none is given.
DEFAULT_LOBBY_LIMIT = 50
#: Milliseconds a save waits for its replicas' acknowledgement (`STORE_WAIT_REPLICAS`)
#: before it answers 503: well under the store's 1 s socket timeout and a
#: move's patience, well over a healthy replica's lag on one network.
DEFAULT_WAIT_TIMEOUT_MS = 500


class Keep(enum.Enum):
    """Type of the `KEEP` marker."""

    KEEP = "KEEP"


#: ``lobby=KEEP``: leave the game's lobby listing as it is.
KEEP = Keep.KEEP

#: The ``lobby`` argument: a public summary to list the game under (replacing
#: any earlier one), ``None`` to take it off the lobby, `KEEP` to leave it.
LobbyUpdate: TypeAlias = Mapping[str, Any] | Keep | None

SaveStatus: TypeAlias = Literal["saved", "stale", "not_found"]


@dataclass(frozen=True)
class Lifetimes:
    """Seconds a game is kept after a save, by what that save says of it."""

    idle: float = DEFAULT_IDLE_TTL
    waiting: float = DEFAULT_WAITING_TTL
    finished: float = DEFAULT_FINISHED_TTL

    @classmethod
    def capped(
        cls, idle: float, waiting: float, finished: float, record: float = DEFAULT_RECORD_TTL
    ) -> Lifetimes:
        """The lifetimes, none longer than the idle TTL (the longest a game that
        may still change is kept), except a finished game's: its record (state
        and every event, as stored) is kept ``record`` seconds when that is longer
        (`RECORD_TTL`, docs/records.md): it never changes again."""
        idle = float(idle)
        return cls(idle, min(float(waiting), idle), max(min(float(finished), idle), float(record)))


def lifecycle(
    events: Sequence[Mapping[str, Any]], lobby: LobbyUpdate, lifetimes: Lifetimes
) -> tuple[str, float]:
    """The status a save gives its game (``""``: unchanged) and its TTL in seconds:
    ``finished`` when the save carries the ``game_ended`` event (or the
    ``rematch_offered`` of a game already finished), ``waiting``
    when it lists the game in the lobby, ``active`` when it takes it off,
    unchanged (with the idle TTL) when it leaves the listing as it is."""
    if any(event.get("type") in (GAME_ENDED, REMATCH_OFFERED) for event in events):
        return "finished", lifetimes.finished
    if lobby is None:
        return "active", lifetimes.idle
    if lobby is KEEP:
        return "", lifetimes.idle
    return "waiting", lifetimes.waiting


def owner_counts(status: str, bots: bool) -> tuple[str, ...]:
    """The counts of its owner's index a new game of ``status`` joins (none once
    finished: bots may play a game to its end within its create)."""
    if status == "finished":
        return ()
    counts = ["open"]
    if status == "waiting":
        counts.append("waiting")
    if bots:
        counts.append("bots")
    return tuple(counts)


#: Bytes a stored idempotency record costs beyond its key, fingerprint and answer.
RECORD_OVERHEAD = 64


def record_bytes(record: IdempotencyRecord) -> int:
    """What an idempotency record counts against its game's byte budget (the
    save script counts the same)."""
    return (
        len(record.key.encode())
        + len(record.fingerprint.encode())
        + len(record.body)
        + (RECORD_OVERHEAD)
    )


@dataclass(frozen=True)
class Due:
    """Server-side work a game is waiting for: at ``at`` (epoch seconds), for ``reason``
    (e.g. ``"bots"``: bot seats still to move; ``"clock"``: a turn's deadline), left
    by ``owner`` (`owner_tag` of the client whose request left it; ``""``: none).

    A game has at most one entry in the queue of due games: the next thing due.
    The runner (`service.worker`) claims due games and advances them, taking
    turns between owners (`GameStore.claim_due`).
    """

    at: float
    reason: str
    #: Stored with the reason as one text (``"<reason> <owner>"``): neither holds a space.
    owner: str = ""


def owner_tag(client: str) -> str:
    """The tag a due entry names its owner by: 16 hex digits of the client key's
    SHA-256 (bounded and without spaces, whatever a forwarded address held)."""
    return hashlib.sha256(client.encode()).hexdigest()[:16]


#: Most due entries one claim looks at (`GameStore.claim_due`): entries are
#: claimed from the first this many due, so a claim's work stays bounded however
#: long the queue grows (a clock behind more due bot games than this waits for
#: the front of the queue to be claimed).
CLAIM_WINDOW = 1000


#: The ``due`` argument of a save: a `Due` to (re)queue the game, ``None`` to take
#: it off the queue, `KEEP` to leave its entry as it is.
DueUpdate: TypeAlias = Due | Keep | None


@dataclass(frozen=True)
class DueClaim:
    """A due game claimed by a runner until ``lease`` (epoch ms; also the claim's
    token: `GameStore.drop_due` and `GameStore.release_due` change the entry only
    while it is unchanged); ``owner`` and ``due`` (epoch ms) are the entry's as
    claimed, so that a released claim is due again as it was."""

    game_id: str
    reason: str
    lease: int
    owner: str = ""
    due: int = 0


@dataclass(frozen=True)
class Created:
    """A new game: its id, version 1, and the seq of its last event (0: none)."""

    game_id: str
    version: int
    last_event: int
    #: The version's epoch (`Loaded.epoch`).
    epoch: str = ""


#: Counters a load counts in its own round trip: ``(key, ttl_ms)`` each (`GameStore.load`).
LoadCounters: TypeAlias = Sequence[tuple[str, int]]


@dataclass(frozen=True)
class Loaded:
    """A game as stored: state blob, version, seq of its last event (0: none), and
    the new values of the counters the load carried (one per counter)."""

    state: bytes = field(repr=False)
    version: int
    last_event: int
    counts: tuple[int, ...] = ()
    #: A random tag of the save that made this version (Redis: its nonce). With
    #: the version it names one state even across a failover: a promoted
    #: replica that lacks the last saves makes the same version numbers again,
    #: never with the same epoch (the `ETag` carries both; docs/reliability.md).
    epoch: str = ""


@dataclass(frozen=True)
class SaveResult:
    """The answer of `GameStore.save`.

    ``saved``: ``version`` and ``last_event`` are the new ones. ``stale``: nothing
    changed; they are the game's current ones. ``not_found``: both are 0.
    """

    status: SaveStatus
    version: int
    last_event: int
    #: The epoch of ``version`` (`Loaded.epoch`; "" when unknown: not found).
    epoch: str = ""

    @property
    def saved(self) -> bool:
        """True when the compare-and-set succeeded."""
        return self.status == "saved"


@dataclass(frozen=True)
class IdempotencyRecord:
    """The first answer to a request sent with an ``Idempotency-Key``.

    ``fingerprint`` identifies the request (e.g. a hash of its body) so that a
    reused key with another request can be told apart; ``status`` and ``body``
    are the HTTP answer to replay.
    """

    seat: int
    key: str
    fingerprint: str
    status: int
    body: bytes = field(repr=False)


@runtime_checkable
class GameStore(Protocol):
    """Persistence of games: one atomic compare-and-set per save.

    Every method may raise `StoreUnavailable` (within about a second) when the
    backing store cannot be reached; the same object works again once it is back.
    """

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
        """Store a new game under a fresh random id (128 bits, URL-safe), version 1;
        with an ``owner``, count it among that owner's `open_games` (``open``,
        ``waiting`` if it is listed, ``bots`` if ``bots``: it has bot seats only);
        queued as ``due`` when given.

        ``quota`` (with an ``owner``): the most games of each of the counts the
        new game joins (`OWNER_COUNTS`; 0 or absent: no limit) the owner may
        have, this one included. Counting and noting are one atomic step, so
        creates sent at once never pass it together; past it, raises
        `QuotaExceeded` and stores nothing.

        ``game_id``: store it under this id instead (a well-formed game id the
        caller drew, e.g. a quick-play match's, so that a retry after a crash
        cannot make a second game); a game stored under it already raises
        `GameExists` and nothing is stored."""
        ...

    def reserve(self, owner: str, game_id: str, limit: int) -> None:
        """Count the existing game ``game_id`` among ``owner``'s ``open`` games
        (a join), if the owner has fewer than ``limit`` (0: no limit) or already
        counts it; else raise `QuotaExceeded` (``open``). The place is held for
        the store's pending time (Redis: ``quota_pending``), then kept only if a
        `save` with this ``owner`` confirmed it meanwhile (the join was made)."""
        ...

    def open_games(self, owner: str) -> dict[str, int]:
        """``owner``'s counts (`OWNER_COUNTS`): games ``open`` (waiting or in play),
        ``waiting`` (created, waiting for players) and ``bots`` (created with bot
        seats only). Games finished, deleted or forgotten no longer count."""
        ...

    def load(self, game_id: str, counters: LoadCounters = ()) -> Loaded:
        """The stored state and version; raises `GameNotFound`.

        ``counters`` (the rate limiter's) are counted in the same round trip:
        for each ``(key, ttl_ms)``, add one to the count under ``key``, which
        starts at 0 and is forgotten ``ttl_ms`` after its first count; their
        new values are `Loaded.counts` (or `GameNotFound.counts`).
        """
        ...

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
        """Compare-and-set: if the game is at ``expected_version``, store ``state``
        as version + 1, append ``events``, store ``idempotency`` (the game's
        oldest records dropped past its byte budget), queue or unqueue the game
        (``due``) and refresh the idle TTL, all at once; else change nothing and
        answer ``stale`` (or ``not_found``). ``lobby`` is applied only when the
        save succeeded. ``owner``: confirm its `reserve` of this game (the game
        counts for it from now on, like for its creator)."""
        ...

    def claim_due(
        self, now: float, limit: int, lease: float, first: str = "", others: int | None = None
    ) -> list[DueClaim]:
        """Up to ``limit`` games due at ``now`` (epoch s), each pushed ``lease``
        seconds later so that no other runner claims it meanwhile (a runner that
        dies leaves it due again after the lease).

        Taken from the first `CLAIM_WINDOW` due entries: those of reason ``first``
        (e.g. turn clocks) first, earliest first; then at most ``others`` of the
        rest (``None``: up to ``limit``), owners taking turns: the owner whose
        entry a claim took least recently (by any runner) first, each owner's
        earliest entry first. So one owner's many games delay another owner's
        by at most one advance each time round."""
        ...

    def drop_due(self, claim: DueClaim) -> bool:
        """Take a claimed game off the queue, unless a save queued it again since
        the claim; whether it was taken off."""
        ...

    def release_due(self, claims: Sequence[DueClaim]) -> int:
        """Give claims up: each game not queued again since its claim is due again
        at its entry's time (`DueClaim.due`) at once, not after the lease (a runner
        that cannot advance them, e.g. the store failed under it); how many."""
        ...

    def next_due(self) -> float | None:
        """When the earliest queued game is due (epoch s), or ``None``."""
        ...

    def repair_due_queue(self) -> int:
        """Queue again every game that a save meant to queue but whose entry the
        queue lacks (a store whose saves update game and queue in two steps can
        miss the second); how many. 0 where a save does both at once."""
        ...

    def delete(self, game_id: str, expected_version: int) -> SaveResult:
        """Compare-and-delete: if the game is at ``expected_version``, forget it
        (state, events, lobby listing; its watches are woken) and answer ``saved``;
        else change nothing and answer ``stale`` (or ``not_found``)."""
        ...

    def events(
        self, game_id: str, after: int = 0, wait: float = 0.0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Events with ``seq > after``, oldest first (at most ``limit``). With
        ``wait > 0`` and none yet, wait up to ``wait`` seconds for one; returns
        ``[]`` on timeout. Raises `GameNotFound` for an unknown game."""
        ...

    def watch(self, game_id: str, deliver: Deliver | None = None) -> AbstractContextManager[Watch]:
        """A `Watch` woken after each save of this game that appends events, in
        this process or (Redis) any other. It is registered when the context is
        entered, so events saved after that and missed by a read that follows
        still wake it. With `deliver`, a wake-up that carries the save's events
        (Redis's do) calls ``deliver(events)`` instead, in the store's reader (it
        must not block); a wake-up without them (the memory store's, a
        deletion's, one after the store's subscription was lost) wakes the watch.
        Raises `StoreUnavailable` when wake-ups cannot be had."""
        ...

    def get_idempotency(self, game_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        """The record stored by `save` for this seat and key, or ``None``."""
        ...

    def lobby(
        self,
        limit: int = DEFAULT_LOBBY_LIMIT,
        cursor: str | None = None,
        where: Callable[[Mapping[str, Any]], bool] | None = None,
    ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of listed games' summaries (each with ``"id"``), newest listed
        first, those ``where`` accepts only, and the cursor of the next page
        (``None``: last page). With ``where``, at most `codec.LOBBY_SCAN` listings
        are looked at per call: the page may then be short, with a cursor."""
        ...

    def ping(self) -> None:
        """Return if the store answers and accepts writes (a full Redis does
        not); else raise `StoreUnavailable`."""
        ...

    def close(self) -> None:
        """Release connections (the object must not be used afterwards)."""
        ...
