"""The game store of the running app, and the steps every game request shares.

One `load` per read, one `load` + one `save` per write: a write that loses
the compare-and-set race is reloaded and applied again (at most
`SAVE_RETRIES` times, then 503 `busy`), unless the client sent `If-Match`,
in which case the answer is 412 and nothing changes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson
from flask import Flask

from service import clock
from service.api import auth, viewcache
from service.api.current import current_app_object
from service.api.idempotency import key_reused, recorded_version
from service.api.lru import Lru
from service.api.preconditions import Expected, check_if_match
from service.api.problems import Problem
from service.bots import play as bots
from service.bots.allowance import BotAllowance
from service.bots.play import Budget
from service.config import store_settings
from service.ops.ratelimit import client_address, client_key
from service.quickinit import quick_init
from service.rules import engine, views
from service.rules.state import GameState, decode_state, encode_state
from service.runner import next_due
from service.store.base import KEEP, Due, GameStore, IdempotencyRecord, LobbyUpdate, owner_tag
from service.store.errors import GameNotFound
from service.store.factory import open_store

if TYPE_CHECKING:
    from service.ops.ratelimit import RateLimiter

STORE_EXTENSION = "rummy.store"


#: The app's `BotAllowance` (bot-seconds per client, this process's).
ALLOWANCE_EXTENSION = "rummy.bot_allowance"


def init_store(app: Flask) -> None:
    """Open the store named by `STORE_URL` and attach it to the app, with the
    bot-seconds budget per client (`BOT_SECONDS_PER_OWNER`, 0: none)."""
    app.extensions[STORE_EXTENSION] = open_store(
        app.config["STORE_URL"], **store_settings(app.config)
    )
    per_minute = float(app.config["BOT_SECONDS_PER_OWNER"])
    if per_minute > 0:
        burst = float(app.config["BOT_SECONDS_PER_REQUEST"])
        app.extensions[ALLOWANCE_EXTENSION] = BotAllowance(per_minute, burst)


def client_name() -> str:
    """The current request's client, as the quotas count games against it: its
    address as the rate limiter sees it (an IPv6 one by its /64, `client_key`)."""
    hops = int(current_app_object().config["RATELIMIT_PROXY_HOPS"])
    return "a:" + client_key(client_address(hops))


def client_owner() -> str:
    """The current request's client as the due queue and the bot budget name it
    (the `owner_tag` of `client_name`)."""
    return owner_tag(client_name())


def get_store() -> GameStore:
    """The store of the current app."""
    store: GameStore = current_app_object().extensions[STORE_EXTENSION]
    return store


@quick_init
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


class DecodedStates:
    """The state of each game this process encoded or decoded last, with its
    stored bytes (LRU by game).

    Decoding a state costs more than the rest of a view, and the next request
    on a game usually loads the very bytes this process saved or read a
    moment ago. Encoding is an exact round trip and states are immutable, so
    the same bytes may safely stand for the same state object. One entry per
    game: a game's older versions are never loaded again, and each kept state
    is objects that every full garbage collection walks. The requests of a
    worker (greenlets, or threads under gthread) share it (`lru.Lru`).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._states: Lru[str, tuple[bytes, GameState]] = Lru(size)

    def decode(self, game_id: str, data: bytes) -> GameState:
        """`decode_state(data)` of `game_id`, from memory when these are the bytes
        kept for it."""
        kept = self._states.get(game_id)
        if kept is not None and kept[0] == data:
            return kept[1]
        state = decode_state(data)
        self._states.put(game_id, (data, state))
        return state

    def encode(self, game_id: str, state: GameState) -> bytes:
        """`encode_state(state)`, remembered for the next `decode` of `game_id`."""
        data = encode_state(state)
        self._states.put(game_id, (data, state))
        return data

    def remember(self, game_id: str, data: bytes, state: GameState) -> None:
        """Keep `state`, stored as `data`, for `game_id`, forgetting the oldest game
        past `size`."""
        self._states.put(game_id, (data, state))

    def kept(self, game_id: str) -> GameState | None:
        """The state kept for `game_id`, if any (for tests)."""
        entry = self._states.get(game_id)
        return None if entry is None else entry[1]


