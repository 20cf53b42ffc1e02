"""The pipelined connection of a gevent worker (service/serving/pipelining.py).

The scenarios run one after the other in one fresh interpreter with gevent's
sockets, as in a gunicorn gevent worker (`tests.support.under_gevent`), against
the store tests' throwaway redis-server; each test asserts on what its scenario
reports (or fails with what it raised).
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import gevent
import pytest
import redis

from service.serving.leancall import LeanConnections
from service.store.redis import RedisStore
from tests.support.redis_server import RedisServer
from tests.support.under_gevent import Outcomes, run_under_gevent

GREENLETS = 20
ROUNDS = 25


def _reads(admin: redis.Redis) -> int:
    return int(admin.info("stats")["total_reads_processed"])


# -- scenarios (run under gevent) -------------------------------------------------------


def scenario_concurrent_commands(url: str, pipelining: str) -> dict[str, Any]:
    """Greenlets each SET, GET and INCR their own keys at once: what each got back,
    how many reads redis-server made, and how many connections served them."""
    lean = LeanConnections(redis.Redis.from_url(url), pipelining=pipelining == "on")
    admin = redis.Redis.from_url(url)
    tag = uuid.uuid4().hex
    wrong: list[str] = []
    ids: set[int] = set()

    def play(n: int) -> None:
        for r in range(ROUNDS):
            value = f"{n}-{r}-\u00e9".encode()
            if lean.call("SET", f"{tag}:{n}", value) != b"OK":
                wrong.append("set")
            if lean.call("GET", f"{tag}:{n}") != value:
                wrong.append("get")
            if lean.call("INCR", f"{tag}:count") is None:
                wrong.append("incr")
        ids.add(lean.call("CLIENT", "ID"))

    before = _reads(admin)
    gevent.joinall([gevent.spawn(play, n) for n in range(GREENLETS)], raise_error=True)
    reads = _reads(admin) - before - 1  # less the second INFO's own read
    return {
        "pipelined": lean.pipelined,
        "wrong": wrong,
        "count": int(admin.get(f"{tag}:count") or 0),
        "commands": GREENLETS * (ROUNDS * 3 + 1),
        "reads": reads,
        "connections": len(ids),
    }


def scenario_arguments(url: str) -> dict[str, Any]:
    """Arguments hiredis packs, one it refuses (redis-py packs a bytearray) and one
    neither packs (a bool)."""
    lean = LeanConnections(redis.Redis.from_url(url))
    key = uuid.uuid4().hex
    args = (b"\x00state\xff", 12, -3, "", "Zo\u00e9")
    pushed = lean.call("RPUSH", key, *args)
    listed = [item.decode() for item in lean.call("LRANGE", key, 0, -1)[1:]]
    stored = lean.call("SET", f"{key}:b", bytearray(b"ba")), lean.call("GET", f"{key}:b")
    try:
        lean.call("SET", f"{key}:b", True)  # type: ignore[arg-type]
        refused = ""
    except redis.DataError as error:
        refused = type(error).__name__
    return {
        "pipelined": lean.pipelined,
        "pushed": pushed,
        "listed": listed,
        "stored": [item.decode() for item in stored],
        "refused": refused,
        "after": lean.call("PING").decode(),
    }


def scenario_large_write(url: str) -> dict[str, Any]:
    """A turn's commands larger than the socket's buffer: the one ``send`` takes
    part of the write and the rest waits for the socket."""
    lean = LeanConnections(redis.Redis.from_url(url))
    key = uuid.uuid4().hex
    values = [bytes([n]) * (8 << 20) for n in range(4)]  # 32 MB in one write
    lean.call("PING")  # connected: the write below is the pipeline's own
    jobs = [gevent.spawn(lean.call, "SET", f"{key}:{n}", v) for n, v in enumerate(values)]
    gevent.joinall(jobs, raise_error=True)
    back = [lean.call("GET", f"{key}:{n}") for n in range(len(values))]
    lean.call("DEL", *[f"{key}:{n}" for n in range(len(values))])
    return {
        "replies": [job.value.decode() for job in jobs],
        "same": [got == value for got, value in zip(back, values, strict=True)],
    }


def scenario_error_reply(url: str) -> dict[str, Any]:
    """An error reply among other commands of the same write."""
    lean = LeanConnections(redis.Redis.from_url(url))
    first = lean.call("CLIENT", "ID")
    outcomes: list[str] = []

    def one(command: tuple[str, ...]) -> None:
        try:
            outcomes.append(repr(lean.call(*command)))
        except redis.ResponseError as error:
            outcomes.append(type(error).__name__)

    commands = [("PING",)] * 5 + [("NOSUCHCOMMAND", "x")] + [("PING",)] * 5
    gevent.joinall([gevent.spawn(one, c) for c in commands], raise_error=True)
    return {"outcomes": outcomes, "same_connection": lean.call("CLIENT", "ID") == first}


def _store_connections(url: str, **settings: Any) -> LeanConnections:
    """The hot path's connections of a store, with its retry policy and timeouts."""
    store = RedisStore(url, **settings)
    store.client  # noqa: B018 - builds them
    commands = store._commands
    assert isinstance(commands, LeanConnections) and commands.pipelined
    return commands


