"""How long each game is kept, and games counted per owner: every backend."""

from __future__ import annotations

import time

import pytest

from service.store.base import KEEP, Lifetimes, lifecycle
from service.store.errors import GameNotFound
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
