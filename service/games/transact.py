"""The one write path of a game, for the API and the worker alike.

Each write is: load → step (the move, the join, the timeout…) → bots → clock
→ compare-and-set save, with the game's next entry in the worker's queue in
the same save. A save that loses the race is tried again on the new state (at
most `Context.retries` times, then `Busy`), unless the caller expects a
version: then `Stale`, and nothing changes. One load and one save per write
(plus the idempotency record's read when there is a key).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from service.bots import play as bots
from service.bots.allowance import BotAllowance
from service.bots.play import Budget
from service.games import clock
from service.games.caches import STATES
from service.games.due import next_due
from service.games.errors import Busy, KeyReused, Stale
from service.games.values import Change, Delete, Expected, Idempotent, LoadedGame, Outcome, Step
from service.rules.state import GameState
from service.store.base import KEEP, Due, GameStore, IdempotencyRecord, LoadCounters, LobbyUpdate
from service.store.errors import GameNotFound


class LoadLimits(Protocol):
    """Counters a load counts in its own round trip (the API's rate limiter)."""

    def load_counters(self) -> LoadCounters:
        """The counters this load is to count (``()``: none)."""

    def settle(self, counts: Sequence[int] | None) -> None:
        """Check the counts the load returned (``None``: it counted nothing)."""


@dataclass(frozen=True)
class Context:
    """Where and how games are written: the store, the attempts per write, and
    the bot play that follows a step (`budget`, shared out per owner by
    `allowance` when there is one)."""

    store: GameStore
    retries: int
    budget: Budget
    allowance: BotAllowance | None = None
    #: Counted by each load (the API's rate limiter), or none.
    limits: LoadLimits | None = None
    #: The time, in seconds (the worker's may be a test's).
    clock: Callable[[], float] = time.time


def load(ctx: Context, game_id: str) -> LoadedGame:
    """Load and decode a game (`GameNotFound`).

    The `ctx.limits` counters are counted by the load (no round trip of their
    own) and checked right after, before anything is written."""
    limits = ctx.limits
    counters = limits.load_counters() if limits is not None else ()
    counts: tuple[int, ...] | None = None  # not counted (the store failed)
    try:
        loaded = ctx.store.load(game_id, counters)
        counts = loaded.counts
    except GameNotFound as missing:
        counts = missing.counts
        raise
    finally:
        if limits is not None and counters:
            limits.settle(counts)  # the one rate-limit check of a load
    state = STATES.decode(game_id, loaded.state)
    return LoadedGame(game_id, state, loaded.version, loaded.last_event, loaded.epoch)


def after_step(
    ctx: Context,
    before: GameState | None,
    state: GameState,
    owner: Callable[[], str],
    play: bool = True,
) -> tuple[GameState, list[dict[str, Any]], Due | None]:
    """What follows every step: the bot turns (within `ctx.budget`, and what is
    left of the owner's `ctx.allowance`; none unless `play`), then the turn
    clock's stamp (`before`: the state as loaded, whose deadline goes on while
    the same turn does), then the game's next entry in the queue, in `owner`'s
    name: due at once when bots are still to move, at the turn's deadline when
    a clock runs. The state, the bots' events and the entry."""
    events: list[dict[str, Any]] = []
    to_move = bots.bot_to_move(state)
    if to_move and play:  # most moves hand the turn to a person
        who = owner()
        budget = ctx.budget
        allowance = ctx.allowance
        if allowance is not None:
            budget = Budget(budget.moves, allowance.take(who, budget.seconds))
        started = time.monotonic()
        # With nothing left no bot moves here: the game is queued for the worker.
        played = bots.play_bots(state, budget)
        if allowance is not None:
            allowance.give_back(who, budget.seconds, time.monotonic() - started)
        state, events = played.state, played.events
    elif (
        not to_move
        and state.options.turn_seconds is None
        and state.turn_deadline is None
        and state.reserved_until is None
    ):
        # No clock, no held seat and a person to move (most moves): `clock.stamp`
        # would keep the state and `next_due` answer None; their calls skipped.
        return state, events, None
    else:
        who = owner()
    now = ctx.clock()
    state = clock.stamp(before, state, int(now * 1000))
    return state, events, next_due(state, now, who)


def _nobody() -> str:
    return ""


def transact(
    ctx: Context,
    game_id: str,
    step: Step,
    *,
    owner: Callable[[], str] = _nobody,
    seat: Callable[[LoadedGame], tuple[LoadedGame, int]] | None = None,
    expected: Expected | str | None = None,
    idempotency: Idempotent | None = None,
    loaded: LoadedGame | None = None,
) -> Outcome:
    """The one write path of a game: load, step, bots, clock, compare-and-set save.

    Each attempt loads the game (`loaded`: the first attempt's, already loaded),
    finds the caller's `seat`, replays the first answer of a request whose
    `idempotency` record exists (`KeyReused` for another request's key),
    refuses a game not at the `expected` version (`Stale`; ``"*"``: any),
    applies `step`, plays what follows it (`after_step`, queue entries in
    `owner`'s name) and saves it all at once. A save that loses the race is
    tried again on the new state (at most `ctx.retries` times, then `Busy`),
    unless `expected` names a version: then `Stale`. `GameNotFound` when the
    game is not (or no longer) stored.
    """
    store = ctx.store
    if isinstance(expected, str):
        expected = None  # "*": any version
    for _attempt in range(ctx.retries):
        game = loaded if loaded is not None else load(ctx, game_id)
        loaded = None
        who: int | None = None
        if seat is not None:
            game, who = seat(game)
        if idempotency is not None:
            assert who is not None, "an idempotent write is made by a seat"
            record = store.get_idempotency(game_id, who, idempotency.key)
            if record is not None:
                if record.fingerprint != idempotency.fingerprint:
                    raise KeyReused(idempotency.key)
                if game.version < recorded_version(record.body):
                    # The write was saved between this load and the read of its
                    # record: the answer shows the game it made.
                    game = load(ctx, game_id)
                return Outcome(game, who, replayed=record.status)
        if expected is not None and not expected.matches(game.version, game.epoch):
            raise Stale(game.version, game.epoch)
        change = step(game, who)
        if change is None:
            return Outcome(game, who)
        if isinstance(change, Delete):
            result = store.delete(game_id, game.version)
            after = game
        else:
            before = change.state if change.timed_out else game.state
            state, bot_events, due = after_step(
                ctx, before, change.state, owner, play=not change.timed_out
            )
            events = change.events + bot_events
            lobby: LobbyUpdate = KEEP
            if game.state.status == "waiting":
                # The listing follows a waiting game (and leaves once it starts).
                lobby = lobby_summary(game_id, state, created_of(store, game_id))
            record = None
            if idempotency is not None and who is not None:
                # The compare-and-set makes the next version certain.
                body = str(game.version + 1).encode()
                record = IdempotencyRecord(who, idempotency.key, idempotency.fingerprint, 200, body)
            result = store.save(
                game_id,
                game.version,
                STATES.encode(game_id, state),
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
            # Someone else wrote first: the caller asked for that version only.
            raise Stale(result.version, result.epoch)
    raise Busy(game_id)


def recorded_version(body: bytes) -> int:
    """The version an idempotency record points to (0 for a record of another form)."""
    try:
        return int(body)
    except ValueError:
        return 0


def created_of(store: GameStore, game_id: str) -> str:
    """When a waiting game was created: the time of its first event."""
    first = store.events(game_id, 0, limit=1)
    if first:
        return str(first[0].get("at", ""))
    return now_iso()


def now_iso() -> str:
    """The current UTC time, ISO 8601 with seconds."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def lobby_summary(game_id: str, state: GameState, created: str) -> dict[str, Any] | None:
    """The public lobby summary of a waiting game; `None` once it no longer waits."""
    if state.status != "waiting":
        return None
    seats = []
    held = state.reserved
    for index, seat in enumerate(state.seats):
        # A seat a rematch holds for its player is not open to the lobby yet.
        is_open = seat.kind == "human" and seat.name is None and not (held and held[index])
        seats.append({"seat": index, "name": seat.name, "kind": seat.kind, "open": is_open})
    return {
        "id": game_id,
        "preset": state.preset,
        "deal": state.deal,
        "seats": seats,
        "created": created,
    }


__all__ = ["Change", "Context", "Delete", "Idempotent", "LoadedGame", "Outcome", "transact"]
