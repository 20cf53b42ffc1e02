"""The `GameStore` contract, run against memory, Redis and Redis Cluster."""

from __future__ import annotations

import re
import threading
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from service.store.base import KEEP, GameStore, IdempotencyRecord, record_bytes
from service.store.errors import GameNotFound, QuotaExceeded
from service.store.memory import MemoryStore
from tests.store.conftest import StoreFactory

BLOB = bytes(range(256)) * 3  # every byte value: the state is opaque


def record(seat: int = 0, key: str = "k-1", status: int = 200) -> IdempotencyRecord:
    """An idempotency record with a recognisable body."""
    return IdempotencyRecord(seat, key, f"fp-{key}", status, b'{"answer":' + key.encode() + b"}")


# -- create and load -----------------------------------------------------------


def test_create_gives_a_fresh_url_safe_id_at_version_1(store: GameStore) -> None:
    first = store.create(BLOB)
    second = store.create(BLOB)
    assert first.game_id != second.game_id
    for created in (first, second):
        assert re.fullmatch(r"[A-Za-z0-9_-]{22,}", created.game_id)
        assert created.version == 1
        assert created.last_event == 0


def test_load_returns_the_exact_state_and_version(store: GameStore) -> None:
    created = store.create(BLOB, [{"type": "created"}, {"type": "dealt"}])
    loaded = store.load(created.game_id)
    assert loaded.state == BLOB
    assert loaded.version == 1
    assert loaded.last_event == created.last_event == 2


@pytest.mark.parametrize("game_id", ["AAAAAAAAAAAAAAAAAAAAAA", "{x}", "a b", "", "é" * 5])
def test_unknown_or_malformed_ids_are_not_found(store: GameStore, game_id: str) -> None:
    with pytest.raises(GameNotFound):
        store.load(game_id)
    with pytest.raises(GameNotFound):
        store.events(game_id, 0)
    assert store.save(game_id, 1, b"x").status == "not_found"
    assert store.get_idempotency(game_id, 0, "k") is None


def test_a_load_counts_the_counters_it_is_given(store: GameStore) -> None:
    game = store.create(BLOB).game_id
    # In a cluster the counters must live in the game's slot: its hash tag.
    first, second = (f"rl:{{{game}}}:a", 60_000), (f"rl:{{{game}}}:b", 60_000)
    assert store.load(game).counts == ()
    assert store.load(game, [first, second]).counts == (1, 1)
    assert store.load(game, [first]).counts == (2,)
    gone = "A" * 22
    with pytest.raises(GameNotFound) as missing:
        store.load(gone, [(f"rl:{{{gone}}}:a", 60_000)])
    assert missing.value.counts == (1,)  # counted all the same (a 429 before a 404)


# -- compare-and-set -------------------------------------------------------------


def test_save_at_the_expected_version_increments_it_by_one(store: GameStore) -> None:
    game = store.create(b"v1").game_id
    for expected in range(1, 5):
        result = store.save(game, expected, b"v%d" % (expected + 1))
        assert result.status == "saved" and result.saved
        assert result.version == expected + 1
    loaded = store.load(game)
    assert (loaded.state, loaded.version) == (b"v5", 5)


@pytest.mark.parametrize("expected", [0, 1, 3, -1])
def test_a_stale_save_changes_nothing(store: GameStore, expected: int) -> None:
    game = store.create(b"one", [{"type": "created"}], lobby={"players": 1}).game_id
    assert store.save(game, 1, b"two", [{"type": "moved"}]).saved
    before = store.events(game, 0)
    lobby_before = store.lobby()

    result = store.save(
        game, expected, b"three", [{"type": "lost"}], record(key="stale"), lobby=None
    )

    assert (result.status, result.version, result.last_event) == ("stale", 2, 2)
    loaded = store.load(game)
    assert (loaded.state, loaded.version, loaded.last_event) == (b"two", 2, 2)
    assert store.events(game, 0) == before
    assert store.get_idempotency(game, 0, "stale") is None
    assert store.lobby() == lobby_before


def test_save_of_an_unknown_game_is_not_found_and_creates_nothing(store: GameStore) -> None:
    result = store.save("AAAAAAAAAAAAAAAAAAAAAA", 1, b"x", [{"type": "t"}])
    assert (result.status, result.version, result.last_event) == ("not_found", 0, 0)
    with pytest.raises(GameNotFound):
        store.load("AAAAAAAAAAAAAAAAAAAAAA")