#: Per process; the last state of about 1,000 games per worker stays decoded
#: (a few KB each).
STATES = DecodedStates(1024)


class LegalMovesCache:
    """Answers of `GET /games/{id}/legal-moves` by (game, version, epoch, seat) (LRU).

    A game's version and its epoch name one state (the version alone does not
    after a failover: `service.store.base.Loaded.epoch`), so a listing made once serves every
    request for that version and seat (clients and bots poll it), and its
    work — bounded, but the largest of any read — is not done again.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._answers: Lru[tuple[str, int, str, int | None], bytes] = Lru(size)
        #: Listings made (cache misses), for tests and benchmarks.
        self.computed = 0

    def answer(self, game: LoadedGame, seat: int | None) -> bytes:
        """The JSON answer (``{"version", "moves", "unavailable"}``) for ``seat``
        (``None``: no seat)."""
        key = (game.game_id, game.version, game.epoch, seat)
        found = self._answers.get(key)
        if found is not None:
            return found
        moves = [] if seat is None else engine.legal_moves(game.state, seat)
        why = {} if seat is None else engine.unavailable(game.state, seat, moves)
        body = orjson.dumps(
            {
                "version": game.version,
                "moves": [m.to_json() for m in moves],
                "unavailable": {kind: reason.to_json() for kind, reason in why.items()},
            }
        )
        self.computed += 1
        self._answers.put(key, body)
        return body


#: Per process: the listings of about the last 1,000 (game, version, seat).
LEGAL_MOVES = LegalMovesCache(1024)


def load_game(game_id: str) -> LoadedGame:
    """Load and decode a game (`GameNotFound` → 404 by the error mapping).

    The request's rate-limit counts, when they wait for a load, are counted by
    it (no round trip of their own) and checked right after: a request past a
    limit is refused (429, before a 404) before anything is written.
    """
    extensions = current_app_object().extensions
    limiter: RateLimiter | None = extensions.get("ratelimit")
    counters = limiter.load_counters() if limiter is not None else ()
    counts: tuple[int, ...] | None = None  # not counted (the store failed)
    store: GameStore = extensions[STORE_EXTENSION]
    try:
        loaded = store.load(game_id, counters)
        counts = loaded.counts
    except GameNotFound as missing:
        counts = missing.counts
        raise
    finally:
        if limiter is not None and counters:
            limiter.settle(counts)  # the one rate-limit check of a load
    state = STATES.decode(game_id, loaded.state)
    return LoadedGame(game_id, state, loaded.version, loaded.last_event, loaded.epoch)


def encode(game_id: str, state: GameState) -> bytes:
    """The stored form of `game_id`'s state (remembered for its next load)."""
    return STATES.encode(game_id, state)


def busy() -> Problem:
    """The 503 answer after too many lost races."""
    return Problem(
        503,
        "busy",
        "The game changed too often while this request was applied; retry shortly.",
        headers={"Retry-After": "1"},
    )


