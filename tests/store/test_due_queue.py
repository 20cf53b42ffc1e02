"""The queue of due games (part of the `GameStore` contract): memory, Redis and Redis Cluster."""

from __future__ import annotations

import threading

import pytest
import redis

from service.store.base import KEEP, Due, GameStore
from service.store.redis import RedisStore

NOW = 1_900_000_000.0  # a fixed "now" (epoch seconds): the queue compares times only


def test_a_save_queues_and_unqueues_a_game_in_the_same_compare_and_set(store: GameStore) -> None:
    game = store.create(b"s").game_id
    assert store.claim_due(NOW, 10, 30) == [] and store.next_due() is None
    assert store.save(game, 1, b"s2", due=Due(NOW - 1, "bots")).saved
    assert store.next_due() == NOW - 1
    claims = store.claim_due(NOW, 10, 30)
    assert [(c.game_id, c.reason) for c in claims] == [(game, "bots")]
    assert store.save(game, 2, b"s3", due=None).saved
    assert store.claim_due(NOW + 60, 10, 30) == [] and store.next_due() is None


def test_a_stale_save_changes_nothing_in_the_queue(store: GameStore) -> None:
    game = store.create(b"s").game_id
    assert store.save(game, 7, b"x", due=Due(NOW, "bots")).status == "stale"
    assert store.claim_due(NOW, 10, 30) == []


def test_keep_leaves_the_entry_and_create_may_queue(store: GameStore) -> None:
    game = store.create(b"s", due=Due(NOW, "bots")).game_id
    assert store.save(game, 1, b"s2", due=KEEP).saved
    assert store.save(game, 2, b"s3").saved  # KEEP is the default
    assert [c.game_id for c in store.claim_due(NOW, 10, 30)] == [game]


def test_only_due_games_are_claimed_earliest_first_and_at_most_limit(store: GameStore) -> None:
    games = [store.create(b"s", due=Due(NOW + offset, "bots")).game_id for offset in (3, 1, 2, 50)]
    claims = store.claim_due(NOW + 3, 2, 30)
    assert [c.game_id for c in claims] == [games[1], games[2]]
    assert [c.game_id for c in store.claim_due(NOW + 3, 10, 30)] == [games[0]]
    assert store.claim_due(NOW + 3, 10, 30) == []  # the rest is leased or not yet due


def test_a_claim_is_a_lease_that_runs_out(store: GameStore) -> None:
    game = store.create(b"s", due=Due(NOW, "turn_clock")).game_id
    first = store.claim_due(NOW, 10, 30)
    assert [(c.game_id, c.reason) for c in first] == [(game, "turn_clock")]
    assert store.claim_due(NOW + 29, 10, 30) == []  # another runner finds nothing
    again = store.claim_due(NOW + 31, 10, 30)  # the first runner died: due again
    assert [c.game_id for c in again] == [game] and again[0].lease > first[0].lease


def test_drop_due_takes_a_claimed_game_off_unless_it_was_queued_again(store: GameStore) -> None:
    idle = store.create(b"s", due=Due(NOW, "bots")).game_id
    busy = store.create(b"s", due=Due(NOW, "bots")).game_id
    claims = {c.game_id: c for c in store.claim_due(NOW, 10, 30)}
    assert store.save(busy, 1, b"s2", due=Due(NOW + 1, "bots")).saved  # queued again
    assert store.drop_due(claims[idle]) is True
    assert store.drop_due(claims[busy]) is False
    assert [c.game_id for c in store.claim_due(NOW + 1, 10, 30)] == [busy]
    assert store.drop_due(claims[idle]) is False  # already gone


def test_concurrent_claims_never_hand_a_game_to_two_runners(store: GameStore) -> None:
    games = {store.create(b"s", due=Due(NOW, "bots")).game_id for _ in range(40)}
    claimed: list[str] = []
    lock = threading.Lock()

    def runner() -> None:
        while True:
            got = store.claim_due(NOW, 3, 30)
            if not got:
                return
            with lock:
                claimed.extend(c.game_id for c in got)

    threads = [threading.Thread(target=runner) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claimed) == sorted(games)


