"""`service.games.rematch`: the next game of a finished game's players (rotated seats,
held seats, claims, the race of two players asking at once), on memory and Redis."""

from __future__ import annotations

from typing import Any

import pytest

from service.bots.play import Budget
from service.games import rematch
from service.games.due import REMATCH, next_due
from service.games.errors import RematchRefused
from service.games.transact import Context, load
from service.games.values import LoadedGame
from service.rules import engine
from service.rules.events import EVENTS
from service.rules.evolve import evolve
from service.rules.moves import IllegalMove
from service.rules.options import resolve_options
from service.rules.state import GameState, decode_state, encode_state
from service.store.base import REMATCH_OFFERED, GameStore
from service.store.errors import GameNotFound, StoreUnavailable
from service.worker import Runner, RunnerSettings

T = 1_800_000_000.0  # the context's clock, in seconds
HELD = 300.0


def finished_game() -> GameState:
    """A finished standard game: Ann, Bob, a greedy bot, Cy (token digests h-<name>)."""
    options = resolve_options("standard", {}, 4)
    seats = [
        engine.SeatSpec("Ann", "human", None, "h-Ann"),
        engine.SeatSpec("Bob", "human", None, "h-Bob"),
        engine.SeatSpec(None, "bot", "greedy", None),
        engine.SeatSpec("Cy", "human", None, "h-Cy"),
    ]
    state = engine.new_game(options, "standard", seats, seed=5)[0]
    return evolve(state, status="finished", round=None, winners=(0,))


def context(store: GameStore, now: list[float]) -> Context:
    return Context(store, 4, Budget(moves=0, seconds=60), clock=lambda: now[0])


def seat_by(digest: str) -> Any:
    def find(game: LoadedGame) -> int:
        return next(i for i, s in enumerate(game.state.seats) if s.token_hash == digest)

    return find


def ask(ctx: Context, game_id: str, who: str) -> rematch.Rematched:
    """`who` (Ann, Bob, Cy) asks for the rematch; their new token's digest is n-<who>."""
    return rematch.rematch(
        ctx, game_id, seat_of=seat_by(f"h-{who}"), new_hash=f"n-{who}", seconds=HELD
    )


def test_the_next_game_rotates_the_seats_keeps_the_bots_and_holds_the_others() -> None:
    old = finished_game()
    state, events = rematch.next_game_state(old, 1, "n-Bob", 99_000)
    assert [s.name for s in state.seats] == ["Bob", "greedy bot", None, None]
    assert [s.kind for s in state.seats] == ["human", "bot", "human", "human"]
    assert state.seats[0].token_hash == "n-Bob"
    assert state.seats[1].bot == "greedy"
    assert state.reserved == (None, None, "h-Cy", "h-Ann")
    assert state.reserved_until == 99_000
    assert state.status == "waiting" and state.options == old.options
    assert state.preset == old.preset and state.deal == "random"
    assert events[0]["type"] == "game_created"
    assert rematch.rotated_seat(1, 4) == 0 and rematch.rotated_seat(0, 4) == 3
    assert state.first_dealer is None  # the last game's dealer unknown: drawn at random


def test_the_deal_passes_to_the_player_after_the_last_games_first_dealer() -> None:
    old = evolve(finished_game(), first_dealer=1)  # Bob dealt first
    state, events = rematch.next_game_state(old, 0, "n-Ann", 99_000)
    # Seat 1 of the next game is the player after Bob: the greedy bot.
    assert state.first_dealer == 1 and state.seats[1].kind == "bot"
    assert events[0]["first_dealer"] == 1 and state.deal == "random"


def test_the_store_knows_the_rematch_events_name() -> None:
    # The store cannot import the rules: its copy of the name is checked here.
    assert REMATCH_OFFERED in EVENTS


def test_held_seats_open_at_their_time_not_a_millisecond_before() -> None:
    state, _ = rematch.next_game_state(finished_game(), 0, "n-Ann", 99_000)
    assert rematch.open_lapsed(state, 98_999) is state
    opened = rematch.open_lapsed(state, 99_000)
    assert opened.reserved == () and opened.reserved_until is None
    due = next_due(state, 1.0)
    assert due is not None and due.reason == REMATCH and due.at == 99.0
    assert next_due(opened, 1.0) is None


def test_a_held_seat_is_refused_to_a_join_and_skipped_by_one_without_a_seat() -> None:
    state, _ = rematch.next_game_state(finished_game(), 0, "n-Ann", 99_000)
    with pytest.raises(IllegalMove) as refused:
        engine.take_seat(state, 2, "Eve", "h-Eve")
    assert refused.value.code == "seat_reserved"
    with pytest.raises(IllegalMove) as none:
        engine.take_seat(state, None, "Eve", "h-Eve")
    assert none.value.code == "no_open_seat"
    taken, _ = engine.take_seat(rematch.open_lapsed(state, 99_000), None, "Eve", "h-Eve")
    assert taken.seats[0].name == "Eve" and taken.seats[2].name is None


def test_the_links_and_held_seats_survive_the_stored_form() -> None:
    state, _ = rematch.next_game_state(finished_game(), 0, "n-Ann", 99_000)
    assert decode_state(encode_state(state)) == state
    linked = evolve(finished_game(), next_game="G123")
    assert decode_state(encode_state(linked)).next_game == "G123"
    plain = finished_game()
    assert len(__import__("orjson").loads(encode_state(plain))) == 16  # nothing stored


