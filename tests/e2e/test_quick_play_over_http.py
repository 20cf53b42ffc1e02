"""Quick play end to end: gunicorn (2 workers) + redis-server + 2 runner processes.

40 clients queueing at once for 4-player `standard` end up in exactly 10 full
games, no ticket in two games and none lost (repeated `QUICKPLAY_REPEATS` times,
20 by default); a lone client allowing bots is seated with bots after the fill
delay; four clients following their tickets' streams (Server-Sent Events)
are pushed one game's seats; and a runner SIGKILLed in the middle of matching
loses no ticket and seats none twice (its pending matches are completed by the
next runner after their lease); and tickets sent at once by one client stop at its quota (429).
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from tests.e2e.conftest import E2E_ENV
from tests.e2e.http import Client
from tests.support.gunicorn import GunicornServer

pytestmark = pytest.mark.slow

#: Rounds of the 40-client test (the full run's 20; fewer for a quick look).
REPEATS = int(os.environ.get("QUICKPLAY_REPEATS", "20"))
#: Seconds a ticket allowing bots waits before bots fill its table, here.
BOT_FILL = 2.0


@pytest.fixture(scope="module")
def prefix() -> str:
    """The store's key prefix of this module's servers."""
    return f"qp{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def server(redis_url: str, prefix: str) -> Iterator[GunicornServer]:
    """gunicorn with 2 workers and 2 runner processes on the session's Redis."""
    env = {
        **E2E_ENV,
        "STORE_URL": redis_url,
        "STORE_PREFIX": prefix,
        "RUNNER_IDLE": "0.05",
        "QUEUE_BOT_FILL_SECONDS": str(BOT_FILL),
        "QUEUE_MATCH_LEASE": "1",
        # 40 long-polls from one address over two workers.
        "LONGPOLL_PER_ADDRESS": "0",
    }
    with GunicornServer(env, workers=2) as started:
        started.start_runner()  # the second runner
        yield started