def test_racing_writers_lose_no_update(make_store: StoreFactory) -> None:
    """16 threads load-modify-save one counter: one save wins per version."""
    store = make_store(max_events=100)  # every event of the race is kept
    game = store.create(b"0").game_id
    per_thread = 5
    won: list[int] = []
    stale = 0
    lock = threading.Lock()
    errors: list[BaseException] = []

    def work(seat: int) -> None:
        nonlocal stale
        try:
            done = 0
            while done < per_thread:
                loaded = store.load(game)
                count = int(loaded.state) + 1
                event = {"type": "inc", "seat": seat, "count": count}
                result = store.save(game, loaded.version, b"%d" % count, [event])
                with lock:
                    if result.saved:
                        won.append(result.version)
                        done += 1
                    else:
                        assert result.status == "stale"
                        stale += 1
        except BaseException as exc:  # reported below, with the thread's traceback
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(seat,)) for seat in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    total = 16 * per_thread
    assert sorted(won) == list(range(2, total + 2))  # exactly one winner per version
    loaded = store.load(game)
    assert (loaded.state, loaded.version) == (b"%d" % total, total + 1)
    events = store.events(game, 0)
    assert [e["seq"] for e in events] == list(range(1, total + 1))
    assert [e["count"] for e in events] == list(range(1, total + 1))
    assert [e["version"] for e in events] == list(range(2, total + 2))


# -- events ----------------------------------------------------------------------


def test_events_get_contiguous_seqs_the_version_and_a_utc_time(store: GameStore) -> None:
    game = store.create(b"s", [{"type": "created", "seq": 77, "at": "yesterday"}]).game_id
    store.save(game, 1, b"s", [])  # a save without events still counts a version
    result = store.save(game, 2, b"s", [{"type": "a", "n": [1, {"x": None}]}, {}])
    assert (result.version, result.last_event) == (3, 3)

    events = store.events(game, 0)

    assert [(e["seq"], e["version"]) for e in events] == [(1, 1), (2, 3), (3, 3)]
    assert events[0]["type"] == "created"
    assert events[1] == {"seq": 2, "version": 3, "at": events[1]["at"], "type": "a",
                         "n": [1, {"x": None}]}  # fmt: skip
    assert set(events[2]) == {"seq", "version", "at"}
    for event in events:
        assert event["at"].endswith("Z")
        at = datetime.fromisoformat(event["at"])
        assert at.tzinfo is not None and at.utcoffset() == UTC.utcoffset(at)


def test_events_after_a_seq_and_with_a_limit(store: GameStore) -> None:
    game = store.create(b"s", [{"n": n} for n in range(1, 6)]).game_id
    assert [e["n"] for e in store.events(game, 2)] == [3, 4, 5]
    assert [e["n"] for e in store.events(game, 1, limit=2)] == [2, 3]
    assert store.events(game, 5) == []
    assert store.events(game, 50) == []


def test_events_that_are_not_json_are_refused_before_any_write(store: GameStore) -> None:
    game = store.create(b"s").game_id
    with pytest.raises(TypeError):
        store.save(game, 1, b"t", [{"type": "bad", "value": object()}])
    assert store.load(game).version == 1
    assert store.events(game, 0) == []


def test_a_capped_event_log_keeps_at_least_the_latest_events(make_store: StoreFactory) -> None:
    store = make_store(max_events=10)
    game = store.create(b"s").game_id
    for version in range(1, 11):
        store.save(game, version, b"s", [{"n": n} for n in range(5)])
    seqs = [e["seq"] for e in store.events(game, 0)]
    assert seqs[-1] == 50
    assert len(seqs) >= 10
    assert seqs == list(range(seqs[0], 51))


def test_waiting_for_events_times_out_empty(store: GameStore) -> None:
    game = store.create(b"s", [{"type": "created"}]).game_id
    assert store.events(game, 1, wait=0.2) == []


def test_waiting_for_events_wakes_on_a_save(store: GameStore) -> None:
    game = store.create(b"s", [{"type": "created"}]).game_id
    got: list[list[dict[str, Any]]] = []
    waiter = threading.Thread(target=lambda: got.append(store.events(game, 1, wait=20)))
    waiter.start()
    # Let the waiter block first; it must get the event whether or not it did.
    threading.Event().wait(0.2)
    store.save(game, 1, b"t", [{"type": "moved"}])
    waiter.join(timeout=20)
    assert not waiter.is_alive()
    assert [(e["seq"], e["type"]) for e in got[0]] == [(2, "moved")]


def test_many_waiters_all_get_the_event(store: GameStore) -> None:
    game = store.create(b"s").game_id
    got: list[list[dict[str, Any]]] = []
    waiters = [
        threading.Thread(target=lambda: got.append(store.events(game, 0, wait=20)))
        for _ in range(8)
    ]
    for w in waiters:
        w.start()
    threading.Event().wait(0.2)
    store.save(game, 1, b"t", [{"type": "moved"}])
    for w in waiters:
        w.join(timeout=20)
    assert [[e["seq"] for e in events] for events in got] == [[1]] * 8


# -- idempotency -------------------------------------------------------------------


