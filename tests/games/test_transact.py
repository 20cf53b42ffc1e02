"""`service.games.transact`: the one write path (load → step → bots → clock → save),
on the memory store and on Redis."""

from __future__ import annotations

import pytest

from service.bots.play import Budget
from service.games.caches import STATES
from service.games.due import BOTS, CLOCK
from service.games.errors import Busy, GameNotFound, KeyReused, Stale
from service.games.transact import Context, load, transact
from service.games.values import Change, Expected, Idempotent, LoadedGame
from service.rules import engine
from service.rules.options import resolve_options
from service.rules.state import GameState, decode_state, encode_state
from service.store.base import GameStore

T = 1_800_000_000.0  # the context's clock, in seconds


def bots_game(seed: int = 3) -> GameState:
    """A new express game of two random bots."""
    options = resolve_options("express", {}, 2)
    seats = [engine.SeatSpec(kind="bot", bot="random"), engine.SeatSpec(kind="bot", bot="random")]
    return engine.new_game(options, "express", seats, seed=seed)[0]


def clocked_game() -> GameState:
    """A new standard game of three people with a 30 s turn clock (not yet stamped)."""
    options = resolve_options("standard", {"turn_seconds": 30}, 3)
    seats = [engine.SeatSpec(name, "human", None, f"hash-{name}") for name in ("A", "B", "C")]
    return engine.new_game(options, "standard", seats, seed=7)[0]


def context(store: GameStore, retries: int = 3, moves: int = 0) -> Context:
    return Context(store, retries, Budget(moves=moves, seconds=60), clock=lambda: T)


def stored(store: GameStore, state: GameState) -> str:
    return store.create(encode_state(state), [{"type": "game_created"}]).game_id


def same(game: LoadedGame, _seat: int | None) -> Change:
    """A step that changes nothing but is written (one event)."""
    return Change(game.state, [{"type": "noted"}])


def test_a_step_is_saved_with_its_events(store: GameStore) -> None:
    game_id = stored(store, clocked_game())
    done = transact(context(store), game_id, same)
    assert done.game.version == 2
    assert load(context(store), game_id).version == 2
    assert [e["type"] for e in store.events(game_id, 0)] == ["game_created", "noted"]


def test_a_stale_save_is_loaded_and_the_step_applied_again(store: GameStore) -> None:
    game_id = stored(store, clocked_game())
    calls: list[int] = []

    def racing(game: LoadedGame, seat: int | None) -> Change:
        calls.append(game.version)
        if len(calls) == 1:  # someone else writes between this load and its save
            store.save(game_id, game.version, encode_state(game.state), [{"type": "other"}])
        return same(game, seat)

    done = transact(context(store), game_id, racing)
    assert calls == [1, 2]
    assert done.game.version == 3
    assert [e["type"] for e in store.events(game_id, 0)] == ["game_created", "other", "noted"]


def test_a_write_that_loses_every_race_is_busy(store: GameStore) -> None:
    game_id = stored(store, clocked_game())
    calls: list[int] = []

    def always_beaten(game: LoadedGame, seat: int | None) -> Change:
        calls.append(game.version)
        store.save(game_id, game.version, encode_state(game.state))
        return same(game, seat)

    with pytest.raises(Busy):
        transact(context(store, retries=3), game_id, always_beaten)
    assert calls == [1, 2, 3]  # one attempt per retry, none of them saved
    assert "noted" not in [e["type"] for e in store.events(game_id, 0)]


def test_an_expected_version_is_stale_at_once_and_never_retried(store: GameStore) -> None:
    game_id = stored(store, clocked_game())
    with pytest.raises(Stale) as stale:
        transact(context(store), game_id, same, expected=Expected(7))
    assert stale.value.version == 1

    def racing(game: LoadedGame, seat: int | None) -> Change:
        store.save(game_id, game.version, encode_state(game.state))
        return same(game, seat)

    with pytest.raises(Stale) as lost:
        transact(context(store), game_id, racing, expected=Expected(1))
    assert lost.value.version == 2
    assert load(context(store), game_id).version == 2  # the racer's write only
    assert transact(context(store), game_id, same, expected="*").game.version == 3