def play_bots(
    state: GameState, before: GameState | None = None
) -> tuple[GameState, list[dict[str, Any]], Due | None]:
    """Play bot seats (and away ones) within the request's budget
    (`BOT_MOVES_PER_REQUEST`, `BOT_SECONDS_PER_REQUEST`, and what is left of
    the client's `BOT_SECONDS_PER_OWNER`: service/bots/allowance.py), then stamp
    the turn clock (`before`: the state as loaded, whose deadline goes on while
    the same turn does): the state, its events, and the game's entry in the
    runner's queue (for the save, in the client's name): due at once when bots
    are still to move, at the turn's deadline when a clock runs."""
    events: list[dict[str, Any]] = []
    if bots.bot_to_move(state):  # most moves hand the turn to a person: no budget to read
        app = current_app_object()
        config = app.config
        owner = client_owner()
        seconds = float(config["BOT_SECONDS_PER_REQUEST"])
        allowance: BotAllowance | None = app.extensions.get(ALLOWANCE_EXTENSION)
        if allowance is not None:
            seconds = allowance.take(owner, seconds)
        started = time.monotonic()
        # With nothing left no bot moves here: the game is queued for the runner.
        budget = Budget(moves=int(config["BOT_MOVES_PER_REQUEST"]), seconds=seconds)
        played = bots.play_bots(state, budget)
        if allowance is not None:
            allowance.give_back(owner, seconds, time.monotonic() - started)
        state, events = played.state, played.events
    elif state.options.turn_seconds is None and state.turn_deadline is None:
        # No clock and a person to move (most moves): `clock.stamp` would keep
        # the state and `next_due` answer None; their five calls skipped
        # ("What a move costs").
        return state, events, None
    else:
        owner = client_owner()
    now = time.time()
    state = clock.stamp(before, state, int(now * 1000))
    return state, events, next_due(state, now, owner)


def seated(game: LoadedGame, token: str, move_type: str | None = None) -> tuple[LoadedGame, int]:
    """The caller's seat by its token (401 if none), and the game after the caller
    came back if the seat was away (`back_if_away`); a move's `move_type` is logged
    with the seat (`auth.seat_of`)."""
    seat = auth.seat_of(game.state.seats, token, move_type)
    if game.state.seats[seat].away:
        game = back_if_away(game, seat)
    return game, seat


def caller_seat(game: LoadedGame) -> tuple[LoadedGame, int | None]:
    """The caller's seat in `game` by its bearer token (`None` without one, 401 for a
    wrong one), and the game after an away caller came back."""
    token = auth.bearer_token()
    if token is None:
        return game, None
    return seated(game, token)


def back_if_away(game: LoadedGame, seat: int) -> LoadedGame:
    """The game after its away `seat`'s player came back (any authenticated request
    does: event ``seat_back``, saved with a compare-and-set); `game` if not away."""

    def come_back(current: LoadedGame, _seat: int | None) -> Change | None:
        back = clock.come_back(current.state, seat)
        return None if back is None else Change(*back)

    return transact(game.game_id, come_back, loaded=game).game


@quick_init
@dataclass(frozen=True)
class Change:
    """What a write step makes of a game: the state after it and its events (the
    bot turns that follow are played by `transact`); `seat` is whose view the
    answer shows (`None`: the public view); `owner`: a client the game counts
    for from this save on (a join's, after its `GameStore.reserve`)."""

    state: GameState
    events: list[dict[str, Any]]
    seat: int | None = None
    owner: str | None = None


class Delete:
    """A write step's answer that forgets the game (`GameStore.delete`)."""


@dataclass(frozen=True)
class Idempotent:
    """A write sent with an `Idempotency-Key`: its key and the fingerprint of the
    request (kept in the record `transact` saves with it, with the answer's 200)."""

    key: str
    fingerprint: str


@quick_init
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


