"""What only the Redis store promises: round trips, key layout, TTLs, retries,
outages and durability, proven against throwaway redis-servers."""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from redis.crc import key_slot

from service.store.base import IdempotencyRecord
from service.store.errors import StoreUnavailable
from service.store.redis import SAVE_SCRIPT, RedisStore
from tests.support.redis_server import RedisCluster, RedisServer, find_free_port

# Commands the save script runs itself (counted by INFO commandstats, not sent).
SCRIPT_COMMANDS = {name.lower() for name in re.findall(r"redis\.call\('(\w+)'", SAVE_SCRIPT)}


def stats_delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """Commands counted between two snapshots, without the snapshots' own INFO."""
    delta = {name: calls - before.get(name, 0) for name, calls in after.items()}
    return {name: n for name, n in delta.items() if n and name != "info"}


@pytest.fixture
def prefix() -> str:
    """A key prefix of this test's own."""
    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture
def store(store_redis: RedisServer, prefix: str) -> Iterator[RedisStore]:
    """A Redis store on the package's server."""
    made = RedisStore(store_redis.url, prefix=prefix)
    yield made
    made.close()


def warm(store: RedisStore) -> str:
    """A listed game after one create and one save: connections open, scripts loaded."""
    game = store.create(b"state", [{"type": "created"}], lobby={"warm": True}).game_id
    assert store.save(game, 1, b"state", [{"type": "warm"}]).saved
    store.load(game)
    return game


# -- round trips --------------------------------------------------------------------


def test_load_and_save_are_one_command_each(store: RedisStore, store_redis: RedisServer) -> None:
    game = warm(store)
    record = IdempotencyRecord(0, "key", "fp", 200, b"{}")

    with store_redis.record_commands() as load_commands:
        store.load(game)
    with store_redis.record_commands() as save_commands:
        assert store.save(game, 2, b"next", [{"type": "a"}, {"type": "b"}], record).saved

    assert [c.split()[0] for c in load_commands] == ["HMGET"]
    assert [c.split()[0] for c in save_commands] == ["EVALSHA"]


def test_a_create_under_a_quota_reads_a_count_not_the_owners_games(
    store: RedisStore, store_redis: RedisServer
) -> None:
    # The owner's index is counted in its own script: the same commands for an
    # owner with one game as for one with sixty (no read per game, no scan).
    warm(store)
    quota = {"open": 100, "waiting": 100}
    store.create(b"s", [{"type": "created"}], {"seats": []}, "bob", quota=quota)  # scripts loaded

    def create_counted() -> dict[str, int]:
        before = store_redis.commandstats()
        store.create(b"s", [{"type": "created"}], {"seats": []}, "ann", quota=quota)
        return stats_delta(before, store_redis.commandstats())

    first = create_counted()
    for _ in range(58):
        store.create(b"s", [{"type": "created"}], {"seats": []}, "ann", quota=quota)
    assert create_counted() == first
    assert "zrange" not in first and "scan" not in first
    assert store.open_games("ann") == {"open": 60, "waiting": 60, "bots": 0}


def test_commandstats_show_one_load_and_one_script_call(
    store: RedisStore, store_redis: RedisServer
) -> None:
    game = warm(store)
    before = store_redis.commandstats()
    store.load(game)
    after_load = store_redis.commandstats()
    store.save(game, 2, b"next", [{"type": "moved"}])
    after_save = store_redis.commandstats()

    assert stats_delta(before, after_load) == {"hmget": 1}
    saved = stats_delta(after_load, after_save)
    assert saved.pop("evalsha") == 1
    assert set(saved) <= SCRIPT_COMMANDS  # everything else ran inside the script


def test_a_lobby_change_costs_one_more_command(store: RedisStore, store_redis: RedisServer) -> None:
    game = warm(store)
    with store_redis.record_commands() as commands:
        assert store.save(game, 2, b"next", [{"type": "joined"}], lobby={"open": 1}).saved
    assert [c.split()[0] for c in commands] == ["EVALSHA", "EVALSHA"]