def scenario_killed_connection(url: str) -> dict[str, Any]:
    """The shared connection is killed by the server between two turns."""
    lean = _store_connections(url)
    admin = redis.Redis.from_url(url)
    key = uuid.uuid4().hex
    first = lean.call("CLIENT", "ID")
    admin.client_kill_filter(_id=first)
    jobs = [gevent.spawn(lean.call, "INCR", key) for _ in range(10)]
    gevent.joinall(jobs, raise_error=True)
    return {
        "replies": sorted(job.value for job in jobs),
        "reopened": lean.call("CLIENT", "ID") != first,
    }


#: A script that keeps Redis busy for 0.8 s, so that the commands after it wait.
BUSY_SCRIPT = """
local start = redis.call('TIME')
repeat
  local now = redis.call('TIME')
until (now[1] - start[1]) * 1000000 + (now[2] - start[2]) > 800000
return 1
"""


def scenario_killed_reader(url: str) -> dict[str, Any]:
    """The greenlet reading the replies is killed while commands await them
    (as when a worker shuts down): they are sent again on a new connection."""
    import gc

    lean = _store_connections(url, socket_timeout=5.0)  # outlasts two busy scripts
    assert lean._pipeline is not None
    read = lean._pipeline._read
    first = lean.call("CLIENT", "ID")
    key = uuid.uuid4().hex
    busy = gevent.spawn(lean.call, "EVAL", BUSY_SCRIPT, 0)
    sets = [gevent.spawn(lean.call, "SET", f"{key}:{n}", n) for n in range(5)]
    gevent.sleep(0.1)  # sent; Redis is running the script
    readers = [
        g
        for g in gc.get_objects()
        if isinstance(g, gevent.Greenlet) and g._run == read and not g.dead
    ]
    for reader in readers:
        reader.kill()
    gevent.joinall([busy, *sets], timeout=10)
    return {
        "readers": len(readers),
        "replies": [repr(job.value) for job in [busy, *sets]],
        "errors": [repr(job.exception) for job in [busy, *sets] if job.exception],
        "reopened": lean.call("CLIENT", "ID") != first,
    }


def scenario_paused_server(url: str) -> dict[str, Any]:
    """Redis answers nothing for a second (``CLIENT PAUSE``); the socket timeout is 0.3 s."""
    lean = _store_connections(url, socket_timeout=0.3)
    admin = redis.Redis.from_url(url)
    assert lean.call("PING") == b"PONG"
    admin.execute_command("CLIENT", "PAUSE", 1000, "ALL")
    started = time.monotonic()
    jobs = [gevent.spawn(lean.call, "PING") for _ in range(5)]
    gevent.joinall(jobs)
    failed_after = time.monotonic() - started
    errors = sorted({type(job.exception).__name__ for job in jobs})
    gevent.sleep(max(0.0, 1.2 - failed_after))
    return {"errors": errors, "failed_after": failed_after, "after": repr(lean.call("PING"))}


def scenario_fork(url: str) -> dict[str, Any]:
    """A forked child's commands go on a connection of its own."""
    lean = LeanConnections(redis.Redis.from_url(url))
    parent = lean.call("CLIENT", "ID")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.write(write, str(lean.call("CLIENT", "ID")).encode())
        os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    child = int(os.read(read, 64) or b"0")
    return {"status": status, "child": child, "parent": parent, "again": lean.call("CLIENT", "ID")}


def scenario_contended_game(url: str, prefix: str) -> dict[str, Any]:
    """Greenlets race to add 1 to one game's state, each load + compare-and-set
    going through the pipeline: no lost or doubled update."""
    store = RedisStore(url, prefix=prefix)
    game = store.create(b"0").game_id
    saved = 0

    def add(times: int) -> None:
        nonlocal saved
        done = 0
        while done < times:
            loaded = store.load(game)
            result = store.save(game, loaded.version, b"%d" % (int(loaded.state) + 1))
            if result.saved:
                done += 1
                saved += 1

    gevent.joinall([gevent.spawn(add, 10) for _ in range(GREENLETS)], raise_error=True)
    final = store.load(game)
    assert isinstance(store._commands, LeanConnections)
    return {
        "pipelined": store._commands.pipelined,
        "state": int(final.state),
        "version": final.version,
        "saved": saved,
    }


