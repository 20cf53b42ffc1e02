"""The queue of due games (part of the `GameStore` contract): memory, Redis and Redis Cluster."""

from __future__ import annotations

import threading

from service.store.base import KEEP, Due, GameStore

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