def queue_and_wait(url: str, name: str, out: dict[str, Any], **body: Any) -> None:
    """One client: queue for a table, long-poll until matched; ``out[name]`` the
    last answer."""
    client = Client(url)
    try:
        sent = {"preset": "standard", "players": 4, "name": name, **body}
        answer = client.request("POST", "/queue", sent)
        assert answer.status == 201, answer
        ticket, secret = answer.json["ticket"], answer.json["secret"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            polled = client.get(f"/queue/{ticket}?wait=10", token=secret)
            assert polled.status == 200, polled
            if polled.json["status"] == "matched":
                out[name] = polled.json
                return
        out[name] = polled.json
    finally:
        client.connection.close()


def check_games(url: str, seated: dict[str, Any], tables: int, players: int) -> None:
    """Every client seated once, ``tables`` games of ``players`` seats each, every
    seat the client's own (its name, its token's view)."""
    assert all(answer["status"] == "matched" for answer in seated.values()), seated
    games = Counter(answer["game"] for answer in seated.values())
    assert len(games) == tables and set(games.values()) == {players}
    client = Client(url)
    try:
        seats: dict[str, set[int]] = {}
        for name, answer in seated.items():
            assert answer["seat"] not in seats.setdefault(answer["game"], set())
            seats[answer["game"]].add(answer["seat"])
            view = client.get(f"/games/{answer['game']}", token=answer["token"])
            assert view.status == 200, view
            assert view.json["you"] == answer["seat"]
            assert view.json["seats"][answer["seat"]]["name"] == name
            assert view.json["status"] == "active" and view.json["deal"] == "random"
    finally:
        client.connection.close()


def at_once(
    client: Callable[[str, str, dict[str, Any]], None], url: str, names: list[str]
) -> dict[str, Any]:
    """Run one ``client`` per name at once (a thread each); what each left, by name."""
    out: dict[str, Any] = {}
    threads = [threading.Thread(target=client, args=(url, name, out)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(90)
    return out


@pytest.mark.parametrize("round_", range(REPEATS))
def test_forty_clients_make_ten_full_games(server: GunicornServer, round_: int) -> None:
    seated = at_once(queue_and_wait, server.url, [f"r{round_}c{i}" for i in range(40)])
    assert len(seated) == 40
    check_games(server.url, seated, tables=10, players=4)


def test_a_lone_client_allowing_bots_is_seated_with_bots(server: GunicornServer) -> None:
    seated: dict[str, Any] = {}
    started = time.monotonic()
    queue_and_wait(server.url, "Lone", seated, preset="express", players=3, bots_allowed=True)
    assert seated["Lone"]["status"] == "matched"
    assert time.monotonic() - started >= BOT_FILL
    client = Client(server.url)
    view = client.get(f"/games/{seated['Lone']['game']}", token=seated["Lone"]["token"])
    client.connection.close()
    assert [seat["kind"] for seat in view.json["seats"]] == ["human", "bot", "bot"]


def queue_and_follow(url: str, name: str, out: dict[str, Any]) -> None:
    """One client: queue for a 4-player `standard` table, then follow the
    ticket's stream to its end; ``out[name]`` its messages (event name, data)."""
    client = Client(url)
    try:
        sent = {"preset": "standard", "players": 4, "name": name}
        answer = client.request("POST", "/queue", sent)
        assert answer.status == 201, answer
        ticket, secret = answer.json["ticket"], answer.json["secret"]
    finally:
        client.connection.close()
    request = urllib.request.Request(
        f"{url}/queue/{ticket}/stream",
        headers={"Authorization": f"Bearer {secret}", "Accept": "text/event-stream"},
    )
    messages: list[tuple[str, Any]] = []
    with urllib.request.urlopen(request, timeout=60) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        event = ""
        for raw in stream:  # the server ends the stream once the ticket is matched
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[len("event: ") :]
            elif line.startswith("data: "):
                messages.append((event, json.loads(line[len("data: ") :])))
    out[name] = messages


def test_four_clients_following_their_streams_are_pushed_one_game(server: GunicornServer) -> None:
    followed = at_once(queue_and_follow, server.url, [f"s{i}" for i in range(4)])
    assert len(followed) == 4
    for messages in followed.values():
        # Waiting until the stream's last message, the seat (a ticket matched
        # before its stream opened gets only that).
        assert [name for name, _ in messages[:-1]] == ["waiting"] * (len(messages) - 1)
        assert messages[-1][0] == "matched", messages
    assert any(messages[0][0] == "waiting" for messages in followed.values())
    check_games(server.url, {name: m[-1][1] for name, m in followed.items()}, tables=1, players=4)


def test_a_runner_killed_mid_matching_loses_no_ticket(
    server: GunicornServer, redis_url: str, prefix: str
) -> None:
    """SIGKILL the only runner as soon as it has claimed a first table, while most
    tickets still wait: the next runner seats every ticket once."""
    server.stop_runner()
    store = redis.Redis.from_url(redis_url)
    before = stored_games(store, prefix)
    tickets = 200
    client = Client(server.url)
    queued: dict[str, tuple[str, str]] = {}
    for i in range(tickets):
        answer = client.request(
            "POST", "/queue", {"preset": "standard", "players": 4, "name": f"k{i}"}
        )
        assert answer.status == 201, answer
        queued[f"k{i}"] = (answer.json["ticket"], answer.json["secret"])
    pending_key = f"{prefix}:{{queue}}:pending"
    doomed = server.start_runner()
    deadline = time.monotonic() + 30
    while not store.zcard(pending_key) and time.monotonic() < deadline:
        time.sleep(0.001)
    doomed.send_signal(signal.SIGKILL)
    doomed.wait(10)
    at_kill = Counter(
        client.get(f"/queue/{ticket}", token=secret).json["status"]
        for ticket, secret in queued.values()
    )
    assert at_kill["waiting"] > 0, at_kill  # killed in the middle, not after
    server.start_runner()
    seated: dict[str, Any] = {}
    deadline = time.monotonic() + 60
    for name, (ticket, secret) in queued.items():
        while time.monotonic() < deadline:
            polled = client.get(f"/queue/{ticket}?wait=5", token=secret)
            if polled.json["status"] == "matched":
                break
        seated[name] = polled.json
    client.connection.close()
    check_games(server.url, seated, tables=tickets // 4, players=4)
    assert store.zcard(pending_key) == 0
    # No game made twice: the games stored since are exactly the matched ones.
    assert stored_games(store, prefix) - before == {answer["game"] for answer in seated.values()}
    store.close()


def stored_games(store: redis.Redis, prefix: str) -> set[str]:
    """The ids of the games stored under ``prefix`` (their hashes' keys)."""
    return {key.decode().split("{")[1].split("}")[0] for key in store.scan_iter(f"{prefix}:*:g")}


@pytest.fixture(scope="module")
def limited(redis_url: str) -> Iterator[GunicornServer]:
    """gunicorn (2 workers) with the rate limiter on and a quota of 3 tickets."""
    env = {
        **E2E_ENV,
        "RATELIMIT_ENABLED": "1",
        "QUEUE_TICKETS_PER_CLIENT": "3",
        "STORE_URL": redis_url,
        "STORE_PREFIX": f"qq{uuid.uuid4().hex[:8]}",
    }
    with GunicornServer(env, workers=2, runner=False) as started:
        yield started


def test_tickets_sent_at_once_stop_at_the_clients_quota(limited: GunicornServer) -> None:
    """Twelve tickets from one address at once, over two workers: exactly 3 are
    queued, the other 9 refused 429 ticket_quota_exceeded."""
    answers: list[tuple[int, str]] = []

    def send(i: int) -> None:
        client = Client(limited.url)
        body = {"preset": "standard", "players": 5, "name": f"q{i}"}
        answer = client.request("POST", "/queue", body)
        answers.append((answer.status, answer.json.get("code", "")))
        client.connection.close()

    threads = [threading.Thread(target=send, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(answers) == [(201, "")] * 3 + [(429, "ticket_quota_exceeded")] * 9