def test_cluster_load_and_save_are_one_command_each(redis_cluster: RedisCluster) -> None:
    url = f"redis://{redis_cluster.nodes[0].host}:{redis_cluster.nodes[0].port}"
    store = RedisStore(url, cluster=True, prefix=f"t{uuid.uuid4().hex[:12]}")
    try:
        game = warm(store)
        before = redis_cluster.commandstats()
        store.load(game)
        after_load = redis_cluster.commandstats()
        store.save(game, 2, b"next", [{"type": "moved"}])
        after_save = redis_cluster.commandstats()
    finally:
        store.close()

    assert stats_delta(before, after_load) == {"hmget": 1}
    saved = stats_delta(after_load, after_save)
    assert saved.pop("evalsha") == 1
    assert set(saved) <= SCRIPT_COMMANDS


# -- keys, TTLs, retries ----------------------------------------------------------------


def test_every_key_of_a_game_shares_its_hash_tag_and_slot(
    store: RedisStore, store_redis: RedisServer, prefix: str
) -> None:
    game = store.create(b"s", [{"type": "created"}]).game_id
    store.save(game, 1, b"t", [], IdempotencyRecord(2, "k", "fp", 200, b"{}"))
    with store_redis.client() as r:
        keys = sorted(k.decode() for k in r.scan_iter(match=f"{prefix}:{{{game}}}:*"))
    assert [k.split(":", 2)[2] for k in keys][:2] == ["el", "g"]
    assert re.fullmatch(rf"{prefix}:\{{{game}\}}:idem:2:[0-9a-f]{{64}}", keys[2])
    assert len({key_slot(k.encode()) for k in keys}) == 1


def test_writes_set_and_refresh_the_idle_ttl(store_redis: RedisServer, prefix: str) -> None:
    store = RedisStore(store_redis.url, prefix=prefix, idle_ttl=3600, idempotency_ttl=600)
    game = store.create(b"s", [{"type": "created"}]).game_id
    g, ev = f"{prefix}:{{{game}}}:g", f"{prefix}:{{{game}}}:el"
    with store_redis.client() as r:
        for key in (g, ev):
            assert 3_500_000 < r.pttl(key) <= 3_600_000
            r.pexpire(key, 5000)
        store.load(game)  # reads do not refresh
        assert r.pttl(g) <= 5000
        store.save(game, 1, b"t", [], IdempotencyRecord(0, "k", "fp", 200, b"{}"))
        for key in (g, ev):
            assert 3_500_000 < r.pttl(key) <= 3_600_000
        (idem,) = r.keys(f"{prefix}:{{{game}}}:idem:*")
        assert 500_000 < r.pttl(idem) <= 600_000
    store.close()


