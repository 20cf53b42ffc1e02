"""Redis round trips of the hot paths, counted by a throwaway redis-server.

Rate limiting is on as documented (its counters in the same Redis), and its
counts ride with the load: the load is then one ``EVALSHA`` that runs
``INCR`` per limit (address and token; ``PEXPIRE`` too on a window's first
count) and the ``HMGET``, no
round trip of the limiter's own (sent alone they would be ``INCRBY``). So an
applied move is two ``EVALSHA`` (that load, and the compare-and-set save)
whatever it carries (bot turns included), and a view or a legal-moves list is
one. A move with an ``Idempotency-Key`` also reads that seat's record
(``HGETALL``) between the two. ``INFO commandstats`` also counts the commands
the scripts run inside Redis; those are not round trips, so the app's writes
to its Redis sockets are counted too (``round trips``).
"""

from __future__ import annotations

import re
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest
import redis.connection
from flask import Flask
from flask.testing import FlaskClient

from service.config import TestConfig
from service.store.redis import EVENTS_SCRIPT, LOAD_COUNTING_SCRIPT, SAVE_SCRIPT
from tests.api.helpers import DECK, bearer
from tests.api.test_stream import events_of
from tests.support.redis_server import RedisServer

#: Commands the scripts run themselves (counted by commandstats, never sent).
SCRIPT_COMMANDS = {
    name.lower()
    for name in re.findall(
        r"redis\.call\('(\w+)'", SAVE_SCRIPT + LOAD_COUNTING_SCRIPT + EVENTS_SCRIPT
    )
}
#: The rate limiter's counts for a request with a token, per address and per
#: token, run by the load's script (``INCRBY`` would be a pipeline of their own).
LIMITER = Counter({"incr": 2})


@pytest.fixture
def client(redis_server: RedisServer, make_app: Callable[..., Flask]) -> Iterator[FlaskClient]:
    """An app on the throwaway Redis with rate limiting configured as documented."""
    config = replace(
        TestConfig(),
        STORE_URL=redis_server.url,
        STORE_PREFIX=f"t{uuid.uuid4().hex[:8]}",
        RATELIMIT_ENABLED=True,
    )
    yield make_app(config).test_client()


