"""How long each game is kept, and games counted per owner: every backend."""

from __future__ import annotations

import threading
import time

import pytest

from service.store.base import KEEP, Lifetimes, lifecycle
from service.store.errors import GameNotFound, QuotaExceeded, StoreUnavailable
from service.store.redis import RedisStore
from tests.store.conftest import StoreFactory

SHORT = 0.3


def test_lifecycle_reads_the_status_from_what_a_save_says() -> None:
    lives = Lifetimes(idle=100, waiting=10, finished=50)
    assert lifecycle([{"type": "seat_taken"}], {"id": "x"}, lives) == ("waiting", 10)
    assert lifecycle([{"type": "round_started"}], None, lives) == ("active", 100)
    assert lifecycle([{"type": "discarded"}], KEEP, lives) == ("", 100)
    assert lifecycle([{"type": "went_out"}, {"type": "game_ended"}], KEEP, lives) == (
        "finished",
        50,
    )


def test_unjoined_and_finished_games_expire_sooner(make_store: StoreFactory) -> None:
    store = make_store(waiting_ttl=SHORT, finished_ttl=SHORT, idle_ttl=60)
    waiting = store.create(b"w", [{"type": "game_created"}], lobby={"seats": []}).game_id
    active = store.create(b"a", [{"type": "game_created"}], lobby=None).game_id
    ended = store.create(b"e", [{"type": "game_created"}], lobby=None).game_id
    assert store.save(ended, 1, b"e2", [{"type": "game_ended"}]).saved
    time.sleep(SHORT * 3)
    for gone in (waiting, ended):
        with pytest.raises(GameNotFound):
            store.load(gone)
    assert store.load(active).state == b"a"
    assert waiting not in [item["id"] for item in store.lobby(100)[0]]


def test_open_games_count_per_owner_until_finished(make_store: StoreFactory) -> None:
    store = make_store()
    listed = {"seats": []}
    first = store.create(b"1", [{"type": "game_created"}], lobby=listed, owner="ann").game_id
    store.create(b"2", [{"type": "game_created"}], lobby=listed, owner="ann")
    third = store.create(b"3", [{"type": "game_created"}], lobby=None, owner="ann").game_id
    store.create(b"4", [{"type": "game_created"}], lobby=listed, owner="bob")
    store.create(b"5", [{"type": "game_created"}], lobby=listed)
    assert store.open_games("ann") == {"waiting": 2, "active": 1}
    assert store.open_games("bob") == {"waiting": 1, "active": 0}
    assert store.open_games("cy") == {"waiting": 0, "active": 0}
    # Joined: active. Ended: no longer counted.
    assert store.save(first, 1, b"1", [{"type": "round_started"}], lobby=None).saved
    assert store.save(third, 1, b"3", [{"type": "game_ended"}]).saved
    assert store.open_games("ann") == {"waiting": 1, "active": 1}


@pytest.mark.parametrize("held", [0, 2])
def test_a_quota_holds_for_creates_sent_at_once(make_store: StoreFactory, held: int) -> None:
    # Eight creates at once against a quota of three waiting games, with
    # ``held`` already there: exactly the room left is taken, the rest refused.
    store = make_store()
    listed = {"seats": []}
    quota = {"waiting": 3, "active": 1}
    for i in range(held):
        store.create(b"%d" % i, [{"type": "game_created"}], lobby=listed, owner="ann", quota=quota)
    start = threading.Barrier(8)
    outcomes: list[str] = []

    def create() -> None:
        start.wait()
        try:
            store.create(b"x", [{"type": "game_created"}], lobby=listed, owner="ann", quota=quota)
        except QuotaExceeded as exc:
            outcomes.append(f"refused {exc.status} {exc.limit}")
        else:
            outcomes.append("created")

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["created"] * (3 - held) + ["refused waiting 3"] * (5 + held)
    assert store.open_games("ann") == {"waiting": 3, "active": 0}
    # Each status has its own quota; another owner has its own.
    store.create(b"a", [{"type": "game_created"}], lobby=None, owner="ann", quota=quota)
    with pytest.raises(QuotaExceeded):
        store.create(b"b", [{"type": "game_created"}], lobby=None, owner="ann", quota=quota)
    store.create(b"c", [{"type": "game_created"}], lobby=listed, owner="bob", quota=quota)
    assert store.open_games("ann") == {"waiting": 3, "active": 1}


# Redis only: the memory store notes and stores under one lock, so it has no
# pending note to free.
@pytest.mark.parametrize("make_store", ["redis", "cluster"], indirect=True)
def test_a_create_that_failed_after_its_note_frees_its_place_after_quota_pending(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Redis notes a game under its owner before storing it; a create that fails
    # in between leaves a note with no game, which counts against the quota for
    # ``quota_pending`` seconds (so a create still on its way is never missed),
    # then no longer.
    store = make_store(quota_pending=SHORT)
    assert isinstance(store, RedisStore)
    listed = {"seats": []}
    quota = {"waiting": 1, "active": 1}

    def lost(*args: object, **kwargs: object) -> object:
        raise StoreUnavailable("lost between the note and the save")

    with monkeypatch.context() as patch:
        patch.setattr(store, "_cas", lost)
        with pytest.raises(StoreUnavailable):
            store.create(b"x", [{"type": "game_created"}], lobby=listed, owner="ann", quota=quota)
    # Within quota_pending the note holds the place...
    assert store.open_games("ann") == {"waiting": 1, "active": 0}
    with pytest.raises(QuotaExceeded):
        store.create(b"y", [{"type": "game_created"}], lobby=listed, owner="ann", quota=quota)
    # ...and once it has passed, the place is free again.
    time.sleep(SHORT * 2)
    assert store.open_games("ann") == {"waiting": 0, "active": 0}
    store.create(b"z", [{"type": "game_created"}], lobby=listed, owner="ann", quota=quota)
    assert store.open_games("ann") == {"waiting": 1, "active": 0}
