"""Failover: a replica promoted after its primary is killed under load.

A real primary and replica (two redis-servers on free loopback ports) and
the app on the primary; four clients play games move by move (each move
carries an `Idempotency-Key` and the `If-Match` of the listed version). The
replica falls `LAG` s behind: it is cut off from its primary, as by a network
partition (``REPLICAOF`` a socket that never answers: it keeps its data and stays
a replica; a frozen replica would not do, the kernel keeps what the primary
sent it); then the primary is killed (SIGKILL) and the replica promoted with
``REPLICAOF NO ONE`` (a scripted promotion, what Sentinel would do). Every
game's acknowledged version (the last one a 200 answered) is then compared
with the promoted replica's.

- ``STORE_WAIT_REPLICAS=1``: no acknowledged move is lost (saves the cut-off
  replica did not acknowledge were answered 503, and are not counted).
- Off (the default): the moves acknowledged while the replica lagged are lost
  (the figure is printed and recorded in docs/reliability.md, "Failover"); the
  promoted replica then makes those version numbers again for other states,
  and an `If-Match` with a lost state's `ETag` answers 412, not a move on
  another state than the one its client saw.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.config import TestConfig
from tests.support.redis_server import RedisServer, start_replica

# Two redis-servers, a kill and a promotion per test: about 3 s each.
pytestmark = pytest.mark.slow

CLIENTS = 4
#: Seconds of play before the replica falls behind, and how long it lags.
WARM_UP, LAG = 0.6, 0.8


@dataclass
class Acked:
    """What the clients were told: per game, the last version a 200 answered."""

    versions: dict[str, tuple[int, str]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)  # the person's seat's
    refused: int = 0  # answers 503 (not acknowledged)
    moves: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, game: str, version: int, tag: str) -> None:
        with self.lock:
            self.moves += 1
            self.versions[game] = (version, tag)


def play(client: FlaskClient, acked: Acked, stop: threading.Event) -> None:
    """Play games of one person against a bot until `stop`, noting each answer."""
    body = {"seats": [{"name": "Ann"}, {"bot": "greedy"}]}
    while not stop.is_set():
        created = client.post("/games", json=body)
        if created.status_code != 201:
            acked.refused += created.status_code == 503
            time.sleep(0.05)
            continue
        game, token = created.get_json()["id"], created.get_json()["seats"][0]["token"]
        acked.tokens[game] = token
        acked.note(game, created.get_json()["version"], created.headers["ETag"])
        auth = {"Authorization": f"Bearer {token}"}
        while not stop.is_set():
            listed = client.get(f"/games/{game}/legal-moves", headers=auth)
            if listed.status_code != 200:
                time.sleep(0.05)
                continue
            moves = listed.get_json()["moves"]
            if not moves:
                break  # the game ended
            headers = {
                **auth,
                "If-Match": listed.headers["ETag"],
                "Idempotency-Key": uuid.uuid4().hex,
            }
            answer = client.post(f"/games/{game}/moves", json=moves[0], headers=headers)
            if answer.status_code == 200:
                acked.note(game, answer.get_json()["version"], answer.headers["ETag"])
            elif answer.status_code == 503:
                acked.refused += 1


@dataclass
class Outcome:
    acked: Acked
    lost_moves: int
    lost_games: int
    promoted: RedisServer
    prefix: str
    client: FlaskClient


@pytest.fixture
def failover(make_app: Callable[..., Flask]) -> Iterator[Callable[[int], Outcome]]:
    servers: list[RedisServer] = []
    sockets: list[socket.socket] = []

    def run(wait_replicas: int) -> Outcome:
        primary = RedisServer().start()
        replica = start_replica(primary)
        servers.extend([primary, replica])
        prefix = f"f{uuid.uuid4().hex[:8]}"
        config = replace(
            TestConfig(),
            STORE_URL=primary.url,
            STORE_PREFIX=prefix,
            STORE_WAIT_REPLICAS=wait_replicas,
            STORE_WAIT_TIMEOUT_MS=200,
            RAISE_UNEXPECTED=False,
            ACCESS_LOG=False,
        )
        app = make_app(config)
        acked, stop = Acked(), threading.Event()
        threads = [
            threading.Thread(target=play, args=(app.test_client(), acked, stop), daemon=True)
            for _ in range(CLIENTS)
        ]
        for thread in threads:
            thread.start()
        # A witness game, made before the lag and moved once during it: a game
        # that survives the failover with a move lost however busy the machine.
        witness = app.test_client()
        made = witness.post("/games", json={"seats": [{"name": "Ann"}, {"bot": "greedy"}]})
        assert made.status_code == 201, made.get_json()
        game, token = made.get_json()["id"], made.get_json()["seats"][0]["token"]
        time.sleep(WARM_UP)
        admin = replica.client()
        # It falls behind: the primary goes on without it. Its new "primary" is a
        # socket of ours that never answers (a free port could be taken by another
        # test's server meanwhile, and a sync with it would empty the replica).
        dead = socket.create_server(("127.0.0.1", 0))
        sockets.append(dead)
        admin.execute_command("REPLICAOF", "127.0.0.1", str(dead.getsockname()[1]))
        auth = {"Authorization": f"Bearer {token}"}
        listed = witness.get(f"/games/{game}/legal-moves", headers=auth).get_json()
        moved = witness.post(f"/games/{game}/moves", json=listed["moves"][0], headers=auth)
        if moved.status_code == 200:
            acked.tokens[game] = token
            acked.note(game, moved.get_json()["version"], moved.headers["ETag"])
        else:
            acked.refused += moved.status_code == 503
        time.sleep(LAG)
        primary.stop(hard=True)  # SIGKILL
        stop.set()
        for thread in threads:
            thread.join(30)
        admin.execute_command("REPLICAOF", "NO", "ONE")
        lost_moves = lost_games = 0
        for game, (version, tag) in acked.versions.items():
            raw_version, nonce = admin.hmget(f"{prefix}:{{{game}}}:g", "version", "nonce")
            kept = int(raw_version or 0)
            if kept < version:
                lost_moves += version - kept
                lost_games += kept == 0
            elif kept == version:
                assert tag == f'"{version}.{nonce.decode()}"'  # the very state acknowledged
        promoted = replace(config, STORE_URL=replica.url)
        return Outcome(
            acked, lost_moves, lost_games, replica, prefix, make_app(promoted).test_client()
        )

    yield run
    for server in servers:
        server.cleanup()
    for dead in sockets:
        dead.close()


def test_with_wait_replicas_no_acknowledged_move_is_lost(
    failover: Callable[[int], Outcome],
) -> None:
    outcome = failover(1)
    print(
        f"\nSTORE_WAIT_REPLICAS=1: {outcome.acked.moves} acknowledged, "
        f"{outcome.acked.refused} answered 503, {outcome.lost_moves} lost"
    )
    assert outcome.acked.moves > 20  # under load
    assert outcome.acked.refused > 0  # the saves the cut-off replica lacks were refused
    assert outcome.lost_moves == 0


def test_without_it_the_moves_of_the_lag_are_lost_and_their_etags_answer_412(
    failover: Callable[[int], Outcome],
) -> None:
    outcome = failover(0)
    print(
        f"\nSTORE_WAIT_REPLICAS=0: {outcome.acked.moves} acknowledged, "
        f"{outcome.lost_moves} lost ({outcome.lost_games} games lost whole)"
    )
    assert outcome.lost_moves > 0
    # A game that lost moves but survived: the promoted replica makes its lost
    # versions again, for other states; a client's ETag of the lost state is 412.
    admin = outcome.promoted.client()

    def kept_of(game: str) -> int:
        return int(admin.hget(f"{outcome.prefix}:{{{game}}}:g", "version") or 0)

    survivors = [
        (game, version, tag)
        for game, (version, tag) in outcome.acked.versions.items()
        if 0 < kept_of(game) < version
    ]
    assert survivors, (
        "no game survived with moves lost",
        {game: (version, kept_of(game)) for game, (version, _) in outcome.acked.versions.items()},
        admin.info("replication"),
    )
    game, version, tag = survivors[0]
    kept = kept_of(game)
    client = outcome.client
    auth = {"Authorization": f"Bearer {outcome.acked.tokens[game]}"}
    assert client.get(f"/games/{game}", headers=auth).get_json()["version"] == kept
    # Play on the promoted replica until it has made the lost version again.
    now = kept
    while now < version:
        listed = client.get(f"/games/{game}/legal-moves", headers=auth).get_json()
        if not listed["moves"]:  # the game ended first: its ETags still differ
            break
        now = client.post(f"/games/{game}/moves", json=listed["moves"][0], headers=auth).get_json()[
            "version"
        ]
    again = client.get(f"/games/{game}", headers=auth)
    if now == version:
        # The same number, another state: the ETag differs, by its epoch.
        assert again.headers["ETag"] != tag and again.headers["ETag"].startswith(f'"{version}.')
    else:
        assert not again.headers["ETag"].startswith(f'"{version}.')
    listed = client.get(f"/games/{game}/legal-moves", headers=auth).get_json()
    # Any move (If-Match is checked before the move is): the listed one if any.
    move = listed["moves"][0] if listed["moves"] else {"type": "draw", "source": "stock"}
    stale = {**auth, "If-Match": tag}  # the ETag of the lost state its client saw
    answer = client.post(f"/games/{game}/moves", json=move, headers=stale)
    assert answer.status_code == 412, answer.get_json()
    assert client.get(f"/games/{game}", headers={**auth, "If-None-Match": tag}).status_code == 200
