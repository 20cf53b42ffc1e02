"""Rematch: the next game of a finished game's players, and each player's seat of it.

The first seat holder to ask (`rematch`) creates the next game: the same preset
and options, the seats rotated by one (the player of seat 1 sits at seat 0, and
so on round the table), bots kept in their rotated seats, and the first deal
passed on: the next game's first dealer is the seat the last game's first
dealer had, where the player after them sits now. The caller's seat is
taken at once; every other human seat is open but held for its player
(`GameState.reserved`: the digest of their token of the finished game) until
`reserved_until`. The finished game then stores the next game's id
(`GameState.next_game`, in every view) with the event ``rematch_offered``, in one
compare-and-set: when two players ask at once, the second save finds the link
made, its own new game is deleted and it claims a seat of the linked one.

Each player claims their seat with their token of the finished game: the seat
held for that token's digest is taken with the new token the caller derived
from it (the same every time, so a second call answers the same seat; no token
is stored, only digests). Seats not claimed by `reserved_until` open to anyone
(`open_lapsed`: the worker's due entry ``rematch`` saves them open, and the
lobby lists the game then; a join or claim after the time sees them open too).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from service.games import transact as games
from service.games.caches import STATES
from service.games.errors import RematchRefused
from service.games.values import Change, LoadedGame, Step
from service.rules import engine
from service.rules import events as vocab
from service.rules.evolve import evolve
from service.rules.state import GameState, encode_state


@dataclass(frozen=True)
class Rematched:
    """The caller's seat of the next game, and that game as after the claim;
    ``created``: this call made the next game."""

    game: LoadedGame
    seat: int
    created: bool


@dataclass(frozen=True)
class Quotas:
    """The client a rematch counts against (`GameStore.create`'s ``owner``;
    ``None``: no quotas), its create's quotas and the most unfinished games it may
    have (a claim, as a join: `GameStore.reserve`)."""

    owner: str | None = None
    create: Mapping[str, int] | None = None
    active: int = 0


def rotated_seat(old_seat: int, players: int) -> int:
    """Where the player of ``old_seat`` sits in the next game (one place earlier)."""
    return (old_seat - 1) % players


def next_game_state(
    old: GameState, caller: int, caller_hash: str, until_ms: int
) -> tuple[GameState, list[vocab.Event]]:
    """The next game of ``old``'s players: its seats rotated by one, the caller's
    taken with ``caller_hash`` (their new token's digest), each other player's held
    for their token's digest until ``until_ms``, the bots kept; its first dealer
    the seat of ``old``'s, where the player after them sits now."""
    n = old.players
    specs: list[engine.SeatSpec] = []
    held: list[str | None] = []
    for index in range(n):
        seat = old.seats[(index + 1) % n]
        if seat.kind == "bot":
            specs.append(engine.SeatSpec(seat.name, "bot", seat.bot, None, None))
            held.append(None)
        elif (index + 1) % n == caller:
            specs.append(engine.SeatSpec(seat.name, "human", None, caller_hash, None))
            held.append(None)
        else:
            specs.append(engine.SeatSpec(None, "human", None, None, None))
            held.append(seat.token_hash)
    # The deal passes on: the last game's first dealer's seat is the next player's now.
    dealer = old.rounds[0].dealer if old.rounds else old.first_dealer
    state, events = engine.new_game(old.options, old.preset, specs, passed_deal=dealer)
    if any(held) and state.status == "waiting":
        state = evolve(state, reserved=tuple(held), reserved_until=until_ms)
    return state, events


def open_lapsed(state: GameState, now_ms: int) -> GameState:
    """``state`` with its held seats open to anyone once ``reserved_until`` has come
    (the same object when nothing changes)."""
    if state.reserved_until is None or now_ms < state.reserved_until:
        return state
    return evolve(state, reserved=(), reserved_until=None)


def _link(next_id: str, seat: int) -> Step:
    """The step that stores ``next_id`` as the finished game's next game (nothing
    when one is stored already: the first link made stays)."""

    def step(game: LoadedGame, _seat: int | None) -> Change | None:
        state = game.state
        if state.next_game is not None:
            return None
        event = vocab.rematch_offered(seat=seat, next_game=next_id)
        linked = evolve(state, next_game=next_id, event_count=state.event_count + 1)
        return Change(linked, [event])

    return step


def _claim(
    name: str | None,
    old_hash: str | None,
    new_hash: str,
    now_ms: int,
    quotas: Quotas,
    reserve: Callable[[str], None],
) -> Step:
    """The step that takes the seat of the next game held for ``old_hash`` with
    ``new_hash`` (nothing when that token holds a seat already)."""

    def step(game: LoadedGame, _seat: int | None) -> Change | None:
        state = game.state
        if any(seat.token_hash == new_hash for seat in state.seats):
            return None  # claimed before: the same seat again
        state = open_lapsed(state, now_ms)
        held = state.reserved
        if old_hash is None or old_hash not in held:
            raise RematchRefused(
                "rematch_seat_released",
                "Your seat of the rematch is no longer held for you; join it from the "
                "lobby if it is still open.",
            )
        index = held.index(old_hash)
        left = tuple(None if i == index else h for i, h in enumerate(held))
        if any(left):
            state = evolve(state, reserved=left)
        else:
            state = evolve(state, reserved=(), reserved_until=None)
        state, events = engine.take_seat(state, index, name or "", new_hash)
        if quotas.owner is not None:
            reserve(game.game_id)  # counted as a join's, before the save
        return Change(state, events, index, quotas.owner)

    return step


def rematch(
    ctx: games.Context,
    game_id: str,
    *,
    seat_of: Callable[[LoadedGame], int],
    new_hash: str,
    seconds: float,
    owner: Callable[[], str] = lambda: "",
    quotas: Quotas | None = None,
) -> Rematched:
    """The caller's seat of ``game_id``'s next game, made by this call when there is
    none yet (module docstring); ``seat_of`` finds the caller's seat of the finished
    game (raising when the caller holds none), ``new_hash`` is the digest of the
    caller's token of the next game, ``seconds`` how long the others' seats are held.

    `RematchRefused` before the game is over (``game_not_finished``) or when the
    caller's seat is no longer held (``rematch_seat_released``); `GameNotFound`
    for a game (or a next game) not stored; `QuotaExceeded` from the store."""
    quotas = quotas or Quotas()
    store = ctx.store
    old = games.load(ctx, game_id)
    seat = seat_of(old)
    if old.state.status != "finished":
        raise RematchRefused(
            "game_not_finished", "A rematch can be asked for once the game is over."
        )
    player = old.state.seats[seat]
    next_id = old.state.next_game
    if next_id is None:
        now = ctx.clock()
        state, events = next_game_state(old.state, seat, new_hash, int((now + seconds) * 1000))
        state, bot_events, due = games.after_step(ctx, None, state, owner)
        data = encode_state(state)
        made = store.create(
            data,
            events + bot_events,
            games.lobby_summary("", state, games.now_iso()),
            owner=quotas.owner,
            due=due,
            quota=quotas.create if quotas.owner is not None else None,
        )
        STATES.remember(made.game_id, data, state)
        try:
            linked = games.transact(
                ctx, game_id, _link(made.game_id, seat), owner=owner, loaded=old
            )
        except Exception:
            # Not linked (the store failed, or lost every race): nobody could find
            # the game made for it, so it goes (if the store lets it).
            with contextlib.suppress(Exception):
                store.delete(made.game_id, made.version)
            raise
        next_id = linked.game.state.next_game
        if next_id == made.game_id:
            game = LoadedGame(made.game_id, state, made.version, made.last_event, made.epoch)
            return Rematched(game, rotated_seat(seat, old.state.players), True)
        # Another player's rematch was linked first: ours goes, theirs is the one.
        store.delete(made.game_id, made.version)
    assert next_id is not None

    def reserve(next_game: str) -> None:
        if quotas.owner is not None:
            store.reserve(quotas.owner, next_game, quotas.active)

    step = _claim(
        player.name, player.token_hash, new_hash, int(ctx.clock() * 1000), quotas, reserve
    )
    done = games.transact(ctx, next_id, step, owner=owner)
    game = done.game
    if done.seat is None:
        seat_now = next(i for i, s in enumerate(game.state.seats) if s.token_hash == new_hash)
    else:
        seat_now = done.seat
    return Rematched(game, seat_now, False)