def test_a_missing_game_is_not_found(store: GameStore) -> None:
    with pytest.raises(GameNotFound):
        transact(context(store), "no-such-game", same)


def test_a_step_that_writes_nothing_saves_nothing(store: GameStore) -> None:
    game_id = stored(store, clocked_game())
    done = transact(context(store), game_id, lambda game, seat: None)
    assert done.game.version == 1
    assert load(context(store), game_id).version == 1


def test_bots_then_the_clock_then_the_due_entry(store: GameStore) -> None:
    # Bots with no budget left: nothing played, queued at once in the owner's name.
    game_id = stored(store, bots_game())
    done = transact(context(store, moves=0), game_id, same, owner=lambda: "o:1")
    assert done.game.state.status == "active"
    [claim] = store.claim_due(T + 1, 16, 30.0, first=CLOCK, others=1)
    assert (claim.game_id, claim.reason, claim.owner) == (game_id, BOTS, "o:1")

    # Bots with a budget: they play the game to its end, and nothing is due after.
    other = stored(store, bots_game(seed=4))
    played = transact(context(store, moves=100_000), other, same, owner=lambda: "o:2")
    assert played.game.state.status == "finished"
    assert played.game.last_event > 10  # the step's event, then the bots' moves
    assert store.claim_due(T + 1, 16, 30.0, first=CLOCK, others=1) == []

    # A clocked turn: stamped from the context's clock, due at its deadline.
    clocked = stored(store, clocked_game())
    stamped = transact(context(store), clocked, same, owner=lambda: "o:3")
    assert stamped.game.state.turn_deadline == int(T * 1000) + 30_000
    assert decode_state(store.load(clocked).state).turn_deadline == int(T * 1000) + 30_000
    assert store.claim_due(T + 29, 16, 30.0, first=CLOCK, others=1) == []
    [due] = store.claim_due(T + 30.5, 16, 30.0, first=CLOCK, others=1)  # before the lease ends
    assert (due.game_id, due.reason, due.owner) == (clocked, CLOCK, "o:3")


def test_a_timeout_queues_the_bots_that_move_next(store: GameStore) -> None:
    game_id = stored(store, bots_game())
    done = transact(
        context(store, moves=100_000),
        game_id,
        lambda game, seat: Change(game.state, [], timed_out=True),
        owner=lambda: "o:1",
    )
    assert done.game.version == 2 and done.game.state.status == "active"  # no bot played
    [claim] = store.claim_due(T + 1, 16, 30.0, first=CLOCK, others=1)
    assert (claim.reason, claim.owner) == (BOTS, "o:1")


def test_an_idempotent_write_is_replayed_and_its_key_not_reused(store: GameStore) -> None:
    game_id = stored(store, clocked_game())
    calls: list[int] = []

    def counted(game: LoadedGame, seat: int | None) -> Change:
        calls.append(game.version)
        return same(game, seat)

    def first_seat(game: LoadedGame) -> tuple[LoadedGame, int]:
        return game, 0

    key = Idempotent("key-1", "body-1")
    first = transact(context(store), game_id, counted, seat=first_seat, idempotency=key)
    again = transact(context(store), game_id, counted, seat=first_seat, idempotency=key)
    assert (first.replayed, again.replayed) == (None, 200)
    assert again.game.version == first.game.version == 2
    assert calls == [1]
    with pytest.raises(KeyReused):
        transact(
            context(store), game_id, counted, seat=first_seat, idempotency=Idempotent("key-1", "x")
        )
    assert calls == [1]


def test_a_saved_state_is_decoded_from_memory_on_its_next_load(store: GameStore) -> None:
    game_id = stored(store, clocked_game())
    done = transact(context(store), game_id, same)
    assert STATES.kept(game_id) is done.game.state
    assert load(context(store), game_id).state is done.game.state