# -- tests -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reports(store_redis: RedisServer) -> Outcomes:
    """Every scenario's report (one interpreter start-up for all of them); the fork last."""
    url = store_redis.url
    return run_under_gevent(
        {
            "pipelined": (scenario_concurrent_commands, (url, "on")),
            "not pipelined": (scenario_concurrent_commands, (url, "off")),
            "arguments": (scenario_arguments, (url,)),
            "error reply": (scenario_error_reply, (url,)),
            "large write": (scenario_large_write, (url,)),
            "killed connection": (scenario_killed_connection, (url,)),
            "killed reader": (scenario_killed_reader, (url,)),
            "paused server": (scenario_paused_server, (url,)),
            "contended game": (scenario_contended_game, (url, f"t{uuid.uuid4().hex[:12]}")),
            "fork": (scenario_fork, (url,)),
        }
    )


def test_a_turns_commands_share_one_connection_and_one_write(reports: Outcomes) -> None:
    report = reports["pipelined"]
    assert report["pipelined"] and report["wrong"] == []
    assert report["count"] == GREENLETS * ROUNDS
    assert report["connections"] == 1
    # 20 greenlets' commands arrive together: far fewer reads than commands.
    assert report["reads"] <= report["commands"] / 5, report


def test_without_pipelining_each_greenlet_has_a_connection(reports: Outcomes) -> None:
    report = reports["not pipelined"]
    assert not report["pipelined"] and report["wrong"] == []
    assert report["count"] == GREENLETS * ROUNDS
    assert report["connections"] == GREENLETS
    assert report["reads"] >= report["commands"]


def test_outside_gevent_commands_are_not_pipelined(store_redis: RedisServer) -> None:
    lean = LeanConnections(redis.Redis.from_url(store_redis.url))
    assert not lean.pipelined
    assert lean.call("PING") == b"PONG"
    lean.close()


def test_every_argument_goes_out_as_without_the_pipeline(reports: Outcomes) -> None:
    report = reports["arguments"]
    assert report["pipelined"]
    assert report["pushed"] == 5
    assert report["listed"] == ["12", "-3", "", "Zo\u00e9"]
    assert report["stored"] == ["OK", "ba"]
    assert report["refused"] == "DataError"
    assert report["after"] == "PONG"  # nothing half sent


def test_a_write_larger_than_the_socket_buffer_goes_out_whole(reports: Outcomes) -> None:
    report = reports["large write"]
    assert report["replies"] == ["OK"] * 4
    assert report["same"] == [True] * 4


def test_an_error_reply_fails_only_its_own_command(reports: Outcomes) -> None:
    report = reports["error reply"]
    assert sorted(report["outcomes"]) == ["ResponseError"] + ["b'PONG'"] * 10
    assert report["same_connection"]  # the replies after the error stayed in step


def test_a_killed_connection_is_reopened_and_its_commands_sent_again(reports: Outcomes) -> None:
    report = reports["killed connection"]
    assert report["replies"] == list(range(1, 11))  # each INCR applied once
    assert report["reopened"]


def test_commands_awaiting_a_killed_reader_are_sent_again(reports: Outcomes) -> None:
    report = reports["killed reader"]
    assert report["readers"] == 1
    assert report["errors"] == []
    assert report["replies"] == ["1"] + ["b'OK'"] * 5
    assert report["reopened"]


def test_a_silent_server_times_out_every_waiting_command_then_recovers(
    reports: Outcomes,
) -> None:
    report = reports["paused server"]
    assert report["errors"] == ["TimeoutError"]
    assert 0.2 < report["failed_after"] < 0.9
    assert report["after"] == "b'PONG'"


def test_a_forked_child_opens_its_own_connection(reports: Outcomes) -> None:
    report = reports["fork"]
    assert report["status"] == 0
    assert report["child"] not in (0, report["parent"])
    assert report["again"] == report["parent"]  # the parent's connection is untouched


def test_racing_compare_and_sets_lose_no_update(reports: Outcomes) -> None:
    report = reports["contended game"]
    assert report["pipelined"]
    assert report["saved"] == GREENLETS * 10
    assert report["state"] == GREENLETS * 10
    assert report["version"] == 1 + GREENLETS * 10