def test_a_retried_save_that_already_succeeded_answers_saved(
    store: RedisStore, store_redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = warm(store)
    monkeypatch.setattr("service.store.redis.save_nonce", lambda: "same-nonce")
    first = store.save(game, 2, b"moved", [{"type": "moved"}])
    again = store.save(game, 2, b"moved", [{"type": "moved"}])  # as a retry would send it
    assert (first.status, again.status) == ("saved", "saved")
    assert again.version == first.version == 3
    assert [e["type"] for e in store.events(game, 0)] == ["created", "warm", "moved"]
    monkeypatch.setattr("service.store.redis.save_nonce", lambda: "other-nonce")
    assert store.save(game, 2, b"other", [{"type": "x"}]).status == "stale"


def test_long_polls_use_a_client_whose_timeout_outlasts_the_wait(
    store_redis: RedisServer, prefix: str
) -> None:
    store = RedisStore(store_redis.url, prefix=prefix, max_wait=3.0, socket_timeout=0.5)
    game = store.create(b"s").game_id
    # A wait longer than the request client's socket timeout must not fail.
    assert store.events(game, 0, wait=1.0) == []
    store.close()


def test_waiters_past_max_subscribers_poll_without_a_connection_of_their_own(
    store_redis: RedisServer, prefix: str
) -> None:
    store = RedisStore(store_redis.url, prefix=prefix, max_subscribers=2)
    game = warm(store)
    admin = redis.Redis.from_url(store_redis.url)
    results: list[list[dict[str, object]]] = []
    waiters = [
        threading.Thread(target=lambda: results.append(store.events(game, 2, wait=10)))
        for _ in range(5)
    ]
    for waiter in waiters:
        waiter.start()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and admin.pubsub_numsub(f"{prefix}:{{{game}}}:el")[0][1] < 2:
        time.sleep(0.05)
    time.sleep(0.3)  # the other three are polling by now
    assert admin.pubsub_numsub(f"{prefix}:{{{game}}}:el")[0][1] == 2
    assert store.save(game, 2, b"next", [{"type": "woken"}]).saved
    for waiter in waiters:
        waiter.join(timeout=5)
    assert [[e["type"] for e in found] for found in results] == [["woken"]] * 5
    store.close()


# -- failures ---------------------------------------------------------------------------


def assert_unavailable_soon(call: object, *args: object, **kwargs: object) -> None:
    """The call raises StoreUnavailable within the 2 s the issue allows
    (redis-py's defaults would take many seconds; this is not a speed figure)."""
    started = time.monotonic()
    with pytest.raises(StoreUnavailable):
        call(*args, **kwargs)  # type: ignore[operator]
    assert time.monotonic() - started < 2.0


def test_an_unreachable_redis_is_unavailable_not_a_crash() -> None:
    port = find_free_port()
    for store in (
        RedisStore(f"redis://127.0.0.1:{port}/0"),
        RedisStore(f"redis://127.0.0.1:{port}", cluster=True),
    ):
        assert_unavailable_soon(store.ping)
        assert_unavailable_soon(store.load, "AAAAAAAAAAAAAAAAAAAAAA")
        assert_unavailable_soon(store.create, b"s")
        store.close()


def test_an_outage_is_reported_and_the_same_store_recovers(prefix: str) -> None:
    server = RedisServer().start()
    store = RedisStore(server.url, prefix=prefix)
    try:
        game = warm(store)
        waiter_result: list[BaseException | object] = []

        def long_poll() -> None:
            try:
                waiter_result.append(store.events(game, 2, wait=20))
            except StoreUnavailable as exc:
                waiter_result.append(exc)

        waiter = threading.Thread(target=long_poll)
        waiter.start()
        threading.Event().wait(0.2)
        server.stop(hard=True)
        waiter.join(timeout=5)
        assert not waiter.is_alive()
        assert isinstance(waiter_result[0], StoreUnavailable)

        assert_unavailable_soon(store.load, game)
        assert_unavailable_soon(store.save, game, 2, b"lost", [{"type": "lost"}])
        assert_unavailable_soon(store.events, game, 0, wait=5)
        assert_unavailable_soon(store.get_idempotency, game, 0, "k")
        assert_unavailable_soon(store.lobby)
        assert_unavailable_soon(store.ping)

        server.start()  # without AOF the data is gone, the store object is not
        store.ping()
        again = store.create(b"fresh", [{"type": "created"}], lobby={"open": 1})
        assert store.save(again.game_id, 1, b"next", [{"type": "moved"}]).saved
        assert store.load(again.game_id).state == b"next"
        assert [e["seq"] for e in store.events(again.game_id, 0)] == [1, 2]
        assert [item["id"] for item in store.lobby()[0]] == [again.game_id]
    finally:
        store.close()
        server.cleanup()


@pytest.mark.slow
def test_a_cluster_node_outage_is_reported_and_the_same_store_recovers(prefix: str) -> None:
    # fsync before every answer: a SIGKILLed node must not lose acknowledged writes.
    cluster = RedisCluster(appendonly=True, extra_args=("--appendfsync", "always")).start()
    first = cluster.nodes[0]
    store = RedisStore(f"redis://{first.host}:{first.port}", cluster=True, prefix=prefix)
    try:
        # Node 1 of 3 serves the middle third of the slots.
        def on_down_node(game: str) -> bool:
            return 16384 // 3 <= key_slot(f"{prefix}:{{{game}}}:g".encode()) < 2 * 16384 // 3

        games: list[str] = []
        while sum(map(on_down_node, games)) < 2 or len(games) < 6:
            games.append(store.create(b"s", [{"type": "created"}]).game_id)
        down = cluster.nodes[1]
        down.stop(hard=True)
        for game in games:
            started = time.monotonic()
            try:
                # Games on live nodes answer until the cluster marks the node failed.
                assert store.load(game).version == 1
                assert not on_down_node(game)
            except StoreUnavailable:
                pass
            assert time.monotonic() - started < 2.0

        down.start()
        deadline = time.monotonic() + 30
        while True:  # the cluster needs a moment to mark the node up again
            try:
                versions = [store.load(game).version for game in games]
                break
            except StoreUnavailable:
                assert time.monotonic() < deadline, "cluster did not recover"
                threading.Event().wait(0.1)
        assert versions == [1] * len(games)
        assert all(store.save(game, 1, b"t", [{"type": "moved"}]).saved for game in games)
    finally:
        store.close()
        cluster.cleanup()


@pytest.mark.slow  # a redis-server of its own, frozen until two calls time out
def test_a_hung_server_is_unavailable_and_then_recovers(prefix: str) -> None:
    server = RedisServer().start()
    store = RedisStore(server.url, prefix=prefix)
    try:
        game = warm(store)
        server.freeze()
        assert_unavailable_soon(store.load, game)
        assert_unavailable_soon(store.save, game, 2, b"x", [{"type": "x"}])
        server.thaw()
        # The save sent to the frozen server ran once it woke up, or not at all.
        loaded = store.load(game)
        assert (loaded.version, loaded.state) in {(2, b"state"), (3, b"x")}
        assert store.save(game, loaded.version, b"y", [{"type": "y"}]).saved
    finally:
        store.close()
        server.cleanup()


@pytest.mark.parametrize(
    ("fsync", "hard"),
    [("everysec", False), ("always", True)],
    ids=["graceful-restart", "sigkill-with-fsync-always"],
)
def test_a_saved_game_survives_a_restart_with_aof(prefix: str, fsync: str, hard: bool) -> None:
    server = RedisServer(appendonly=True, extra_args=("--appendfsync", fsync)).start()
    store = RedisStore(server.url, prefix=prefix)
    try:
        game = warm(store)
        record = IdempotencyRecord(1, "key", "fp", 200, b'{"ok":true}')
        assert store.save(game, 2, b"durable", [{"type": "moved"}], record, lobby={"n": 1}).saved

        # With everysec a SIGKILL may lose the last second (Redis may postpone the
        # AOF write while an fsync is slow), so the hard kill runs with "always".
        server.restart(hard=hard)

        for reader in (store, RedisStore(server.url, prefix=prefix)):
            loaded = reader.load(game)
            assert (loaded.state, loaded.version, loaded.last_event) == (b"durable", 3, 3)
            assert [e["type"] for e in reader.events(game, 0)] == ["created", "warm", "moved"]
            assert reader.get_idempotency(game, 1, "key") == record
            assert reader.lobby()[0] == [{"id": game, "n": 1}]
        # The script cache is empty after the restart; saving reloads it.
        assert store.save(game, 3, b"after", [{"type": "after"}]).saved
    finally:
        store.close()
        server.cleanup()


def test_a_failed_lobby_update_does_not_undo_a_save(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    game = warm(store)

    def down(**_: object) -> None:
        raise redis.exceptions.ConnectionError("lobby slot unreachable")

    monkeypatch.setattr(store, "_lobby_update", down)
    result = store.save(game, 2, b"joined", [{"type": "joined"}], lobby=None)
    assert (result.status, result.version) == ("saved", 3)
    assert store.load(game).state == b"joined"
    assert "not updated" in caplog.text


def test_a_lobby_update_that_fails_once_is_retried_not_lost(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = warm(store)
    real = store._lobby_update
    failures = [redis.exceptions.ConnectionError("No connection available.")]

    def flaky(**kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return real(**kwargs)

    monkeypatch.setattr(store, "_lobby_update", flaky)
    summary = {"id": game, "preset": "standard", "seats": [], "created": "now"}
    assert store.save(game, 2, b"listed", [{"type": "listed"}], lobby=summary).saved
    assert not failures
    assert game in [item["id"] for item in store.lobby(100)[0]]


# -- the lean command path (service/serving/leancall.py) -------------------------------


@pytest.mark.parametrize("protocol", ["2", "3"])
def test_an_idempotency_record_reads_back_under_either_protocol(
    store_redis: RedisServer, prefix: str, protocol: str
) -> None:
    # HGETALL's reply is a flat list under RESP2 and a map under RESP3.
    store = RedisStore(f"{store_redis.url}?protocol={protocol}", prefix=prefix)
    game = warm(store)
    record = IdempotencyRecord(1, "key-1", "fp", 200, b'{"ok": true}')
    assert store.save(game, 2, b"next", [{"type": "a"}], record).saved
    assert store.get_idempotency(game, 1, "key-1") == record
    assert store.get_idempotency(game, 1, "key-2") is None
    store.close()


def test_a_flushed_script_cache_costs_one_eval_and_nothing_else(
    store: RedisStore, store_redis: RedisServer
) -> None:
    game = warm(store)
    redis.Redis.from_url(store_redis.url).script_flush()
    with store_redis.record_commands() as commands:
        assert store.save(game, 2, b"after flush", [{"type": "a"}]).saved
    assert [c.split()[0] for c in commands] == ["EVALSHA", "EVAL"]
    assert store.load(game).state == b"after flush"
    with store_redis.record_commands() as again:
        assert store.save(game, 3, b"cached again", [{"type": "b"}]).saved
    assert [c.split()[0] for c in again] == ["EVALSHA"]


def test_a_killed_connection_is_reopened_by_the_next_command(
    store: RedisStore, store_redis: RedisServer
) -> None:
    game = warm(store)
    admin = redis.Redis.from_url(store_redis.url)
    version = store.load(game).version
    for n in range(3):
        assert admin.client_kill_filter(_type="normal", skipme=True) >= 1
        assert store.save(game, version, b"s%d" % n, [{"type": "x"}]).saved
        admin.client_kill_filter(_type="normal", skipme=True)
        version += 1
        assert store.load(game).version == version


def test_an_error_reply_is_raised_not_returned(store: RedisStore, store_redis: RedisServer) -> None:
    from service.serving.leancall import LeanConnections

    lean = LeanConnections(redis.Redis.from_url(store_redis.url))
    with pytest.raises(redis.exceptions.ResponseError):
        lean.call("NOSUCHCOMMAND")
    assert lean.call("PING") == b"PONG"  # the same connection, still in step
    assert lean.call("CLIENT", "ID") == lean.call("CLIENT", "ID")
    lean.close()
    assert lean.call("PING") == b"PONG"  # reopened after close


def test_commands_go_out_as_redis_py_would_send_them(store_redis: RedisServer) -> None:
    from redis.connection import PythonRespSerializer

    from service.serving import leancall

    lean = leancall.LeanConnections(redis.Redis.from_url(store_redis.url))
    assert lean._send is leancall._send_and_read_hiredis  # hiredis is a dependency
    sent: list[bytes] = []
    real = lean._send

    def recording(conn: Any, command: Any) -> Any:
        send_packed = conn.send_packed_command
        conn.send_packed_command = lambda packed, **kw: (sent.extend(packed), send_packed(packed))
        try:
            return real(conn, command)
        finally:
            del conn.send_packed_command

    assert lean.call("PING") == b"PONG"  # connected: the handshake is not recorded
    lean._send = recording
    # A save's kinds of arguments: str keys, bytes, ints, empty strings, non-ASCII text.
    args = ("rummy:{g}:k", b"\x00state\xff", 12, -3, "", "Zo\u00e9")
    assert lean.call("RPUSH", *args) == len(args) - 1
    python = PythonRespSerializer(6000, redis.Redis().get_encoder().encode)
    assert sent == [b"".join(python.pack("RPUSH", *args))]
    assert lean.call("LRANGE", "rummy:{g}:k", 0, -1) == [
        b"\x00state\xff",
        b"12",
        b"-3",
        b"",
        "Zo\u00e9".encode(),
    ]
    # What hiredis refuses takes redis-py's own way: a bytearray is sent, a bool refused.
    assert lean.call("SET", "rummy:{g}:b", bytearray(b"ba")) == b"OK"
    assert lean.call("GET", "rummy:{g}:b") == b"ba"
    with pytest.raises(redis.exceptions.DataError):
        lean.call("SET", "rummy:{g}:b", True)  # type: ignore[arg-type]
    assert lean.call("PING") == b"PONG"  # still in step


def test_a_connection_in_flight_during_close_is_closed_not_kept(
    store_redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.serving import leancall

    lean = leancall.LeanConnections(redis.Redis.from_url(store_redis.url))
    in_flight: list[object] = []
    send_and_read = lean._send

    def closing_meanwhile(conn: object, command: object) -> object:
        in_flight.append(conn)
        reply = send_and_read(conn, command)  # type: ignore[arg-type]
        lean.close()
        return reply

    monkeypatch.setattr(lean, "_send", closing_meanwhile)
    assert lean.call("PING") == b"PONG"
    assert lean._idle == [] and lean._made == []
    assert getattr(in_flight[0], "_sock", None) is None  # disconnected


def test_hot_keys_are_kept_per_game_up_to_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from service.store import redis as redis_store

    assert redis_store.GAME_KEYS_KEPT == 4096
    monkeypatch.setattr(redis_store, "GAME_KEYS_KEPT", 3)
    store = RedisStore("redis://127.0.0.1:1/0", prefix="p")  # never connects
    assert store._hot_keys("g0") == (
        "p:{g0}:g",
        "p:{g0}:el",
        "p:{g0}:idem:-",
        "p:{g0}:il",
    )
    assert store._hot_keys("g0")[0] == store._game_key("g0")
    for game in ("g1", "g2", "g0"):
        store._hot_keys(game)
    assert len(store._game_keys) == 3  # at the limit, all kept
    assert store._hot_keys("g3") == (
        "p:{g3}:g",
        "p:{g3}:el",
        "p:{g3}:idem:-",
        "p:{g3}:il",
    )
    assert list(store._game_keys) == ["g3"]  # one more empties the table, then keeps it


def test_a_counting_loads_expiries_are_packed_with_its_head(
    store: RedisStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.store import scriptpack

    game = warm(store)
    counters = ((f"{store.prefix}:rl:a:1", 120_000), (f"{store.prefix}:rl:t:1", 120_000))
    first = store.load(game, counters)
    packed: list[tuple[Any, ...]] = []
    monkeypatch.setattr(scriptpack, "_hiredis_pack", lambda args: packed.append(args) or b"")
    again = store.load(game, counters)  # the same keys and expiries: nothing left to pack
    assert packed == []
    assert (first.counts, again.counts) == ((1, 1), (2, 2))
    assert again.state == first.state and again.version == first.version