def test_a_repair_leaves_a_whole_queue_as_it_is(store: GameStore) -> None:
    queued = store.create(b"s", due=Due(NOW - 5, "bots")).game_id
    unqueued = store.create(b"s", due=Due(NOW - 1, "bots")).game_id
    assert store.save(unqueued, 1, b"s2", due=None).saved
    claimed = store.create(b"s", due=Due(NOW - 9, "clock")).game_id
    assert [c.game_id for c in store.claim_due(NOW - 9, 10, 30)] == [claimed]

    assert store.repair_due_queue() == 0
    # The claimed game stays leased (until NOW - 9 + 30), the unqueued one unqueued.
    assert [(c.game_id, c.reason) for c in store.claim_due(NOW, 10, 30)] == [(queued, "bots")]
    assert store.claim_due(NOW + 20, 10, 30) == []


@pytest.mark.parametrize("make_store", ["cluster"], indirect=True)
def test_a_game_whose_queue_entry_a_cluster_save_missed_is_queued_again_by_the_repair(
    store: GameStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In a cluster the queue is written in a second step after the save; make it fail.
    assert isinstance(store, RedisStore)
    kept = store.create(b"s", due=Due(NOW - 3, "bots")).game_id
    game = store.create(b"s").game_id
    dropped = store.create(b"s", due=Due(NOW - 2, "bots")).game_id

    def unreachable(**_: object) -> None:
        raise redis.exceptions.ConnectionError("the queue's node is down")

    monkeypatch.setattr(store, "_due_update", unreachable)
    assert store.save(game, 1, b"s2", due=Due(NOW - 1, "clock")).saved  # the save counts
    assert store.save(dropped, 1, b"s2", due=None).saved  # its unqueueing is missed too
    monkeypatch.undo()
    assert [c.game_id for c in store.claim_due(NOW, 10, 30)] == [kept, dropped]

    assert store.repair_due_queue() == 1
    assert [(c.game_id, c.reason) for c in store.claim_due(NOW, 10, 30)] == [(game, "clock")]
    assert store.repair_due_queue() == 0  # leased entries are left as they are


def test_due_clocks_are_claimed_before_bot_games_due_earlier(store: GameStore) -> None:
    bots = [store.create(b"s", due=Due(NOW - 10 + i, "bots", "a")).game_id for i in range(5)]
    clock = store.create(b"s", due=Due(NOW - 1, "clock", "b")).game_id
    later = store.create(b"s", due=Due(NOW + 5, "clock", "b")).game_id  # not due yet
    claims = store.claim_due(NOW, 16, 30, first="clock", others=1)
    assert [(c.game_id, c.reason, c.owner) for c in claims] == [
        (clock, "clock", "b"),
        (bots[0], "bots", "a"),
    ]
    assert later not in {c.game_id for c in store.claim_due(NOW, 16, 30, first="clock")}


def test_owners_take_turns_however_many_games_one_has_due(store: GameStore) -> None:
    # Owner "a" queued 6 games before "b" and "c" queued one each.
    a = [store.create(b"s", due=Due(NOW - 20 + i, "bots", "a")).game_id for i in range(6)]
    b = store.create(b"s", due=Due(NOW - 5, "bots", "b")).game_id
    c = store.create(b"s", due=Due(NOW - 4, "bots", "c")).game_id
    # One game a claim, as a runner takes them: a, then the owners not served yet.
    taken = [store.claim_due(NOW, 16, 30, first="clock", others=1)[0].game_id for _ in range(4)]
    assert taken == [a[0], b, c, a[1]]
    # Several a claim: one per owner each time round.
    d = store.create(b"s", due=Due(NOW - 1, "bots", "d")).game_id
    claims = store.claim_due(NOW, 3, 30)
    assert [claim.game_id for claim in claims] == [d, a[2], a[3]]


def test_a_released_claim_is_due_again_at_once_unless_queued_again(store: GameStore) -> None:
    kept = store.create(b"s", due=Due(NOW - 3, "bots", "a")).game_id
    moved = store.create(b"s", due=Due(NOW - 2, "bots", "a")).game_id
    claims = store.claim_due(NOW, 10, 30)
    assert [c.game_id for c in claims] == [kept, moved] and claims[0].due == (NOW - 3) * 1000
    assert store.save(moved, 1, b"s2", due=Due(NOW + 60, "clock", "a")).saved  # queued again
    assert store.claim_due(NOW + 1, 10, 30) == []  # leased
    assert store.release_due(claims) == 1
    again = store.claim_due(NOW + 1, 10, 30)
    assert [(c.game_id, c.due) for c in again] == [(kept, (NOW - 3) * 1000)]
    assert store.release_due(claims) == 0  # claimed again since: those claims are void
    # Later: the new lease of the first has run out, the second's save is due.
    assert [c.game_id for c in store.claim_due(NOW + 61, 10, 30)] == [kept, moved]