def test_the_first_call_creates_the_next_game_and_a_second_answers_the_same_seat(
    store: GameStore,
) -> None:
    now = [T]
    ctx = context(store, now)
    game_id = store.create(encode_state(finished_game()), [{"type": "game_created"}]).game_id
    first = ask(ctx, game_id, "Bob")
    assert first.created and first.seat == 0
    old = load(ctx, game_id)
    assert old.state.next_game == first.game.game_id
    assert store.events(game_id, 0)[-1] == {
        **store.events(game_id, 0)[-1],
        "type": "rematch_offered",
        "seat": 1,
        "next_game": first.game.game_id,
    }
    again = ask(ctx, game_id, "Bob")
    assert not again.created
    assert (again.game.game_id, again.seat) == (first.game.game_id, 0)
    assert again.game.version == first.game.version  # nothing written
    ann = ask(ctx, game_id, "Ann")
    assert ann.seat == 3 and ann.game.state.status == "waiting"
    cy = ask(ctx, game_id, "Cy")
    assert cy.seat == 2
    assert cy.game.state.status == "active"  # every seat taken: dealt
    assert cy.game.state.reserved == () and cy.game.state.reserved_until is None
    assert [s.token_hash for s in cy.game.state.seats] == ["n-Bob", None, "n-Cy", "n-Ann"]


def test_before_the_end_a_rematch_is_refused(store: GameStore) -> None:
    playing = evolve(finished_game(), status="active")
    game_id = store.create(encode_state(playing), [{"type": "game_created"}]).game_id
    with pytest.raises(RematchRefused) as refused:
        ask(context(store, [T]), game_id, "Ann")
    assert refused.value.code == "game_not_finished"


def test_two_players_asking_at_once_make_one_next_game(store: GameStore) -> None:
    """Ann's call creates its game; before it links it, Bob's whole call runs: his
    link wins, Ann's game is deleted and she takes her seat of Bob's."""
    now = [T]
    ctx = context(store, now)
    game_id = store.create(encode_state(finished_game()), [{"type": "game_created"}]).game_id
    made: list[str] = []
    bob: list[rematch.Rematched] = []
    create = store.create

    def racing_create(*args: Any, **kwargs: Any) -> Any:
        created = create(*args, **kwargs)
        made.append(created.game_id)
        if len(made) == 1:  # Ann's create: Bob's whole call runs inside it
            bob.append(ask(ctx, game_id, "Bob"))
        return created

    store.create = racing_create  # type: ignore[method-assign]
    try:
        ann = ask(ctx, game_id, "Ann")
    finally:
        del store.create  # type: ignore[method-assign]
    assert len(made) == 2  # Ann's, then Bob's
    assert bob[0].created and not ann.created
    assert ann.game.game_id == bob[0].game.game_id == made[1]
    assert load(ctx, game_id).state.next_game == made[1]
    with pytest.raises(GameNotFound):
        load(ctx, made[0])  # Ann's own next game is gone
    offered = [e for e in store.events(game_id, 0) if e["type"] == "rematch_offered"]
    assert len(offered) == 1
    assert ann.game.state.seats[ann.seat].token_hash == "n-Ann"


def test_unclaimed_seats_open_at_the_time_and_a_late_claim_is_refused(store: GameStore) -> None:
    now = [T]
    ctx = context(store, now)
    game_id = store.create(encode_state(finished_game()), [{"type": "game_created"}]).game_id
    first = ask(ctx, game_id, "Bob")
    next_id = first.game.game_id
    assert store.lobby(10, None)[0] == [] or all(
        not seat["open"] for seat in store.lobby(10, None)[0][0]["seats"]
    )
    runner = Runner(store, RunnerSettings(repair_every=0), clock=lambda: now[0])
    now[0] = T + HELD - 0.001
    runner.run_once()
    assert load(ctx, next_id).state.reserved != ()
    assert ask(ctx, game_id, "Ann").seat == 3  # just in time
    now[0] = T + HELD
    runner.run_once()
    opened = load(ctx, next_id).state
    assert opened.reserved == () and opened.status == "waiting"
    listed = [g for g in store.lobby(10, None)[0] if g["id"] == next_id]
    assert [s["open"] for s in listed[0]["seats"]] == [False, False, True, False]
    with pytest.raises(RematchRefused) as late:
        ask(ctx, game_id, "Cy")
    assert late.value.code == "rematch_seat_released"


def test_a_next_game_that_could_not_be_linked_is_deleted(store: GameStore) -> None:
    ctx = context(store, [T])
    game_id = store.create(encode_state(finished_game()), [{"type": "game_created"}]).game_id
    made: list[str] = []
    create = store.create

    def noting_create(*args: Any, **kwargs: Any) -> Any:
        created = create(*args, **kwargs)
        made.append(created.game_id)
        return created

    def failing_save(*args: Any, **kwargs: Any) -> Any:
        raise StoreUnavailable("down")

    store.create = noting_create  # type: ignore[method-assign]
    store.save = failing_save  # type: ignore[method-assign]
    try:
        with pytest.raises(StoreUnavailable):
            ask(ctx, game_id, "Ann")
    finally:
        del store.create  # type: ignore[method-assign]
        del store.save  # type: ignore[method-assign]
    assert len(made) == 1
    with pytest.raises(GameNotFound):
        store.load(made[0])
    assert load(ctx, game_id).state.next_game is None