def transact(
    game_id: str,
    step: Step,
    *,
    seat: Callable[[LoadedGame], tuple[LoadedGame, int]] | None = None,
    expected: Expected | str | None = None,
    idempotency: Idempotent | None = None,
    loaded: LoadedGame | None = None,
) -> Outcome:
    """The one write path of a game: load, step, bots, compare-and-set save.

    Each attempt loads the game (`loaded`: the first attempt's, already loaded),
    finds the caller's `seat` (e.g. `seated`), replays the first answer of a
    request whose `idempotency` record exists, refuses a stale `expected`
    version (`If-Match`: 412), applies `step`, plays the bot turns that follow
    and saves it all at once with the game's next entry in the runner's queue.
    A save that loses the race is tried again on the new state (at most
    `SAVE_RETRIES` times, then 503 `busy`), unless `expected` names a version:
    then the answer is 412 and nothing changes. One load and one save per
    write (plus the idempotency record's read when there is a key).
    """
    app = current_app_object()
    store: GameStore = app.extensions[STORE_EXTENSION]
    for _attempt in range(int(app.config["SAVE_RETRIES"])):
        game = loaded if loaded is not None else load_game(game_id)
        loaded = None
        who: int | None = None
        if seat is not None:
            game, who = seat(game)
        if idempotency is not None:
            assert who is not None, "an idempotent write is made by a seat"
            record = store.get_idempotency(game_id, who, idempotency.key)
            if record is not None:
                if record.fingerprint != idempotency.fingerprint:
                    raise key_reused()
                if game.version < recorded_version(record.body):
                    # The write was saved between this load and the read of its
                    # record: the answer shows the game it made.
                    game = load_game(game_id)
                return Outcome(game, who, replayed=record.status)
        check_if_match(expected, game.version, game.epoch)
        change = step(game, who)
        if change is None:
            return Outcome(game, who)
        if isinstance(change, Delete):
            result = store.delete(game_id, game.version)
            after = game
        else:
            state, bot_events, due = play_bots(change.state, game.state)
            events = change.events + bot_events
            lobby: LobbyUpdate = KEEP
            if game.state.status == "waiting":
                # The listing follows a waiting game (and leaves once it starts).
                lobby = lobby_summary(game_id, state, created_of(game_id))
            record = None
            if idempotency is not None and who is not None:
                # The compare-and-set makes the next version certain.
                body = str(game.version + 1).encode()
                record = IdempotencyRecord(who, idempotency.key, idempotency.fingerprint, 200, body)
            result = store.save(
                game_id,
                game.version,
                encode(game_id, state),
                events,
                idempotency=record,
                lobby=lobby,
                due=due,
                owner=change.owner,
            )
            after = LoadedGame(game_id, state, result.version, result.last_event, result.epoch)
            who = change.seat
        if result.status == "saved":
            return Outcome(after, who)
        if result.status == "not_found":
            raise GameNotFound(game_id)
        if expected is not None:
            # Someone else wrote first: the client asked for that version only
            # (a stale answer carries the game's current version).
            check_if_match(expected, result.version, result.epoch)
    raise busy()


def created_of(game_id: str) -> str:
    """When a waiting game was created: the time of its first event."""
    first = get_store().events(game_id, 0, limit=1)
    if first:
        return str(first[0].get("at", ""))
    return now_iso()


def game_view(
    game_id: str, state: GameState, version: int, last_event: int, seat: int | None
) -> dict[str, Any]:
    """The docs/api.md view of a game: a seat's view, or the public view for `None`.

    For orjson to serialise: a seat's view holds serialised parts (`viewcache`)."""
    view: dict[str, Any] = {"id": game_id, "version": version}
    if seat is not None:
        views.seat_view(state, seat, viewcache.public_view(game_id, state), head=view)
    else:
        # Spectators may lag behind (`spectator_delay`): the view and its last event.
        body, shown_count = views.spectator_view(state)
        last_event -= state.event_count - shown_count
        view.update(body)
    view["last_event"] = last_event
    view["now"] = viewcache.now_text()
    return view


def now_iso() -> str:
    """The current UTC time, ISO 8601 with seconds."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def lobby_summary(game_id: str, state: GameState, created: str) -> dict[str, Any] | None:
    """The public lobby summary of a waiting game; `None` once it no longer waits."""
    if state.status != "waiting":
        return None
    seats = []
    for index, seat in enumerate(state.seats):
        is_open = seat.kind == "human" and seat.name is None
        seats.append({"seat": index, "name": seat.name, "kind": seat.kind, "open": is_open})
    return {
        "id": game_id,
        "preset": state.preset,
        "deal": state.deal,
        "seats": seats,
        "created": created,
    }
