"""How long each game is kept, and games counted per owner: every backend."""

from __future__ import annotations

import threading
import time

import pytest

from service.config import MAX_RECORD_TTL, Config, store_settings
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
    # A finished game's rematch link keeps it as long as its end did, not a week.
    assert lifecycle([{"type": "rematch_offered"}], KEEP, lives) == ("finished", 50)


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


def test_a_finished_games_record_is_kept_record_ttl_past_the_idle_bound(
    make_store: StoreFactory,
) -> None:
    store = make_store(waiting_ttl=SHORT, finished_ttl=SHORT, idle_ttl=SHORT, record_ttl=SHORT * 6)
    active = store.create(b"a", [{"type": "game_created"}], lobby=None).game_id
    ended = store.create(b"e", [{"type": "game_created"}], lobby=None).game_id
    assert store.save(ended, 1, b"e2", [{"type": "game_ended"}]).saved
    time.sleep(SHORT * 3)
    with pytest.raises(GameNotFound):
        store.load(active)  # idle: gone at IDLE_TTL
    assert store.load(ended).state == b"e2"  # its record: kept RECORD_TTL
    assert [e["type"] for e in store.events(ended, 0)] == ["game_created", "game_ended"]
    time.sleep(SHORT * 5)
    with pytest.raises(GameNotFound):
        store.load(ended)


def test_record_ttl_lengthens_only_finished_games_and_is_bounded() -> None:
    lives = Lifetimes.capped(idle=100, waiting=10, finished=50, record=1000)
    assert (lives.idle, lives.waiting, lives.finished) == (100, 10, 1000)
    assert Lifetimes.capped(100, 10, 50, record=20).finished == 50
    assert Lifetimes.capped(100, 10, 500).finished == 100  # no record: the idle bound
    assert Config().RECORD_TTL == 30 * 24 * 3600
    assert Config.from_env({"RECORD_TTL": "-5"}).RECORD_TTL == 0
    assert Config.from_env({"RECORD_TTL": str(10**9)}).RECORD_TTL == MAX_RECORD_TTL
    assert Config.from_env({"RECORD_TTL": "3600"}).RECORD_TTL == 3600
    settings = store_settings(Config().flask_settings())
    assert settings["record_ttl"] == 30 * 24 * 3600
    # A setting past the bound given another way (EXTRA) is clamped for the store.
    assert store_settings({**Config().flask_settings(), "RECORD_TTL": 10**9})["record_ttl"] == (
        MAX_RECORD_TTL
    )


def counts(open_: int, waiting: int = 0, bots: int = 0) -> dict[str, int]:
    """An owner's counts (`GameStore.open_games`)."""
    return {"open": open_, "waiting": waiting, "bots": bots}


CREATED = [{"type": "game_created"}]
LISTED = {"seats": []}


def test_open_games_count_per_owner_until_finished(make_store: StoreFactory) -> None:
    store = make_store()
    first = store.create(b"1", CREATED, lobby=LISTED, owner="ann").game_id
    store.create(b"2", CREATED, lobby=LISTED, owner="ann")
    third = store.create(b"3", CREATED, lobby=None, owner="ann").game_id
    store.create(b"4", CREATED, lobby=LISTED, owner="bob")
    store.create(b"5", CREATED, lobby=LISTED)
    assert store.open_games("ann") == counts(3, waiting=2)
    assert store.open_games("bob") == counts(1, waiting=1)
    assert store.open_games("cy") == counts(0)
    # Joined: in play, still open. Ended: no longer counted.
    assert store.save(first, 1, b"1", [{"type": "round_started"}], lobby=None).saved
    assert store.open_games("ann") == counts(3, waiting=1)
    assert store.save(third, 1, b"3", [{"type": "game_ended"}]).saved
    assert store.open_games("ann") == counts(2, waiting=1)


def test_a_join_counts_the_game_for_whoever_joins_it_once(make_store: StoreFactory) -> None:
    # The counter behind the create-and-join-yourself bypass: a game counts for
    # its creator while it waits and once in play, and for each client that
    # joined it, once however often they join; a deletion frees every place.
    store = make_store()
    game = store.create(b"1", CREATED, lobby=LISTED, owner="ann").game_id
    store.reserve("ann", game, 1)  # ann joins her own game: counted already
    assert store.save(game, 1, b"2", [{"type": "seat_taken"}], lobby=LISTED, owner="ann").saved
    store.reserve("bob", game, 5)
    assert store.save(game, 2, b"3", [{"type": "round_started"}], lobby=None, owner="bob").saved
    assert store.open_games("ann") == counts(1)
    assert store.open_games("bob") == counts(1)
    # At its limit a client may not join one more game, but a game it is in.
    other = store.create(b"x", CREATED, lobby=LISTED, owner="cy").game_id
    with pytest.raises(QuotaExceeded) as refused:
        store.reserve("bob", other, 1)
    assert (refused.value.count, refused.value.limit) == ("open", 1)
    store.reserve("bob", game, 1)
    # A game ending in a move (no owner named) leaves every owner's count.
    assert store.save(game, 3, b"4", [{"type": "game_ended"}]).saved
    assert store.open_games("ann") == counts(0)
    assert store.open_games("bob") == counts(0)
    store.reserve("bob", other, 1)
    assert store.save(other, 1, b"y", [{"type": "seat_taken"}], lobby=LISTED, owner="bob").saved
    assert store.open_games("bob") == counts(1)
    assert store.delete(other, 2).saved
    assert store.open_games("bob") == counts(0)
    assert store.open_games("cy") == counts(0)


