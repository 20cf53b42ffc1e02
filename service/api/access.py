"""The games layer as the API's requests use it: the app's store and
`service.games.Context`, the caller's seat, and the games layer's typed
errors as problem answers.

One `load` per read, one `load` + one `save` per write (`service.games.transact`):
a write that loses the compare-and-set race is reloaded and applied again (at
most `SAVE_RETRIES` times, then 503 `busy`), unless the client sent `If-Match`,
in which case the answer is 412 and nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask

from service.api import auth
from service.api.idempotency import key_reused
from service.api.preconditions import check_if_match
from service.bots.allowance import BotAllowance
from service.bots.play import Budget
from service.config import store_settings
from service.games import clock, viewcache
from service.games import transact as games
from service.games.caches import STATES
from service.games.errors import Busy, KeyReused, Stale
from service.games.values import Change, Expected, Idempotent, LoadedGame, Outcome, Step
from service.http.current import current_app_object
from service.http.problems import Problem
from service.ops.ratelimit import client_address, client_key
from service.rules import views
from service.rules.state import GameState
from service.store.base import Due, GameStore, owner_tag
from service.store.factory import open_store

STORE_EXTENSION = "rummy.store"


#: The app's `BotAllowance` (bot-seconds per client, this process's).
ALLOWANCE_EXTENSION = "rummy.bot_allowance"


#: The app's `service.games.transact.Context` (made on first use).
CONTEXT_EXTENSION = "rummy.games"


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


def context() -> games.Context:
    """The current app's games context: its store, `SAVE_RETRIES`, the bot budget of
    a request (`BOT_MOVES_PER_REQUEST`, `BOT_SECONDS_PER_REQUEST`, shared out by
    `BOT_SECONDS_PER_OWNER`) and its rate limiter's counters on each load."""
    extensions = current_app_object().extensions
    ctx: games.Context | None = extensions.get(CONTEXT_EXTENSION)
    if ctx is None or ctx.store is not extensions[STORE_EXTENSION]:
        # Made once per app (a test may swap the store: made again then).
        config = current_app_object().config
        ctx = games.Context(
            store=extensions[STORE_EXTENSION],
            retries=int(config["SAVE_RETRIES"]),
            budget=Budget(
                moves=int(config["BOT_MOVES_PER_REQUEST"]),
                seconds=float(config["BOT_SECONDS_PER_REQUEST"]),
            ),
            allowance=extensions.get(ALLOWANCE_EXTENSION),
            limits=extensions.get("ratelimit"),
        )
        extensions[CONTEXT_EXTENSION] = ctx
    return ctx


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


def load_game(game_id: str) -> LoadedGame:
    """Load and decode a game (`GameNotFound` → 404 by the error mapping); a request
    past a rate limit its load counted is refused (429, before a 404)."""
    return games.load(context(), game_id)


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
    """`service.games.transact.after_step` for the current request: bots within its
    budget, the turn clock's stamp, and the queue entry in the client's name."""
    return games.after_step(context(), before, state, client_owner)


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


def transact(
    game_id: str,
    step: Step,
    *,
    seat: Callable[[LoadedGame], tuple[LoadedGame, int]] | None = None,
    expected: Expected | str | None = None,
    idempotency: Idempotent | None = None,
    loaded: LoadedGame | None = None,
) -> Outcome:
    """`service.games.transact.transact` for the current request (its bot turns
    queued in the client's name), its typed errors as problems: `Stale` → 412
    `version_mismatch`, `Busy` → 503 `busy`, `KeyReused` → 422."""
    try:
        return games.transact(
            context(),
            game_id,
            step,
            owner=client_owner,
            seat=seat,
            expected=expected,
            idempotency=idempotency,
            loaded=loaded,
        )
    except Stale as stale:
        check_if_match(expected, stale.version, stale.epoch)
        raise  # pragma: no cover - a stale game never matches
    except Busy:
        raise busy() from None
    except KeyReused:
        raise key_reused() from None


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