def test_save_stores_the_idempotency_record_per_seat_and_key(store: GameStore) -> None:
    game = store.create(b"s").game_id
    first = record(seat=1, key="retry-me", status=201)
    assert store.save(game, 1, b"t", [{"type": "moved"}], first).saved

    assert store.get_idempotency(game, 1, "retry-me") == first
    assert store.get_idempotency(game, 0, "retry-me") is None
    assert store.get_idempotency(game, 1, "other") is None

    long_key = "x" * 300 + "/:{}"
    second = record(seat=1, key=long_key)
    assert store.save(game, 2, b"u", [], second).saved
    assert store.get_idempotency(game, 1, long_key) == second
    assert store.get_idempotency(game, 1, "retry-me") == first


def test_a_games_idempotency_records_stay_within_its_byte_budget(
    make_store: StoreFactory,
) -> None:
    # Each record costs its key, fingerprint and answer plus RECORD_OVERHEAD:
    # 10 records of about 100 bytes in a budget of 350 keep the newest three.
    store = make_store(idempotency_bytes=350)
    game = store.create(b"s").game_id
    records = [record(key=f"key-{i:02}") for i in range(10)]
    assert record_bytes(records[0]) * 3 <= 350 < record_bytes(records[0]) * 4
    for version, made in enumerate(records, start=1):
        assert store.save(game, version, b"t", [], made).saved
    kept = [made for made in records if store.get_idempotency(game, 0, made.key) == made]
    assert kept == records[-3:]
    # One record larger than the whole budget is still kept (the newest always is).
    big = IdempotencyRecord(1, "big", "fp", 200, b"x" * 1000)
    assert store.save(game, 11, b"u", [], big).saved
    assert store.get_idempotency(game, 1, "big") == big
    assert store.get_idempotency(game, 0, records[-1].key) is None


# -- owners' counts ------------------------------------------------------------------


def test_an_owners_counter_counts_creates_and_joins_whatever_the_status(
    store: GameStore,
) -> None:
    # The create-and-join-yourself loop: each game counts against its creator's
    # open games from its create to its end, whether it waits or is in play.
    listed = {"seats": []}
    quota = {"open": 3, "waiting": 3}
    for _ in range(3):
        game = store.create(b"w", [{"type": "game_created"}], listed, "ann", quota=quota).game_id
        store.reserve("ann", game, 3)  # ann joins it herself
        assert store.save(game, 1, b"a", [{"type": "round_started"}], lobby=None, owner="ann").saved
    assert store.open_games("ann") == {"open": 3, "waiting": 0, "bots": 0}
    with pytest.raises(QuotaExceeded) as refused:
        store.create(b"w", [{"type": "game_created"}], listed, "ann", quota=quota)
    assert (refused.value.count, refused.value.limit) == ("open", 3)
    with pytest.raises(QuotaExceeded):
        store.reserve("ann", store.create(b"b", [], listed, "bob").game_id, 3)
    assert store.save(game, 2, b"e", [{"type": "game_ended"}]).saved
    assert store.open_games("ann") == {"open": 2, "waiting": 0, "bots": 0}
    store.create(b"w", [{"type": "game_created"}], listed, "ann", quota=quota)


# -- lobby ---------------------------------------------------------------------------


def test_lobby_lists_replaces_keeps_and_removes(store: GameStore) -> None:
    assert store.lobby() == ([], None)
    game = store.create(b"s", lobby={"open_seats": 2, "preset": "standard"}).game_id
    unlisted = store.create(b"s").game_id
    assert store.lobby() == ([{"id": game, "open_seats": 2, "preset": "standard"}], None)

    store.save(game, 1, b"t", lobby=KEEP)
    store.save(unlisted, 1, b"t")  # default: KEEP (not listed)
    assert store.lobby()[0] == [{"id": game, "open_seats": 2, "preset": "standard"}]

    store.save(game, 2, b"u", lobby={"open_seats": 1})
    assert store.lobby()[0] == [{"id": game, "open_seats": 1}]

    store.save(game, 3, b"v", lobby=None)
    assert store.lobby() == ([], None)


def test_lobby_pages_through_every_game_once(store: GameStore) -> None:
    games = [store.create(b"s", lobby={"n": n}).game_id for n in range(7)]
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page, cursor = store.lobby(limit=3, cursor=cursor)
        assert len(page) <= 3
        seen += [item["id"] for item in page]
        if cursor is None:
            break
    assert sorted(seen) == sorted(games)
    assert len(seen) == len(set(seen))


def test_lobby_lists_the_newest_first_and_a_relisting_keeps_its_place(store: GameStore) -> None:
    games = []
    for n in range(3):
        games.append(store.create(b"s", lobby={"n": n}).game_id)
        time.sleep(0.003)  # distinct listing times (ms)
    assert [item["id"] for item in store.lobby()[0]] == games[::-1]
    assert store.save(games[0], 1, b"t", lobby={"n": 0, "joined": True}).saved
    assert [item["id"] for item in store.lobby()[0]] == games[::-1]


