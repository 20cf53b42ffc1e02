"""The game store of the running app, and the steps every game request shares.

One `load` per read, one `load` + one `save` per write: a write that loses
the compare-and-set race is reloaded and applied again (at most
`SAVE_RETRIES` times, then 503 `busy`), unless the client sent `If-Match`,
in which case the answer is 412 and nothing changes.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from flask import Flask, current_app

from service import clock
from service.api.problems import Problem
from service.bots import play as bots
from service.bots.play import Budget
from service.config import store_settings
from service.rules import engine, views
from service.rules.state import GameState, decode_state, encode_state
from service.runner import next_due
from service.store.base import Due, GameStore
from service.store.factory import open_store

STORE_EXTENSION = "rummy.store"


def init_store(app: Flask) -> None:
    """Open the store named by `STORE_URL` and attach it to the app."""
    app.extensions[STORE_EXTENSION] = open_store(
        app.config["STORE_URL"], **store_settings(app.config)
    )


def get_store() -> GameStore:
    """The store of the current app."""
    store: GameStore = current_app.extensions[STORE_EXTENSION]
    return store


@dataclass(frozen=True)
class LoadedGame:
    """A game as loaded: its decoded state, version and last event sequence."""

    game_id: str
    state: GameState
    version: int
    last_event: int


class DecodedStates:
    """The states this process encoded or decoded last, by their stored bytes (LRU).

    Decoding a state costs more than the rest of a view, and the next request
    on a game usually loads the very bytes this process saved or read a
    moment ago. Encoding is an exact round trip and states are immutable, so
    the same bytes may safely stand for the same state object. The requests
    of a worker (greenlets, or threads under gthread) share it, hence the lock.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._states: OrderedDict[bytes, GameState] = OrderedDict()
        self._lock = threading.Lock()

    def decode(self, data: bytes) -> GameState:
        """`decode_state(data)`, from memory when these bytes were seen lately."""
        with self._lock:
            state = self._states.get(data)
            if state is not None:
                self._states.move_to_end(data)
                return state
        state = decode_state(data)
        self.remember(data, state)
        return state

    def encode(self, state: GameState) -> bytes:
        """`encode_state(state)`, remembered for the next `decode` of these bytes."""
        data = encode_state(state)
        self.remember(data, state)
        return data

    def remember(self, data: bytes, state: GameState) -> None:
        """Keep `state` as the decoded form of `data`, forgetting the oldest past `size`."""
        with self._lock:
            self._states[data] = state
            self._states.move_to_end(data)
            while len(self._states) > self.size:
                self._states.popitem(last=False)


#: Per process; about 1,000 games in play at once per worker stay decoded
#: (a few KB each).
STATES = DecodedStates(1024)


class LegalMovesCache:
    """Answers of `GET /games/{id}/legal-moves` by (game, version, seat) (LRU).

    A game's version names one state, so a listing made once serves every
    request for that version and seat (clients and bots poll it), and its
    work — bounded, but the largest of any read — is not done again.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._answers: OrderedDict[tuple[str, int, int | None], bytes] = OrderedDict()
        self._lock = threading.Lock()
        #: Listings made (cache misses), for tests and benchmarks.
        self.computed = 0

    def answer(self, game: LoadedGame, seat: int | None) -> bytes:
        """The JSON answer (``{"version", "moves"}``) for ``seat`` (``None``: no seat)."""
        key = (game.game_id, game.version, seat)
        with self._lock:
            found = self._answers.get(key)
            if found is not None:
                self._answers.move_to_end(key)
                return found
        moves = [] if seat is None else engine.legal_moves(game.state, seat)
        body = orjson.dumps({"version": game.version, "moves": [m.to_json() for m in moves]})
        with self._lock:
            self.computed += 1
            self._answers[key] = body
            while len(self._answers) > self.size:
                self._answers.popitem(last=False)
        return body


#: Per process: the listings of about the last 1,000 (game, version, seat).
LEGAL_MOVES = LegalMovesCache(1024)


def load_game(game_id: str) -> LoadedGame:
    """Load and decode a game (`GameNotFound` → 404 by the error mapping)."""
    try:
        loaded = get_store().load(game_id)
    finally:
        # Rate-limit counts may have ridden with this load: refuse now, before
        # anything is written (a 429 comes before a 404).
        limiter = current_app.extensions.get("ratelimit")
        if limiter is not None:
            limiter.settle()
    return LoadedGame(game_id, STATES.decode(loaded.state), loaded.version, loaded.last_event)


def encode(state: GameState) -> bytes:
    """The stored form of a state (remembered for the next load of these bytes)."""
    return STATES.encode(state)


def busy() -> Problem:
    """The 503 answer after too many lost races."""
    return Problem(
        503,
        "busy",
        "The game changed too often while this move was applied; retry shortly.",
        headers={"Retry-After": "1"},
    )


def play_bots(
    state: GameState, before: GameState | None = None
) -> tuple[GameState, list[dict[str, Any]], Due | None]:
    """Play bot seats (and away ones) within the request's budget
    (`BOT_MOVES_PER_REQUEST`, `BOT_SECONDS_PER_REQUEST`), then stamp the turn
    clock (`before`: the state as loaded, whose deadline goes on while the same
    turn does): the state, its events, and the game's entry in the runner's
    queue (for the save): due at once when bots are still to move, at the turn's
    deadline when a clock runs."""
    config = current_app.config
    budget = Budget(
        moves=int(config["BOT_MOVES_PER_REQUEST"]),
        seconds=float(config["BOT_SECONDS_PER_REQUEST"]),
    )
    played = bots.play_bots(state, budget)
    now = time.time()
    state = clock.stamp(before, played.state, int(now * 1000))
    return state, played.events, next_due(state, now)


def seated(game: LoadedGame, token: str) -> tuple[LoadedGame, int]:
    """The caller's seat by its token (401 if none), and the game after the caller
    came back if the seat was away (`back_if_away`)."""
    from service.api import auth  # auth imports nothing of this module's

    seat = auth.seat_of(game.state.seats, token)
    if game.state.seats[seat].away:
        game = back_if_away(game, seat)
    return game, seat


def back_if_away(game: LoadedGame, seat: int) -> LoadedGame:
    """The game after its away `seat`'s player came back (any authenticated request
    does: event ``seat_back``, saved with a compare-and-set); `game` if not away."""
    store = get_store()
    for _attempt in range(int(current_app.config["SAVE_RETRIES"])):
        back = clock.come_back(game.state, seat)
        if back is None:
            return game
        state, events = back
        state, bot_events, due = play_bots(state, game.state)
        result = store.save(game.game_id, game.version, encode(state), events + bot_events, due=due)
        if result.saved:
            return LoadedGame(game.game_id, state, result.version, result.last_event)
        game = load_game(game.game_id)
    raise busy()


def game_view(
    game_id: str, state: GameState, version: int, last_event: int, seat: int | None
) -> dict[str, Any]:
    """The docs/api.md view of a game: a seat's view, or the public view for `None`."""
    if seat is not None:
        body = views.seat_view(state, seat)
    else:
        # Spectators may lag behind (`spectator_delay`): the view and its last event.
        body, shown_count = views.spectator_view(state)
        last_event -= state.event_count - shown_count
    view: dict[str, Any] = {"id": game_id, "version": version}
    view.update(body)
    view["last_event"] = last_event
    view["now"] = views.rfc3339(time.time_ns() // 1_000_000)
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