@pytest.fixture
def sends(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the app's writes to Redis sockets: one per round trip (a pipeline
    packs all its commands into one send). A new connection's handshake is not
    counted: redis-py sends four commands then (``HELLO``, ``CLIENT
    MAINT_NOTIFICATIONS`` and two ``CLIENT SETINFO``), of which a Redis 7.0
    counts only ``HELLO`` in its command statistics (it rejects the others), so
    they cannot be taken off afterwards."""
    count = [0]
    connection = redis.connection.AbstractConnection
    send, connect = connection.send_packed_command, connection.connect_check_health

    def counting(self: Any, command: Any, check_health: bool = True) -> None:
        if not getattr(self, "_counting_handshake", False):
            count[0] += 1
        send(self, command, check_health)

    def connecting(self: Any, *args: Any, **kwargs: Any) -> None:
        self._counting_handshake = True
        try:
            connect(self, *args, **kwargs)
        finally:
            self._counting_handshake = False

    monkeypatch.setattr(connection, "send_packed_command", counting)
    monkeypatch.setattr(connection, "connect_check_health", connecting)
    return count


def counted(
    redis_server: RedisServer, request: Any, sends: list[int] | None = None
) -> tuple[Any, Counter[str]]:
    """The answer of `request()` and the Redis commands counted meanwhile (with
    `sends`, also the app's round trips, under the key ``round trips``)."""
    before = redis_server.commandstats()
    sent_before = sends[0] if sends is not None else 0
    answer = request()
    sent = sends[0] - sent_before if sends is not None else 0
    after = redis_server.commandstats()
    delta = Counter({k: v - before.get(k, 0) for k, v in after.items() if k != "info"})
    delta["round trips"] = sent
    return answer, +delta


def round_trips(commands: Counter[str]) -> Counter[str]:
    """The game-store commands a client sent: each script's HMGET ran inside Redis."""
    store = commands - LIMITER - Counter({"round trips": commands["round trips"]})
    sent = Counter({name: store[name] for name in ("hmget", "evalsha", "hgetall")})
    sent["hmget"] -= sent["evalsha"]
    assert set(store) - set(sent) <= SCRIPT_COMMANDS, store
    return +sent


def test_every_applied_move_is_one_load_and_one_save(
    client: FlaskClient, redis_server: RedisServer, sends: list[int]
) -> None:
    body = {"seats": [{"name": "Ann"}, {"bot": "greedy"}], "deck": DECK, "first_dealer": 1}
    created = client.post("/games", json=body).get_json()
    game, auth = created["id"], bearer(created["seats"][0]["token"])
    client.get(f"/games/{game}", headers=auth)  # connection open, nothing loaded later

    moves = [
        {"type": "draw", "source": "stock"},
        {"type": "meld", "cards": ["H2", "H3", "H4"]},
        {"type": "discard", "card": "SQ"},  # then the bot draws and discards in the same save
    ]
    last_event = 0
    for move in moves:
        answer, commands = counted(
            redis_server,
            lambda m=move: client.post(f"/games/{game}/moves", json=m, headers=auth),
            sends,
        )
        assert answer.status_code == 200, answer.get_json()
        assert round_trips(commands) == Counter({"evalsha": 2}), commands
        assert commands["set"] == LIMITER["set"] and commands["incr"] == LIMITER["incr"]
        assert commands["incrby"] == 0  # the limiter sent nothing on its own
        assert commands["round trips"] == 2, commands
        view = answer.get_json()
        assert view["last_event"] > last_event
        last_event = view["last_event"]
    assert view["round"]["turn"] == 0  # the bot's turn was played in the last save
    assert commands["rpush"] >= 3  # Ann's discard and the bot's draw and discard


def test_a_view_and_a_legal_moves_list_are_one_load(
    client: FlaskClient, redis_server: RedisServer, sends: list[int]
) -> None:
    body = {"seats": [{"name": "Ann"}, {"name": "Bob"}], "deck": DECK, "first_dealer": 1}
    created = client.post("/games", json=body).get_json()
    game, auth = created["id"], bearer(created["seats"][0]["token"])
    client.get(f"/games/{game}", headers=auth)

    for path in (f"/games/{game}", f"/games/{game}/legal-moves"):
        answer, commands = counted(redis_server, lambda p=path: client.get(p, headers=auth), sends)
        assert answer.status_code == 200
        # A limit's first count in a window also sets the window's expiry.
        assert commands.pop("pexpire", 0) <= 2, commands
        expected = LIMITER + Counter({"evalsha": 1, "hmget": 1, "round trips": 1})
        assert commands == expected, (path, commands)


def test_a_replayed_idempotent_move_saves_nothing(
    client: FlaskClient, redis_server: RedisServer
) -> None:
    body = {"seats": [{"name": "Ann"}, {"name": "Bob"}], "deck": DECK, "first_dealer": 1}
    draw = {"type": "draw", "source": "stock"}
    # A first idempotent move elsewhere opens every connection these use.
    warm = client.post("/games", json=body).get_json()
    warm_headers = {**bearer(warm["seats"][0]["token"]), "Idempotency-Key": "w"}
    client.post(f"/games/{warm['id']}/moves", json=draw, headers=warm_headers)
    created = client.post("/games", json=body).get_json()
    game = created["id"]
    headers = {**bearer(created["seats"][0]["token"]), "Idempotency-Key": "k1"}
    first, commands = counted(
        redis_server, lambda: client.post(f"/games/{game}/moves", json=draw, headers=headers)
    )
    assert first.status_code == 200
    # The seat's key is looked up after the load (one more read), then saved with the move.
    assert round_trips(commands) == Counter({"hgetall": 1, "evalsha": 2}), commands

    again, commands = counted(
        redis_server, lambda: client.post(f"/games/{game}/moves", json=draw, headers=headers)
    )
    assert again.headers["Idempotency-Replayed"] == "true"
    assert round_trips(commands) == Counter({"hgetall": 1, "evalsha": 1}), commands


def test_counts_riding_with_a_load_start_windows_that_expire(
    client: FlaskClient, redis_server: RedisServer
) -> None:
    body = {"seats": [{"name": "Ann"}, {"name": "Bob"}], "deck": DECK, "first_dealer": 1}
    created = client.post("/games", json=body).get_json()
    auth = bearer(created["seats"][0]["token"])
    prefix = client.application.config["STORE_PREFIX"]
    r = redis_server.client()
    assert r.keys(f"{prefix}:rl:t:*") == []  # creating a game needs no token

    assert client.get(f"/games/{created['id']}", headers=auth).status_code == 200
    assert client.get(f"/games/{created['id']}", headers=auth).status_code == 200
    keys = r.keys(f"{prefix}:rl:t:*")  # two if the second view began a new window
    assert sum(int(r.get(key) or 0) for key in keys) == 2
    for key in keys:
        assert 0 < r.pttl(key) <= 120_000  # twice the 60 s window, set by the first count


def without_connecting(commands: Counter[str]) -> Counter[str]:
    """`commands` less a connection's set-up (``HELLO``, ``CLIENT ...``): the feed
    reads in a thread of its own, which opens a connection of its own when it
    reads while the test thread's is busy (the ``sends`` fixture already leaves
    the set-up out of the round trips)."""
    setup = Counter(
        {name: commands[name] for name in commands if name.split("|")[0] in ("hello", "client")}
    )
    return +(commands - setup)


def test_streams_of_one_game_cost_one_load_each_and_no_read_per_save(
    client: FlaskClient, redis_server: RedisServer, sends: list[int]
) -> None:
    body = {"seats": [{"name": "Ann"}, {"name": "Bob"}], "deck": DECK, "first_dealer": 1}
    created = client.post("/games", json=body).get_json()
    game, tokens = created["id"], [seat["token"] for seat in created["seats"]]
    last = client.get(f"/games/{game}", headers=bearer(tokens[0])).get_json()["last_event"]

    def open_and_read(token: str, count: int) -> Any:
        stream = client.get(f"/games/{game}/stream", headers=bearer(token), buffered=False)
        assert len(events_of(stream, count)) == count
        return stream

    first = open_and_read(tokens[0], last)
    # The second stream of the game: its load (with the limiter's counts), and the
    # events already read for the first one; no read, no count of its own.
    second, commands = counted(redis_server, lambda: open_and_read(tokens[1], last), sends)
    commands = without_connecting(commands)
    commands.pop("pexpire", 0)
    assert commands == LIMITER + Counter({"evalsha": 1, "hmget": 1, "round trips": 1}), commands

    def move_and_follow(move: dict[str, Any]) -> None:
        answer = client.post(f"/games/{game}/moves", json=move, headers=bearer(tokens[0]))
        assert answer.status_code == 200, answer.get_json()
        for stream in (first, second):
            assert len(events_of(stream, 1)) == 1

    move_and_follow({"type": "draw", "source": "stock"})  # the wake-ups are under way
    # A move seen by both streams: its load and save, and nothing more: the
    # save's wake-up carries its event to the streams' feed.
    _, commands = counted(
        redis_server, lambda: move_and_follow({"type": "discard", "card": "SQ"}), sends
    )
    commands = without_connecting(commands)
    assert round_trips(commands) == Counter({"evalsha": 2}), commands
    assert commands["round trips"] == 2, commands
    for stream in (first, second):
        stream.close()


def test_with_wait_replicas_a_move_is_still_two_round_trips(
    make_app: Callable[..., Flask], sends: list[int]
) -> None:
    """`STORE_WAIT_REPLICAS`: the save's ``WAIT`` goes in the save's own write, on
    the save's connection: a move is two round trips still, of three commands."""
    from tests.support.redis_server import start_replica

    primary = RedisServer().start()
    replica = start_replica(primary)
    try:
        config = replace(
            TestConfig(), STORE_URL=primary.url, RATELIMIT_ENABLED=True, STORE_WAIT_REPLICAS=1
        )
        client = make_app(config).test_client()
        body = {"seats": [{"name": "Ann"}, {"bot": "greedy"}], "deck": DECK, "first_dealer": 1}
        created = client.post("/games", json=body).get_json()
        game, auth = created["id"], bearer(created["seats"][0]["token"])
        client.get(f"/games/{game}", headers=auth)
        move = {"type": "draw", "source": "stock"}
        answer, commands = counted(
            primary, lambda: client.post(f"/games/{game}/moves", json=move, headers=auth), sends
        )
        assert answer.status_code == 200, answer.get_json()
        assert commands.pop("wait") == 1, commands
        commands.pop("replconf", None)  # the replica's acknowledgement
        assert round_trips(commands) == Counter({"evalsha": 2}), commands
        assert commands["round trips"] == 2, commands
    finally:
        replica.cleanup()
        primary.cleanup()
