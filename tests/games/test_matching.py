"""The quick-play matcher (service/games/matching.py) over the ticket queue, on the
memory store and on a throwaway Redis: full tables oldest first, bot fill after its
delay, no ticket in two games, and a matcher that dies between claim and game loses
nothing."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import pytest

from service.games.matching import Matcher, MatchSettings
from service.http.tokens import hash_token
from service.rules.state import decode_state
from service.store.base import GameStore
from service.store.errors import GameExists
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from service.store.tickets import (
    Match,
    QueueFull,
    Ticket,
    TicketQueue,
    TicketQuotaExceeded,
    bucket_name,
    open_tickets,
)
from service.store.tokens import url_safe_token
from tests.support.redis_server import RedisServer


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest) -> Iterator[tuple[GameStore, TicketQueue]]:
    """A game store and its ticket queue: in memory, then in a throwaway Redis."""
    if request.param == "memory":
        store: GameStore = MemoryStore()
    else:
        server: RedisServer = request.getfixturevalue("redis_server")
        store = RedisStore(server.url, prefix=f"t{uuid.uuid4().hex[:12]}", pipelining=False)
    yield store, open_tickets(store, 600)
    store.close()


class Clock:
    """A clock the test moves (epoch seconds)."""

    def __init__(self) -> None:
        import time

        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def ticket(
    name: str,
    at_ms: int,
    tables: tuple[str, ...] = ("standard:4",),
    bots: bool = False,
    owner: str = "",
) -> Ticket:
    """A waiting ticket queued at ``at_ms``."""
    return Ticket(
        id=url_safe_token(16),
        secret_hash=hash_token(name + "-secret"),
        seat_hash=hash_token(name + "-seat"),
        owner=owner,
        name=name,
        client_seed=None,
        buckets=tables,
        bots=bots,
        at=at_ms,
        expires=at_ms + 600_000,
    )


def seated(store: GameStore, queue: TicketQueue, tickets: list[Ticket]) -> dict[str, set[str]]:
    """Game id -> the ticket ids seated there (checked against the game's seats)."""
    games: dict[str, set[str]] = {}
    for made in tickets:
        found = queue.get(made.id)
        assert found is not None and found.status == "matched", made.name
        state = decode_state(store.load(found.game).state)
        seat = state.seats[found.seat]
        assert seat.name == made.name and seat.token_hash == made.seat_hash
        games.setdefault(found.game, set()).add(made.id)
    return games


def test_full_tables_of_the_oldest_tickets(backend: tuple[GameStore, TicketQueue]) -> None:
    store, queue = backend
    clock = Clock()
    start = int(clock.now * 1000)
    made = [ticket(f"p{i}", start + i) for i in range(9)]
    for each in made:
        queue.enqueue(each, 0, 0)
    assert queue.demand() == {"standard:4": 9}
    matcher = Matcher(store, queue, MatchSettings(bot_fill=None), clock=clock)
    assert matcher.run_once() == 2
    games = seated(store, queue, made[:8])
    assert sorted(map(len, games.values())) == [4, 4]
    # The oldest four share the first table, in the order they queued.
    first = queue.get(made[0].id)
    assert first is not None
    state = decode_state(store.load(first.game).state)
    assert [seat.name for seat in state.seats] == ["p0", "p1", "p2", "p3"]
    assert state.status == "active" and state.deal == "random"
    left = queue.get(made[8].id)
    assert left is not None and left.status == "waiting"
    assert queue.demand() == {"standard:4": 1}


def test_bot_fill_after_the_delay_only_for_tickets_allowing_bots(
    backend: tuple[GameStore, TicketQueue],
) -> None:
    store, queue = backend
    clock = Clock()
    start = int(clock.now * 1000)
    alone = ticket("alone", start, bots=True)
    shy = ticket("shy", start + 1, bots=False)
    queue.enqueue(alone, 0, 0)
    queue.enqueue(shy, 0, 0)
    matcher = Matcher(store, queue, MatchSettings(bot_fill=5.0, bot="greedy"), clock=clock)
    clock.now += 4.9
    assert matcher.run_once() == 0
    clock.now += 0.2
    assert matcher.run_once() == 1
    found = queue.get(alone.id)
    assert found is not None and found.status == "matched"
    state = decode_state(store.load(found.game).state)
    assert [seat.kind for seat in state.seats] == ["human", "bot", "bot", "bot"]
    assert {seat.bot for seat in state.seats[1:]} == {"greedy"}
    waiting = queue.get(shy.id)
    assert waiting is not None and waiting.status == "waiting"


def test_a_ticket_of_several_tables_is_seated_once(
    backend: tuple[GameStore, TicketQueue],
) -> None:
    store, queue = backend
    clock = Clock()
    start = int(clock.now * 1000)
    wide = ticket("wide", start, tables=("standard:2", "standard:4", "express:2"))
    other = ticket("other", start + 1, tables=("express:2",))
    queue.enqueue(wide, 0, 0)
    queue.enqueue(other, 0, 0)
    third = ticket("third", start + 2, tables=("standard:2",))
    queue.enqueue(third, 0, 0)
    assert Matcher(store, queue, MatchSettings(bot_fill=None), clock=clock).run_once() == 1
    partner = [t for t in (other, third) if queue.get(t.id).status == "matched"]  # type: ignore[union-attr]
    assert len(partner) == 1
    games = seated(store, queue, [wide, *partner])
    assert list(games.values()) == [{wide.id, partner[0].id}]
    waiting = next(t for t in (other, third) if t is not partner[0])
    found = queue.get(waiting.id)
    assert found is not None and found.status == "waiting"
    assert queue.demand() == {waiting.buckets[0]: 1}


def test_quota_length_and_cancel(backend: tuple[GameStore, TicketQueue]) -> None:
    _, queue = backend
    start = int(Clock().now * 1000)
    owner = f"a:{uuid.uuid4().hex}"
    first, second = ticket("a", start, owner=owner), ticket("b", start + 1, owner=owner)
    queue.enqueue(first, 2, 0)
    queue.enqueue(second, 2, 0)
    with pytest.raises(TicketQuotaExceeded):
        queue.enqueue(ticket("c", start + 2, owner=owner), 2, 0)
    assert queue.cancel(first.id) == "cancelled"
    assert queue.get(first.id) is None
    assert queue.cancel(first.id) == "missing"
    queue.enqueue(ticket("d", start + 3, owner=owner), 2, 0)  # a place again
    table = ("express:3",)
    queue.enqueue(ticket("e", start, tables=table), 0, 2)
    queue.enqueue(ticket("f", start, tables=table), 0, 2)
    with pytest.raises(QueueFull) as refused:
        queue.enqueue(ticket("g", start, tables=table), 0, 2)
    assert refused.value.bucket == "express:3"


def test_expired_tickets_are_never_seated(backend: tuple[GameStore, TicketQueue]) -> None:
    store, queue = backend
    clock = Clock()
    start = int(clock.now * 1000)
    old = ticket("old", start - 700_000, tables=("express:2",))
    old = Ticket(**{**old.__dict__, "expires": start - 100_000})
    queue.enqueue(old, 0, 0)
    queue.enqueue(ticket("new", start, tables=("express:2",)), 0, 0)
    assert Matcher(store, queue, MatchSettings(bot_fill=None), clock=clock).run_once() == 0
    assert queue.get(old.id) is None


def test_a_matcher_killed_between_claim_and_game_loses_nothing(
    backend: tuple[GameStore, TicketQueue],
) -> None:
    """A claim whose game was never made is completed by another matcher once its
    lease passes; a claim whose game was made but not finished is not made twice."""
    store, queue = backend
    clock = Clock()
    start = int(clock.now * 1000)
    made = [ticket(f"k{i}", start + i, tables=("express:2",)) for i in range(4)]
    for each in made:
        queue.enqueue(each, 0, 0)
    now = int(clock.now * 1000)
    # The dead matcher: two claims, the second one's game made, neither finished.
    lost = queue.claim(bucket_name("express", 2), 2, url_safe_token(16), now, 10_000)
    half = queue.claim(bucket_name("express", 2), 2, url_safe_token(16), now, 10_000)
    assert lost is not None and half is not None
    dead = Matcher(store, queue, MatchSettings(bot_fill=None, lease=10.0), clock=clock)
    dead._create(half)
    survivor = Matcher(store, queue, MatchSettings(bot_fill=None, lease=10.0), clock=clock)
    assert survivor.run_once() == 0  # leased: not yet
    for each in made:
        found = queue.get(each.id)
        assert found is not None and found.status == "claimed"
    clock.now += 10.1
    assert survivor.run_once() == 2
    assert survivor.made == 1  # the half-made game was found, not made again
    games = seated(store, queue, made)
    assert sorted(map(len, games.values())) == [2, 2]
    assert half.id in games and lost.id in games
    assert queue.pending() == []  # type: ignore[attr-defined]
    # The dead matcher's retry of its own create makes no second game either.
    dead._create(half)
    assert dead.made == 1 and store.load(half.id).version == 1
    with pytest.raises(GameExists):
        store.create(store.load(half.id).state, game_id=half.id)


def test_matchers_racing_never_seat_a_ticket_twice(
    backend: tuple[GameStore, TicketQueue],
) -> None:
    store, queue = backend
    clock = Clock()
    start = int(clock.now * 1000)
    made = [ticket(f"r{i}", start + i) for i in range(40)]
    for each in made:
        queue.enqueue(each, 0, 0)
    matchers = [Matcher(store, queue, MatchSettings(bot_fill=None), clock=clock) for _ in range(4)]
    threads = [threading.Thread(target=m.run_once) for m in matchers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(m.made for m in matchers) == 10
    games = seated(store, queue, made)
    assert len(games) == 10 and all(len(ids) == 4 for ids in games.values())


def test_a_broken_match_is_logged_and_left_pending(
    backend: tuple[GameStore, TicketQueue], caplog: pytest.LogCaptureFixture
) -> None:
    """A match that fails for another reason than the store does not stop the
    runner's pass: logged, left pending, completed by a later pass."""
    store, queue = backend
    clock = Clock()
    start = int(clock.now * 1000)
    made = [ticket(f"b{i}", start + i, tables=("express:2",)) for i in range(2)]
    for each in made:
        queue.enqueue(each, 0, 0)
    matcher = Matcher(store, queue, MatchSettings(bot_fill=None, lease=1.0), clock=clock)
    broken = Matcher(store, queue, MatchSettings(bot_fill=None, lease=1.0), clock=clock)

    def boom(match: Match) -> None:
        raise RuntimeError("boom")

    broken._create = boom  # type: ignore[method-assign]
    assert broken.run_once() == 0
    assert "boom" in caplog.text
    assert len(queue.pending()) == 1  # type: ignore[attr-defined]
    clock.now += 1.1
    assert matcher.run_once() == 1
    assert len(seated(store, queue, made)) == 1


def waiting_game(store: GameStore, preset: str = "express", seats: int = 2) -> str:
    """A game listed in the lobby: Host in seat 0, the other seats open."""
    from service.games.transact import lobby_summary, now_iso
    from service.rules.engine import SeatSpec, new_game
    from service.rules.options import resolve_options
    from service.rules.state import encode_state

    specs = [SeatSpec("Host", "human", None, hash_token("host"))]
    specs += [SeatSpec(None, "human", None, None) for _ in range(seats - 1)]
    state, events = new_game(resolve_options(preset, {}, seats), preset, specs)
    return store.create(encode_state(state), events, lobby_summary("", state, now_iso())).game_id


def test_a_waiting_game_of_the_lobby_is_offered_to_queued_tickets(
    backend: tuple[GameStore, TicketQueue],
) -> None:
    store, queue = backend
    clock = Clock()
    start = int(clock.now * 1000)
    game_id = waiting_game(store, seats=3)
    made = [ticket(f"w{i}", start + i, tables=("express:3",)) for i in range(3)]
    for each in made:
        queue.enqueue(each, 0, 0)
    matcher = Matcher(store, queue, MatchSettings(bot_fill=None), clock=clock)
    assert matcher.run_once() == 2 and matcher.joined == 2 and matcher.made == 0
    games = seated(store, queue, made[:2])
    assert games == {game_id: {made[0].id, made[1].id}}
    state = decode_state(store.load(game_id).state)
    assert state.status == "active"
    assert [seat.name for seat in state.seats] == ["Host", "w0", "w1"]
    assert store.lobby()[0] == [] or all(g["id"] != game_id for g in store.lobby()[0])
    left = queue.get(made[2].id)
    assert left is not None and left.status == "waiting"


def test_a_join_retried_after_a_crash_keeps_its_seat_and_a_full_game_gives_tickets_back(
    backend: tuple[GameStore, TicketQueue],
) -> None:
    store, queue = backend
    clock = Clock()
    start = int(clock.now * 1000)
    game_id = waiting_game(store, seats=2)
    first, second = (
        ticket("j0", start, tables=("express:2",)),
        ticket("j1", start + 1, tables=("express:2",)),
    )
    queue.enqueue(first, 0, 0)
    queue.enqueue(second, 0, 0)
    now = int(clock.now * 1000)
    # A matcher claims `first` for the game, seats it, and dies before finishing.
    match = queue.claim("express:2", 1, url_safe_token(16), now, 1000, game=game_id)
    assert match is not None and match.game == game_id
    dead = Matcher(store, queue, MatchSettings(bot_fill=None, lease=1.0), clock=clock)
    dead._join(Match(match.id, match.bucket, match.tickets, game_id))
    queue_state = queue.get(first.id)
    assert queue_state is not None and queue_state.status == "matched"
    # The same match completed again (after a crash between the join and the
    # finish) keeps the seat it has: no second seat is taken.
    again = Matcher(store, queue, MatchSettings(bot_fill=None, lease=1.0), clock=clock)
    assert again._join(match)
    state = decode_state(store.load(game_id).state)
    assert [seat.name for seat in state.seats] == ["Host", "j0"]
    # The game is full now: a claim for it gives its ticket back to the queue.
    late = queue.claim("express:2", 1, url_safe_token(16), now, 1000, game=game_id)
    assert late is not None and late.tickets[0].id == second.id
    assert not again._join(late)
    back = queue.get(second.id)
    assert back is not None and back.status == "waiting" and back.match == ""
    assert queue.demand() == {"express:2": 1}
    assert queue.pending() == []  # type: ignore[attr-defined]