def test_bot_games_have_a_count_of_their_own(make_store: StoreFactory) -> None:
    store = make_store()
    quota = {"open": 10, "bots": 2}
    for state in (b"1", b"2"):
        store.create(state, CREATED, lobby=None, owner="ann", quota=quota, bots=True)
    with pytest.raises(QuotaExceeded) as refused:
        store.create(b"3", CREATED, lobby=None, owner="ann", quota=quota, bots=True)
    assert (refused.value.count, refused.value.limit) == ("bots", 2)
    store.create(b"4", CREATED, lobby=None, owner="ann", quota=quota)  # a human's game
    # A game its bots played to its end within the create counts for nobody.
    ended = [{"type": "game_created"}, {"type": "game_ended"}]
    store.create(b"5", ended, lobby=None, owner="ann", quota=quota, bots=True)
    assert store.open_games("ann") == counts(3, bots=2)


def test_an_owners_entries_expire_with_their_games(make_store: StoreFactory) -> None:
    # Nobody tells the index a game expired: each entry counts until its game's
    # expiry as of its last status change, then drops out of the count.
    store = make_store(waiting_ttl=SHORT, idle_ttl=60)
    store.create(b"1", CREATED, lobby=LISTED, owner="ann", quota={"open": 1})
    assert store.open_games("ann") == counts(1, waiting=1)
    with pytest.raises(QuotaExceeded):
        store.create(b"2", CREATED, lobby=LISTED, owner="ann", quota={"open": 1})
    time.sleep(SHORT * 3)
    assert store.open_games("ann") == counts(0)
    store.create(b"3", CREATED, lobby=LISTED, owner="ann", quota={"open": 1})


@pytest.mark.parametrize("held", [0, 2])
def test_a_quota_holds_for_creates_sent_at_once(make_store: StoreFactory, held: int) -> None:
    # Eight creates at once against a quota of three waiting games, with
    # ``held`` already there: exactly the room left is taken, the rest refused.
    store = make_store()
    quota = {"waiting": 3, "open": 4}
    for i in range(held):
        store.create(b"%d" % i, CREATED, lobby=LISTED, owner="ann", quota=quota)
    start = threading.Barrier(8)
    outcomes: list[str] = []

    def create() -> None:
        start.wait()
        try:
            store.create(b"x", CREATED, lobby=LISTED, owner="ann", quota=quota)
        except QuotaExceeded as exc:
            outcomes.append(f"refused {exc.count} {exc.limit}")
        else:
            outcomes.append("created")

    threads = [threading.Thread(target=create) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["created"] * (3 - held) + ["refused waiting 3"] * (5 + held)
    assert store.open_games("ann") == counts(3, waiting=3)
    # Games in play count with the waiting ones; another owner has its own.
    store.create(b"a", CREATED, lobby=None, owner="ann", quota=quota)
    with pytest.raises(QuotaExceeded) as refused:
        store.create(b"b", CREATED, lobby=None, owner="ann", quota=quota)
    assert refused.value.count == "open"
    store.create(b"c", CREATED, lobby=LISTED, owner="bob", quota=quota)
    assert store.open_games("ann") == counts(4, waiting=3)


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
    quota = {"waiting": 1, "open": 1}

    def lost(*args: object, **kwargs: object) -> object:
        raise StoreUnavailable("lost between the note and the save")

    with monkeypatch.context() as patch:
        patch.setattr(store, "_cas", lost)
        with pytest.raises(StoreUnavailable):
            store.create(b"x", CREATED, lobby=LISTED, owner="ann", quota=quota)
    # Within quota_pending the note holds the place...
    assert store.open_games("ann") == counts(1, waiting=1)
    with pytest.raises(QuotaExceeded):
        store.create(b"y", CREATED, lobby=LISTED, owner="ann", quota=quota)
    # ...and once it has passed, the place is free again.
    time.sleep(SHORT * 2)
    assert store.open_games("ann") == counts(0)
    store.create(b"z", CREATED, lobby=LISTED, owner="ann", quota=quota)
    assert store.open_games("ann") == counts(1, waiting=1)
    # The stored game's note counts past quota_pending: the save confirmed it.
    time.sleep(SHORT * 2)
    assert store.open_games("ann") == counts(1, waiting=1)


def test_a_join_reserved_but_never_saved_frees_its_place(make_store: StoreFactory) -> None:
    # A join refused after its reservation (the seat was taken meanwhile)
    # holds the place for quota_pending only.
    store = make_store(quota_pending=SHORT)
    game = store.create(b"1", CREATED, lobby=LISTED, owner="ann").game_id
    store.reserve("bob", game, 1)
    assert store.open_games("bob") == counts(1)
    time.sleep(SHORT * 2)
    assert store.open_games("bob") == counts(0)