def test_a_filtered_lobby_pages_through_every_match_once(store: GameStore) -> None:
    games = [store.create(b"s", lobby={"n": n}).game_id for n in range(9)]
    even = {game for n, game in enumerate(games) if n % 2 == 0}
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        page, cursor = store.lobby(2, cursor, where=lambda summary: summary["n"] % 2 == 0)
        assert len(page) <= 2 and all(item["n"] % 2 == 0 for item in page)
        seen += [item["id"] for item in page]
        if cursor is None:
            break
    assert sorted(seen) == sorted(even) and len(seen) == len(set(seen))


def test_lobby_with_a_malformed_cursor_starts_at_the_top(store: GameStore) -> None:
    game = store.create(b"s", lobby={"n": 1}).game_id
    assert store.lobby(cursor="not a cursor")[0] == [{"id": game, "n": 1}]


def test_ping_answers(store: GameStore) -> None:
    store.ping()


# -- watches (what wakes an event stream) -------------------------------------


def test_a_watch_wakes_on_saves_with_events_of_its_game_only(
    make_store: StoreFactory, request: pytest.FixtureRequest
) -> None:
    store = make_store()
    # For Redis, the saves come from another store object: another process.
    writer = make_store() if not isinstance(store, MemoryStore) else store
    game = store.create(b"s", [{"type": "game_created"}]).game_id
    other = store.create(b"s").game_id
    with store.watch(game) as watch, store.watch(game) as second:
        if request.node.callspec.params["make_store"] == "cluster":
            # A publish reaches the subscriber's node through the cluster bus, so the
            # creation's own may arrive after the watch opened: one extra wake-up,
            # harmless (a woken holder reads and finds nothing new). Let it pass.
            watch.wait(0.3)
            second.wait(0.0)
        assert watch.wait(0.05) is False  # nothing happened yet
        assert writer.save(other, 1, b"o", [{"type": "drew", "seat": 0}]).saved
        assert writer.save(game, 1, b"t", []).saved  # no event: no wake-up needed
        assert watch.wait(0.3) is False  # another game's events do not wake it
        assert writer.save(game, 2, b"t", [{"type": "drew", "seat": 1}]).saved
        assert watch.wait(5.0) is True and second.wait(5.0) is True
        # Woken once per wake-up: the next wait waits again.
        assert watch.wait(0.2) is False
        # A save before the next wait is not missed.
        assert writer.save(game, 3, b"t", [{"type": "discarded", "seat": 1}]).saved
        assert watch.wait(5.0) is True
    assert [e["seq"] for e in store.events(game, 1)] == [2, 3]


def test_a_watch_given_deliver_gets_each_saves_events_in_order_or_a_wake_up(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    writer = make_store() if not isinstance(store, MemoryStore) else store
    game = store.create(b"s", [{"type": "game_created"}]).game_id
    delivered: list[list[dict[str, Any]]] = []
    arrived = threading.Event()

    def deliver(events: list[dict[str, Any]]) -> None:
        delivered.append(events)
        arrived.set()

    with store.watch(game, deliver) as watch:
        saved = writer.save(game, 1, b"t", [{"type": "drew", "seat": 1}, {"type": "x", "n": [1]}])
        assert saved.saved
        assert writer.save(game, 2, b"t", [{"type": "discarded", "seat": 1, "card": "SK"}]).saved
        if isinstance(store, MemoryStore):
            # In one process the watch is woken, and its holder reads the events.
            assert watch.wait(5.0) is True and delivered == []
        else:
            # From Redis the wake-ups carry each save's events, as `events` reads them.
            deadline = time.monotonic() + 5.0
            while sum(map(len, delivered)) < 3 and time.monotonic() < deadline:
                arrived.wait(0.1)
            assert delivered == [store.events(game, 1)[:2], store.events(game, 3)]
            assert watch.wait(0.2) is False  # delivered, not woken
        assert writer.delete(game, 3).saved
        assert watch.wait(5.0) is True  # a deletion carries no events: a wake-up


def test_delete_is_a_compare_and_set_that_forgets_the_game(store: GameStore) -> None:
    game = store.create(b"s", [{"type": "game_created"}], lobby={"n": 1}).game_id
    with store.watch(game) as watch:
        assert store.delete(game, 7).status == "stale"
        assert store.load(game).version == 1
        assert store.delete(game, 1).status == "saved"
        assert watch.wait(5.0) is True  # its streams learn it is gone
    with pytest.raises(GameNotFound):
        store.load(game)
    with pytest.raises(GameNotFound):
        store.events(game)
    assert store.lobby() == ([], None)
    assert store.delete(game, 1).status == "not_found"
    assert store.delete("no such game", 1).status == "not_found"
