"""The runner (service/worker.py): it advances queued games, and several runners on one
store never apply a move twice."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from typing import cast

import pytest
import redis
from flask import Flask

from service.app import RUNNER_EXTENSION, create_app, shutdown
from service.bots.play import UNBOUNDED, Budget, bot_to_move, play_bots
from service.config import TestConfig
from service.games import clock
from service.rules.engine import SeatSpec, new_game
from service.rules.options import resolve_options
from service.rules.state import GameState, decode_state, encode_state
from service.store.base import Due, DueClaim, GameStore
from service.store.errors import StoreUnavailable
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from service.worker import BOTS, CLOCK, Runner, RunnerSettings, next_due
from tests.support.gunicorn import GunicornServer
from tests.support.redis_server import RedisCluster


def bot_game(seed: int, strategy: str = "random", preset: str = "express") -> GameState:
    """A new game of two bot seats (not yet played)."""
    options = resolve_options(preset, {}, 2)
    seats = [SeatSpec(kind="bot", bot=strategy), SeatSpec(kind="bot", bot=strategy)]
    return new_game(options, preset, seats, seed=seed)[0]


def queue(store: GameStore, state: GameState) -> str:
    """Store a game as a request would after spending its budget: queued for the runner."""
    due = next_due(state)
    assert due is not None and due.reason == BOTS
    return store.create(encode_state(state), [{"type": "game_created"}], due=due).game_id


def drain(runner: Runner, until: float = 120.0) -> None:
    """Run ``runner`` until the queue has nothing due."""
    deadline = time.monotonic() + until
    while runner.run_once():
        assert time.monotonic() < deadline, "the runner did not empty the queue"


def small(moves: int) -> RunnerSettings:
    """Runner settings whose advances play only ``moves`` bot moves each."""
    return RunnerSettings(batch=4, budget=Budget(moves=moves, seconds=60))


def test_the_runner_plays_a_queued_game_to_its_end(store: GameStore) -> None:
    game = queue(store, bot_game(3))
    runner = Runner(store, small(10))
    drain(runner)
    state = decode_state(store.load(game).state)
    assert state.status == "finished" and state.winners is not None
    assert runner.advanced > 1  # in several advances of 10 moves: requeued in between
    events = store.events(game, 0, limit=1000)
    assert events[-1]["type"] == "game_ended"
    assert store.claim_due(time.time() + 3600, 10, 30) == []


def test_a_game_with_nothing_due_is_taken_off_the_queue(store: GameStore) -> None:
    finished = play_bots(bot_game(5), UNBOUNDED).state
    game = store.create(encode_state(finished), due=Due(time.time(), BOTS)).game_id
    runner = Runner(store)
    assert runner.run_once() == 1
    assert runner.advanced == 0 and store.load(game).version == 1
    assert store.claim_due(time.time() + 3600, 10, 30) == []


def test_a_forgotten_game_leaves_the_queue(store: GameStore) -> None:
    claims_before = store.claim_due(time.time(), 10, 30)
    assert claims_before == []
    if isinstance(store, MemoryStore):
        game = queue(store, bot_game(5))
        store._drop(game)  # as when its idle TTL ran out
        store._due[game] = (0, BOTS)  # a stale entry left behind
    else:
        game = "NoSuchGameNoSuchGame00"
        store.client.zadd(f"{store.prefix}:{{due}}:q", {game: 0})
    assert Runner(store).run_once() == 1
    assert store.claim_due(time.time() + 3600, 10, 30) == []


@pytest.mark.slow  # 24 bot games to their end, twice over
def test_two_runners_on_one_store_never_apply_a_move_twice(store: GameStore) -> None:
    # Random bots choose from the state alone, so each game has one right ending.
    seeds = range(12)
    expected = {seed: play_bots(bot_game(seed), UNBOUNDED) for seed in seeds}
    games = {queue(store, bot_game(seed)): seed for seed in seeds}
    runners = [Runner(store, small(3)) for _ in range(2)]
    stop = threading.Event()
    threads = [threading.Thread(target=r.run, args=(stop,)) for r in runners]
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + 120
        while store.next_due() is not None:
            assert time.monotonic() < deadline, "the runners did not finish the games"
            time.sleep(0.05)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    saves = 0
    for game, seed in games.items():
        loaded = store.load(game)
        want = expected[seed]
        assert decode_state(loaded.state) == want.state
        # One game_created event, then exactly the events of one play-through.
        assert loaded.last_event == 1 + len(want.events)
        saves += loaded.version - 1
    assert sum(r.advanced for r in runners) == saves
    assert all(r.advanced for r in runners), "both runners took part"


def test_a_runner_process_queues_again_a_game_whose_entry_a_cluster_save_missed(
    redis_cluster: RedisCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In a Redis Cluster the queue lives in another slot: a save writes it in a
    # second step, here failing as if the queue's node were down (or the process
    # had ended between the two). The game's own hash still says it is due.
    url = f"redis://{redis_cluster.nodes[0].host}:{redis_cluster.nodes[0].port}"
    store = RedisStore(url, cluster=True, prefix=f"t{uuid.uuid4().hex[:12]}")
    try:
        state = bot_game(7)
        game = store.create(encode_state(state)).game_id

        def unreachable(**_: object) -> None:
            raise redis.exceptions.ConnectionError("the queue's node is down")

        monkeypatch.setattr(store, "_due_update", unreachable)
        assert store.save(game, 1, encode_state(state), due=next_due(state)).saved
        monkeypatch.undo()
        assert store.next_due() is None  # lost: no runner would ever claim it

        runner = Runner(store, RunnerSettings(idle=0.05, repair_every=3600))
        stop = threading.Event()
        thread = threading.Thread(target=runner.run, args=(stop,))
        thread.start()
        try:
            deadline = time.monotonic() + 60
            while decode_state(store.load(game).state).status != "finished":
                assert time.monotonic() < deadline, "the runner did not finish the game"
                time.sleep(0.05)
        finally:
            stop.set()
            thread.join()
        assert runner.advanced >= 1 and store.next_due() is None
    finally:
        store.close()


@pytest.fixture
def app_small_budget() -> Iterator[Flask]:
    """An app on the memory store whose requests play at most 3 bot moves."""
    app = create_app(dataclasses.replace(TestConfig(), BOT_MOVES_PER_REQUEST=3))
    yield app
    shutdown(app)


def test_an_all_bot_game_answers_at_once_and_the_in_process_runner_finishes_it(
    app_small_budget: Flask,
) -> None:
    client = app_small_budget.test_client()
    body = {"preset": "express", "seats": [{"bot": "greedy"}, {"bot": "random"}], "seed": 3}
    created = client.post("/games", json=body)
    assert created.status_code == 201 and created.json is not None
    assert created.json["status"] == "active"
    game = created.json["id"]
    deadline = time.monotonic() + 60
    while (view := client.get(f"/games/{game}").json)["status"] != "finished":
        assert time.monotonic() < deadline, view
        time.sleep(0.05)
    assert view["winners"] and view["version"] >= 2  # the runner saved it


def test_a_move_that_hands_the_turn_to_bots_queues_the_game_when_the_budget_ends(
    app_small_budget: Flask,
) -> None:
    app_small_budget.extensions[RUNNER_EXTENSION].stop()  # look at the queue instead
    client = app_small_budget.test_client()
    body = {"preset": "standard", "seats": [{"name": "Ann"}, *[{"bot": "random"}] * 3]}
    created = client.post("/games", json={**body, "first_dealer": 3})
    assert created.json is not None
    game, token = created.json["id"], created.json["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    client.post(f"/games/{game}/moves", json={"type": "draw", "source": "stock"}, headers=auth)
    hand = client.get(f"/games/{game}", headers=auth).json["hand"]  # type: ignore[index]
    moved = client.post(
        f"/games/{game}/moves", json={"type": "discard", "card": hand[0]}, headers=auth
    )
    assert moved.status_code == 200 and moved.json is not None
    store = app_small_budget.extensions["rummy.store"].inner
    # Three bots need more than 3 moves: the answer shows the game mid-way, queued.
    assert moved.json["round"]["turn"] != 0
    assert [c.game_id for c in store.claim_due(time.time() + 1, 10, 30)] == [game]


@pytest.mark.slow
def test_under_gunicorn_on_the_memory_store_the_runner_thread_finishes_a_game_of_bots() -> None:
    env = {"STORE_URL": "memory://", "ACCESS_LOG": "0", "BOT_MOVES_PER_REQUEST": "3"}
    with GunicornServer(env, workers=1) as server:
        body = json.dumps({"preset": "standard", "seats": [{"bot": "greedy"}, {"bot": "random"}]})
        request = urllib.request.Request(
            server.url + "/games",
            data=body.encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            created = json.load(answer)
        assert created["status"] == "active"
        deadline = time.monotonic() + 120
        while True:
            with urllib.request.urlopen(f"{server.url}/games/{created['id']}", timeout=10) as got:
                view = json.load(got)
            if view["status"] == "finished":
                break
            assert time.monotonic() < deadline, "the runner thread did not finish the game"
            time.sleep(0.2)
        assert view["winners"]


def test_a_shut_down_app_leaves_no_runner_thread_and_starts_none() -> None:
    app = create_app(dataclasses.replace(TestConfig(), BOT_MOVES_PER_REQUEST=3))
    client = app.test_client()
    body = {"preset": "standard", "seats": [{"bot": "random"}] * 4, "seed": 1}
    assert client.post("/games", json=body).status_code == 201  # queued: the thread starts
    runner = app.extensions[RUNNER_EXTENSION]
    assert runner._thread is not None

    shutdown(app)
    assert not runner._thread.is_alive()
    runner.wake()  # as a save that queues a game would
    assert not any(t.name == "rummy-runner" for t in threading.enumerate())


class FailingSaves:
    """A store whose saves (and, while `release_fails`, releases) raise `StoreUnavailable`."""

    def __init__(self, inner: GameStore) -> None:
        self.inner = inner
        self.failing = True
        self.release_fails = False

    def save(self, *args: object, **kwargs: object) -> object:
        if self.failing:
            raise StoreUnavailable("save failed: Timeout reading from socket")
        return self.inner.save(*args, **kwargs)  # type: ignore[arg-type]

    def release_due(self, claims: Sequence[DueClaim]) -> int:
        if self.release_fails:
            raise StoreUnavailable("release failed: Timeout reading from socket")
        return self.inner.release_due(claims)

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


def test_a_store_error_gives_the_runners_claims_back_at_once() -> None:
    store = MemoryStore()
    now = time.time()
    clocks = [
        store.create(encode_state(bot_game(seed)), due=Due(now - 5 + seed, CLOCK, "b")).game_id
        for seed in range(3)
    ]
    flaky = FailingSaves(store)
    runner = Runner(cast(GameStore, flaky))
    with pytest.raises(StoreUnavailable):
        runner.run_once()  # three clocks claimed; the first one's save fails
    assert runner.released == 3
    # Due again at once, as they were (not after the 30 s lease).
    assert [c.game_id for c in store.claim_due(time.time(), 10, 30, first=CLOCK)] == clocks


def test_claims_a_failing_store_could_not_take_back_are_given_back_first_thing_next_time() -> None:
    store = MemoryStore()
    game = queue(store, bot_game(4))
    flaky = FailingSaves(store)
    flaky.release_fails = True
    runner = Runner(cast(GameStore, flaky), small(5))
    with pytest.raises(StoreUnavailable):
        runner.run_once()
    assert runner.released == 0 and store.claim_due(time.time(), 10, 30) == []  # still held
    flaky.failing = flaky.release_fails = False  # the store answers again
    assert runner.run_once() == 1  # released, then claimed again and advanced
    assert runner.released == 1 and runner.advanced == 1 and store.load(game).version == 2


def test_a_due_clock_is_played_before_bot_games_due_earlier_and_costs_no_bot_slice() -> None:
    store = MemoryStore()
    for seed in range(5):  # one client's bot games, due first
        state = bot_game(seed)
        store.create(encode_state(state), due=Due(time.time() - 10, BOTS, "a"))
    options = resolve_options("express", {"turn_seconds": 5}, 3)
    seats = [SeatSpec("Ann", "human", None, "h"), *[SeatSpec(kind="bot", bot="random")] * 2]
    clocked = new_game(options, "express", seats, seed=1, first_dealer=2)[0]  # Ann first
    clocked = clock.stamp(None, clocked, int((time.time() - 6) * 1000))  # 1 s past its deadline
    due = next_due(clocked, owner="b")
    assert due is not None and due.reason == CLOCK
    game = store.create(encode_state(clocked), due=due).game_id
    runner = Runner(store, RunnerSettings(budget=Budget(moves=10_000, seconds=60)))
    assert runner.run_once() == 2  # the clock, then one bot game
    after = decode_state(store.load(game).state)
    assert after.seats[0].timeouts == 1
    # Only the timeout was played: the bots that follow are queued, still Ann's client's.
    assert bot_to_move(after)
    queued = [c for c in store.claim_due(time.time(), 10, 30, first=CLOCK) if c.game_id == game]
    assert [(c.reason, c.owner) for c in queued] == [(BOTS, "b")]
